"""The cheatsheet's memory-class filter (/cheatsheet?memory=, with its JSON
and CSV twins) and /m/<slug>?sort= within the digest the page shows
(issue 12, migration 0017), through the real daemon.

Runs are stored through the real upload endpoint; a moderator's ruling is
written into the database with sqlite3 while the daemon runs, as
test_find.py does."""
import urllib.parse

import lxml.html

from test_find import full, rule, srv, upload, upload_all, with_figures  # noqa: F401
from conftest import csv_table, validate_html


def with_memory(p, vram=None, ram=None):
    """p reporting vram_gb and ram_gb (None: left out)."""
    hw = p["hardware"]
    for k, v in (("vram_gb", vram), ("ram_gb", ram)):
        hw.pop(k, None)
        if v is not None:
            hw[k] = v
    return p


def cell_ids(m):
    """{(model slug, hw slug): [(backend, run id)]} of a cheatsheet JSON."""
    out = {}
    for row in m["rows"]:
        for h, c in zip(m["hardware"], row["cells"]):
            if c["entries"]:
                out[(row["model"]["slug"], h["slug"])] = [(e["backend"], e["id"]) for e in c["entries"]]
    return out


def html_ids(text):
    doc = lxml.html.fromstring(text)
    return sorted(h.split("/r/")[1] for h in
                  doc.xpath("//table[contains(@class, 'cheatsheet')]//a[starts-with(@href, '/r/')]/@href"))


def csv_ids(resp):
    header, rows = csv_table(resp)
    assert header[-1] == "run_id"
    return sorted(r["run_id"] for r in rows)


def test_cheatsheet_memory_class_filter(srv, tmp_path):
    # One accelerator name, three sizes: the fastest M3 Max is the 128 GB
    # one, but the 36 GB one must still show under its own class.
    big, small, gpu, odd, none = upload_all(srv, [
        with_memory(full("MemA", accel="M3 Max", decode=90.0), ram=128),
        with_memory(full("MemA", accel="M3 Max", decode=40.0), ram=36),
        # A 24 GB card that reports 25.76 GB (24,564 MiB in decimal GB),
        # with 64 GB of RAM beside it: the card's memory counts.
        with_memory(full("MemA", accel="RTX 4090", backend="llama.cpp", decode=120.0), vram=25.76, ram=64),
        # A GPU reporting 0 GB: its RAM counts.
        with_memory(full("MemB", accel="RTX 4090", backend="llama.cpp", decode=60.0), vram=0, ram=16),
        with_memory(full("MemB", accel="M3 Max", decode=10.0)),
    ])
    every = srv.get("/cheatsheet.json").json()
    assert every["memory"] is None
    assert cell_ids(every)[("mema", "m3-max")] == [("mlx", big)]

    def sheet(memory, **params):
        r = srv.get("/cheatsheet.json", params=dict(params, memory=memory))
        assert r.status_code == 200, r.text
        return r.json()

    m48 = sheet("48")
    assert m48["memory"] == "48" and m48["memory_label"] == "25 to 48 GB"
    assert cell_ids(m48) == {("mema", "m3-max"): [("mlx", small)]}
    assert [h["slug"] for h in m48["hardware"]] == ["m3-max"]
    assert cell_ids(sheet("24")) == {("mema", "rtx-4090"): [("llama.cpp", gpu)]}
    assert cell_ids(sheet("16")) == {("memb", "rtx-4090"): [("llama.cpp", odd)]}
    assert cell_ids(sheet("192")) == {("mema", "m3-max"): [("mlx", big)]}
    assert cell_ids(sheet("unknown")) == {("memb", "m3-max"): [("mlx", none)]}
    assert sheet("8")["rows"] == [] and sheet("8")["hardware"] == []
    # With the backend filter too.
    assert cell_ids(sheet("24", backend="mlx")) == {}
    # The choices, with the one shown selected.
    assert [(o["key"], o["selected"]) for o in m48["memories"]][:4] == [
        ("8", False), ("16", False), ("24", False), ("48", True)]

    # HTML, JSON and CSV agree, and the twin links keep the filter.
    page = srv.get("/cheatsheet", params={"memory": "48"})
    assert page.status_code == 200
    assert html_ids(page.text) == [small]
    r = srv.get("/cheatsheet.csv", params={"memory": "48"})
    assert r.status_code == 200 and r.headers["Content-Type"].startswith("text/csv")
    assert csv_ids(r) == [small]
    doc = lxml.html.fromstring(page.text)
    hrefs = doc.xpath("//p[@class='lede']//a/@href")
    twins = [h for h in hrefs if h.startswith("/cheatsheet.")]
    assert sorted(twins) == ["/cheatsheet.csv?memory=48", "/cheatsheet.json?memory=48"]
    assert doc.xpath("//select[@name='memory']/option[@selected]/@value") == ["48"]
    for t in twins:
        assert srv.get(t).status_code == 200
    assert csv_ids(srv.get("/cheatsheet.csv?memory=24")) == [gpu]
    ok, report = validate_html(page.text, tmp_path)
    assert ok, report

    # The cell follows a ruling: the 36 GB run upheld, its class empties;
    # the 128 GB run upheld, the unfiltered cell falls back to the 36 GB
    # one once restored.
    rule(srv, small, "upheld")
    assert sheet("48")["rows"] == [] and sheet("48")["hardware"] == []
    rule(srv, small, "ok")
    rule(srv, big, "upheld")
    assert cell_ids(srv.get("/cheatsheet.json").json())[("mema", "m3-max")] == [("mlx", small)]
    assert sheet("192")["rows"] == []


def test_cheatsheet_memory_filter_pages(srv):
    upload_all(srv, [with_memory(full("MPage-%02d" % i, accel="RTX 4090", decode=float(10 + i)), vram=24)
                     for i in range(22)] +
               [with_memory(full("MOther", accel="RTX 4090", decode=500.0), vram=8)])
    first = srv.get("/cheatsheet.json", params={"memory": "24"}).json()
    assert len(first["rows"]) == 20 and first["next"]
    assert "memory=24" in urllib.parse.urlsplit(first["next"]).query
    second = srv.get(first["next"]).json()
    names = [r["model"]["slug"] for r in first["rows"] + second["rows"]]
    assert len(second["rows"]) == 2 and second["next"] is None
    assert len(set(names)) == 22 and "mother" not in names


def test_cheatsheet_bad_memory_is_a_400_naming_it(srv):
    for path in ("/cheatsheet", "/cheatsheet.json", "/cheatsheet.csv"):
        for bad in ("12", "24GB", "x"):
            r = srv.get(path, params={"memory": bad})
            assert r.status_code == 400, (path, bad)
            assert "memory=" in r.text, r.text
    r = srv.get("/cheatsheet.json", params={"memory": "big"})
    assert r.json()["error"]["code"] == "invalid_query"
    # Empty is the "Any memory" choice of the form.
    assert srv.get("/cheatsheet.json", params={"memory": ""}).status_code == 200


def test_model_page_sort_keeps_to_the_digest_shown(srv, tmp_path):
    d1, d2 = "sha256:" + "1" * 64, "sha256:" + "2" * 64

    def run(digest, accel, decode, prefill, ttft):
        p = with_figures("DSort", accel, decode, prefill, ttft)
        p["model"]["digest"] = digest
        return p

    # Digest 1 is the fastest on M3 Ultra; digest 2's own combination
    # there must still be listed.
    a1 = upload(srv, run(d1, "M3 Ultra", 100.0, 500.0, 300.0))
    a2 = upload(srv, run(d2, "M3 Ultra", 60.0, 800.0, 150.0))
    slow2 = upload(srv, run(d2, "M3 Ultra", 20.0, 9000.0, 1.0))     # not its group's best
    srv.clock.advance()     # date received is kept to the second
    b2 = upload(srv, run(d2, "RTX 4090", 70.0, 600.0, 250.0))
    b1 = upload(srv, run(d1, "RTX 4090", 30.0, 400.0, 400.0))

    def order(**params):
        r = srv.get("/m/dsort.json", params=params)
        assert r.status_code == 200, r.text
        if "sort" in params:      # the digest's combinations, each by its best run
            return [x["best_run"] for x in r.json()["combos"]["rows"]]
        return [x["id"] for x in r.json()["list"]["runs"]]

    assert order(digest=d2) == [b2, a2, slow2]       # decode: every run of the digest
    assert order(digest=d2, sort="prefill") == [a2, b2]
    assert order(digest=d2, sort="ttft") == [a2, b2]
    assert order(digest=d2, sort="date") == [b2, a2]
    assert order(digest=d1, sort="prefill") == [a1, b1]
    assert order(digest=d2, sort="ttft", hw="m3-ultra") == [a2]
    # Paging links and the other sort links keep the digest.
    m = srv.get("/m/dsort.json", params={"digest": d2, "sort": "ttft"}).json()
    assert all("digest=" + urllib.parse.quote(d2, safe="") in s["href"] or
               "digest=" + d2 in s["href"] for s in m["sorts"])
    # Choosing another digest keeps the order.
    assert {urllib.parse.parse_qs(urllib.parse.urlsplit(d["href"]).query).get("sort", [None])[0]
            for d in m["digests"]} == {"ttft"}
    page = srv.get("/m/dsort", params={"digest": d2, "sort": "prefill"})
    doc = lxml.html.fromstring(page.text)
    ids = [h.split("/r/")[1] for h in doc.xpath("//table//a[starts-with(@href, '/r/')]/@href")]
    assert a2 in ids and b2 in ids and a1 not in ids and b1 not in ids
    ok, report = validate_html(page.text, tmp_path)
    assert ok, report
    # A ruling on the digest's best brings its next best in.
    rule(srv, a2, "upheld")
    assert order(digest=d2, sort="ttft") == [slow2, b2]


def test_memory_filter_answers_as_openapi_describes(srv):
    from test_openapi import check
    upload_all(srv, [with_memory(full("MApi", accel="RTX 4090"), vram=24)])
    for path in ("/cheatsheet.json", "/cheatsheet.csv", "/cheatsheet"):
        check(srv.get(path, params={"memory": "24"}), "GET", path)
        check(srv.get(path, params={"memory": "25"}), "GET", path)
    m = srv.get("/cheatsheet.json", params={"memory": "24"}).json()
    assert [o["key"] for o in m["memories"]] == ["8", "16", "24", "48", "96", "192", "over-192", "unknown"]
