"""/sitemap.xml and /sitemap-<n>.xml (the Sitemaps protocol 0.9): made
from the page kinds' table, every file valid against sitemaps.org's XSDs
(tests/vectors/sitemap.xsd, siteindex.xsd; `xmllint --noout --schema`),
addresses absolute under --base-url, lastmod from the runs; above the page
size (the hidden --sitemap-page-urls, 50,000 by default) an index of
paged files, and a 404 past the last one.
"""
import os
import re
import sqlite3
import subprocess
import xml.etree.ElementTree as ET

import pytest

from conftest import ROOT, make_payload, sign, wait_for

BASE = "https://speed.example.org"
NS = "{http://www.sitemaps.org/schemas/sitemap/0.9}"
VECTORS = os.path.join(ROOT, "tests", "vectors")
HOSTILE = "Evil\"><script>alert(1)</script>&'model"


def upload(server, **over):
    token, _ = sign(make_payload(**over))
    r = server.upload(token)
    assert r.status_code == 201, r.text
    return r.json()["id"]


def valid(server, path, tmp_path, schema):
    """The file at path, checked against schema (sitemap.xsd or
    siteindex.xsd); its (loc, lastmod) pairs."""
    r = server.get(path)
    assert r.status_code == 200, (path, r.text[:300])
    assert r.headers["Content-Type"].startswith("application/xml")
    f = tmp_path / ("got-%s" % path.strip("/").replace("/", "_"))
    f.write_bytes(r.content)
    p = subprocess.run(["xmllint", "--noout", "--schema", os.path.join(VECTORS, schema), str(f)],
                       capture_output=True, text=True)
    assert p.returncode == 0, (path, p.stderr)
    root = ET.fromstring(r.content)
    item = "url" if schema == "sitemap.xsd" else "sitemap"
    return [(e.find(NS + "loc").text, getattr(e.find(NS + "lastmod"), "text", None))
            for e in root.findall(NS + item)]


@pytest.fixture
def site(make_server):
    s = make_server(["--base-url", BASE + "/"], clock=True)
    s.run_a = upload(s, model__name="Qwen3-8B", hardware__accelerator_summary="NVIDIA GeForce RTX 4090",
                     hardware__gpu_name="NVIDIA GeForce RTX 4090")
    s.clock.advance(5)
    s.run_b = upload(s)
    return s


def test_one_file_lists_every_kind_with_lastmod(site, tmp_path):
    urls = dict(valid(site, "/sitemap.xml", tmp_path, "sitemap.xsd"))
    for path in ("/r/" + site.run_a, "/r/" + site.run_b, "/m/qwen3-8b", "/hw/rtx-4090",
                 "/m/qwen3-8b/hw/rtx-4090", "/m/qwen3-coder-30b-a3b/hw/m3-ultra",
                 "/glossary", "/", "/methodology", "/models", "/hardware"):
        assert BASE + path in urls, path
    # Pages that only repeat others, or a person's own, are not listed.
    for loc in urls:
        assert "?" not in loc and not re.search(r"\.(json|csv|jws)$", loc) and "/u/" not in loc, loc
    assert len(urls) == len(set(urls))
    for loc, lastmod in urls.items():
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", lastmod or ""), (loc, lastmod)
    run_a = site.get("/r/%s.json" % site.run_a).json()
    assert urls[BASE + "/r/" + site.run_a] == run_a["received_at"]
    # A model's and a pair's: their newest run; the reference pages: the newest of all.
    newest = site.get("/r/%s.json" % site.run_b).json()["received_at"]
    assert urls[BASE + "/m/qwen3-8b"] == run_a["received_at"] < newest
    assert urls[BASE + "/m/qwen3-8b/hw/rtx-4090"] == run_a["received_at"]
    assert urls[BASE + "/glossary"] == newest
    assert site.get("/sitemap-1.xml").status_code == 404   # one file: no index


def test_lastmod_moves_after_an_upload(site, tmp_path):
    before = dict(valid(site, "/sitemap.xml", tmp_path, "sitemap.xsd"))
    again = site.get("/sitemap.xml")
    assert site.get("/sitemap.xml", headers={"If-None-Match": again.headers["ETag"]}).status_code == 304
    site.clock.advance(60)
    rid = upload(site, model__name="Qwen3-8B", hardware__accelerator_summary="NVIDIA GeForce RTX 4090",
                 hardware__gpu_name="NVIDIA GeForce RTX 4090")
    after = dict(valid(site, "/sitemap.xml", tmp_path, "sitemap.xsd"))
    assert BASE + "/r/" + rid in after and BASE + "/r/" + rid not in before
    for path in ("/m/qwen3-8b", "/hw/rtx-4090", "/m/qwen3-8b/hw/rtx-4090", "/glossary"):
        assert after[BASE + path] > before[BASE + path], path
    assert after[BASE + "/hw/m3-ultra"] == before[BASE + "/hw/m3-ultra"]


def test_index_of_paged_files_above_the_page_size(make_server, tmp_path):
    s = make_server(["--base-url", BASE, "--sitemap-page-urls", "4"])
    ids = [upload(s, model__name="Model-%d" % i) for i in range(6)]
    index = valid(s, "/sitemap.xml", tmp_path, "siteindex.xsd")
    assert len(index) >= 5
    seen = []
    for n, (loc, lastmod) in enumerate(index, 1):
        assert loc == "%s/sitemap-%d.xml" % (BASE, n)
        assert lastmod
        urls = valid(s, "/sitemap-%d.xml" % n, tmp_path, "sitemap.xsd")
        assert 1 <= len(urls) <= 4, (n, urls)
        seen += [u for u, _ in urls]
    assert len(seen) == len(set(seen))
    for path in ["/r/" + i for i in ids] + ["/m/model-%d" % i for i in range(6)] + \
            ["/m/model-0/hw/m3-ultra", "/hw/m3-ultra", "/glossary", "/"]:
        assert BASE + path in seen, path
    for past in ("/sitemap-%d.xml" % (len(index) + 1), "/sitemap-0.xml", "/sitemap-01.xml",
                 "/sitemap-x.xml", "/sitemap-99999999999999999999.xml"):
        r = s.get(past)
        assert r.status_code == 404 and r.json()["error"]["code"] == "not_found", past


def test_index_files_are_smaller_than_its_threshold(make_server, tmp_path):
    """Files of the index hold at most the file size (10,000 by default;
    --sitemap-file-urls here) while /sitemap.xml stays one urlset up to the
    page size, so a file rebuilt after a write reads a fifth of the runs:
    the files together list exactly what the one urlset lists."""
    s = make_server(["--base-url", BASE, "--sitemap-file-urls", "3"])
    for i in range(5):
        upload(s, model__name="Model-%d" % i)
    one = [u for u, _ in valid(s, "/sitemap.xml", tmp_path, "sitemap.xsd")]
    assert s.get("/sitemap-1.xml").status_code == 404   # over the file size, under the page size: no index
    s.extra_args += ["--sitemap-page-urls", "8"]
    s.restart()
    index = valid(s, "/sitemap.xml", tmp_path, "siteindex.xsd")
    seen = []
    for n in range(1, len(index) + 1):
        urls = valid(s, "/sitemap-%d.xml" % n, tmp_path, "sitemap.xsd")
        assert 1 <= len(urls) <= 3, (n, urls)
        seen += [u for u, _ in urls]
    assert sorted(seen) == sorted(one)


def test_a_hostile_name_is_escaped(make_server, tmp_path):
    s = make_server(["--base-url", BASE])
    rid = upload(s, model__name=HOSTILE, hardware__accelerator_summary="RTX \u202e4090 <&>")
    r = s.get("/sitemap.xml")
    assert "<script" not in r.text and "\u202e" not in r.text
    urls = dict(valid(s, "/sitemap.xml", tmp_path, "sitemap.xsd"))
    assert BASE + "/r/" + rid in urls
    slug = s.get("/r/%s.json" % rid).json()["model"]["slug"]
    assert BASE + "/m/" + slug in urls
    for loc in urls:
        assert re.fullmatch(r"https://speed\.example\.org/[A-Za-z0-9._~%/-]*", loc), loc


def test_a_query_does_not_stand_in_for_the_plain_file(site, tmp_path):
    plain = site.get("/sitemap.xml").text
    other = site.get("/sitemap.xml?suite=suite-v0")
    assert other.status_code == 404      # a suite with no runs
    assert site.get("/sitemap.xml").text == plain
    assert site.get("/sitemap.xml?x=1").status_code in (200, 400)
    assert site.get("/sitemap.xml").text == plain


def test_robots_names_the_sitemap(site):
    assert "Sitemap: %s/sitemap.xml" % BASE in site.get("/robots.txt").text.splitlines()


def test_a_sealed_file_of_runs_stays_kept_through_uploads(make_server):
    """A file of runs below the highest rowid (sealed: new runs only go
    past it) is kept through uploads, while the last file, which they fill,
    follows each: a time changed behind the daemon's back stays unseen in
    the sealed file until a write of every list (a post on an open dispute
    thread), after which it shows."""
    s = make_server(["--base-url", BASE, "--sitemap-file-urls", "2", "--sitemap-page-urls", "3"])
    ids = [upload(s, model__name="Model-%d" % i) for i in range(5)]
    # Files of two: the reference pages first, then rowids 1-2, 3-4, 5-6.
    files = re.findall(r"<loc>%s(/sitemap-\d+\.xml)</loc>" % re.escape(BASE), s.get("/sitemap.xml").text)
    sealed = next(f for f in files if ids[0] in s.get(f).text)
    last = next(f for f in files if ids[4] in s.get(f).text)
    assert ids[1] in s.get(sealed).text and files.index(last) == files.index(sealed) + 2
    for path in (sealed, last):
        wait_for(lambda: kept(s, path), what=path + " kept")
    c = sqlite3.connect(s.db, timeout=10)
    with c:
        assert c.execute("UPDATE runs SET received_at = '2020-01-02T03:04:05Z' WHERE id = ?",
                         (ids[0],)).rowcount == 1
    c.close()
    new = upload(s, model__name="Model-9")
    assert new in s.get(last).text                  # the last file follows
    assert "2020-01-02" not in s.get(sealed).text   # the sealed one stays kept
    r = s.post("/api/v1/runs/%s/disputes" % ids[4], json={"body": "Too fast for this card."})
    assert r.status_code == 201, r.text
    wait_for(lambda: kept(s, sealed), what=sealed + " kept again")
    r = s.post("/api/v1/runs/%s/disputes" % ids[4], json={"body": "Same card, half of it."})
    assert r.status_code == 201, r.text
    assert "2020-01-02" in s.get(sealed).text


def kept(s, path):
    """1 when path is answered from the kept copy (a list page is kept a
    moment after it is sent)."""
    def hits():
        m = re.search(r'^llmspeed_response_cache_hits_total\{kind="list_html"\} (\S+)$',
                      s.get("/metrics").text, re.M)
        return float(m.group(1))
    before = hits()
    assert s.get(path).status_code == 200, path
    return hits() > before
