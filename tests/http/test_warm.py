"""Pages built ahead: a second after start the daemon builds, on a thread
of its own, every hardware's page and the board filtered to it, every
model's page and the sitemap, and keeps them, so their first visitor is
answered from memory; they then follow writes like any kept page
(server/warm.c)."""
import re

from conftest import make_payload, sign, wait_for


def metric(server, name, labels=""):
    m = re.search(r"^%s%s (\S+)$" % (re.escape(name), re.escape(labels)),
                  server.get("/metrics").text, re.M)
    return float(m.group(1)) if m else None


def upload(server, decode, model, accel):
    p = make_payload(model__name=model, hardware__accelerator_summary=accel, hardware__gpu_name=accel)
    p["workloads"]["chat-short"]["decode_tok_s"] = decode
    r = server.upload(sign(p)[0])
    assert r.status_code == 201, r.text
    return r.json()["id"]


def slugs(server, rid):
    j = server.get("/r/%s.json" % rid).json()
    return j["model"]["slug"], j["hardware"]["slug"]


def hits(server):
    return metric(server, "llmspeed_response_cache_hits_total", '{kind="list_html"}')


def test_pages_are_kept_before_anyone_asks(make_server):
    s = make_server(["--test-warm", "1"])
    a = upload(s, 101.0, "Frobnicator-7B-Chat", "Obscure X1")
    b = upload(s, 111.0, "Quuxinator-3B-Base", "Obscure Y2")
    (ma, ha), (mb, hb) = slugs(s, a), slugs(s, b)
    s.restart()
    # Two hardware pages, two filtered boards, two model pages, the sitemap.
    wait_for(lambda: metric(s, "llmspeed_pages_built_ahead_total") == 7, what="pages built ahead")
    assert metric(s, "llmspeed_response_cache_entries") >= 7
    for path in ("/m/" + ma, "/m/" + mb, "/hw/" + ha, "/hw/" + hb, "/?hw=" + ha, "/sitemap.xml"):
        before = hits(s)
        r = s.get(path)
        assert r.status_code == 200, path
        assert hits(s) == before + 1, path          # the first visit: from memory
    assert "101.0" in s.get("/m/" + ma).text
    # A write reaches a page built ahead as it reaches any kept page.
    upload(s, 133.0, "Frobnicator-7B-Chat", "Obscure X1")
    assert "133.0" in s.get("/m/" + ma).text and "133.0" in s.get("/hw/" + ha).text
    assert "pages ahead: 7 built" in s.read_log()


def test_without_it_the_first_visit_builds(make_server):
    s = make_server()
    rid = upload(s, 101.0, "Frobnicator-7B-Chat", "Obscure X1")
    m, _ = slugs(s, rid)
    s.restart()
    before = hits(s)
    assert s.get("/m/" + m).status_code == 200
    assert hits(s) == before
    assert metric(s, "llmspeed_pages_built_ahead_total") == 0
