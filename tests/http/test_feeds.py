"""Atom feeds (RFC 4287): /feed.atom, /m/<slug>.atom, /hw/<slug>.atom,
/disputes.atom and /u/<name>.atom, each valid against RFC 4287's RELAX NG
schema (tests/vectors/rfc4287_atom.rnc, converted with trang, checked with xmllint),
newest first, at most 50 entries, without runs that left the rankings."""
import os
import shutil
import subprocess
import xml.etree.ElementTree as ET

import pytest

from conftest import ROOT, make_payload, new_key, sign

ATOM = "{http://www.w3.org/2005/Atom}"
RNC = os.path.join(ROOT, "tests", "vectors", "rfc4287_atom.rnc")


@pytest.fixture(scope="module")
def atom_rng(tmp_path_factory):
    for tool in ("trang", "xmllint"):
        assert shutil.which(tool), "%s is missing: deploy/deps.sh installs it" % tool
    out = str(tmp_path_factory.mktemp("atom") / "atom.rng")
    subprocess.run(["trang", "-I", "rnc", "-O", "rng", RNC, out], check=True, timeout=120)
    return out


def valid(rng, text, tmp_path):
    path = tmp_path / ("feed-%d.xml" % len(os.listdir(tmp_path)))
    path.write_bytes(text)
    r = subprocess.run(["xmllint", "--noout", "--relaxng", rng, str(path)],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    return ET.fromstring(text)


def feed(server, rng, path, tmp_path):
    r = server.get(path)
    assert r.status_code == 200, r.text
    assert r.headers["Content-Type"] == "application/atom+xml"
    root = valid(rng, r.content, tmp_path)
    assert root.find(ATOM + "id").text == server.url + path
    return root, [e.find(ATOM + "id").text.rsplit("/", 1)[1] for e in root.findall(ATOM + "entry")]


def upload(server, decode=10.0, name="Qwen2.5-7B-Instruct", hw="M3 Ultra", headers=None):
    p = make_payload(model__name=name, hardware__accelerator_summary=hw)
    p["workloads"]["chat-short"]["decode_tok_s"] = decode
    r = server.upload(sign(p, new_key())[0], headers)
    assert r.status_code == 201, r.text
    return r.json()["id"]


def test_empty_feeds_are_valid(server, atom_rng, tmp_path):
    for path in ("/feed.atom", "/m/nothing-here.atom", "/hw/none.atom", "/disputes.atom"):
        root, ids = feed(server, atom_rng, path, tmp_path)
        assert ids == []
    assert server.get("/u/nobody.atom").status_code == 404
    assert server.get("/m/Not_A_Slug.atom").status_code == 404


def test_feeds_list_newest_runs_and_escape_text(server, atom_rng, tmp_path):
    evil = 'Qwen <script>alert("x")</script> & "co"'
    a = upload(server, 10.0)
    b = upload(server, 20.0, name=evil, hw="RTX 4090")
    c = upload(server, 30.0)
    root, ids = feed(server, atom_rng, "/feed.atom", tmp_path)
    assert set(ids) == {a, b, c} and len(ids) == 3
    titles = [e.find(ATOM + "title").text for e in root.findall(ATOM + "entry")]
    assert any(t.startswith(evil) for t in titles)   # escaped in XML, intact once parsed
    _, ids = feed(server, atom_rng, "/m/qwen2-5-7b.atom", tmp_path)
    assert set(ids) == {a, c}
    _, ids = feed(server, atom_rng, "/hw/rtx-4090.atom", tmp_path)
    assert ids == [b]
    assert server.post("/api/v1/runs/%s/disputes" % a, json={"body": "Hm."}).status_code == 201
    root, ids = feed(server, atom_rng, "/disputes.atom", tmp_path)
    assert [e.find(ATOM + "id").text for e in root.findall(ATOM + "entry")] == [
        server.url + "/r/%s#dispute" % a]


def test_feeds_are_bounded_newest_first_without_withdrawn_runs(server, atom_rng, tmp_path):
    key = new_key()
    p = make_payload()
    r = server.upload(sign(p, key)[0])
    gone = r.json()["id"]
    ids = [upload(server, 10.0 + i) for i in range(52)]
    root, got = feed(server, atom_rng, "/feed.atom", tmp_path)
    assert len(got) == 50 and set(got) <= set(ids + [gone])
    order = [(e.find(ATOM + "updated").text, e.find(ATOM + "id").text.rsplit("/", 1)[1])
             for e in root.findall(ATOM + "entry")]
    assert order == sorted(order, reverse=True)
    assert root.find(ATOM + "updated").text == order[0][0]
    # A withdrawn run leaves every feed.
    model_feed = "/m/qwen3-coder-30b-a3b.atom"
    assert feed(server, atom_rng, model_feed, tmp_path)[1] == [gone]
    w = sign({"run_id": gone, "action": "withdraw", "reason": "Oops."}, key)[0]
    assert server.post("/api/v1/runs/%s/withdraw" % gone, data=w,
                       headers={"Content-Type": "application/jose"}).status_code == 200
    assert feed(server, atom_rng, model_feed, tmp_path)[1] == []


def test_account_feed_leaves_out_anonymous_runs(server, atom_rng, tmp_path):
    token = server.account("alice")
    auth = {"Authorization": "Bearer " + token}
    mine = upload(server, 10.0, headers=auth)
    anon = upload(server, 11.0, headers=dict(auth, **{"X-LLM-Speed-Anon": "1"}))
    other = upload(server, 12.0)
    _, ids = feed(server, atom_rng, "/u/alice.atom", tmp_path)
    assert ids == [mine]
    assert anon not in ids and other not in ids


def test_pages_point_to_their_feeds_and_twins(server, tmp_path):
    from conftest import validate_html
    rid = upload(server, 10.0)
    for page, feed_path, twin in (("/", "/feed.atom", "/index"),
                                  ("/m/qwen2-5-7b", "/m/qwen2-5-7b.atom", "/m/qwen2-5-7b"),
                                  ("/hw/m3-ultra", "/hw/m3-ultra.atom", "/hw/m3-ultra"),
                                  ("/disputes", "/disputes.atom", "/disputes")):
        text = server.get(page).text
        assert '<link rel="alternate" type="application/atom+xml" href="%s"' % feed_path in text, page
        assert '<link rel="alternate" type="text/csv" href="%s.csv"' % twin in text, page
        assert '<link rel="alternate" type="application/json" href="%s.json"' % twin in text, page
        assert server.get(feed_path).status_code == 200
        assert server.get(twin + ".csv").status_code == 200
        ok, report = validate_html(text, tmp_path)
        assert ok, report
    assert 'application/atom+xml' not in server.get("/outliers").text
