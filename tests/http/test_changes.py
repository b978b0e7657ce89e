"""Speed changes between backend versions (issue 26), through the real
daemon: eight keys near 100 tok/s on llama.cpp b6100 and eight near 120 on
b6200 in one combination make one change of about +20% on /changes.json,
/changes and /changes.atom (valid against RFC 4287's schema, checked with
xmllint); two versions at the same speed make none; filters by backend and
hardware; the version chart of the model on its hardware (versions_series)
the figures against an exact recomputation are tests/store/check_versions.c's."""
import re
import sqlite3
import statistics

import lxml.html
import pytest

from conftest import make_payload, new_key, sign, wait_for
from test_feeds import atom_rng, valid  # noqa: F401  (the fixture)

MODEL = "Qwen2.5-7B-Instruct"
SLUG = "qwen2-5-7b"


def upload(server, decode, version, key=None, model=MODEL, hw="RTX 4090"):
    p = make_payload()
    p["backend"] = {"name": "llama.cpp", "version": version, "runner": None}
    p["model"].update({"name": model, "quantization": "Q4_K_M", "format": "gguf"})
    p["model"]["digest"] = "sha256:" + ("%064x" % abs(hash(model)))[:64]
    p["hardware"].update({"accelerator_summary": hw, "gpu_name": hw, "cpu_model": "AMD Ryzen 9",
                          "vram_gb": 24, "ram_gb": 64, "os": "Linux", "fingerprint_hash": None})
    p["workloads"]["chat-short"]["decode_tok_s"] = decode
    r = server.upload(sign(p, key or new_key())[0])
    assert r.status_code == 201, r.text
    return r.json()["id"]


def changes(server, query=""):
    r = server.get("/changes.json" + query)
    assert r.status_code == 200, r.text
    return r.json()["changes"]


def test_a_faster_build_is_one_change(server, atom_rng, tmp_path):
    old = [98.0 + 0.5 * i for i in range(8)]
    new = [118.0 + 0.5 * i for i in range(8)]
    for v in old:
        upload(server, v, "b6100")
    for v in new:
        upload(server, v, "b6200-abc1234")     # the same build as "b6200"
    # (Seven keys of b6200 already differ: the change can show before the
    # last upload and is updated by it.)
    (c,) = wait_for(lambda: [x for x in changes(server) if x["to_keys"] == 8], what="the change")
    assert len(changes(server)) == 1
    assert c["from_version"] == "b6100" and c["to_version"] == "b6200"
    assert c["from_keys"] == 8 and c["to_keys"] == 8
    assert c["from_median_tok_s"] == round(statistics.median(old), 2)
    assert c["to_median_tok_s"] == round(statistics.median(new), 2)
    want = (statistics.median(new) / statistics.median(old) - 1) * 100
    assert abs(c["change_pct"] - want) <= 0.05 and 18 <= c["change_pct"] <= 22
    st = c["statistic"]
    assert st["test"] == "mann_whitney_u" and st["u"] == 64 and st["p"] < 0.01 and st["exact"]
    assert c["href"] == "/m/%s/hw/rtx-4090" % SLUG
    # One rounding for the sentence and the page's column: one decimal.
    assert re.match(r"llama\.cpp b6200 is 20\.\d% faster than b6100 on ", c["sentence"]), c["sentence"]
    assert c["sentence"].endswith("Q4_K_M (8 vs 8 submitters)")
    # Filters.
    assert len(changes(server, "?backend=llama.cpp")) == 1
    assert changes(server, "?backend=mlx") == []
    assert len(changes(server, "?hw=rtx-4090")) == 1
    assert changes(server, "?hw=m3-ultra") == []
    assert len(changes(server, "?hw=rtx-4090&backend=llama.cpp")) == 1
    for q, field in (("?backend=nope", "backend"), ("?hw=Not_A_Slug", "hw")):
        r = server.get("/changes.json" + q)
        assert r.status_code == 400 and r.json()["error"]["field"] == field
    # The page and the feed.
    page = server.get("/changes").text
    assert re.search(r"20\.\d% faster than b6100", page)
    check_page_words(server, c)
    r = server.get("/changes.atom")
    assert r.status_code == 200 and r.headers["Content-Type"] == "application/atom+xml"
    root = valid(atom_rng, r.content, tmp_path)
    entries = root.findall("{http://www.w3.org/2005/Atom}entry")
    assert len(entries) == 1
    assert re.search(r"20\.\d% faster", entries[0].find("{http://www.w3.org/2005/Atom}title").text)
    empty = server.get("/changes.atom?backend=mlx")
    valid(atom_rng, empty.content, tmp_path)
    check_kept(server, c)


def check_kept(server, c):
    """/changes is kept like the other lists (issue 39): served again as
    it was, so an edit behind the daemon's back is not seen; a ?hw= page is
    built each time (any slug is a filter); the next write shows."""
    server.wait_refreshed()
    paths = ["/changes.json", "/changes.json?backend=llama.cpp", "/changes"]
    first = {p: server.get(p) for p in paths}
    for p in paths:
        again = server.get(p)
        assert again.text == first[p].text and again.headers["ETag"] == first[p].headers["ETag"], p
    db = sqlite3.connect(server.db, timeout=10)
    with db:
        db.execute("UPDATE changes SET change_pct = 77.7")
    db.close()
    assert changes(server)[0]["change_pct"] == c["change_pct"]               # the kept copy
    assert changes(server, "?backend=llama.cpp")[0]["change_pct"] == c["change_pct"]
    assert "77.7" not in server.get("/changes").text
    assert changes(server, "?hw=rtx-4090")[0]["change_pct"] == 77.7          # built each time
    assert changes(server, "?sort=x%d" % len(first))[0]["change_pct"] == 77.7  # read by nothing here
    upload(server, 119.0, "b6200")                                           # a write, a ninth key
    wait_for(lambda: changes(server)[0]["to_keys"] == 9, what="the kept list after a write")


def check_page_words(server, c):
    """/changes in words (issue 38): the change first in each row, in the
    sentence's rounding; the medians in the site's one precision; p as
    "p < 0.001" or two significant digits, never a raw float; the filters
    as choices from the changes' own backends and hardware."""
    doc = lxml.html.fromstring(server.get("/changes").text)
    (row,) = doc.xpath("//table[contains(@class, 'changes')]/tbody/tr")
    cells = [td.text_content().strip() for td in row.xpath("td")]
    pct = re.search(r"(\d+\.\d)% faster", c["sentence"]).group(1)
    assert cells[0] == "+%s%%" % pct, cells
    assert cells[3].startswith("%.1f " % c["from_median_tok_s"]) and "(8 submitters)" in cells[3], cells
    assert cells[4].startswith("%.1f " % c["to_median_tok_s"]), cells
    p = c["statistic"]["p"]
    assert cells[5] == ("p < 0.001" if p < 0.001 else "p = %s" % ("%.2g" % p)), cells
    body = " ".join(doc.xpath("//main")[0].itertext())
    raw = [w for w in re.findall(r"\S*(?:\d\.\d{3,}|\de-\d)\S*", body) if w != "0.001"]
    assert raw == [], raw
    # Filters: two selects whose options are the known values, nothing typed.
    assert not doc.xpath("//form[@action='/changes']//input[@type='text']")
    be = doc.xpath("//select[@name='backend']/option/@value")
    hw = doc.xpath("//select[@name='hw']/option")
    assert be == ["", "llama.cpp"] and [(o.get("value"), o.text) for o in hw] == [("", "All hardware"), ("rtx-4090", c["hw_name"])]
    # A filtered page still offers every choice, the chosen one selected.
    doc = lxml.html.fromstring(server.get("/changes?backend=mlx").text)
    assert doc.xpath("//select[@name='backend']/option[@selected]/@value") == ["mlx"]
    assert "rtx-4090" in doc.xpath("//select[@name='hw']/option/@value")


def test_the_same_speed_is_no_change(server):
    import random
    rnd = random.Random(7)
    keys = [new_key() for _ in range(9)]
    for ver in ("b6100", "b6200", "b6300"):
        for i, k in enumerate(keys):
            for _ in range(1 + i % 3):
                upload(server, round(100 + rnd.uniform(-3, 3), 2), ver, key=k)
    # A real change in another combination, uploaded after: once it shows,
    # the versions above were recomputed too (dirty versions go in order).
    for v in range(8):
        upload(server, 50.0 + v * 0.1, "b6100", model="Llama-3.1-8B-Instruct")
    for v in range(8):
        upload(server, 40.0 + v * 0.1, "b6200", model="Llama-3.1-8B-Instruct")
    # (The refresh may show the change once before its last upload counts.)
    (c,) = wait_for(lambda: [x for x in changes(server) if "(8 vs 8 submitters)" in x["sentence"]],
                    what="the later change, every upload counted")
    assert len(changes(server)) == 1
    assert c["model_slug"] == "llama-3-1-8b" and c["change_pct"] < -15
    assert re.match(r"llama\.cpp b6200 is 19\.9% slower than b6100", c["sentence"]), c["sentence"]
