"""The bandwidth-ceiling pages over HTTP: /fit, /fit.json,
/explain/quantization, the ceiling line on run pages and the efficiency
table on model pages.  Figures are checked against the explainer's (the
seed's) published ones and against arithmetic done here from
static/reference/, never against the server's own output."""
import json
import os

import lxml.html
import pytest

from conftest import ROOT, digest_for, make_payload, sign, validate_html
from test_openapi import check

REF = os.path.join(ROOT, "static", "reference")
with open(os.path.join(REF, "models.json"), encoding="utf-8") as _f:
    MODELS = json.load(_f)["models"]
with open(os.path.join(REF, "formats.json"), encoding="utf-8") as _f:
    FORMATS = json.load(_f)
with open(os.path.join(REF, "hardware.json"), encoding="utf-8") as _f:
    HARDWARE = json.load(_f)["hardware"]


def kv_bytes(model, tokens, bits=16):
    m = MODELS[model]
    return 2 * m["attention"]["full_layers"] * m["kv_heads"] * m["head_dim"] * bits / 8 * tokens


def upload(server, model="Llama-3.1-8B-Instruct", accel="M2", quant="Q4_K_M", decode=11.0,
           fmt="gguf", backend="llama.cpp"):
    p = make_payload(model__name=model, model__quantization=quant, model__format=fmt,
                     hardware__accelerator_summary=accel, hardware__fingerprint_hash=None,
                     backend={"name": backend, "version": "b6123", "runner": None},
                     model__digest=digest_for("%s %s" % (model, quant)))
    p["workloads"]["chat-short"]["decode_tok_s"] = decode
    token, _ = sign(p)
    r = server.upload(token)
    assert r.status_code == 201, r.text
    return r.json()["id"]


def page_ok(server, tmp_path, path, **params):
    r = server.get(path, params=params)
    assert r.status_code == 200, r.text[:300]
    assert r.headers["Content-Type"] == "text/html; charset=utf-8"
    assert "default-src 'none'" in r.headers["Content-Security-Policy"]
    assert r.headers["X-Content-Type-Options"] == "nosniff"
    assert r.headers["Cache-Control"].startswith("public, max-age=60")
    ok, report = validate_html(r.text, tmp_path)
    assert ok, report
    return lxml.html.fromstring(r.text)


# ---- /fit.json ----

def test_fit_defaults_are_the_explainers_row(server):
    """No arguments: Llama 3.1 8B, Q4_K_M, FP16 cache, 8K; on the M2 the
    ceiling is the table's 13.5 tok/s."""
    body = check(server.get("/fit.json", params={"hw": "m2"}), "GET", "/fit.json")
    res = body["result"]
    assert body["inputs"]["model"] == "llama-3-1-8b" and body["inputs"]["context"] == 8192
    assert round(res["weights_gb"], 2) == 4.85
    assert abs(res["kv_cache_gb"] - kv_bytes("llama-3-1-8b", 8192) / 1e9) < 1e-9
    assert "%.3g" % res["ceiling_tok_s"] == "13.5"
    assert res["sustained_gb_s"] == pytest.approx(80.0)
    assert res["fits"] is True and body["inputs"]["memory_gb"] == 16


def test_fit_flips_with_memory_and_overhead(server):
    q = {"model": "llama-3-1-8b", "format": "fp16", "memory_gb": "17.5"}
    small = check(server.get("/fit.json", params=dict(q, overhead_gb="0")), "GET", "/fit.json")
    assert small["result"]["fits"] is True     # 16.0 + 1.07 GB of 17.5
    # The overhead is an input: the total moves by exactly what was added.
    big = check(server.get("/fit.json", params=dict(q, overhead_gb="2.5")), "GET", "/fit.json")
    assert big["result"]["total_gb"] - small["result"]["total_gb"] == pytest.approx(2.5)
    assert big["result"]["fits"] is False
    assert big["assumptions"]["overhead_gb"] == 2.5


def test_fit_without_hardware_has_no_verdict_until_typed(server):
    body = check(server.get("/fit.json"), "GET", "/fit.json")
    assert body["result"]["fits"] is None and body["result"]["ceiling_tok_s"] is None
    typed = check(server.get("/fit.json", params={"memory_gb": "8", "bandwidth_gb_s": "100",
                                                   "sustained": "0.8"}), "GET", "/fit.json")
    assert typed["result"]["fits"] is True
    assert "%.3g" % typed["result"]["ceiling_tok_s"] == "13.5"


def test_batch_multiplies_the_cache_not_the_weights(server):
    one = server.get("/fit.json", params={"hw": "m3-ultra", "context": "4096"}).json()["result"]
    four = server.get("/fit.json", params={"hw": "m3-ultra", "context": "4096", "batch": "4"}).json()["result"]
    assert four["kv_cache_gb"] == pytest.approx(4 * one["kv_cache_gb"])
    assert four["weights_gb"] == one["weights_gb"]
    assert four["aggregate_tok_s"] > 3 * one["ceiling_tok_s"] > 3 * four["ceiling_tok_s"]


def test_moe_reads_its_active_experts(server):
    res = server.get("/fit.json", params={"hw": "m3-ultra", "model": "gpt-oss-20b",
                                          "format": "mxfp4", "context": "1"}).json()["result"]
    m = MODELS["gpt-oss-20b"]
    assert res["weights_gb"] == pytest.approx(m["total_params"] * 4.25 / 8 / 1e9)
    assert res["read_per_step_gb"] < res["weights_gb"] / 4
    assert res["read_per_step_gb"] == pytest.approx(m["active_params"] * 4.25 / 8 / 1e9, rel=0.01)


def test_measured_runs_sit_beside_their_ceiling(server):
    """Each weights file's typical figures beside the ceiling of those
    weights; a quantization the data lacks gets its format's range."""
    fast = upload(server, decode=11.0)
    upload(server, accel="M3 Ultra", decode=60.0)          # other hardware: not listed
    odd = upload(server, quant="Q9_ZZ", decode=20.0)        # a format the data lacks
    body = check(server.get("/fit.json", params={"hw": "m2"}), "GET", "/fit.json")
    ids = [r["best_run"] for r in body["runs"]]
    assert ids == [odd, fast]                               # highest median first, this hardware only
    run = body["runs"][1]
    assert run["median_decode_tok_s"] == 11.0 and run["keys"] == 1 and run["one_submitter"]
    ceiling = 80e9 / (8.0e9 * 4.85 / 8 + kv_bytes("llama-3-1-8b", 384))
    assert run["ceiling"]["ceiling_tok_s"] == pytest.approx(ceiling)
    assert run["ceiling"]["percent_of_ceiling"] == pytest.approx(100 * 11.0 / ceiling)
    assert run["ceiling"]["range"] is None
    # Q9_ZZ: not in the reference data, so the range of GGUF files.
    assert body["runs"][0]["ceiling"]["range"]["family"] == "GGUF"


def test_unknown_hardware_degrades(server):
    rid = upload(server, accel="Some Future GPU 9000", decode=42.0)
    body = check(server.get("/fit.json", params={"hw": "some-future-gpu-9000"}), "GET", "/fit.json")
    assert body["hardware_unknown"] is True and body["hardware"] is None
    assert body["result"]["fits"] is None and body["result"]["ceiling_tok_s"] is None
    assert [r["best_run"] for r in body["runs"]] == [rid] and body["runs"][0]["ceiling"] is None


@pytest.mark.parametrize("arg,value", [
    ("hw", "not a machine!"), ("model", "llama-9"), ("format", "q9_z"), ("kv", "f32"),
    ("context", "0"), ("context", "8K"), ("context", "1.5"), ("context", "99999999"),
    ("batch", "0"), ("batch", "2000"), ("memory_gb", "-1"), ("memory_gb", "lots"),
    ("bandwidth_gb_s", "0"), ("sustained", "1.5"), ("overhead_gb", "nan"), ("overhead_gb", "-2"),
])
def test_bad_input_is_a_400_naming_the_field(server, arg, value):
    r = server.get("/fit.json", params={arg: value})
    err = check(r, "GET", "/fit.json")["error"]
    assert r.status_code == 400 and err["code"] == "invalid_query" and err["field"] == arg
    assert arg + "=" in err["message"]
    page = server.get("/fit", params={arg: value})
    check(page, "GET", "/fit")
    assert page.status_code == 400 and arg + "=" in page.text


# ---- /fit, the page ----

def test_fit_page_works_without_javascript(server, tmp_path):
    rid = upload(server)
    doc = page_ok(server, tmp_path, "/fit", hw="m2", memory_gb="4")
    form = doc.xpath("//form[@action='/fit']")[0]
    assert form.get("method") == "get"
    names = {e.get("name") for e in form.xpath(".//input|.//select")}
    assert names >= {"hw", "memory_gb", "bandwidth_gb_s", "model", "format", "kv", "context",
                     "batch", "overhead_gb", "sustained"}
    # No script but the search box's type-ahead, which the form does not need.
    assert not doc.xpath("//script[not(@src = '/static/typeahead.js') or node()]")
    text = doc.text_content()
    # A model that does not fit has no speed here: the verdict, no ceiling.
    assert "Does not fit" in text and "13.5 tok/s" not in text
    doc = page_ok(server, tmp_path, "/fit", hw="m2", memory_gb="16")
    text = doc.text_content()
    assert "Does not fit" not in text and "13.5 tok/s" in text
    assert doc.xpath("//a[@href='/r/%s']" % rid)
    check(server.get("/fit"), "GET", "/fit")


# ---- /explain/quantization ----

SEED_TABLE = [
    ("F16", "16.0", "16.0", "17.1", "4.69"), ("Q8_0", "8.50", "8.50", "9.57", "8.36"),
    ("Q6_K", "6.56", "6.56", "7.63", "10.5"), ("Q5_K_M", "5.67", "5.67", "6.74", "11.9"),
    ("Q4_K_M", "4.85", "4.85", "5.92", "13.5"), ("MLX-4bit", "4.50", "4.50", "5.57", "14.4"),
    ("Q3_K_M", "3.91", "3.91", "4.98", "16.1"),
]


def test_explainer_tables_are_the_seeds(server, tmp_path):
    doc = page_ok(server, tmp_path, "/explain/quantization")
    rows = {tr[0].text_content().strip(): tuple(c.text_content().strip() for c in tr)
            for tr in doc.xpath("(//table)[1]/tbody/tr")}
    for row in SEED_TABLE:
        assert rows[row[0]] == row
    text = doc.text_content()
    assert "2.88x" in text and "1.05x" in text and "18%" in text
    cross = {tr[0].text_content().strip(): tr[4].text_content().strip()
             for tr in doc.xpath("(//table)[2]/tbody/tr")}
    names = {m: MODELS[m]["name"] for m in ("llama-3-1-8b", "qwen3-5-9b", "llama-3-2-3b", "gpt-oss-20b")}
    assert cross[names["llama-3-1-8b"]] == "36.1" and cross[names["qwen3-5-9b"]] == "163"
    assert round(float(cross[names["llama-3-2-3b"]])) == 17 and float(cross[names["gpt-oss-20b"]]) > 500
    check(server.get("/explain/quantization"), "GET", "/explain/quantization")


def test_explainer_form_recomputes(server, tmp_path):
    doc = page_ok(server, tmp_path, "/explain/quantization", model="llama-3-1-8b",
                  context="2048", bandwidth_gb_s="100")
    row = [c.text_content().strip() for c in doc.xpath("(//table)[1]/tbody/tr")[0]]
    assert row[0] == "F16"
    expect = 100e9 / (16e9 + kv_bytes("llama-3-1-8b", 2048))
    assert row[4] == "%.3g" % expect
    assert "1.01x" in doc.text_content()      # the cache lever at 2K, as the seed says
    assert doc.xpath("//select[@name='model']/option[@selected]")[0].get("value") == "llama-3-1-8b"


@pytest.mark.parametrize("arg,value", [("model", "nope"), ("context", "-5"), ("bandwidth_gb_s", "x")])
def test_explainer_bad_input(server, arg, value):
    r = server.get("/explain/quantization", params={arg: value})
    check(r, "GET", "/explain/quantization")
    assert r.status_code == 400 and arg + "=" in r.text


def test_glossary_and_nav_link_the_explainer(server):
    doc = lxml.html.fromstring(server.get("/glossary").text)
    for term in ("kv-cache", "q4-k-m", "decode-tok-s"):
        dd = doc.xpath("//dt[@id='%s']/following-sibling::dd[1]" % term)[0]
        assert any(a.get("href").startswith("/explain/quantization") for a in dd.xpath(".//a")), term
    assert doc.xpath("//footer//a[@href='/explain/quantization']")
    assert doc.xpath("//nav//a[@href='/fit']")


# ---- run and model pages ----

def test_run_page_states_its_share_of_the_ceiling(server, tmp_path):
    rid = upload(server, decode=11.0)
    run = check(server.get("/r/%s.json" % rid), "GET", "/r/{id}.json")
    c = run["ceiling"]
    ceiling = 80e9 / (8.0e9 * 4.85 / 8 + kv_bytes("llama-3-1-8b", 384))
    assert c["ceiling_tok_s"] == pytest.approx(ceiling) and c["context_tokens"] == 384
    doc = page_ok(server, tmp_path, "/r/" + rid)
    line = doc.xpath("//p[@class='ceiling']")[0].text_content()
    assert "at %.3g%% of it" % (100 * 11.0 / ceiling) in line
    # the physical line: the maker's 100 GB/s peak over the same bytes
    peak = 100e9 / (8.0e9 * 4.85 / 8 + kv_bytes("llama-3-1-8b", 384))
    assert c["peak_tok_s"] == pytest.approx(peak)
    assert "Decode at %.3g%%" % (100 * 11.0 / peak) in line and "100 GB/s" in line


def test_run_of_an_unknown_model_has_no_ceiling(server, tmp_path):
    rid = upload(server, model="Mystery-Model-7B")
    assert check(server.get("/r/%s.json" % rid), "GET", "/r/{id}.json")["ceiling"] is None
    doc = page_ok(server, tmp_path, "/r/" + rid)
    assert not doc.xpath("//p[@class='ceiling']")


def test_model_page_shows_efficiency_per_hardware(server, tmp_path):
    upload(server, decode=11.0)
    upload(server, accel="Some Future GPU 9000", decode=99.0)
    body = check(server.get("/m/llama-3-1-8b-instruct.json"), "GET", "/m/{slug}.json")
    eff = {e["hw"]: e["ceiling"] for e in body["efficiency"]}
    assert eff["some-future-gpu-9000"] is None
    assert eff["m2"]["percent_of_ceiling"] == pytest.approx(100 * 11.0 / eff["m2"]["ceiling_tok_s"])
    doc = page_ok(server, tmp_path, "/m/llama-3-1-8b-instruct")
    assert "Efficiency per hardware" in doc.text_content()


def test_the_answer_comes_before_the_form_and_names_hardware_by_its_name(server):
    page = server.get("/fit", params={"hw": "rtx-4090"})
    doc = lxml.html.fromstring(page.text)
    main = doc.xpath("//main")[0]
    order = [e.get("id") or e.tag for e in main.iter() if e.get("id") in ("fit-answer-h", "fit-form")]
    assert order == ["fit-answer-h", "fit-form"], order
    answer = doc.xpath("//section[@class='fit-answer']")[0].text_content()
    assert "NVIDIA GeForce RTX 4090" in answer and "Fits" in answer and "tok/s" in answer
    # Its hardware by its shown name, never a slug in code style.
    assert not doc.xpath("//main//code[contains(., 'rtx-4090')]")
    assert "rtx-4090" not in answer


@pytest.mark.parametrize("slug", sorted(HARDWARE))
def test_the_notes_speak_of_the_hardware_picked(server, slug):
    """A machine's notes never say its figures were assumed as for
    another machine ("Fraction: assumed as for M2" on an RTX 4090), and
    they are the notes of the machine picked (its sources may cite a
    maker's announcement of several chips: they still name this one)."""
    m = server.get("/fit.json", params={"hw": slug}).json()
    source = m["assumptions"]["hardware_source"]
    assert "assumed as for" not in source
    assert source == HARDWARE[slug]["source"]


def re_word(name):
    import re
    return re.compile(r"(?<![\w-])%s(?![\w-])" % re.escape(name))
