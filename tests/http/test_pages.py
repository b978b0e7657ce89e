"""The browse pages over HTTP: /, /m/<slug>, /m/<slug>.json, /hw/<slug>,
/hw/<slug>.json (contract section 3).

Every run is stored through the real upload endpoint; the few states an
upload cannot make (a run taken out by a moderator, a second suite) are
written into the database file with sqlite3 while the daemon runs.  Pages
are read as a person would (parsed HTML, followed links) and as a script
would (the JSON), and every page must pass html-validate.
"""
import concurrent.futures
import html
import os
import re
import sqlite3
import subprocess

import lxml.html
import pytest

from conftest import HTML_VALIDATE, MODERATOR_TOKEN, ROOT, digest_for, make_payload, new_key, sign

PAGE = 20


# ---- helpers ----

def payload(model="Model A", accel="M3 Ultra", backend="mlx", decode=100.0,
            digest=None, quant="4bit", fmt="mlx", fingerprint=None, prefill=None):
    p = make_payload()
    p["model"]["name"] = model
    p["model"]["digest"] = digest or digest_for(model)
    p["model"]["quantization"] = quant
    p["model"]["format"] = fmt
    p["hardware"]["accelerator_summary"] = accel
    if fingerprint:
        p["hardware"]["fingerprint_hash"] = fingerprint
    else:
        del p["hardware"]["fingerprint_hash"]
    p["backend"]["name"] = backend
    p["workloads"]["chat-short"]["decode_tok_s"] = decode
    if prefill is not None:
        p["workloads"]["chat-short"]["prefill_tok_s"] = prefill
    return p


def upload(server, p):
    token, _ = sign(p)
    r = server.upload(token)
    assert r.status_code == 201, r.text
    return r.json()["id"]


def upload_all(server, payloads):
    """Uploads in parallel (the writer commits them in groups); returns the
    ids in the order of payloads."""
    with concurrent.futures.ThreadPoolExecutor(8) as ex:
        return list(ex.map(lambda p: upload(server, p), payloads))


@pytest.fixture
def seen(tmp_path):
    """Collects every HTML page a test reads; at the end html-validate
    checks them all in one run (it takes seconds to start)."""
    pages = []
    yield pages
    if not pages:
        return
    paths = []
    for i, (path, text) in enumerate(pages):
        f = tmp_path / ("page-%03d.html" % i)
        f.write_text(text, encoding="utf-8")
        paths.append(str(f))
    out = subprocess.run([HTML_VALIDATE, "--config", os.path.join(ROOT, "tests", ".htmlvalidate.json")] + paths,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, "\n".join(p for p, _ in pages) + "\n" + out.stdout + out.stderr


def page(server, path, seen, status=200):
    """GETs an HTML page and checks its status; the page is validated when
    the test ends."""
    r = server.get(path)
    assert r.status_code == status, (path, r.status_code, r.text[:500])
    assert r.headers["Content-Type"].startswith("text/html")
    seen.append((path, r.text))
    return r.text


def fig(v):
    """A figure as the pages write it (server/util/numfmt.c, numfmt_fig, for v >= 1)."""
    return "{:,.1f}".format(v) if abs(v) < 999.95 else "{:,.0f}".format(v)


def rows(table):
    """The runs of a figure-table as dicts."""
    out = []
    for tr in table.xpath(".//tbody/tr"):
        tds = tr.xpath("./td")
        run = tds[-1].xpath(".//a")[0]
        out.append({
            "id": run.text_content().strip(),
            "decode": float(tr.xpath("./td[@data-value]")[0].get("data-value")),
            "shown": tds[0].xpath(".//a")[0].text_content().strip(),
            "flag": bool(tds[0].xpath(".//span[@class='flag']")),
            "demo": bool(tds[-1].xpath(".//span[@class='demo']")),
            "links": [a.get("href") for td in tds[1:] for a in td.xpath(".//a")],
            "text": tr.text_content(),
        })
    return out


def combo_rows(table):
    """The combinations of a typical-figure table as dicts: "decode" is the
    median, "id" and "best" the best run's (None for "–"), "awaiting" true
    for the rows under the "Awaiting confirmation" heading."""
    out = []
    for tr in table.xpath(".//tbody/tr[not(@class='await-head') and not(@class='group-head')]"):
        tds = tr.xpath("./td")
        best = tr.xpath("./td[@data-label='Best run']//a")
        out.append({
            "id": best[0].get("href").rsplit("/", 1)[1] if best else None,
            "decode": float(tr.xpath("./td[@data-value]")[0].get("data-value")),
            "best": float(best[0].text_content().replace(",", "")) if best else None,
            "awaiting": bool(tr.getprevious() is not None and tr.getprevious().get("class") == "await-head")
                        or (bool(out) and out[-1]["awaiting"]),
            "links": [a.get("href") for td in tds[1:] for a in td.xpath(".//a")],
            "text": tr.text_content(),
        })
    return out


def board(text):
    """The board table of the home page (combinations), or [] when it is empty."""
    d = lxml.html.fromstring(text)
    for el in d.xpath("//h2[starts-with(normalize-space(.), 'Typical speed')]")[0].itersiblings():
        if el.tag == "h2":
            break
        if el.tag == "div" and el.xpath("./table"):
            return combo_rows(el.xpath("./table")[0])
    return []


def by_median(rows):
    """Medians descending: the default order of every combination list
    (ties by the combination's key, which pages do not show)."""
    keys = [r["decode"] for r in rows]
    return keys == sorted(keys, reverse=True)


def recent(text):
    d = lxml.html.fromstring(text)
    t = d.xpath("//h2[starts-with(normalize-space(.), 'Most recent')]/following-sibling::div[1]/table")
    return rows(t[0]) if t else []


def only_table(text):
    tables = lxml.html.fromstring(text).xpath("//table[@class='runs']")
    assert len(tables) == 1
    return rows(tables[0])


def next_href(text):
    a = lxml.html.fromstring(text).xpath("//nav[@class='pager']//a[@rel='next']")
    return a[0].get("href") if a else None


def prev_href(text):
    a = lxml.html.fromstring(text).xpath("//nav[@class='pager']//a[@rel='prev']")
    return a[0].get("href") if a else None


def in_order(runs):
    """Decode descending, ties by run id descending: the order of every list."""
    keys = [(r["decode"], r["id"]) for r in runs]
    return keys == sorted(keys, reverse=True)


def db_exec(server, sql, args=()):
    """Writes to the daemon's database from outside (WAL allows a second
    connection while it runs)."""
    c = sqlite3.connect(server.db, timeout=10)
    try:
        c.execute(sql, args)
        c.commit()
    finally:
        c.close()


def copy_run_to_suite(server, run_id, suite, new_id, decode):
    """Stores a copy of a run under another suite_version (the upload path
    only knows suite-v1), with the daemon stopped.  The typical figures and
    flags are kept by the writer, not by triggers (migration 0020), so the
    copy's combination and cluster are marked unfilled for the start-up
    fill (store/outlier_backfill.c) to compute, as after the migration."""
    server.stop()
    c = sqlite3.connect(server.db, timeout=10)
    try:
        cols = [r[1] for r in c.execute("PRAGMA table_info(runs)")]
        row = dict(zip(cols, c.execute("SELECT * FROM runs WHERE id = ?", (run_id,)).fetchone()))
        row.update(id=new_id, suite_version=suite, decode_tok_s=decode,
                   jws_sha256=bytes(reversed(row["jws_sha256"])) + new_id.encode())
        c.execute("INSERT INTO runs(%s) VALUES (%s)" % (",".join(row), ",".join("?" * len(row))),
                  list(row.values()))
        c.execute("INSERT OR IGNORE INTO combos(suite_version, model_slug, model_digest, hw_slug, "
                  "backend_name, key_id, first_at, filled) VALUES (?1, ?2, ?3, ?4, ?5, ?6, "
                  "(SELECT unixepoch(received_at) FROM runs WHERE id = ?6), 0)",
                  (suite, row["model_slug"], row["model_digest"], row["hw_slug"], row["backend_name"], new_id))
        c.execute("INSERT OR IGNORE INTO clusters(suite_version, model_digest, hw_class, backend_name, n, "
                  "mean, stddev) VALUES (?, ?, ?, ?, 0, 0, 0)",
                  (suite, row["model_digest"], row["hw_class"], row["backend_name"]))
        c.execute("UPDATE clusters SET sum_q = NULL WHERE suite_version = ?", (suite,))
        c.execute("INSERT OR REPLACE INTO stats_state VALUES ('flags', 'pending'), ('tops', 'pending')")
        c.commit()
    finally:
        c.close()
    server.start()


# ---- the leaderboard ----

def test_home_shows_typical_and_best_per_model_hardware_backend(server, seen):
    """Issue 22: one row per model, hardware and backend, its median over
    signing keys first, its best run beside it (it was the best run alone)."""
    ids = upload_all(server, [
        payload("Model A", "M3 Ultra", "mlx", 100.0),
        payload("Model A", "M3 Ultra", "mlx", 120.5),
        payload("Model A", "M3 Ultra", "llama.cpp", 90.0),
        payload("Model A", "NVIDIA GeForce RTX 4090", "vllm", 200.25),
        payload("Model B", "M3 Ultra", "mlx", 50.0),
        payload("Model A", "M3 Ultra", "mlx", 110.0),
    ])
    text = page(server, "/", seen)
    b = board(text)
    # The confirmed row (three keys) first (issue 35), then the others by
    # median.
    assert [r["id"] for r in b] == [ids[1], ids[3], ids[2], ids[4]]
    assert [fig(r["best"]) for r in b] == [fig(v) for v in (120.5, 200.25, 90.0, 50.0)]
    assert [r["decode"] for r in b] == [pytest.approx(110.0, rel=0.006), 200.25, 90.0, 50.0]
    j = server.get("/index.json").json()["board"]["rows"]
    assert [r["best_decode_tok_s"] for r in j] == [120.5, 200.25, 90.0, 50.0]
    assert [r["confirmed"] for r in j] == [True, False, False, False]
    assert "3 submitters" in b[0]["text"]
    # The range under each median is labelled "middle half"; one submitter
    # has none, so "–", never "90.0–90.0" (issue 38).
    spreads = [" ".join(sp.text_content().split()) for sp in
               lxml.html.fromstring(text).xpath("//table[contains(@class,'combos')]//td[1]//span[@class='spread']")]
    assert len(spreads) == 4 and re.fullmatch(r"middle half \d+\.\d\u2013\d+\.\d", spreads[0]), spreads
    assert spreads[1:] == ["middle half \u2013"] * 3, spreads
    assert "90.0\u201390.0" not in text
    assert ids[0] not in [r["id"] for r in b]
    assert "/m/model-a?digest=" in b[1]["links"][0]
    assert "/hw/rtx-4090" in b[1]["links"]
    assert "/r/" + ids[3] in b[1]["links"]
    assert "4 combinations" in text
    # The most recent runs list every upload, the slower duplicate too.
    assert set(r["id"] for r in recent(text)) == set(ids)
    assert "This board holds demo data" not in text
    # The board is full, so no "No runs yet?".
    assert "No runs yet?" not in text


def test_recent_runs_newest_measurement_first(server, seen):
    """Runs received in one batch are shown newest measurement first, the
    date in <time datetime> with a readable text."""
    stamps = ["2026-03-01T10:00:00Z", "2026-05-01T10:00:00Z", "2026-04-01T10:00:00Z"]
    ps = []
    for i, ts in enumerate(stamps):
        p = payload("Model %d" % i, decode=50.0 + i)
        p["created_at"] = ts
        ps.append(p)
    ids = upload_all(server, ps)
    text = page(server, "/", seen)
    assert [r["id"] for r in recent(text)] == [ids[1], ids[2], ids[0]]
    d = lxml.html.fromstring(text)
    times = d.xpath("//h2[starts-with(normalize-space(.), 'Most recent')]/following-sibling::div[1]//time")
    assert [t.get("datetime") for t in times] == [stamps[1], stamps[2], stamps[0]]
    assert [t.text for t in times] == ["1 May 2026", "1 Apr 2026", "1 Mar 2026"]


def test_empty_home_invites_an_upload(server, seen):
    text = page(server, "/", seen)
    assert "No runs yet?" in text


def test_home_filters_by_backend_and_hardware(server, seen):
    ids = upload_all(server, [
        payload("Model A", "M3 Ultra", "mlx", 120.0),
        payload("Model A", "M3 Ultra", "llama.cpp", 90.0),
        payload("Model A", "NVIDIA GeForce RTX 4090", "vllm", 200.0),
        payload("Model B", "M3 Ultra", "mlx", 50.0),
    ])
    text = page(server, "/?backend=mlx", seen)
    assert [r["id"] for r in board(text)] == [ids[0], ids[3]]
    d = lxml.html.fromstring(text)
    assert d.xpath("//select[@name='backend']/option[@selected]")[0].get("value") == "mlx"
    assert {o.get("value") for o in d.xpath("//select[@name='hw']/option")} == {"", "m3-ultra", "rtx-4090"}
    assert [r["id"] for r in board(page(server, "/?hw=rtx-4090", seen))] == [ids[2]]
    assert [r["id"] for r in board(page(server, "/?backend=mlx&hw=m3-ultra", seen))] == [ids[0], ids[3]]
    # The form's "All" options send empty values: no filter.
    assert len(board(page(server, "/?backend=&hw=", seen))) == 4
    empty = page(server, "/?backend=exllamav2", seen)
    assert board(empty) == [] and "No combinations to show here." in empty


def test_home_board_pages_without_gaps(server, seen):
    n = 55
    ids = upload_all(server, [payload("Model %02d" % i, decode=10.0 + (i % 7)) for i in range(n)])
    acc, path, pages = [], "/", 0
    while path:
        text = page(server, path, seen)
        got = board(text)
        assert got and by_median(got)
        acc += got
        path = next_href(text)
        pages += 1
    assert pages == 2
    assert len(acc) == n and set(r["id"] for r in acc) == set(ids)
    assert by_median(acc)


def test_home_board_pages_back(server, seen):
    """Previous page walks back by the same keys (ties included) to the
    very pages Next walked through; the first page has none."""
    n = 123
    upload_all(server, [payload("Model %03d" % i, decode=10.0 + (i % 4)) for i in range(n)])
    forward, path = [], "/?backend=mlx"
    while path:
        text = page(server, path, seen)
        forward.append([r["id"] for r in board(text)])
        last, path = text, next_href(text)
    assert [len(p) for p in forward] == [50, 50, 23]
    backward = [[r["id"] for r in board(last)]]
    path = prev_href(last)
    while path:
        assert "backend=mlx" in path
        text = page(server, path, seen)
        backward.append([r["id"] for r in board(text)])
        path = prev_href(text)
    assert backward[::-1] == forward


def test_empty_board_says_so(server, seen):
    text = page(server, "/", seen)
    assert "0 combinations" in text
    assert "No combinations to show here." in text


# ---- a model ----

def test_model_page_sorts_across_backends_and_hardware(server, seen):
    ids = upload_all(server, [
        payload("Qwen2.5-7B-Instruct", "M3 Ultra", "mlx", 80.5),
        payload("Qwen2.5-7B-Instruct", "M3 Pro", "mlx", 25.25),
        payload("Qwen2.5-7B-Instruct", "NVIDIA GeForce RTX 4090", "llama.cpp", 150.0),
        payload("Qwen2.5-7B-Instruct", "M3 Ultra", "llama.cpp", 70.0),
        payload("Other", "M3 Ultra", "mlx", 500.0),
    ])
    # The uploads' name resolves to the reference model: its page, under
    # its reference id and name; the name's own slug redirects there.
    r = server.get("/m/qwen2-5-7b-instruct", allow_redirects=False)
    assert r.status_code == 301 and r.headers["Location"] == "/m/qwen2-5-7b"
    text = page(server, "/m/qwen2-5-7b", seen)
    got = only_table(text)
    assert [r["id"] for r in got] == [ids[2], ids[0], ids[3], ids[1]]
    assert "<h1>Qwen2.5 7B Instruct</h1>" in text
    # The charts: first the fastest backend and weights on each hardware
    # across the model's files (issue 38), each bar saying what ran; then
    # the shown file's own, best per hardware.  Drawn by the server, labelled.
    best, svg = lxml.html.fromstring(text).xpath("//figure//svg")[:2]
    assert best.get("role") == "img" and "on each hardware" in best.get("aria-label")
    # The hardware's name, and under it, whole, the backend and weights.
    labels = [t.text for t in best.xpath(".//text[@text-anchor='end' and not(@class='sub')]")]
    subs = [t.text for t in best.xpath(".//text[@class='sub']")]
    assert labels == ["RTX 4090", "M3 Ultra", "M3 Pro"], labels
    assert subs[0].startswith("llama.cpp ") and subs[1].startswith("mlx "), subs
    assert not any("\u2026" in x for x in subs), subs
    assert svg.get("role") == "img" and "per hardware" in svg.get("aria-label")
    labels = [t.text for t in svg.xpath(".//text[@text-anchor='end']")]
    assert labels == ["RTX 4090", "M3 Ultra", "M3 Pro"]   # short names: never cut before the number
    assert "150.0 tok/s" in text and "80.5 tok/s" in text and "25.2 tok/s" in text
    # Filters narrow the list; the cluster link of the run page works.
    assert [r["id"] for r in only_table(page(server, "/m/qwen2-5-7b-instruct?hw=m3-ultra", seen))] == [ids[0], ids[3]]
    assert [r["id"] for r in only_table(page(server, "/m/qwen2-5-7b-instruct?backend=llama.cpp", seen))] == [ids[2], ids[3]]
    digest = digest_for("Qwen2.5-7B-Instruct")
    text = page(server, "/m/qwen2-5-7b-instruct?digest=%s&hw=m3-ultra&backend=mlx" % digest, seen)
    assert [r["id"] for r in only_table(text)] == [ids[0]]
    # With a backend filter the chart keeps to that backend.
    text = page(server, "/m/qwen2-5-7b-instruct?backend=mlx", seen)
    best, own = lxml.html.fromstring(text).xpath("//figure//svg")[:2]
    assert [t.text for t in own.xpath(".//text[@text-anchor='end']")] == ["M3 Ultra", "M3 Pro"]
    assert [t.text for t in best.xpath(".//text[@text-anchor='end']")] == ["M3 Ultra", "mlx MLX-4bit",
                                                                          "M3 Pro", "mlx MLX-4bit"]


def test_model_chart_names_what_ran_with_empty_labels_left_out(server, seen):
    """The best-per-hardware chart's second line says backend, quantization
    and format as uploaded, the format once (not after a quantization that
    names it), and an empty quantization or format adds nothing: no "()"
    and no doubled space."""
    upload(server, payload(model="Acme Chart 7B", accel="M3 Ultra", backend="llama.cpp",
                           quant="Q4_K_M", fmt=""))
    upload(server, payload(model="Acme Chart 7B", accel="RTX 4090", backend="llama.cpp",
                           quant="", fmt="gguf", digest=digest_for("Acme Chart 7B b")))
    upload(server, payload(model="Acme Chart 7B", accel="M3 Pro", backend="exllamav2",
                           quant="EXL2-4.0bpw", fmt="exl2", digest=digest_for("Acme Chart 7B c")))
    best = lxml.html.fromstring(page(server, "/m/acme-chart-7b", seen)).xpath("//figure//svg")[0]
    subs = sorted(t.text for t in best.xpath(".//text[@class='sub']"))
    assert subs == ["exllamav2 EXL2-4.0bpw", "llama.cpp Q4_K_M", "llama.cpp gguf"], subs


def test_model_page_pages_45_runs_in_3_pages(server, seen):
    n = 45
    # Ties of three: the run id orders runs of equal decode.
    ids = upload_all(server, [payload("Big Model", decode=10.0 + (i // 3) * 0.5) for i in range(n)])
    # JSON: follow "next".
    acc, path, pages = [], "/m/big-model.json", 0
    while path:
        r = server.get(path)
        assert r.status_code == 200
        lst = r.json()["list"]
        runs = [{"id": x["id"], "decode": x["decode_tok_s"]} for x in lst["runs"]]
        assert len(runs) == (PAGE if lst["next"] else n - 2 * PAGE)
        acc += runs
        path = lst["next"]
        pages += 1
    assert pages == 3
    assert len(acc) == n and len(set(r["id"] for r in acc)) == n and set(r["id"] for r in acc) == set(ids)
    assert in_order(acc)
    # HTML: follow rel="next"; the same runs in the same order.
    html_seen, path, pages = [], "/m/big-model", 0
    while path:
        text = page(server, path, seen)
        html_seen += only_table(text)
        last, path = text, next_href(text)
        if pages:
            assert "First page" in text
        pages += 1
    assert pages == 3
    assert [r["id"] for r in html_seen] == [r["id"] for r in acc]
    # Back with rel="prev" from the last page: the same pages in reverse,
    # ties of equal decode included; page one has no Previous link.
    back, path = [r["id"] for r in only_table(last)], prev_href(last)
    while path:
        text = page(server, path, seen)
        back = [r["id"] for r in only_table(text)] + back
        path = prev_href(text)
    assert back == [r["id"] for r in acc]


def test_model_page_keeps_digests_apart(server, seen):
    a, b = "sha256:" + "a" * 64, "sha256:" + "b" * 40
    ids = upload_all(server, [
        payload("Acme-70B-Instruct", decode=10.0, digest=a, quant="4bit", fmt="mlx"),
        payload("Acme-70B-Instruct", decode=11.0, digest=a, quant="4bit", fmt="mlx"),
        payload("Acme-70B-Instruct", decode=12.0, digest=a, quant="4bit", fmt="mlx"),
        payload("Acme-70B-Instruct-Q4_K_M-GGUF", decode=30.0, digest=b, quant="Q4_K_M", fmt="gguf"),
    ])
    m = server.get("/m/acme-70b-instruct.json").json()
    assert m["digest"]["digest"] == a and m["digest"]["runs"] == 3
    # "4bit" in an MLX file is MLX-4bit, as the site spells it.
    assert [(d["digest"], d["runs"], d["quantization"], d["format"], d["selected"]) for d in m["digests"]] == \
        [(a, 3, "MLX-4bit", "mlx", True), (b, 1, "Q4_K_M", "gguf", False)]
    assert [r["id"] for r in m["list"]["runs"]] == [ids[2], ids[1], ids[0]]
    # The bar is the median of the three keys (it was the best run, 12.0).
    assert [bar["decode_tok_s"] for bar in m["chart"]["bars"]] == [11.0]
    text = page(server, "/m/acme-70b-instruct", seen)
    assert ids[3] not in [r["id"] for r in only_table(text)]
    own = lambda t: lxml.html.tostring(lxml.html.fromstring(t).xpath("//figure//svg")[1]).decode()
    assert "Q4_K_M" in text and "30.0 tok/s</text>" not in own(text)   # not in the file's bar chart
    text = page(server, "/m/acme-70b-instruct?digest=" + b, seen)
    assert [r["id"] for r in only_table(text)] == [ids[3]]
    assert "30.0 tok/s</text>" in own(text) and "11.0 tok/s</text>" not in own(text)
    # Across the files, each hardware's answer is the confirmed MLX
    # figure (three keys), named with what ran it; the faster GGUF row of
    # one key is not it (issue 38).
    m = server.get("/m/acme-70b-instruct.json").json()
    assert [(x["backend"], x["median_decode_tok_s"], x["digest"]) for x in m["best_per_hw"]] == [("mlx", 11.0, a)]
    assert [d["label"] for d in m["digests"]] == ["MLX-4bit (mlx), run with mlx", "Q4_K_M (gguf), run with mlx"]
    page(server, "/m/acme-70b-instruct?digest=sha256:" + "c" * 64, seen, 404)
    page(server, "/m/acme-70b-instruct?digest=md5:abc", seen, 400)


def digest_rows(server, slug):
    """The digest list of a model page as (digest, runs, fastest, quantization,
    format) in the order shown, and the digest shown."""
    m = server.get("/m/%s.json" % slug).json()
    shown = m["digest"]["digest"] if m["digest"] else None
    return [(d["digest"], d["runs"], d["best_decode_tok_s"], d["quantization"], d["format"])
            for d in m["digests"]], shown


def rule(server, rid, resolution):
    r = server.post("/api/v1/runs/%s/disputes/resolve" % rid,
                    json={"resolution": resolution, "note": "x"},
                    headers={"Authorization": "Bearer " + MODERATOR_TOKEN})
    assert r.status_code == 200, r.text


def test_digest_counts_follow_uploads_and_rulings(server, seen):
    a, b = "sha256:" + "a" * 64, "sha256:" + "b" * 64
    slug = "acme-70b-instruct"
    ids = upload_all(server, [payload("Acme-70B-Instruct", decode=d, digest=a) for d in (10.0, 20.0, 30.0)] +
                     [payload("Acme-70B-Instruct", decode=d, digest=b, quant="Q4_K_M", fmt="gguf")
                      for d in (15.0, 25.0)])
    assert digest_rows(server, slug) == ([(a, 3, 30.0, "MLX-4bit", "mlx"), (b, 2, 25.0, "Q4_K_M", "gguf")], a)
    # A new fastest run: its digest gains a run, and shows its quantization.
    p = payload("Acme-70B-Instruct", decode=40.0, digest=b, quant="Q5_K_M", fmt="gguf")
    token, _ = sign(p)
    fast = server.upload(token).json()["id"]
    # The same bytes again are the same run, not another one.
    again = server.upload(token)
    assert again.status_code == 200 and again.json()["id"] == fast
    assert digest_rows(server, slug) == ([(b, 3, 40.0, "Q5_K_M", "gguf"), (a, 3, 30.0, "MLX-4bit", "mlx")], b)
    text = page(server, "/m/" + slug, seen)
    items = [li.text_content() for li in lxml.html.fromstring(text).xpath("//h2[.='Weights files']/following-sibling::ul[1]/li")]
    # Each file's typical figure (the median of its keys) and best run.
    assert "3 runs, typical 25.0 tok/s, best 40.0 tok/s" in items[0] and "Q5_K_M" in items[0]
    assert "3 runs, typical 20.0 tok/s, best 30.0 tok/s" in items[1]
    # A moderator upholds a dispute on it: one run fewer, the next best.
    rule(server, fast, "upheld")
    assert digest_rows(server, slug) == ([(a, 3, 30.0, "MLX-4bit", "mlx"), (b, 2, 25.0, "Q4_K_M", "gguf")], a)
    # Dismissing brings it back; dismissing a run that counts changes nothing.
    rule(server, fast, "dismissed")
    rule(server, ids[0], "dismissed")
    assert digest_rows(server, slug) == ([(b, 3, 40.0, "Q5_K_M", "gguf"), (a, 3, 30.0, "MLX-4bit", "mlx")], b)
    # Every run of a digest upheld: it leaves the list, and its link is a 404.
    for rid in (fast, ids[3], ids[4]):
        rule(server, rid, "upheld")
    assert digest_rows(server, slug) == ([(a, 3, 30.0, "MLX-4bit", "mlx")], a)
    assert server.get("/m/%s.json?digest=%s" % (slug, b)).status_code == 404
    rule(server, ids[2], "upheld")
    assert digest_rows(server, slug) == ([(a, 2, 20.0, "MLX-4bit", "mlx")], a)


# ---- a hardware class ----

def test_hw_page_groups_by_model(server, seen):
    """Issue 22: the hardware page lists each model's weights file and
    backend on it with its typical figure, highest median first (it was a
    section of best runs per model); ?model= keeps the list of runs."""
    ids = upload_all(server, [payload("Fast Model", decode=200.0 + i) for i in range(7)] +
                     [payload("Slow Model", decode=20.0 + i) for i in range(3)] +
                     [payload("Fast Model", "M3 Pro", decode=999.0)])
    text = page(server, "/hw/m3-ultra", seen)
    d = lxml.html.fromstring(text)
    got = combo_rows(d.xpath("//table[contains(@class, 'combos')]")[0])
    assert [r["decode"] for r in got] == [203.0, 21.0]
    assert [r["id"] for r in got] == [ids[6], ids[2 + 7]]
    assert "7 submitters, 7 runs" in got[0]["text"]
    assert ids[10] not in text       # the M3 Pro run
    j = server.get("/hw/m3-ultra.json").json()
    # The reference's name, and its memory and bandwidth said first (issue 38).
    assert j["hardware"] == {"slug": "m3-ultra", "name": "Apple M3 Ultra", "memory_gb": 512.0,
                             "bandwidth_gb_s": 819.0}, j["hardware"]
    assert [(g["model"]["slug"], g["backends"]) for g in j["groups"]] == [("fast-model", ["mlx"]), ("slow-model", ["mlx"])]
    assert "512 GB</strong> of memory" in text and "819 GB/s</strong>" in text
    rows_ = j["combos"]["rows"]
    assert [r["model"]["slug"] for r in rows_] == ["fast-model", "slow-model"]
    assert [(r["runs"], r["keys"], r["best_decode_tok_s"]) for r in rows_] == [(7, 7, 206.0), (3, 3, 22.0)]
    text = page(server, "/hw/m3-ultra?model=fast-model", seen)
    assert [r["decode"] for r in only_table(text)] == [206.0 - i for i in range(7)]
    more = server.get("/hw/m3-ultra.json?model=fast-model").json()
    assert [r["id"] for r in more["list"]["runs"]] == list(reversed(ids[:7]))
    page(server, "/hw/m3-ultra?model=no-such-model", seen, 404)


def test_hw_model_list_pages(server, seen):
    ids = upload_all(server, [payload("Many", "NVIDIA GeForce RTX 5090", "vllm", 50.0 + i) for i in range(25)])
    acc, path = [], "/hw/rtx-5090?model=many"
    while path:
        text = page(server, path, seen)
        acc += only_table(text)
        last, path = text, next_href(text)
    assert [r["id"] for r in acc] == list(reversed(ids))
    prev = prev_href(last)
    assert prev and "model=many" in prev
    assert [r["id"] for r in only_table(page(server, prev, seen))] == list(reversed(ids))[:20]


# ---- what counts ----

def test_upheld_runs_leave_every_list_and_aggregate(server, seen):
    ids = upload_all(server, [payload("Model A", decode=300.0), payload("Model A", decode=100.0)])
    rule(server, ids[0], "upheld")
    assert [r["id"] for r in board(page(server, "/", seen))] == [ids[1]]
    assert [r["id"] for r in only_table(page(server, "/m/model-a", seen))] == [ids[1]]
    m = server.get("/m/model-a.json").json()
    assert m["digest"]["runs"] == 1 and m["chart"]["bars"][0]["decode_tok_s"] == 100.0
    h = server.get("/hw/m3-ultra.json").json()
    assert [(r["best_run"], r["runs"]) for r in h["combos"]["rows"]] == [(ids[1], 1)]
    assert ids[0] not in page(server, "/hw/m3-ultra", seen)
    # Every run upheld: the model page stays, and says why it is empty.
    rule(server, ids[1], "upheld")
    text = page(server, "/m/model-a", seen)
    assert "taken out of the rankings" in text
    assert server.get("/m/model-a.json").json()["digest"] is None


def test_board_and_hw_sections_follow_rulings(server, seen):
    """The summaries behind / and /hw/ (migration 0020's combinations)
    follow a moderator: an upheld best run gives way to the next best, a
    dismissal brings it back, and a group whose every run is upheld leaves
    the board."""
    ids = upload_all(server, [payload("Model A", decode=300.0), payload("Model A", decode=100.0),
                              payload("Model B", decode=50.0)])
    best = lambda: [r["id"] for r in board(page(server, "/", seen))]
    sections = lambda: [(s["model"]["slug"], s["best_decode_tok_s"])
                        for s in server.get("/hw/m3-ultra.json").json()["combos"]["rows"]]
    assert best() == [ids[0], ids[2]]
    assert sections() == [("model-a", 300.0), ("model-b", 50.0)]
    rule(server, ids[0], "upheld")
    assert best() == [ids[1], ids[2]]
    assert sections() == [("model-a", 100.0), ("model-b", 50.0)]
    rule(server, ids[0], "dismissed")
    assert best() == [ids[0], ids[2]]
    rule(server, ids[2], "upheld")
    assert best() == [ids[0]]
    assert sections() == [("model-a", 300.0)]
    assert server.get("/hw/m3-ultra.json").json()["combos"]["count"] == 1


def test_model_page_pages_its_digest_list(server, seen):
    """A model with more weights files than a page lists them 50 at a time,
    most runs first, and the pages together hold each digest once."""
    digests = ["sha256:%064x" % (i + 1) for i in range(57)]
    ps = [payload("Many Files", decode=10.0 + i, digest=d) for i, d in enumerate(digests)]
    ps += [payload("Many Files", decode=1.0, digest=digests[3]), payload("Many Files", decode=2.0, digest=digests[3]),
           payload("Many Files", decode=1.0, digest=digests[40])]
    upload_all(server, ps)
    got, path, pages = [], "/m/many-files.json", 0
    while path:
        m = server.get(path).json()
        assert m["digest"]["digest"] == digests[3]       # the shown one stays the first
        assert len(m["digests"]) <= 50
        got += [(d["runs"], d["best_decode_tok_s"], d["digest"]) for d in m["digests"]]
        assert (m["digests_first"] is None) == (pages == 0)
        path = m["digests_next"]
        pages += 1
    assert pages == 2 and len(got) == 57 and len({d for _, _, d in got}) == 57
    assert got == sorted(got, reverse=True)
    assert got[:2] == [(3, 13.0, digests[3]), (2, 50.0, digests[40])]
    # The HTML page links the next page of weights files; it validates.
    text = page(server, "/m/many-files", seen)
    more = lxml.html.fromstring(text).xpath("//a[.='More weights files']")
    assert len(more) == 1 and "digests_after=" in more[0].get("href")
    text = page(server, html.unescape(more[0].get("href")), seen)
    assert "First weights files" in text and "More weights files" not in text
    # A digest picked from the second page shows its runs and keeps the page.
    m = server.get("/m/many-files.json?digest=" + got[55][2]).json()
    assert m["digest"]["digest"] == got[55][2] and m["list"]["runs"][0]["decode_tok_s"] == got[55][1]
    assert server.get("/m/many-files.json?digests_after=x").status_code == 400
    r = server.get("/m/many-files.json?digests_after=1:2:md5:00")
    assert r.status_code == 400 and "digests_after" in r.json()["error"]["message"]


def test_outliers_stay_listed_and_marked(server, seen):
    ids = upload_all(server, [payload("Model A", decode=100.0, fingerprint="0123456789abcdef") for _ in range(15)])
    low = upload(server, payload("Model A", decode=10.0, fingerprint="0123456789abcdef"))
    for path in ("/m/model-a", "/hw/m3-ultra?model=model-a"):
        got = only_table(page(server, path, seen))
        assert got[-1]["id"] == low and got[-1]["flag"]
        assert not any(r["flag"] for r in got[:-1])
    text = page(server, "/m/model-a", seen)
    # Marked with the word, not only an icon (issue 22).
    flag = lxml.html.fromstring(text).xpath("//table[@class='runs']//span[@class='flag']")[0]
    assert flag.text == "outlier"
    runs = server.get("/m/model-a.json").json()["list"]["runs"]
    assert [r["outlier"] for r in runs] == [False] * 15 + [True]
    assert ids[0] in [r["id"] for r in runs]


def test_demo_runs_are_marked_wherever_they_appear(server, seen):
    ids = upload_all(server, [payload("Model A", decode=100.0), payload("Model A", decode=90.0)])
    db_exec(server, "UPDATE runs SET demo = 1 WHERE id = ?", (ids[1],))
    text = page(server, "/", seen)
    assert "This board holds demo data" in text
    for got in (recent(text), only_table(page(server, "/m/model-a", seen)),
                only_table(page(server, "/hw/m3-ultra?model=model-a", seen))):
        assert {r["id"]: r["demo"] for r in got} == {ids[0]: False, ids[1]: True}
    assert [r["demo"] for r in server.get("/m/model-a.json").json()["list"]["runs"]] == [False, True]


# ---- suites ----

def test_suites_are_never_blended(server, seen):
    ids = upload_all(server, [payload("Model A", decode=100.0), payload("Model B", decode=50.0)])
    copy_run_to_suite(server, ids[0], "suite-v2", "r_suitev2run0", 999.0)
    copy_run_to_suite(server, ids[0], "suite-v10", "r_suitev10run", 777.0)
    # Newest is suite-v10 (numbers compare as numbers), and holds one run.
    text = page(server, "/", seen)
    assert [r["id"] for r in board(text)] == ["r_suitev10run"]
    assert "suite-v10" in text and ids[1] not in text
    assert [r["id"] for r in board(page(server, "/?suite=suite-v2", seen))] == ["r_suitev2run0"]
    text = page(server, "/?suite=suite-v1", seen)
    assert [r["id"] for r in board(text)] == [ids[0], ids[1]]
    assert "r_suitev2run0" not in text and "r_suitev10run" not in text
    # Links on a named suite keep it.
    assert "/m/model-a?digest=" in board(text)[0]["links"][0] and "suite=suite-v1" in board(text)[0]["links"][0]
    m = server.get("/m/model-a.json?suite=suite-v1").json()
    assert m["suite_version"] == "suite-v1" and [r["id"] for r in m["list"]["runs"]] == [ids[0]]
    assert m["digest"]["runs"] == 1
    assert [s["name"] for s in m["suites"]] == ["suite-v1", "suite-v2", "suite-v10"]
    m = server.get("/m/model-a.json").json()
    assert m["suite_version"] == "suite-v10" and [r["id"] for r in m["list"]["runs"]] == ["r_suitev10run"]
    # Model B has no run in the newest suite; it has one in suite-v1.
    page(server, "/m/model-b", seen, 404)
    assert [r["id"] for r in only_table(page(server, "/m/model-b?suite=suite-v1", seen))] == [ids[1]]
    h = server.get("/hw/m3-ultra.json?suite=suite-v2").json()
    assert [s["best_decode_tok_s"] for s in h["combos"]["rows"]] == [999.0]
    # A suite without runs is a 404, for people and for scripts.
    text = page(server, "/?suite=suite-v3", seen, 404)
    assert "suite-v3" in text
    r = server.get("/m/model-a.json?suite=suite-v3")
    assert r.status_code == 404 and r.json()["error"]["code"] == "not_found"


# ---- escaping ----

def test_names_with_markup_are_escaped(server, seen):
    name = "<script>alert(1)</script> & \"Q\" 'x'"
    accel = "<b onmouseover=x>GPU</b> 9000"
    run = server.get("/r/%s.json" % upload(server, payload(name, accel, decode=42.0))).json()
    model_slug, hw_slug = run["model"]["slug"], run["hardware"]["slug"]
    for path in ("/", "/m/" + model_slug, "/hw/" + hw_slug, "/hw/%s?model=%s" % (hw_slug, model_slug)):
        text = page(server, path, seen)
        assert "<script>" not in text and "<b onmouseover" not in text, path
        assert html.escape(run["model"]["shown_name"], quote=True).replace("&#x27;", "&#39;") in text, path
        assert "&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;Q&quot; &#39;x&#39;" in text, path
    text = page(server, "/m/" + model_slug, seen)
    assert "&lt;b onmouseover=x&gt;GPU&lt;/b&gt; 9000" in text     # the chart label
    j = server.get("/m/%s.json" % model_slug).json()
    assert j["model"]["name"] == name and j["list"]["runs"][0]["hardware"]["name"] == accel


# ---- errors ----

@pytest.mark.parametrize("path,status,phrase", [
    ("/m/no-such-model", 404, "There is no model no-such-model"),
    ("/m/Not_A_Slug", 404, "named by slug"),
    ("/hw/no-such-gpu", 404, "There is no hardware no-such-gpu"),
    ("/hw/-bad-", 404, "named by slug"),
    ("/?after=oops", 400, "after="),
    ("/m/model-a?after=12:r_short", 400, "after="),
    ("/m/model-a?hw=M3%20Ultra", 400, "hw="),
    ("/?backend=hosted-api", 400, "backend="),
    ("/hw/m3-ultra?model=A%20B", 400, "model="),
])
def test_errors_are_pages_people_can_use(server, seen, path, status, phrase):
    upload(server, payload("Model A"))
    text = page(server, path, seen, status)
    assert phrase in html.unescape(text)
    assert 'href="/"' in text


@pytest.mark.parametrize("path", ["/m/no-such-model.json", "/hw/no-such-gpu.json", "/m/Bad_Slug.json"])
def test_json_404_is_the_error_body(server, path):
    r = server.get(path)
    assert r.status_code == 404
    assert r.headers["Content-Type"].startswith("application/json")
    assert r.json()["error"]["code"] == "not_found" and r.json()["error"]["message"]


def test_json_400_names_the_argument(server):
    upload(server, payload("Model A"))
    r = server.get("/m/model-a.json?backend=nope")
    assert r.status_code == 400
    assert r.json()["error"]["code"] == "invalid_query" and "backend=" in r.json()["error"]["message"]


# ---- headers and caching ----

@pytest.mark.parametrize("path,ctype", [
    ("/", "text/html"), ("/m/model-a", "text/html"), ("/hw/m3-ultra", "text/html"),
    ("/m/model-a.json", "application/json"), ("/hw/m3-ultra.json", "application/json"),
])
def test_headers_etag_and_304(server, path, ctype):
    upload(server, payload("Model A"))
    r = server.get(path)
    assert r.status_code == 200 and r.headers["Content-Type"].startswith(ctype)
    assert "default-src 'none'" in r.headers["Content-Security-Policy"]
    assert r.headers["X-Content-Type-Options"] == "nosniff"
    assert r.headers["Referrer-Policy"]
    assert r.headers["Cache-Control"].startswith("public, max-age=60")
    etag = r.headers["ETag"]
    again = server.get(path, headers={"If-None-Match": etag})
    assert again.status_code == 304 and again.content == b""
    # A new run changes the page, and so its tag.
    upload(server, payload("Model A", decode=333.0))
    fresh = server.get(path, headers={"If-None-Match": etag})
    assert fresh.status_code == 200 and fresh.headers["ETag"] != etag


def test_errors_are_not_cached(server):
    r = server.get("/m/no-such-model")
    assert r.status_code == 404 and r.headers["Cache-Control"] == "no-store"


# ---- one view model, two representations ----

def test_json_and_html_agree(server, seen):
    upload_all(server, [payload("Model A", accel, be, d, prefill=p) for accel, be, d, p in [
        ("M3 Ultra", "mlx", 112.2, 204.0), ("M3 Pro", "mlx", 19.4, 61.5),
        ("NVIDIA GeForce RTX 4090", "exllamav2", 321.75, 4000.0)]])
    j = server.get("/m/model-a.json").json()
    got = only_table(page(server, "/m/model-a", seen))
    assert [r["id"] for r in got] == [r["id"] for r in j["list"]["runs"]]
    for row, run in zip(got, j["list"]["runs"]):
        assert row["decode"] == run["decode_tok_s"]
        assert fig(run["prefill_tok_s"]) in row["text"]
        assert run["hardware"]["name"] in row["text"] and run["backend"]["name"] in row["text"]
    h = server.get("/hw/m3-pro.json").json()
    text = page(server, "/hw/m3-pro", seen)
    for s in h["combos"]["rows"]:
        assert s["model"]["name"] in text
        assert s["best_run"] in text and fig(s["median_decode_tok_s"]) in text


def test_pages_read_fresh_data_after_errors(server):
    """Each page reads one snapshot and lets go of it, on success and on
    every error path, whichever worker thread serves it: the connection is
    shared with the other modules of that thread."""
    upload(server, payload("Model A", decode=10.0))
    for path in ("/m/model-a.json", "/hw/m3-ultra", "/") * 4 + \
            ("/m/no-such-model", "/m/model-a?after=bad", "/?suite=suite-v9", "/hw/nope.json") * 12:
        server.get(path)
    rid = upload(server, payload("Model A", decode=20.0))
    for _ in range(24):
        assert server.get("/r/%s.json" % rid).status_code == 200
    for _ in range(8):
        assert server.get("/m/model-a.json").json()["list"]["runs"][0]["id"] == rid
        assert rid in server.get("/").text


def test_weights_files_are_listed_by_signing_keys_not_runs(server, seen):
    """Issue 37, H4: 21 runs from one key beat 20 runs from 20 keys when
    the list went by runs, and the first file is the one the page shows.
    Now the file most keys ran comes first and is shown."""
    honest, evil = "sha256:" + "1" * 64, "sha256:" + "2" * 64
    upload_all(server, [payload("Acme-9B", decode=50.0 + i, digest=honest) for i in range(20)])
    one = new_key()
    for i in range(21):
        p = payload("Acme-9B", decode=90.0 + i, digest=evil)
        r = server.upload(sign(p, one)[0])
        assert r.status_code == 201, r.text
    m = server.get("/m/acme-9b.json").json()
    assert [(d["digest"], d["keys"], d["runs"]) for d in m["digests"]] == [(honest, 20, 20), (evil, 1, 21)]
    assert m["digest"]["digest"] == honest
    assert {r["model"]["digest"] for r in m["list"]["runs"]} == {honest}
    text = page(server, "/m/acme-9b", seen)
    items = [li.text_content() for li in lxml.html.fromstring(text).xpath(
        "//h2[.='Weights files']/following-sibling::ul[1]/li")]
    assert "20 submitters, 20 runs" in items[0] and "(shown below)" in items[0], items
    assert "1 submitter, 21 runs" in items[1], items
    # The cursor carries the keys: a page after the first file lists the other.
    after = "20:20:%s:%s" % (m["digests"][0]["order_decode"], honest)
    m2 = server.get("/m/acme-9b.json", params={"digests_after": after}).json()
    assert [d["digest"] for d in m2["digests"]] == [evil]
    r = server.get("/m/acme-9b.json", params={"digests_after": "20:69.0:" + honest})
    assert r.status_code == 400 and "<keys>:<runs>" in r.json()["error"]["message"], r.text


def test_a_digest_that_reads_as_another_is_shown_in_full(server, seen):
    """Issue 37, H2: one key on a 63-digit prefix of an honest digest made a
    row shown with the same short digest.  A digest that shares its first
    12 hex digits with another in the suite is shown in full, everywhere a
    short digest is."""
    honest = "sha256:" + "ab12" * 16
    twin = honest[:-1] + "0"
    upload(server, payload("Acme-9B", decode=50.0, digest=honest))
    m = server.get("/m/acme-9b.json").json()
    assert m["digest"]["digest_short"] == "ab12" * 3            # alone: 12 digits
    upload(server, payload("Acme-9B", decode=60.0, digest=twin))
    m = server.get("/m/acme-9b.json").json()
    assert sorted(d["digest_short"] for d in m["digests"]) == sorted([twin[7:], honest[7:]])
    assert {r["model"]["digest_short"] for r in m["list"]["runs"]} <= {twin[7:], honest[7:]}
    text = page(server, "/m/acme-9b", seen)
    codes = [c.text for c in lxml.html.fromstring(text).xpath("//ul/li/code[@class='digest']")]
    assert sorted(codes) == sorted([twin[7:], honest[7:]]), codes
    j = server.get("/m/acme-9b/hw/m3-ultra.json").json()
    assert j["weights"][0]["digest_short"] in (twin[7:], honest[7:]), j["weights"]
    # Another model's digest of another prefix stays short.
    other = "sha256:" + "cd34" * 16
    upload(server, payload("Other-9B", decode=10.0, digest=other))
    assert server.get("/m/other-9b.json").json()["digest"]["digest_short"] == "cd34" * 3
