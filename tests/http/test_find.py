"""Finding things: /search and /search.json, the 303 from an exact search
and the 301 from a name typed another way to its canonical page, and the index pages /models and
/hardware (issue 12).

Runs are stored through the real upload endpoint; a moderator's ruling is
written into the database with sqlite3 while the daemon runs, as
test_pages.py does.  Every HTML page must pass html-validate."""
import concurrent.futures
import sqlite3

import lxml.html
import pytest

from conftest import MODERATOR_TOKEN, csv_table, digest_for, make_payload, sign, validate_html


def payload(model, accel="M3 Ultra", backend="mlx", decode=100.0, digest=None):
    p = make_payload()
    p["model"]["name"] = model
    p["model"]["digest"] = digest or digest_for(model)
    p["hardware"]["accelerator_summary"] = accel
    del p["hardware"]["fingerprint_hash"]
    p["backend"]["name"] = backend
    p["workloads"]["chat-short"]["decode_tok_s"] = decode
    return p


def upload(server, p):
    token, _ = sign(p)
    r = server.upload(token)
    assert r.status_code == 201, r.text
    return r.json()["id"]


def upload_all(server, payloads):
    with concurrent.futures.ThreadPoolExecutor(8) as ex:
        return list(ex.map(lambda p: upload(server, p), payloads))


@pytest.fixture
def srv(make_server):
    return make_server(["--search-rate", "0"], clock=True)


def search(server, q, **params):
    params["q"] = q
    r = server.get("/search.json", params=params)
    assert r.status_code == 200, r.text
    return r.json()


def names(res):
    return [h["name"] for h in res["results"]]


def test_search_forgives_case_punctuation_and_partial_words(srv, tmp_path):
    upload_all(srv, [
        payload("Qwen/Qwen2.5-7B-Instruct", decode=50.0),
        payload("Qwen/Qwen2.5-Coder-32B-Instruct-4bit", accel="NVIDIA GeForce RTX 4090",
                backend="llama.cpp", decode=30.0),
        payload("meta-llama/Llama-3.1-8B-Instruct", accel="M3 Pro", decode=40.0),
    ])
    for q in ("qwen 2.5", "QWEN2.5", "Qwen2-5", "coder", "2.5 coder", "CODER 32b"):
        found = names(search(srv, q))
        assert any("Coder" in n for n in found), (q, found)
    # Words in any order, each must be there.
    found = names(search(srv, "instruct llama"))
    assert found == ["Llama 3.1 8B Instruct"], found      # the reference's name (issue 32)
    # Hardware by part of its name, backends by theirs.
    res = search(srv, "4090")
    assert [(h["kind"], h["slug"], h["href"]) for h in res["results"]] == [
        ("hw", "rtx-4090", "/hw/rtx-4090.json")]
    assert ("backend", "llama.cpp") in [(h["kind"], h["slug"]) for h in search(srv, "LLAMA.CPP")["results"]]
    # Two characters: a prefix of the squashed name.
    assert sorted(h["slug"] for h in search(srv, "m3")["results"]) == ["m3-pro", "m3-ultra"]
    assert search(srv, "zzzzzz")["results"] == []
    # The page, without JavaScript: a form and a table of links.
    page = srv.get("/search", params={"q": "coder"})
    assert page.status_code == 200
    doc = lxml.html.fromstring(page.text)
    assert "/m/qwen2-5-coder-32b" in doc.xpath("//main//table//a/@href")
    assert doc.xpath("//header//form[@action='/search']//input[@name='q']")
    ok, report = validate_html(page.text, tmp_path)
    assert ok, report
    ok, report = validate_html(srv.get("/search").text, tmp_path)
    assert ok, report


def test_search_counts_a_backends_runs_and_best(srv, tmp_path):
    """A backend's row says how many runs it has in the suite and its best,
    as a model's and a hardware's do (it said 0 runs and no best)."""
    ids = upload_all(srv, [
        payload("Alpha", backend="llama.cpp", decode=30.0),
        payload("Alpha", accel="RTX 4090", backend="llama.cpp", decode=80.0),
        payload("Beta", backend="llama.cpp", decode=40.0),
        payload("Beta", backend="vllm", decode=20.0),
    ])
    def row(q, slug):
        return next(h for h in search(srv, q)["results"] if h["kind"] == "backend" and h["slug"] == slug)
    got = row("llama.cpp", "llama.cpp")
    assert (got["runs"], got["best_decode_tok_s"], got["best_decode_text"]) == (3, 80.0, "80.0")
    got = row("vllm", "vllm")
    assert (got["runs"], got["best_decode_tok_s"]) == (1, 20.0)
    # The page shows the same figures in its table.
    doc = lxml.html.fromstring(srv.get("/search", params={"q": "llama.cpp"}).text)
    cells = [c.text_content().strip() for c in doc.xpath("//main//tr[td/a[@href='/?backend=llama.cpp']]/td")]
    # Its typical figure is its leading combination's median (one
    # submitter, Alpha on the RTX 4090), then its submitters and runs.
    assert cells[1:] == ["Backend", "80.0", "1", "3"], cells
    assert (got_ll := row("llama.cpp", "llama.cpp"))["median_decode_tok_s"] == 80.0 and got_ll["keys"] == 1
    # A run that stops counting leaves the backend's figures.
    rule(srv, ids[1], "upheld")
    got = row("llama.cpp", "llama.cpp")
    assert (got["runs"], got["best_decode_tok_s"]) == (2, 40.0)


def test_search_ranks_exact_then_prefix_then_runs(srv):
    upload_all(srv, [payload("Phi", decode=10.0)] +
               [payload("Phi-2-Orange", decode=10.0 + i) for i in range(3)] +
               [payload("Big-Phi-Mini", decode=10.0 + i) for i in range(5)] +
               [payload("Some-Phi-Model", decode=1.0)])
    found = names(search(srv, "phi"))
    # Exact first, then the prefix match, then substrings by runs.
    assert found == ["Phi", "Phi-2-Orange", "Big-Phi-Mini", "Some-Phi-Model"], found
    runs = {h["name"]: h["runs"] for h in search(srv, "phi")["results"]}
    assert runs["Big-Phi-Mini"] == 5 and runs["Some-Phi-Model"] == 1


def test_search_pages_and_caps(srv, tmp_path):
    upload_all(srv, [payload("Widget-%02d" % i, decode=float(i + 1)) for i in range(25)])
    first = search(srv, "widget")
    assert first["total"] == 25 and len(first["results"]) == 20 and first["prev"] is None
    second = srv.get(first["next"]).json()
    assert len(second["results"]) == 5 and second["next"] is None and second["prev"]
    assert not set(names(first)) & set(names(second))
    # Bounds: a long query, a page out of range.
    r = srv.get("/search.json", params={"q": "x" * 101})
    assert r.status_code == 400 and "q=" in r.json()["error"]["message"]
    assert srv.get("/search.json", params={"q": "widget", "page": "11"}).status_code == 400
    assert srv.get("/search", params={"q": "x" * 101}).status_code == 400
    html = srv.get("/search", params={"q": "widget", "page": "2"})
    ok, report = validate_html(html.text, tmp_path)
    assert ok, report


def test_search_finds_run_ids_and_digests_by_prefix(srv):
    d = "sha256:" + "ab12" * 16
    rid = upload(srv, payload("Digest-Model", digest=d))
    res = search(srv, rid[:6].upper())
    assert rid in [x["id"] for x in res["runs"]]
    res = search(srv, "ab12ab12")
    assert [x["digest"] for x in res["digests"]] == [d]
    assert res["digests"][0]["href"].startswith("/m/digest-model.json?digest=")
    assert search(srv, "sha256:AB12")["digests"][0]["digest"] == d
    assert search(srv, "cd34cd34")["digests"] == []
    # An exact run id on the page leads to the run.
    r = srv.get("/search", params={"q": rid}, allow_redirects=False)
    assert r.status_code == 303 and r.headers["Location"] == "/r/" + rid


def test_names_typed_another_way_redirect_to_their_page(srv):
    upload(srv, payload("Qwen/Qwen2.5-7B-Instruct-4bit", accel="NVIDIA GeForce RTX 4090"))
    cases = [
        ("/m/Qwen2.5-7B-Instruct", "/m/qwen2-5-7b"),
        ("/m/QWEN2.5 7B INSTRUCT", "/m/qwen2-5-7b"),
        ("/m/Qwen2.5-7B-Instruct.json", "/m/qwen2-5-7b.json"),
        ("/m/qwen2-5-7b-instruct", "/m/qwen2-5-7b"),            # the uploads' own slug
        ("/m/qwen2.5:7b", "/m/qwen2-5-7b"),                      # as Ollama names it
        ("/hw/NVIDIA GeForce RTX 4090", "/hw/rtx-4090"),
        ("/hw/RTX 4090", "/hw/rtx-4090"),
        ("/hw/RTX_4090.json", "/hw/rtx-4090.json"),
    ]
    for path, want in cases:
        r = srv.get(path, allow_redirects=False)
        assert r.status_code == 301, (path, r.status_code)
        assert r.headers["Location"] == want
        assert srv.get(want).status_code == 200
    # Unknown names stay 404, valid slugs are served as before.
    assert srv.get("/m/No Such Model", allow_redirects=False).status_code == 404
    assert srv.get("/hw/RTX 9999.json", allow_redirects=False).status_code == 404
    assert srv.get("/m/qwen2-5-7b", allow_redirects=False).status_code == 200
    # The search box: an exact name goes to its page, in any case, by a
    # 303 that no browser keeps (a search is not a moved page: a 301 would
    # be cached and outlive a new name that the same words find).
    r = srv.get("/search", params={"q": "qwen2.5 7b instruct"}, allow_redirects=False)
    assert r.status_code == 303 and r.headers["Location"] == "/m/qwen2-5-7b"
    assert r.headers["Cache-Control"] == "no-store"
    r = srv.get("/search", params={"q": "rtx 4090"}, allow_redirects=False)
    assert r.status_code == 303 and r.headers["Location"] == "/hw/rtx-4090"
    # The JSON twin never redirects: type-ahead wants the list.
    assert srv.get("/search.json", params={"q": "rtx 4090"}, allow_redirects=False).status_code == 200


def test_search_is_rate_limited_per_client(make_server):
    s = make_server(["--search-rate", "4"])
    codes = [s.get("/search.json", params={"q": "abc"}).status_code for _ in range(4)]
    assert codes[0] == 200 and 429 in codes
    r = s.get("/search.json", params={"q": "abc"})
    assert r.status_code == 429 and int(r.headers["Retry-After"]) >= 1
    assert r.json()["error"]["code"] == "rate_limited"
    # Other pages are not counted.
    assert s.get("/models.json").status_code == 200


def rule(server, rid, status):
    """A moderator's ruling through the API ("ok": dismissed), so the
    daemon drops what it keeps of the lists, as it does for every write."""
    r = server.post("/api/v1/runs/%s/disputes/resolve" % rid,
                    json={"resolution": "dismissed" if status == "ok" else status, "note": "x"},
                    headers={"Authorization": "Bearer " + MODERATOR_TOKEN})
    assert r.status_code == 200, r.text


def test_models_index_counts_sorts_and_pages(srv, tmp_path):
    ids = upload_all(srv, [payload("Alpha", decode=10.0), payload("Alpha", accel="M3 Pro", decode=90.0),
                           payload("Alpha", decode=20.0), payload("Beta", decode=50.0),
                           payload("Gamma", accel="RTX 4090", decode=70.0),
                           payload("Gamma", accel="RTX 4090", decode=60.0)])
    m = srv.get("/models.json").json()
    assert [(r["name"], r["runs"], r["best_decode_tok_s"]) for r in m["rows"]] == [
        ("Alpha", 3, 90.0), ("Gamma", 2, 70.0), ("Beta", 1, 50.0)]
    assert m["rows"][0]["best_id"] == ids[1] and m["rows"][0]["href"] == "/m/alpha.json"
    by_runs = srv.get("/models.json", params={"sort": "runs"}).json()
    assert [r["name"] for r in by_runs["rows"]] == ["Alpha", "Gamma", "Beta"]
    by_name = srv.get("/models.json", params={"sort": "name"}).json()
    assert [r["name"] for r in by_name["rows"]] == ["Alpha", "Beta", "Gamma"]
    hw = srv.get("/hardware.json", params={"sort": "runs"}).json()
    assert [(r["slug"], r["runs"]) for r in hw["rows"]] == [("m3-ultra", 3), ("rtx-4090", 2), ("m3-pro", 1)]
    # A moderator upholds the best Alpha run: the counts and best follow.
    rule(srv, ids[1], "upheld")
    m = srv.get("/models.json").json()
    assert [(r["name"], r["runs"], r["best_decode_tok_s"]) for r in m["rows"]] == [
        ("Gamma", 2, 70.0), ("Beta", 1, 50.0), ("Alpha", 2, 20.0)]
    hw = srv.get("/hardware.json").json()
    assert "m3-pro" not in [r["slug"] for r in hw["rows"]]
    rule(srv, ids[1], "ok")
    assert srv.get("/models.json").json()["rows"][0]["best_id"] == ids[1]
    # Bad arguments.
    assert srv.get("/models.json", params={"sort": "speed"}).status_code == 400
    assert srv.get("/models", params={"cursor": "abc"}).status_code == 400
    for path in ("/models", "/hardware", "/models?sort=runs", "/hardware?sort=name"):
        page = srv.get(path)
        assert page.status_code == 200
        ok, report = validate_html(page.text, tmp_path)
        assert ok, report
    doc = lxml.html.fromstring(srv.get("/").text)
    assert {"/models", "/hardware"} <= set(doc.xpath("//header//nav//a/@href"))


def test_models_index_keyset_pages(srv):
    upload_all(srv, [payload("Model-%02d" % i, decode=float(100 - (i % 7))) for i in range(53)])
    for sort in ("decode", "runs", "name"):
        seen = []
        page = srv.get("/models.json", params={"sort": sort}).json()
        assert len(page["rows"]) == 50 and page["next"] and page["first"] is None
        seen += [r["slug"] for r in page["rows"]]
        page = srv.get(page["next"]).json()
        assert page["next"] is None and page["first"]
        seen += [r["slug"] for r in page["rows"]]
        assert len(seen) == 53 and len(set(seen)) == 53, sort
        if sort == "name":
            assert seen == sorted(seen)


# ---- /compare ----

def full(model, accel="M3 Ultra", backend="mlx", decode=100.0, digest=None):
    return payload(model, accel, backend, decode, digest)


def test_compare_side_by_side_with_percent_from_the_first(srv, tmp_path):
    a, b, c = upload_all(srv, [full("Cmp", decode=100.0), full("Cmp", accel="RTX 4090", decode=150.0),
                               full("Cmp", accel="M3 Pro", decode=50.0)])
    r = srv.get("/compare.json", params={"r": "%s,%s,%s" % (a, b, c)})
    assert r.status_code == 200, r.text
    m = r.json()
    assert [x["id"] for x in m["runs"]] == [a, b, c]
    assert m["warnings"] == []
    rows = {row["label"]: row["cells"] for row in m["figures"]["rows"]}
    w1 = rows["W1 decode"]
    assert [x["value"] for x in w1] == [100.0, 150.0, 50.0]
    assert w1[0]["pct"] is None
    assert w1[1]["pct"] == pytest.approx(50.0) and w1[1]["pct_text"] == "+50.0%"
    assert w1[2]["pct"] == pytest.approx(-50.0) and w1[2]["pct_text"] == "−50.0%"
    assert any(k.startswith("W3 decode at") for k in rows) and any(k.startswith("W4 aggregate") for k in rows)
    page = srv.get("/compare", params={"r": "%s,%s,%s" % (a, b, c)})
    assert page.status_code == 200
    doc = lxml.html.fromstring(page.text)
    svgs = doc.xpath("//figure//*[local-name()='svg']")
    assert len(svgs) == 2
    # One series per run, overlaid.
    for svg in svgs:
        groups = {g.get("class") for g in svg.xpath(".//*[local-name()='g'][contains(@class, 'series')]")}
        assert {"series s1", "series s2", "series s3"} <= groups, groups
    ok, report = validate_html(page.text, tmp_path)
    assert ok, report


def test_compare_warns_and_keeps_suites_apart(srv, tmp_path):
    a, b, c = upload_all(srv, [full("Cmp", decode=100.0), full("Cmp", backend="llama.cpp", decode=120.0,
                                                                  digest="sha256:" + "1" * 64),
                               full("Cmp", decode=90.0)])
    # A second suite: what no upload can make yet, written as test_pages does.
    db = sqlite3.connect(srv.db, timeout=10)
    with db:
        db.execute("UPDATE runs SET suite_version = 'suite-v0' WHERE id = ?", (c,))
    db.close()
    m = srv.get("/compare.json", params={"r": ",".join([a, b, c])}).json()
    assert {w["what"] for w in m["warnings"]} == {"suites", "digests", "backends"}
    assert all(w["href"].startswith("/glossary#") for w in m["warnings"])
    w1 = {row["label"]: row["cells"] for row in m["figures"]["rows"]}["W1 decode"]
    # The other suite's run stands beside, without a percentage.
    assert w1[1]["pct"] == pytest.approx(20.0) and w1[2]["pct"] is None and w1[2]["value"] == 90.0
    page = srv.get("/compare", params={"r": ",".join([a, b, c])})
    doc = lxml.html.fromstring(page.text)
    assert doc.xpath("//main//*[@role='note']//a[starts-with(@href, '/glossary#')]")
    ok, report = validate_html(page.text, tmp_path)
    assert ok, report


def test_compare_names_runs_by_what_differs_and_marks_each_rows_best(srv, tmp_path):
    a, b, c = upload_all(srv, [full("Cmp", accel="NVIDIA GeForce RTX 4090", backend="llama.cpp", decode=100.0),
                               full("Cmp", accel="NVIDIA GeForce RTX 4090", decode=150.0),
                               full("Cmp", accel="M3 Ultra", backend="llama.cpp", decode=50.0)])
    m = srv.get("/compare.json", params={"r": "%s,%s,%s" % (a, b, c)}).json()
    # Hardware (its short name) and backend differ: the labels say both.
    assert [x["label"] for x in m["runs"]] == ["RTX 4090, llama.cpp", "RTX 4090, mlx", "M3 Ultra, llama.cpp"]
    rows = m["figures"]["rows"]
    # W1, W2, W3, W4, then W5: in workload order.
    order = [r["label"][:2] for r in rows]
    assert order == sorted(order), order
    w1 = next(r for r in rows if r["label"] == "W1 decode")["cells"]
    assert [x["best"] for x in w1] == [False, True, False]
    ttft = next(r for r in rows if r["label"] == "W1 time to first token")
    assert ttft["lower_better"] and sum(x["best"] for x in ttft["cells"]) <= 1
    page = srv.get("/compare", params={"r": "%s,%s,%s" % (a, b, c)})
    doc = lxml.html.fromstring(page.text)
    # The table's columns and the charts' legends name the runs the same way.
    heads = [h.text_content() for h in doc.xpath("//table[contains(@class, 'compare-figures')]//thead//th")]
    assert heads[1:] == ["RTX 4090, llama.cpp", "RTX 4090, mlx", "M3 Ultra, llama.cpp"], heads
    for svg in doc.xpath("//figure//*[local-name()='svg']"):
        legend = [t.text for t in svg.xpath(".//*[local-name()='g'][@class='legend']/*[local-name()='text']")]
        assert legend == heads[1:], legend
        assert "run 1" not in svg.xpath("string(.)")
    # Each row's best figure is in bold and said to screen readers; the
    # word "best" shows once, on the run with the fastest W1 decode.
    (best,) = doc.xpath("//table[contains(@class, 'compare-figures')]//tr[th[starts-with(., 'W1 decode')]]"
                        "/td[contains(@class, 'is-best')]")
    assert best.get("data-label") == "RTX 4090, mlx" and best.xpath("./strong")
    assert best.xpath(".//span[@class='visually-hidden']/text()") == [" (best)"]
    (mark,) = doc.xpath("//table[contains(@class, 'compare-runs')]//span[@class='best']")
    assert mark.xpath("ancestor::th[1]/a/text()") == [b]
    ok, report = validate_html(page.text, tmp_path)
    assert ok, report
    # Same everything: "run 1", "run 2".
    d = upload(srv, full("Cmp", accel="NVIDIA GeForce RTX 4090", backend="llama.cpp", decode=101.0))
    m = srv.get("/compare.json", params={"r": "%s,%s" % (a, d)}).json()
    assert [x["label"] for x in m["runs"]] == ["run 1", "run 2"]
    # A label two runs share says which run it is.
    m = srv.get("/compare.json", params={"r": "%s,%s,%s" % (a, d, b)}).json()
    assert [x["label"] for x in m["runs"]] == ["llama.cpp (run 1)", "llama.cpp (run 2)", "mlx"]


def test_compare_picker_lists_this_run_and_each_backend_with_its_percent(srv, tmp_path):
    a, b, c, d = upload_all(srv, [full("Pick", backend="llama.cpp", decode=100.0),
                                  full("Pick", backend="llama.cpp", decode=120.0),
                                  full("Pick", backend="mlx", decode=150.0),
                                  full("Pick", accel="RTX 4090", decode=50.0)])
    m = srv.get("/compare.json", params={"r": a}).json()
    pick = m["pick"]
    assert pick["this"]["backend"] == "llama.cpp" and pick["this"]["decode_text"] == "100.0"
    # The same hardware: every backend's best, this run's own backend too
    # (a faster run of it), each with its % from this run.
    same_hw = {(x["backend"], x["same_backend"], x["pct_text"]) for x in pick["same_hw"]}
    assert same_hw == {("llama.cpp", True, "+20.0%"), ("mlx", False, "+50.0%")}, same_hw
    assert [(x["id"], x["pct_text"]) for x in pick["same_model"]] == [(d, "\u221250.0%")]
    page = srv.get("/compare", params={"r": a, "with": "hw"})
    doc = lxml.html.fromstring(page.text)
    items = [li.text_content() for li in doc.xpath("//main//ul[@class='pick']/li")]
    assert items[0].startswith("llama.cpp ") and "(this run" in items[0], items
    assert any("llama.cpp, its fastest run here: 120.0 tok/s" in i and "+20.0%" in i for i in items), items
    assert "differences are from the first" not in page.text
    ok, report = validate_html(page.text, tmp_path)
    assert ok, report


def test_compare_refuses_bad_lists(srv):
    a = upload(srv, full("Cmp"))
    for bad in ("", "x", a + ",nope", ",".join([a] * 5), a + ",,"):
        r = srv.get("/compare.json", params={"r": bad})
        assert r.status_code == 400, bad
        assert "r=" in r.json()["error"]["message"] or "runs" in r.json()["error"]["message"]
    r = srv.get("/compare.json", params={"r": a + ",r_zzzzzzzzzzz"})
    assert r.status_code == 404 and "r_zzzzzzzzzzz" in r.json()["error"]["message"]
    assert srv.get("/compare", params={"r": "x"}).status_code == 400


def test_run_page_compare_with_form_leads_to_the_picker(srv, tmp_path):
    a, b, c, d = upload_all(srv, [full("Pick", decode=100.0), full("Pick", accel="RTX 4090", decode=150.0),
                                  full("Pick", backend="llama.cpp", decode=80.0),
                                  full("Other", accel="RTX 4090", decode=70.0)])
    doc = lxml.html.fromstring(srv.get("/r/" + a).text)
    form = doc.xpath("//form[@action='/compare']")[0]
    assert form.xpath(".//input[@name='r']/@value") == [a]
    assert set(form.xpath(".//select[@name='with']/option/@value")) == {"model", "hw"}
    m = srv.get("/compare.json", params={"r": a}).json()
    assert [x["id"] for x in m["pick"]["same_model"]] == [b]
    assert [x["id"] for x in m["pick"]["same_hw"]] == [c]
    page = srv.get("/compare", params={"r": a, "with": "model"})
    links = lxml.html.fromstring(page.text).xpath("//main//li/a/@href")
    assert links == ["/compare?r=%s%%2C%s" % (a, b)] or links == ["/compare?r=%s,%s" % (a, b)]
    assert srv.get(links[0]).status_code == 200
    ok, report = validate_html(page.text, tmp_path)
    assert ok, report


# ---- rank on the run page ----

def rank_texts(server, rid):
    doc = lxml.html.fromstring(server.get("/r/" + rid).text)
    box = doc.xpath("//div[@class='rank']")[0]
    svg = box.xpath(".//*[local-name()='svg']")[0]
    assert svg.xpath("./*[local-name()='path'][@class='mark']")
    # A scale: at least two labelled decode rates under the bars, and a
    # legend naming the three things drawn.
    assert len(svg.xpath(".//*[local-name()='g'][@class='axis']/*[local-name()='text']")) >= 2
    legend = " ".join(box.xpath(".//figcaption//text()"))
    assert "this machine and backend" in legend and "any hardware" in legend and "this run" in legend
    return " ".join(box.xpath(".//p//text()"))


def share_text(server, rid):
    """The run page's like-with-like share (issue 35): among the submitters
    of its combination, the same model and hardware."""
    doc = lxml.html.fromstring(server.get("/r/" + rid).text)
    return " ".join(" ".join(doc.xpath("//p[@class='place']//text()")).split())


def test_run_page_ranks_the_run_in_its_cluster_and_weights_file(srv, tmp_path):
    d = "sha256:" + "5" * 64
    ids = upload_all(srv, [full("Rank", decode=v, digest=d) for v in (10.0, 20.0, 40.0, 80.0, 160.0)] +
                     [full("Rank", accel="RTX 4090", decode=v, digest=d) for v in (5.0, 300.0)] +
                     [full("Rank", accel="RTX 4090", decode=1.0)])   # another weights file
    text = rank_texts(srv, ids[2])
    assert "Faster than 50% of the 4 other runs of this weights file on this machine with mlx" in text, text
    # Never ranked in words against other hardware (issue 35): the share
    # compares it with the same model on the same hardware.
    assert "any hardware" not in text
    assert "Faster than 50% of the 4 other submitters there" in share_text(srv, ids[2])
    # At the ends, words that read right (it said "Faster than 0% of ...").
    assert "Faster than all 4 other runs" in rank_texts(srv, ids[4])
    text = rank_texts(srv, ids[0])
    assert "Slower than all 4 other runs" in text, text
    assert "0%" not in text
    # The other weights file's run is alone.
    assert rank_texts(srv, ids[7]).count("The only counted run") == 1
    assert "other submitters" not in share_text(srv, ids[7])
    # A moderator upholds the slowest run: it leaves both histograms.
    rule(srv, ids[0], "upheld")
    text = rank_texts(srv, ids[3])
    assert "Faster than 67% of the 3 other runs" in text, text
    assert "Faster than 67% of the 3 other submitters there" in share_text(srv, ids[3])
    page = srv.get("/r/" + ids[3])
    ok, report = validate_html(page.text, tmp_path)
    assert ok, report


def test_rank_histograms_stay_exact_through_changes(srv):
    """The histograms the triggers keep equal a recount from the runs."""
    ids = upload_all(srv, [full("Hist-%d" % (i % 3), accel=("M3 Ultra", "RTX 4090")[i % 2],
                                decode=3.0 * (i + 1)) for i in range(30)])
    db = sqlite3.connect(srv.db, timeout=10)
    with db:
        for rid in ids[::4]:
            db.execute("UPDATE runs SET status = 'upheld' WHERE id = ?", (rid,))
        db.execute("UPDATE runs SET status = 'ok' WHERE id = ?", (ids[0],))
        db.execute("UPDATE runs SET decode_tok_s = 999 WHERE id = ?", (ids[1],))
        db.execute("DELETE FROM runs WHERE id = ?", (ids[2],))
    bucket = "CAST(floor(16 * log2(max(decode_tok_s, 0.001))) AS INTEGER)"
    want = db.execute("SELECT suite_version, model_digest, hw_class, backend_name, %s AS b, count(*) "
                      "FROM runs WHERE status = 'ok' GROUP BY 1, 2, 3, 4, 5 ORDER BY 1, 2, 3, 4, 5" % bucket).fetchall()
    got = db.execute("SELECT * FROM rank_cluster ORDER BY 1, 2, 3, 4, 5").fetchall()
    assert got == want
    want = db.execute("SELECT suite_version, model_digest, %s AS b, count(*) FROM runs "
                      "WHERE status = 'ok' GROUP BY 1, 2, 3 ORDER BY 1, 2, 3" % bucket).fetchall()
    assert db.execute("SELECT * FROM rank_digest ORDER BY 1, 2, 3").fetchall() == want
    # The run counts of /models and /hardware are the triggers' too.  (Their
    # best and typical figures, and the board's, are kept by the writer
    # since migration 0020, not by triggers, so a write from outside does
    # not move them; tests/store/check_typical.c compares those with a recount.)
    want = db.execute("SELECT suite_version, model_slug, count(*) FROM runs "
                      "WHERE status = 'ok' GROUP BY 1, 2 ORDER BY 1, 2").fetchall()
    assert db.execute("SELECT suite_version, model_slug, runs FROM model_index "
                      "ORDER BY 1, 2").fetchall() == want
    want = db.execute("SELECT suite_version, hw_slug, count(*) FROM runs "
                      "WHERE status = 'ok' GROUP BY 1, 2 ORDER BY 1, 2").fetchall()
    assert db.execute("SELECT suite_version, hw_slug, runs FROM hw_index "
                      "ORDER BY 1, 2").fetchall() == want
    db.close()


# ---- /cheatsheet ----

def test_cheatsheet_matrix_with_backends_side_by_side(srv, tmp_path):
    ids = upload_all(srv, [full("Sheet", backend="llama.cpp", decode=90.0),
                           full("Sheet", backend="mlx", decode=110.0),
                           full("Sheet", backend="mlx", decode=100.0),
                           full("Sheet", accel="RTX 4090", backend="vllm", decode=200.0),
                           full("=Evil", accel="RTX 4090", backend="llama.cpp", decode=50.0),
                           # a third MLX key confirms that row: only it may be "fastest" (issue 35)
                           full("Sheet", backend="mlx", decode=105.0)])
    m = srv.get("/cheatsheet.json").json()
    assert [h["slug"] for h in m["hardware"]] == ["m3-ultra", "rtx-4090"]   # most runs first
    assert [r["model"]["slug"] for r in m["rows"]] == ["sheet", "evil"]     # fastest first
    m3 = m["rows"][0]["cells"][0]
    # MLX beside llama.cpp, each its typical figure (the median of its
    # keys, issue 22) and best run, with the quantization.
    assert [(e["backend"], e["best_decode_tok_s"], e["best_run"], e["keys"]) for e in m3["entries"]] == [
        ("mlx", 110.0, ids[1], 3), ("llama.cpp", 90.0, ids[0], 1)]
    assert 100.0 <= m3["entries"][0]["median_decode_tok_s"] <= 110.0
    assert m3["entries"][0]["quantization"] == "MLX-4bit"       # "4bit" of an MLX file
    assert m["rows"][1]["cells"][0]["entries"] == []
    mlx = srv.get("/cheatsheet.json", params={"backend": "mlx"}).json()
    assert [e["backend"] for r in mlx["rows"] for c in r["cells"] for e in c["entries"]] == ["mlx"]
    assert srv.get("/cheatsheet.json", params={"backend": "nope"}).status_code == 400
    header, recs = csv_table(srv.get("/cheatsheet.csv"))
    assert header == ["model", "model_slug", "hardware", "hw_slug", "backend", "median_decode_tok_s",
                      "p25_decode_tok_s", "p75_decode_tok_s", "best_decode_tok_s", "runs", "keys",
                      "median_prefill_tok_s", "median_ttft_ms", "quantization", "run_id"]
    got = recs[0]
    assert [got[k] for k in ("model", "model_slug", "hardware", "hw_slug", "backend", "best_decode_tok_s",
                             "runs", "keys", "quantization", "run_id")] == \
        ["Sheet", "sheet", "Apple M3 Ultra", "m3-ultra", "mlx", "110", "3", "3",
         "MLX-4bit", ids[1]]
    # A name a spreadsheet would run as a formula is kept as text.
    assert any(r["model"] == "'=Evil" for r in recs)
    page = srv.get("/cheatsheet")
    assert page.status_code == 200
    doc = lxml.html.fromstring(page.text)
    assert "/r/" + ids[1] in doc.xpath("//table[contains(@class, 'cheatsheet')]//a/@href")
    # The fastest backend of a cell with several is marked in words and
    # markup (bold, "fastest"), not by colour; a cell of one is not.
    m3_cell = doc.xpath("//table[contains(@class, 'cheatsheet')]//tbody/tr[1]/td[@data-label='Apple M3 Ultra']")[0]
    fastest = m3_cell.xpath(".//li[contains(@class, 'fastest')]")
    assert len(fastest) == 1 and fastest[0].xpath("strong/a")[0].text_content().startswith("mlx ")
    assert fastest[0].xpath("span[@class='tag']")[0].text == "fastest"
    assert not doc.xpath("//td[@data-label='RTX 4090']//li[contains(@class, 'fastest')]")
    ok, report = validate_html(page.text, tmp_path)
    assert ok, report


def test_cheatsheet_tables_hold_at_most_four_machines(srv):
    upload_all(srv, [full("Wide", accel="RTX %d" % (4000 + i), decode=float(50 + i)) for i in range(5)])
    doc = lxml.html.fromstring(srv.get("/cheatsheet").text)
    tables = doc.xpath("//table[contains(@class, 'cheatsheet')]")
    # 5 columns are cut as evenly as they go, each table with its caption
    # naming its machines and every model row.
    assert [len(t.xpath("thead//th")) - 1 for t in tables] == [3, 2]
    assert tables[0].xpath("caption")[0].text_content().endswith("(table 1 of 2)")
    assert all(len(t.xpath("tbody/tr")) == 1 for t in tables)
    assert srv.get("/cheatsheet.json").json().get("groups") is None   # the twin keeps one matrix


def test_cheatsheet_pages_by_model(srv):
    upload_all(srv, [full("Page-%02d" % i, decode=float(10 + i)) for i in range(23)])
    first = srv.get("/cheatsheet.json").json()
    assert len(first["rows"]) == 20 and first["next"]
    second = srv.get(first["next"]).json()
    assert len(second["rows"]) == 3 and second["next"] is None
    names = [r["model"]["slug"] for r in first["rows"] + second["rows"]]
    assert len(set(names)) == 23
    assert srv.get("/cheatsheet.json", params={"cursor": "x"}).status_code == 400


def test_new_routes_answer_as_openapi_describes(srv, make_server):
    from test_openapi import check
    a, b = upload_all(srv, [full("Api", decode=10.0), full("Api", accel="RTX 4090", decode=20.0)])
    get = srv.get
    check(get("/search.json", params={"q": "api"}), "GET", "/search.json")
    check(get("/search.json", params={"q": "x" * 101}), "GET", "/search.json")
    check(get("/search", params={"q": "api"}, allow_redirects=False), "GET", "/search")
    check(get("/search", params={"q": "rtx"}), "GET", "/search")
    check(get("/m/API", allow_redirects=False), "GET", "/m/{slug}")
    check(get("/hw/RTX 4090.json", allow_redirects=False), "GET", "/hw/{slug}.json")
    for path in ("/models", "/hardware"):
        check(get(path + ".json", params={"sort": "runs"}), "GET", path + ".json")
        check(get(path + ".json", params={"sort": "x"}), "GET", path + ".json")
        check(get(path), "GET", path)
    check(get("/compare.json", params={"r": a + "," + b}), "GET", "/compare.json")
    check(get("/compare.json", params={"r": a}), "GET", "/compare.json")
    check(get("/compare.json", params={"r": "r_zzzzzzzzzzz," + a}), "GET", "/compare.json")
    check(get("/compare", params={"r": a + "," + b}), "GET", "/compare")
    for path in ("/cheatsheet.json", "/cheatsheet.csv", "/cheatsheet"):
        check(get(path), "GET", path)
    check(get("/cheatsheet.json", params={"backend": "x"}), "GET", "/cheatsheet.json")
    limited = make_server(["--search-rate", "1"])
    for _ in range(3):
        r = limited.get("/search.json", params={"q": "abc"})
    check(r, "GET", "/search.json")


# ---- sorting the board ----

def with_figures(model, accel, decode, prefill, ttft):
    p = full(model, accel=accel, decode=decode)
    p["workloads"]["chat-short"]["prefill_tok_s"] = prefill
    p["workloads"]["chat-short"]["ttft_ms"] = ttft
    return p


def test_board_sorts_by_each_figure_and_pages(srv, tmp_path):
    a = upload(srv, with_figures("Sort-A", "M3 Ultra", 100.0, 500.0, 300.0))
    srv.clock.advance()     # date received is kept to the second
    b = upload(srv, with_figures("Sort-B", "M3 Ultra", 50.0, 900.0, 100.0))
    srv.clock.advance()
    c = upload(srv, with_figures("Sort-C", "RTX 4090", 75.0, 700.0, 200.0))

    def order(**params):
        doc = lxml.html.fromstring(srv.get("/", params=params).text)
        board = doc.xpath("//h2[starts-with(., 'Typical speed per model')]/following::table[1]")[0]
        # A row links its best run (its figure links the runs behind it).
        return [row.xpath(".//a[starts-with(@href, '/r/')]/@href")[0].split("/r/")[1]
                for row in board.xpath(".//tbody/tr[not(@class='await-head')]")]

    assert order() == [a, c, b]
    assert order(sort="prefill") == [b, c, a]
    assert order(sort="ttft") == [b, c, a]
    assert order(sort="date") == [c, b, a]
    assert order(sort="ttft", hw="m3-ultra") == [b, a]
    assert srv.get("/", params={"sort": "speed"}).status_code == 400
    page = srv.get("/", params={"sort": "ttft"})
    doc = lxml.html.fromstring(page.text)
    assert doc.xpath("//form[@action='/']//input[@name='sort'][@value='ttft']")
    assert "/?sort=prefill" in doc.xpath("//p[contains(@class, 'filters')]//a/@href")
    ok, report = validate_html(page.text, tmp_path)
    assert ok, report
    # A moderator takes the quickest run out: the sorted board follows.
    rule(srv, b, "upheld")
    assert order(sort="ttft") == [c, a]


def test_model_page_sorts_each_groups_typical_figure_and_pages(srv, tmp_path):
    """?sort= orders the combinations by their medians (issue 22; it was
    each group's best run): the M3 Ultra group's median prefill is 600 and
    its median TTFT 250, whatever its fastest run's are."""
    a = upload(srv, with_figures("MSort", "M3 Ultra", 100.0, 500.0, 300.0))
    slow = upload(srv, with_figures("MSort", "M3 Ultra", 40.0, 9000.0, 1.0))  # not its group's best
    mid = upload(srv, with_figures("MSort", "M3 Ultra", 45.0, 600.0, 250.0))
    srv.clock.advance()     # date received is kept to the second
    b = upload(srv, with_figures("MSort", "RTX 4090", 50.0, 900.0, 100.0))
    srv.clock.advance()
    c = upload(srv, with_figures("MSort", "M3 Pro", 75.0, 700.0, 200.0))
    other = upload(srv, with_figures("Other", "M3 Pro", 75.0, 9999.0, 0.5))

    def order(**params):
        r = srv.get("/m/msort.json", params=params)
        assert r.status_code == 200, r.text
        if "sort" in params:      # the combinations, each by its best run
            return [x["best_run"] for x in r.json()["combos"]["rows"]]
        return [x["id"] for x in r.json()["list"]["runs"]]

    assert order() == [a, c, b, mid, slow]       # decode: every run of the digest
    assert order(sort="prefill") == [b, c, a]
    assert order(sort="ttft") == [b, c, a]
    assert order(sort="date") == [c, b, a]
    assert order(sort="ttft", hw="m3-ultra") == [a]
    assert order(sort="prefill", backend="mlx", hw="m3-pro") == [c]
    assert other not in order(sort="ttft")
    assert srv.get("/m/msort", params={"sort": "speed"}).status_code == 400
    page = srv.get("/m/msort", params={"sort": "ttft"})
    doc = lxml.html.fromstring(page.text)
    assert doc.xpath("//form[@action='/m/msort']//input[@name='sort'][@value='ttft']")
    assert any(h.startswith("/m/msort?") and h.endswith("&sort=prefill")
               for h in doc.xpath("//p[contains(@class, 'filters')]//a/@href"))
    ok, report = validate_html(page.text, tmp_path)
    assert ok, report
    # A moderator takes the quickest run out: the sorted list follows.
    rule(srv, b, "upheld")
    assert order(sort="ttft") == [c, a]


def test_model_page_sorted_keeps_keyset_paging(srv):
    upload_all(srv, [with_figures("Paged", "Test GPU %02d" % i, 10.0 + i, 100.0 + (i * 7) % 13, 50.0 + (i * 5) % 11)
                     for i in range(25)])
    for sort in ("prefill", "ttft", "best", "decode"):
        page = srv.get("/m/paged.json", params={"sort": sort}).json()["combos"]
        assert page["next"] and "sort=" + sort in page["next"], sort
        second = srv.get(page["next"]).json()["combos"]
        ids = [r["best_run"] for r in page["rows"]] + [r["best_run"] for r in second["rows"]]
        assert len(page["rows"]) == 20 and len(second["rows"]) == 5, sort
        assert len(set(ids)) == 25 and second["next"] is None, sort
        key = {"prefill": "median_prefill_tok_s", "ttft": "median_ttft_ms", "best": "best_decode_tok_s",
               "decode": "median_decode_tok_s"}[sort]
        figs = [r[key] for r in page["rows"] + second["rows"]]
        assert figs == sorted(figs, reverse=sort != "ttft"), sort


def test_hw_page_sorts_each_groups_typical_figure_and_pages(srv, tmp_path):
    """As the model page: the combinations by their medians (issue 22)."""
    a = upload(srv, with_figures("HSort-A", "M3 Max", 100.0, 500.0, 300.0))
    slow = upload(srv, with_figures("HSort-A", "M3 Max", 40.0, 9000.0, 1.0))  # not its group's best
    mid = upload(srv, with_figures("HSort-A", "M3 Max", 45.0, 600.0, 250.0))
    srv.clock.advance()     # date received is kept to the second
    b = upload(srv, with_figures("HSort-B", "M3 Max", 50.0, 900.0, 100.0))
    srv.clock.advance()
    c = upload(srv, with_figures("HSort-C", "M3 Max", 75.0, 700.0, 200.0))
    other = upload(srv, with_figures("HSort-A", "RTX 4090", 75.0, 9999.0, 0.5))

    def order(**params):
        r = srv.get("/hw/m3-max.json", params=params)
        assert r.status_code == 200, r.text
        if r.json()["list"] is None:      # the combinations, each by its best run
            return [x["best_run"] for x in r.json()["combos"]["rows"]]
        return [x["id"] for x in r.json()["list"]["runs"]]

    assert order(sort="prefill") == [b, c, a]
    assert order(sort="ttft") == [b, c, a]
    assert order(sort="date") == [c, b, a]
    # By median, confirmed rows first (issue 35): HSort-A's three keys
    # confirm it (45), HSort-C (75) and HSort-B (50) have one each.
    assert order() == [a, c, b]
    assert order(sort="best") == [a, c, b]
    assert order(sort="ttft", model="hsort-a") == [a]
    assert order(model="hsort-a") == [a, mid, slow]     # decode: every run of the model
    assert other not in order(sort="ttft")
    assert srv.get("/hw/m3-max", params={"sort": "speed"}).status_code == 400
    assert srv.get("/hw/m3-max.json", params={"sort": "ttft", "model": "nope"}).status_code == 404
    page = srv.get("/hw/m3-max", params={"sort": "date"})
    doc = lxml.html.fromstring(page.text)
    assert "/hw/m3-max?sort=ttft" in doc.xpath("//p[contains(@class, 'filters')]//a/@href")
    ok, report = validate_html(page.text, tmp_path)
    assert ok, report
    csv_ids = [r["best_run"] for r in csv_table(srv.get("/hw/m3-max.csv?sort=ttft"))[1]]
    assert csv_ids == [b, c, a]
    rule(srv, b, "upheld")
    assert order(sort="ttft") == [c, a]


def test_hw_page_sorted_keeps_keyset_paging(srv):
    # The combinations of a hardware page come 50 a page, as the board's.
    upload_all(srv, [with_figures("HPaged-%02d" % i, "M3 Max", 10.0 + i, 100.0 + (i * 7) % 13, 50.0 + (i * 5) % 11)
                     for i in range(55)])
    for sort in ("prefill", "ttft", "date", "best", "decode"):
        page = srv.get("/hw/m3-max.json", params={"sort": sort}).json()["combos"]
        assert page["next"] and ("sort=" + sort in page["next"] or sort == "decode"), sort
        second = srv.get(page["next"]).json()["combos"]
        ids = [r["best_run"] for r in page["rows"]] + [r["best_run"] for r in second["rows"]]
        assert len(page["rows"]) == 50 and len(second["rows"]) == 5, sort
        assert len(set(ids)) == 55 and second["next"] is None, sort


def test_sorted_board_keeps_keyset_paging(srv):
    upload_all(srv, [with_figures("Many-%02d" % i, "M3 Ultra", 10.0 + i, 100.0 + (i * 7) % 13, 50.0 + (i * 5) % 11)
                     for i in range(55)])
    for sort in ("prefill", "ttft", "date"):
        doc = lxml.html.fromstring(srv.get("/", params={"sort": sort}).text)
        nxt = doc.xpath("//nav[@class='pager']//a[@rel='next']/@href")
        assert nxt and "sort=" + sort in nxt[0], sort
        first = doc.xpath("//h2[starts-with(., 'Typical speed per model')]/following::table[1]//tbody/tr")
        doc2 = lxml.html.fromstring(srv.get(nxt[0]).text)
        second = doc2.xpath("//h2[starts-with(., 'Typical speed per model')]/following::table[1]//tbody/tr")
        ids = lambda rows: [r.xpath(".//a[starts-with(@href, '/r/')]/@href")[0] for r in rows]
        assert len(first) == 50 and len(second) == 5, sort
        assert len(set(ids(first)) | set(ids(second))) == 55, sort


def test_figures_on_the_find_pages_are_shown_as_the_run_pages_show_them(srv):
    """/models, /search, /compare's picker and /cheatsheet print a decode
    rate the way every other page does (three significant figures), while
    their JSON keeps the exact number."""
    ids = upload_all(srv, [payload("Figs", decode=45.123456), payload("Figs", accel="M3 Max", decode=31.98765)])
    # The picker of /compare lists the other run, not the one picked.
    pages = {"/models": "45.1", "/search?q=figs": "45.1", "/compare?r=" + ids[0]: "32.0",
             "/cheatsheet": "45.1"}
    for path, shown in pages.items():
        text = lxml.html.fromstring(srv.get(path).text).text_content()   # what a reader sees
        assert shown in text, path
        assert "45.123456" not in text and "31.98765" not in text, path
    rows = srv.get("/models.json").json()["rows"]
    row = next(r for r in rows if r["slug"] == "figs")
    assert row["best_decode_tok_s"] == 45.123456 and row["best_decode_text"] == "45.1"
