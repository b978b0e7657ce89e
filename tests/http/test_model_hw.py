"""The model-on-hardware page /m/<model>/hw/<hw> and its JSON twin, and the
home page's picker (issue 22), through the real daemon: one row per
backend and weights file with the typical figures, best median first, the
bandwidth ceiling against the median, the outlier only as a marked run;
an empty combination's 200 with what is known instead and the CLI
command; 404s; the picker's redirects and its messages; the links from
lists and search."""
import re
import statistics
from urllib.parse import quote

import lxml.html
import pytest

from conftest import digest_for, make_payload, new_key, sign, validate_html, wait_for

MODEL = "Qwen3-Coder-30B-A3B-Instruct"
SLUG = "qwen3-coder-30b-a3b"
PAGE = "/m/%s/hw/m3-ultra" % SLUG
FIGURES = ("median_decode_tok_s", "p25_decode_tok_s", "p75_decode_tok_s", "best_decode_tok_s",
           "best_run", "runs", "keys", "median_prefill_tok_s", "median_ttft_ms", "backend")


def upload(server, decode, key=None, backend=None, quant=None, accel=None, model=None):
    p = make_payload()
    p["workloads"]["chat-short"]["decode_tok_s"] = decode
    if backend:
        p["backend"]["name"] = backend
    if quant:
        p["model"]["quantization"] = quant
        p["model"]["digest"] = digest_for(p["model"]["name"] + quant)
    if model:
        p["model"]["name"] = model
        p["model"]["digest"] = digest_for(model)
    if accel:
        p["hardware"]["accelerator_summary"] = accel
    r = server.upload(sign(p, key or new_key())[0])
    assert r.status_code == 201, r.text
    return r.json()["id"]


@pytest.fixture
def cluster(server):
    """Fourteen keys near 100 tok/s and one key's run at 400 (flagged), in
    one cluster.  Returns (ids of the 14, id of the 400, their values)."""
    values = [96.0 + 0.6 * i for i in range(14)]
    ids = [upload(server, v) for v in values]
    far = upload(server, 400.0)
    assert server.get("/r/%s.json" % far).json()["outlier"]["flagged"] is True
    return ids, far, values


def rows_of(page):
    return [row for w in page["weights"] for row in w["rows"]]


def test_cluster_median_best_and_the_outlier_only_marked(server, cluster, tmp_path):
    ids, far, values = cluster
    r = server.get(PAGE + ".json")
    assert r.status_code == 200 and r.headers["Content-Type"].startswith("application/json")
    page = r.json()
    assert page["model"]["slug"] == SLUG and page["hardware"]["slug"] == "m3-ultra"
    assert page["empty"] is False and page["command"] is None
    (w,) = page["weights"]
    (row,) = w["rows"]
    for k in FIGURES:
        assert k in row, k
    assert abs(row["median_decode_tok_s"] - statistics.median(values)) <= 0.01 * statistics.median(values)
    assert row["best_decode_tok_s"] == max(values) and row["best_run"] == ids[-1]
    assert row["keys"] == 14 and row["runs"] == 14 and row["flagged_runs"] == 1
    assert row["backend"] == "mlx" and row["one_submitter"] is False
    for k in ("median_decode_tok_s", "p25_decode_tok_s", "p75_decode_tok_s", "median_prefill_tok_s"):
        assert round(row[k], 2) == row[k], k
    assert round(row["median_ttft_ms"], 1) == row["median_ttft_ms"]
    # The ceiling of these weights on this hardware, against the median.
    c = row["ceiling"]
    assert c["ceiling_tok_s"] > 0 and c["percent_of_ceiling"] == round(
        100 * row["median_decode_tok_s"] / c["ceiling_tok_s"], 1) or abs(
        c["percent_of_ceiling"] - 100 * row["median_decode_tok_s"] / c["ceiling_tok_s"]) < 0.2
    assert w["ceiling"]["ceiling_tok_s"] == c["ceiling_tok_s"] and page["ceiling_note"] is None
    assert row["best_href"] == "/r/%s.json" % ids[-1]

    html = server.get(PAGE)
    assert html.status_code == 200
    ok, report = validate_html(html.text, tmp_path)
    assert ok, report
    doc = lxml.html.fromstring(html.text)
    answer = doc.xpath('//p[@class="answer-line"]')[0].text_content()
    assert "mlx" in answer and "%.1f" % row["median_decode_tok_s"] in answer
    assert doc.xpath('//svg[@class="gauge"]'), "the ceiling is drawn against the median"
    # 400 is not a figure here; the run list behind the row shows it as an outlier.
    assert "400.0" not in html.text and far not in html.text
    assert "1 outlier left out" in html.text
    behind = server.get(row["href"]).json()
    item = next(x for x in behind["list"]["runs"] if x["id"] == far)
    assert item["marks"][0] == "outlier"


def test_backends_ranked_by_median_one_submitter_and_digests_apart(server, tmp_path):
    for v in (60.0, 61.0, 62.0):
        upload(server, v)                       # mlx, three keys
    upload(server, 90.0, backend="llama.cpp")   # one key, faster
    upload(server, 40.0, quant="8bit")          # another weights file
    page = server.get(PAGE + ".json").json()
    assert [w["quantization"] for w in page["weights"]] == ["MLX-4bit", "MLX-8bit"]
    first = page["weights"][0]["rows"]
    # The confirmed row (three keys) first, the faster one-key row after it
    # (issue 35); the headline is the confirmed one.
    assert [x["backend"] for x in first] == ["mlx", "llama.cpp"]
    assert [x["confirmed"] for x in first] == [True, False]
    assert first[1]["one_submitter"] is True and first[1]["keys"] == 1
    assert first[0]["median_decode_tok_s"] == 61.0 and first[0]["keys"] == 3
    # Digests are never blended: the 8bit file's row is its own.
    (eight,) = page["weights"][1]["rows"]
    assert eight["median_decode_tok_s"] == 40.0 and eight["digest"] != first[0]["digest"]
    assert page["weights"][1]["ceiling"]["ceiling_tok_s"] < page["weights"][0]["ceiling"]["ceiling_tok_s"]
    html = server.get(PAGE).text
    ok, report = validate_html(html, tmp_path)
    assert ok, report
    doc = lxml.html.fromstring(html)
    table = doc.xpath('//table[contains(@class, "mhw")]')[0]
    cells = [td.text_content() for td in table.xpath('.//td[@data-label="Submitters"]')]
    assert "3 submitters" in cells[0] and "awaiting confirmation: 1 submitter" in cells[1]
    heads = table.xpath('.//tr[@class="await-head"]')
    assert len(heads) == 1 and "Awaiting confirmation" in heads[0].text_content()
    assert "Fastest here: mlx" in " ".join(doc.xpath('//p[@class="answer-line"]')[0].text_content().split())


def test_empty_combination_answers_200_with_what_is_known_and_the_command(server, tmp_path):
    upload(server, 100.0)                                        # the model on M3 Ultra
    upload(server, 150.0, accel="NVIDIA GeForce RTX 4090", backend="llama.cpp",
           model="Llama-3.1-8B-Instruct")                        # another model on the 4090
    r = server.get("/m/%s/hw/rtx-4090.json" % SLUG)
    assert r.status_code == 200
    page = r.json()
    assert page["empty"] is True and page["rows_count"] == 0
    assert all(w["rows"] == [] for w in page["weights"]) and page["weights"]
    assert page["command"] == "llm-speed bench --models '%s' --backends 'llama.cpp'" % MODEL
    assert [h["slug"] for h in page["instead"]["other_hardware"]] == ["m3-ultra"]
    assert page["instead"]["other_hardware"][0]["href"] == "/m/%s/hw/m3-ultra.json" % SLUG
    assert [m["slug"] for m in page["instead"]["other_models"]] == ["llama-3-1-8b"]
    # The ceiling is known even with nothing measured.
    assert page["weights"][0]["ceiling"]["ceiling_tok_s"] > 0
    html = server.get("/m/%s/hw/rtx-4090" % SLUG)
    assert html.status_code == 200
    ok, report = validate_html(html.text, tmp_path)
    assert ok, report
    assert page["command"] in lxml.html.fromstring(html.text).text_content()
    assert 'href="/m/%s/hw/m3-ultra"' % SLUG in html.text
    # A model only the reference data knows: 200, its ceiling as a range.
    ref = server.get("/m/llama-3-2-3b-instruct/hw/m3-ultra.json")
    assert ref.status_code == 200, ref.text
    ref = ref.json()
    assert ref["model"]["measured"] is False and ref["model"]["href"] is None
    (w,) = ref["weights"]
    assert w["digest"] is None and w["ceiling"]["range"]["family"]
    assert ref["command"].startswith("llm-speed bench --models ")


def test_hardware_missing_from_the_reference_data_said_once(server):
    upload(server, 50.0, accel="NVIDIA GeForce RTX 3060", backend="llama.cpp")
    upload(server, 52.0, accel="NVIDIA GeForce RTX 3060", backend="ollama")
    page = server.get("/m/%s/hw/rtx-3060.json" % SLUG).json()
    assert "RTX 3060" in page["ceiling_note"]
    assert all(x["ceiling"] is None for x in rows_of(page)) and len(rows_of(page)) == 2
    html = server.get("/m/%s/hw/rtx-3060" % SLUG).text
    assert html.count("reference data does not know") == 1


def test_unknown_or_malformed_slugs_are_404(server):
    upload(server, 100.0)
    for path in ("/m/no-such-model/hw/m3-ultra", "/m/%s/hw/no-such-hw" % SLUG,
                 "/m/Not_A_Slug/hw/m3-ultra", "/m/%s/hw/m3-ultra/extra" % SLUG):
        r = server.get(path)
        assert r.status_code == 404, path
        assert r.headers["Content-Type"].startswith("text/html"), path
    for path in ("/m/no-such-model/hw/m3-ultra.json", "/m/%s/hw/no-such-hw.json" % SLUG):
        r = server.get(path)
        assert r.status_code == 404, path
        err = r.json()["error"]
        assert err["code"] == "not_found" and ("model" in err["message"] or "hardware" in err["message"])


def test_picker_redirects_by_slug_and_by_name(server, tmp_path):
    upload(server, 100.0)
    home = server.get("/").text
    doc = lxml.html.fromstring(home)
    (form,) = doc.xpath('//form[@class="picker"]')
    assert form.get("method") == "get" and form.get("action") == "/"
    assert {i.get("name") for i in form.xpath(".//input")} == {"model", "hw"}
    # The picker sits above the board.
    assert home.index('class="picker"') < home.index("Typical speed per model, hardware and backend")
    for model, hw in ((SLUG, "m3-ultra"), (MODEL, "M3 Ultra"), ("  Qwen3 Coder 30B A3B Instruct ", "Apple M3 Ultra")):
        r = server.get("/?model=%s&hw=%s" % (quote(model), quote(hw)), allow_redirects=False)
        assert r.status_code == 303, (model, hw, r.text)
        assert r.headers["Location"] == PAGE
    r = server.get("/?model=%s&hw=m3-ultra&suite=suite-v1" % SLUG, allow_redirects=False)
    assert r.headers["Location"] == PAGE + "?suite=suite-v1"
    # Known to the reference data only: still a page.
    r = server.get("/?model=llama-3-1-8b-instruct&hw=rtx-4090", allow_redirects=False)
    assert r.status_code == 303
    # The board's own ?hw= filter is not the picker.
    assert server.get("/?hw=m3-ultra", allow_redirects=False).status_code == 200


def test_picker_names_the_field_to_fix(server, tmp_path):
    upload(server, 100.0)
    r = server.get("/?model=&hw=m3-ultra", allow_redirects=False)
    assert r.status_code == 400
    doc = lxml.html.fromstring(r.text)
    assert doc.xpath('//p[@id="pick-model-error"]') and not doc.xpath('//p[@id="pick-hw-error"]')
    assert "Choose a model" in r.text
    assert doc.xpath('//input[@id="pick-hw"]')[0].get("value") == "m3-ultra"
    ok, report = validate_html(r.text, tmp_path)
    assert ok, report
    r = server.get("/?model=%s&hw=%s" % (SLUG, quote("Quantum <Toaster>")), allow_redirects=False)
    assert r.status_code == 404
    doc = lxml.html.fromstring(r.text)
    msg = doc.xpath('//p[@id="pick-hw-error"]')[0].text_content()
    assert 'No hardware called "Quantum <Toaster>"' in msg
    assert "<Toaster>" not in r.text                      # escaped
    assert doc.xpath('//input[@id="pick-hw"]')[0].get("aria-invalid") == "true"
    r = server.get("/?model=%s&hw=m3-ultra" % ("x" * 500), allow_redirects=False)
    assert r.status_code == 400 and "at most 400 characters" in r.text


def test_lists_and_search_link_to_the_page(server):
    upload(server, 100.0)
    for path in ("/m/%s" % SLUG, "/hw/m3-ultra", "/"):
        doc = lxml.html.fromstring(server.get(path).text)
        assert doc.xpath('//a[@class="pair"][@href="%s"]' % PAGE), path
    assert server.get("/m/%s.json" % SLUG).json()["combos"]["rows"][0]["pair_href"] == PAGE + ".json"
    r = server.get("/search?q=%s" % quote(MODEL + " on M3 Ultra"), allow_redirects=False)
    assert r.status_code == 303 and r.headers["Location"] == PAGE
    j = server.get("/search.json?q=%s" % quote(MODEL + " on M3 Ultra")).json()
    assert j["combination"]["href"] == PAGE and j["combination"]["runs"] == 1


def test_page_is_kept_until_the_next_write(server):
    upload(server, 100.0)
    server.wait_refreshed()      # the version chart, filled after the commit
    first = server.get(PAGE).text
    assert server.get(PAGE).text == first
    upload(server, 102.0)
    again = server.get(PAGE).text
    assert again != first and "2 submitters" in again


def _upload_4090(server, name, decode, version="b6100", key=None):
    p = make_payload()
    p["backend"] = {"name": "llama.cpp", "version": version, "runner": None}
    p["model"].update({"name": name, "quantization": "Q4_K_M", "format": "gguf"})
    p["model"]["digest"] = digest_for(name + "Q4_K_M")
    p["hardware"].update({"accelerator_summary": "RTX 4090", "gpu_name": "RTX 4090",
                          "cpu_model": "AMD Ryzen 9", "vram_gb": 24, "ram_gb": 64, "os": "Linux",
                          "fingerprint_hash": None})
    p["workloads"]["chat-short"]["decode_tok_s"] = decode
    r = server.upload(sign(p, key or new_key())[0])
    assert r.status_code == 201, r.text


def test_empty_page_predicts_labelled_apart_and_is_wanted(server, tmp_path):
    """Three models at ~70% of their ceilings on an RTX 4090 with llama.cpp
    (8 keys each): the page of a fourth, unmeasured model predicts about
    70% of its ceiling, labelled, with its basis, never in a measured row;
    each visit counts for /wanted."""
    from conftest import wait_for
    for ref, name in (("llama-3-1-8b", "Llama-3.1-8B-Instruct"), ("llama-3-2-3b", "Llama-3.2-3B-Instruct"),
                      ("mistral-7b", "Mistral-7B-v0.1")):
        c = server.get("/fit.json?model=%s&hw=rtx-4090&format=q4_k_m&context=384" % ref).json()
        for i in range(8):
            _upload_4090(server, name, round(c["result"]["ceiling_tok_s"] * 0.70 * (0.99 + 0.0025 * i), 2))
    path = "/m/qwen2-5-7b-instruct/hw/rtx-4090"

    def predicted():
        page = server.get(path + ".json").json()
        return page if page["predicted"] else None
    page = wait_for(predicted, what="a prediction on the page")
    assert page["empty"] is True and rows_of(page) == []
    (p,) = [x for x in page["predicted"] if x["backend"] == "llama.cpp"]
    ceiling = page["weights"][0]["ceiling"]["ceiling_tok_s"] if page["weights"] else None
    assert p["predicted_step"] == "same_hardware" and p["predicted_class"] == "dense-4bit"
    assert p["too_uncertain"] is True and p["predicted_low"] is None   # three backtest points: no interval
    assert p["predicted_from"].startswith("from 24 runs of 3 other dense 4-bit models on RTX 4090 "
                                          "with llama.cpp; ")
    assert p["above_measured"] is False
    if ceiling:
        assert abs(p["predicted_decode_tok_s"] / ceiling - 0.70) <= 0.15 * 0.70
    for k in ("median_decode_tok_s", "best_decode_tok_s"):
        assert k not in p
    html = server.get(path).text
    ok, report = validate_html(html, tmp_path)
    assert ok, report
    doc = lxml.html.fromstring(html)
    (sec,) = doc.xpath('//section[@class="predicted"]')
    assert "predicted" in sec.text_content() and p["predicted_from"] in sec.text_content()
    assert "too uncertain to rely on" in sec.text_content()
    assert not doc.xpath('//table[contains(@class, "mhw")]//*[contains(text(), "predicted")]')
    assert "wanted list" in html

    def wanted():
        rows = server.get("/wanted.json").json()["rows"]
        return [r for r in rows if (r["model_slug"], r["hw_slug"]) == ("qwen2-5-7b", "rtx-4090")] or None
    (w,) = wait_for(wanted, what="the visit on /wanted")
    assert w["asks"] == 1       # once per address and day, however many visits


def test_measured_page_charts_median_by_version(server, tmp_path):
    from conftest import wait_for
    for v in range(5):
        _upload_4090(server, "Llama-3.1-8B-Instruct", 100.0 + v, "b6100")
    for v in range(3):
        _upload_4090(server, "Llama-3.1-8B-Instruct", 120.0 + v, "b6200")
    path = "/m/llama-3-1-8b-instruct/hw/rtx-4090"

    def series():
        page = server.get(path + ".json").json()
        s = page["versions"]
        # The refresh thread folds the uploads in shortly after they commit.
        return page if s and [pt["keys"] for pt in s[0]["points"]] == [5, 3] else None
    page = wait_for(series, what="two versions charted, from 5 and 3 keys")
    (s,) = page["versions"]
    assert s["backend"] == "llama.cpp"
    assert [pt["version"] for pt in s["points"]] == ["b6100", "b6200"]
    assert [pt["keys"] for pt in s["points"]] == [5, 3]
    assert s["points"][0]["median_decode_tok_s"] == 102.0 and s["points"][1]["median_decode_tok_s"] == 121.0
    html = server.get(path).text
    ok, report = validate_html(html, tmp_path)
    assert ok, report
    doc = lxml.html.fromstring(html)
    (sec,) = doc.xpath('//section[@class="versions"]')
    assert sec.xpath('.//svg[@class="barchart"]') and "b6200" in sec.text_content()
    assert page["command"] is None and page["empty"] is False


# ---- issue 38: one table of backends, named weights, no empty sentence ----

NV = "NVIDIA GeForce RTX 4090"
NV_PAGE = "/m/%s/hw/rtx-4090" % SLUG


def upload_file(server, decode, backend, quant, fmt, digest_seed, accel=NV, key=None):
    """A run of MODEL with its own weights file (digest from digest_seed)."""
    p = make_payload()
    p["workloads"]["chat-short"]["decode_tok_s"] = decode
    p["backend"]["name"] = backend
    p["model"].update({"quantization": quant, "format": fmt, "digest": digest_for(digest_seed)})
    p["hardware"]["accelerator_summary"] = accel
    r = server.upload(sign(p, key or new_key())[0])
    assert r.status_code == 201, r.text
    return r.json()["id"]


def sentences_end_full(doc):
    """The paragraphs of main whose text ends with a comma or an empty
    clause before the full stop ("..., or ."), as found."""
    bad = []
    for p in doc.xpath("//main//p"):
        t = " ".join(p.text_content().split())
        if t.endswith((", .", " or .", ": .", ", or .", " .")) or t.endswith(","):
            bad.append(t)
    return bad


def test_one_table_of_backends_across_weights_files(server, tmp_path):
    """llama.cpp and ollama ran different files of one quantization: one
    table, a row each, fastest first, each naming its file; a backend with
    two quantizations has a row per quantization and says why; a backend
    with two files of one quantization has one row with both files."""
    for v in (150.0, 152.0, 154.0):
        upload_file(server, v, "llama.cpp", "Q4_K_M", "gguf", "bartowski Q4_K_M")
    for v in (130.0, 131.0, 133.0):
        upload_file(server, v, "ollama", "Q4_K_M", "gguf", "ollama blob")
    upload_file(server, 90.0, "llama.cpp", "Q8_0", "gguf", "bartowski Q8_0")
    upload_file(server, 120.0, "ollama", "Q4_K_M", "gguf", "another ollama blob")
    page = server.get(NV_PAGE + ".json").json()
    rows = [(b["backend"], b["weights"]["label"], b["files_count"]) for b in page["backends"]]
    assert rows == [("llama.cpp", "Q4_K_M (gguf)", 1), ("ollama", "Q4_K_M (gguf)", 2),
                    ("llama.cpp", "Q8_0 (gguf)", 1)], rows
    lc, ol, q8 = page["backends"]
    assert lc["weights"]["digest"] != ol["weights"]["digest"]
    assert lc["median_decode_tok_s"] == 152.0 and ol["median_decode_tok_s"] == 131.0
    assert [f["median_decode_tok_s"] for f in ol["files"]] == [131.0, 120.0]
    assert "2 quantizations" in lc["twice"] and "2 quantizations" in q8["twice"] and ol["twice"] is None
    # The per-file blocks stay (the contract's rows, digests never blended).
    assert len(page["weights"]) == 4
    html = server.get(NV_PAGE).text
    ok, report = validate_html(html, tmp_path)
    assert ok, report
    doc = lxml.html.fromstring(html)
    (table,) = doc.xpath('//table[contains(@class, "mhw")]')
    assert doc.xpath('//h2[@id="backends-title"]')[0].text_content() == "Backends on this machine, fastest first"
    names = [" ".join(td.text_content().split()) for td in table.xpath(".//td[contains(@class, 'backend')]")]
    assert names[0].startswith("llama.cpp Q4_K_M (gguf)") and names[1].startswith("ollama Q4_K_M (gguf)")
    assert "2 weights files" in names[1] and "a row each" in names[2]
    # The middle half is labelled; the footer ends with the JSON link.
    assert re.search(r"middle half [0-9.]+\u2013[0-9.]+", names and table.text_content()), table.text_content()
    last = doc.xpath("//main//p")[-1]
    assert last.xpath(".//a")[-1].get("href") == NV_PAGE + ".json"
    assert sentences_end_full(doc) == []


def test_one_submitter_has_no_middle_half(server):
    upload_file(server, 400.0, "llama.cpp", "Q4_K_M", "gguf", "lone file")
    doc = lxml.html.fromstring(server.get(NV_PAGE).text)
    cell = " ".join(doc.xpath('//table[contains(@class, "mhw")]//td[contains(@class, "fig")]')[0].text_content().split())
    assert "middle half \u2013" in cell and "400.0\u2013400.0" not in cell, cell


def test_empty_page_leaves_out_files_that_cannot_run_here(server):
    """An MLX file measured on Apple silicon is no block on an NVIDIA card
    (nothing that ran it runs there); a GGUF file measured elsewhere is."""
    upload_file(server, 80.0, "mlx", "4bit", "mlx", "mlx file", accel="M3 Ultra")
    page = server.get(NV_PAGE + ".json").json()
    assert page["empty"] is True
    assert [w["format"] for w in page["weights"]] == ["gguf"] and page["weights"][0]["digest"] is None
    assert "mlx" not in [p["backend"] for p in page["predicted"]]
    upload_file(server, 60.0, "llama.cpp", "Q4_K_M", "gguf", "gguf file", accel="M3 Ultra")
    page = server.get(NV_PAGE + ".json").json()
    assert [(w["quantization"], w["digest"] is not None) for w in page["weights"]] == [("Q4_K_M", True)]
    doc = lxml.html.fromstring(server.get(NV_PAGE).text)
    assert sentences_end_full(doc) == []
    assert "MLX" not in " ".join(x.text_content() for x in doc.xpath("//section[@class='weights']"))


def test_known_but_unmeasured_model_and_hardware_answer_200(server, tmp_path):
    """Issue 38: /m/ and /hw/ of a model or a hardware only the reference
    data knows: 200 with the command to measure it, quoted as /wanted
    quotes it, and its /wanted count, in HTML and JSON; unknown ones stay
    404."""
    server.wait_refreshed()
    upload(server, 100.0)                 # something measured, so the suite exists
    assert server.get("/fit?model=llama-3-2-3b&hw=rtx-3090").status_code == 200
    wait_for(lambda: any(r["model_slug"] == "llama-3-2-3b" for r in server.get("/wanted.json").json()["rows"]),
             what="the wanted row")
    m = server.get("/m/llama-3-2-3b.json")
    assert m.status_code == 200, m.text
    m = m.json()
    assert m["measured"] is False and m["model"]["name"]
    u = m["unmeasured"]
    assert u["asks"] == 1 and u["wanted_href"] == "/wanted"
    assert u["command"].startswith("llm-speed bench --models 'Llama-3.2-3B' --backends ")
    assert m["digests"] == [] and m["best_per_hw"] == []
    h = server.get("/hw/rtx-3090.json")
    assert h.status_code == 200, h.text
    h = h.json()
    assert h["measured"] is False and h["hardware"]["memory_gb"] == 24.0
    assert h["unmeasured"]["asks"] == 1 and h["unmeasured"]["command"].startswith("llm-speed bench --models ")
    for path, cmd in (("/m/llama-3-2-3b", u["command"]), ("/hw/rtx-3090", h["unmeasured"]["command"])):
        r = server.get(path)
        assert r.status_code == 200
        ok, report = validate_html(r.text, tmp_path)
        assert ok, report
        doc = lxml.html.fromstring(r.text)
        text = doc.text_content()
        assert cmd in text and "counts 1 ask for it" in " ".join(text.split()), path
        assert sentences_end_full(doc) == []
    assert server.get("/m/no-such-model-at-all").status_code == 404
    assert server.get("/hw/no-such-hardware-at-all.json").status_code == 404
