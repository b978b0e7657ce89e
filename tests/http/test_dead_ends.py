"""Paths that end nowhere (issue 38, items 14, 15, 17, 19 and 20): a 404
offers pages that exist, never the missing one; /compare without runs is
a form that picks them; /fit keeps its form and says under each field what
to fix; the picker offers what search finds for a name it cannot open;
search ranks by the typical figure; /methodology's contents and /api's
examples; compare's labels and its one "best".

Runs are stored through the real upload endpoint; every HTML page read is
checked by html-validate at the end of its test."""
import re
import urllib.parse

import lxml.html
import pytest

from test_pages import page, payload, seen, upload, upload_all  # noqa: F401 (seen is a fixture)


def doc_of(text):
    return lxml.html.fromstring(text)


# ---- item 14: the 404 page ----

def test_a_404_offers_pages_that_exist_and_a_search(server, seen):
    ids = upload_all(server, [payload("Model A", "NVIDIA GeForce RTX 4090", "llama.cpp", 90.0),
                              payload("Model A", "NVIDIA GeForce RTX 4090", "llama.cpp", 95.0),
                              payload("Model B", "M3 Ultra", "mlx", 40.0)])
    for path in ("/hw/m3-ultra-nope", "/m/model-zzz", "/r/r_zzzzzzzzzzz", "/no-such-page"):
        text = page(server, path, seen, 404)
        doc = doc_of(text)
        # No hard-coded example: neither the demo's run id nor a slug
        # nobody measured here.
        assert "r_y2_5y8oo97d" not in text and "qwen2-5-7b-instruct" not in text, path
        assert "like /hw/" not in text and "like /m/" not in text, path
        examples = doc.xpath("//ul[@class='examples']//a/@href")
        assert len(examples) == 4, (path, examples)
        assert path not in examples
        for href in examples:
            assert server.get(href).status_code == 200, (path, href)
        assert any(h.startswith("/r/") and h[3:] in ids for h in examples)
        assert "/m/model-a" in examples and "/hw/rtx-4090" in examples, examples
        # Named as the pages name them.
        assert doc.xpath("//ul[@class='examples']//a[@href='/hw/rtx-4090']/text()") == ["NVIDIA GeForce RTX 4090"]
    doc = doc_of(page(server, "/hw/m3-ultra-nope", seen, 404))
    assert doc.xpath("//main//a[@href='/search?q=m3-ultra-nope']")


def test_a_404_on_an_empty_site_offers_the_lists(server, seen):
    doc = doc_of(page(server, "/hw/nothing-here", seen, 404))
    assert not doc.xpath("//ul[@class='examples']")
    assert doc.xpath("//main//a[@href='/models']") and doc.xpath("//main//a[@href='/hardware']")


def test_the_example_is_never_the_missing_page(server, seen):
    """/m/model-a in a suite it has no runs in is a 404 whose path is a
    page the examples would offer: the next most measured model stands in."""
    upload_all(server, [payload("Model A", decode=90.0), payload("Model A", decode=91.0),
                        payload("Model B", decode=40.0)])
    doc = doc_of(page(server, "/m/model-a?suite=suite-v9", seen, 404))
    examples = doc.xpath("//ul[@class='examples']//a/@href")
    assert "/m/model-a" not in examples and "/m/model-b" in examples, examples


# ---- item 14: /compare without runs ----

def test_compare_without_runs_is_a_form_that_picks_them(server, seen):
    a, b, c = upload_all(server, [payload("Model A", "NVIDIA GeForce RTX 4090", "llama.cpp", 90.0),
                                  payload("Model A", "M3 Ultra", "mlx", 60.0),
                                  payload("Model B", "M3 Ultra", "mlx", 40.0)])
    doc = doc_of(page(server, "/compare", seen))
    form = doc.xpath("//form[@action='/compare'][.//select[@name='model']]")[0]
    assert form.get("method") == "get"
    assert set(form.xpath(".//select[@name='model']/option/@value")) == {"", "model-a", "model-b"}
    assert set(form.xpath(".//select[@name='hw']/option/@value")) == {"", "rtx-4090", "m3-ultra"}
    assert not doc.xpath("//input[@name='r']")
    # By model: its best run on each hardware and backend, highest median first.
    doc = doc_of(page(server, "/compare?model=model-a", seen))
    assert doc.xpath("//select[@name='model']/option[@selected]/@value") == ["model-a"]
    assert doc.xpath("//input[@type='checkbox'][@name='r']/@value") == [a, b]
    # By hardware.
    doc = doc_of(page(server, "/compare?hw=m3-ultra", seen))
    assert doc.xpath("//input[@type='checkbox'][@name='r']/@value") == [b, c]
    # Both.
    doc = doc_of(page(server, "/compare?model=model-a&hw=m3-ultra", seen))
    assert doc.xpath("//input[@type='checkbox'][@name='r']/@value") == [b]
    # Ticking two sends r= twice: they compare.
    doc = doc_of(page(server, "/compare?r=%s&r=%s" % (a, b), seen))
    assert [x.strip() for x in doc.xpath("//table[contains(@class, 'compare-runs')]//th[@scope='row']/a/text()")] == [a, b]
    j = server.get("/compare.json").json()
    assert j["choosing"] is True and j["choose"]["rows"] == []
    assert server.get("/compare.json", params={"model": "model-a"}).json()["choose"]["rows"][0]["best_run"] == a
    # What stays refused: a CSV of nothing, a malformed slug, bad ids.
    assert server.get("/compare.csv").status_code == 400
    assert server.get("/compare", params={"model": "Not A Slug"}).status_code == 400
    assert server.get("/compare", params={"r": "x"}).status_code == 400


# ---- item 14 and 19: /fit ----

def test_fit_keeps_its_form_and_says_under_each_field_what_to_fix(server, seen):
    text = page(server, "/fit?hw=m3-ultra&context=8K&batch=0&model=llama-9&memory_gb=64", seen, 400)
    doc = doc_of(text)
    form = doc.xpath("//form[@id='fit-form']")[0]
    # The refused values are shown as typed, each with its sentence.
    ctx = form.xpath(".//input[@name='context']")[0]
    assert ctx.get("value") == "8K" and ctx.get("aria-invalid") == "true"
    assert "context=" in form.xpath(".//*[@id=$i]", i=ctx.get("aria-describedby"))[0].text_content()
    batch = form.xpath(".//input[@name='batch']")[0]
    assert batch.get("value") == "0" and "batch=" in doc.xpath("//*[@id='fit-batch-error']")[0].text_content()
    assert "llama-9" in doc.xpath("//*[@id='fit-model-error']")[0].text_content()
    # The rest stays as asked.
    assert form.xpath(".//select[@name='hw']/option[@selected]/@value") == ["m3-ultra"]
    assert float(form.xpath(".//input[@name='memory_gb']/@value")[0]) == 64
    # No answer to a question asked wrong, and the folded fields open.
    assert not doc.xpath("//section[contains(@class, 'fit-answer')]")
    assert doc.xpath("//details[contains(@class, 'fit-more')]/@open")
    # JSON is refused as before.
    r = server.get("/fit.json", params={"context": "8K"})
    assert r.status_code == 400 and r.json()["error"]["field"] == "context"


def test_fit_puts_model_and_hardware_first_and_folds_the_rest(server, seen):
    doc = doc_of(page(server, "/fit", seen))
    form = doc.xpath("//form[@id='fit-form']")[0]
    top = form.xpath("./div[contains(@class, 'fit-top')]")[0]
    assert top.xpath(".//select/@name") == ["model", "hw"]
    more = form.xpath("./details[contains(@class, 'fit-more')]")[0]
    assert more.get("open") is None
    names = set(more.xpath(".//input/@name | .//select/@name"))
    assert names == {"format", "kv", "context", "batch", "memory_gb", "bandwidth_gb_s", "sustained", "overhead_gb"}


# ---- item 15: the picker and search ----

def test_the_picker_offers_what_search_finds(server, seen):
    upload_all(server, [payload("Model A", "NVIDIA GeForce RTX 4090", "llama.cpp", 90.0),
                        payload("Model A", "NVIDIA GeForce RTX 3090", "llama.cpp", 60.0)])
    text = page(server, "/?model=Model+A&hw=GeForce", seen, 404)
    doc = doc_of(text)
    err = doc.xpath("//*[@id='pick-hw-error']")[0].text_content()
    assert 'No hardware is called "GeForce" exactly' in err
    links = doc.xpath("//ul[contains(@class, 'candidates')]//a")
    hrefs = [a.get("href") for a in links]
    assert set(hrefs[:2]) == {"/m/model-a/hw/rtx-4090", "/m/model-a/hw/rtx-3090"}, hrefs
    assert hrefs[-1] == "/hardware"
    for href in hrefs[:2]:
        assert server.get(href).status_code == 200
    # A model that is unknown too: the links pick again with what was typed.
    doc = doc_of(page(server, "/?model=Mystery&hw=GeForce", seen, 404))
    hrefs = doc.xpath("//ul[@id='pick-hw-candidates']//a/@href")
    q = urllib.parse.parse_qs(urllib.parse.urlparse(hrefs[0]).query)
    assert q["model"] == ["Mystery"] and q["hw"][0] in ("rtx-4090", "rtx-3090")
    # Nothing like it: the sentence as before, no list.
    doc = doc_of(page(server, "/?model=Model+A&hw=A+toaster", seen, 404))
    assert 'No hardware called "A toaster"' in doc.xpath("//*[@id='pick-hw-error']")[0].text_content()
    assert not doc.xpath("//ul[contains(@class, 'candidates')]")


def test_search_ranks_by_the_typical_figure_with_its_submitters(server, seen):
    # Alpha has more runs, Beta the higher median: Beta comes first.
    upload_all(server, [payload("Rankq Alpha", decode=50.0), payload("Rankq Alpha", decode=52.0),
                        payload("Rankq Beta", decode=200.0)])
    res = server.get("/search.json", params={"q": "rankq"}).json()["results"]
    assert [r["slug"] for r in res] == ["rankq-beta", "rankq-alpha"]
    assert res[1]["median_decode_tok_s"] == pytest.approx(51.0, rel=0.01) and res[1]["keys"] == 2
    assert res[0]["keys"] == 1
    doc = doc_of(page(server, "/search?q=rankq", seen))
    heads = [th.text_content() for th in doc.xpath("//main//table//thead//th")]
    assert "Typical decode tok/s" in heads and "Submitters" in heads and "Best decode tok/s" not in heads
    cells = [[td.text_content() for td in tr.xpath("td")] for tr in doc.xpath("//main//table//tbody/tr")]
    assert cells[0][0] == "Rankq Beta" and cells[0][heads.index("Submitters")] == "1"


# ---- item 17: /methodology and /api ----

def test_methodology_contents_list_every_section(server, seen):
    doc = doc_of(page(server, "/methodology", seen))
    toc = set(doc.xpath("//nav[@class='toc']//a/@href"))
    for h2 in doc.xpath("//main//h2[@id]"):
        assert "#" + h2.get("id") in toc, h2.get("id")
    assert {"#predictions", "#changes"} <= toc


def test_api_has_examples_folds_its_reference_and_names_no_repository_file(server, seen):
    text = page(server, "/api", seen)
    doc = doc_of(text)
    toc = doc.xpath("//nav[@class='toc']//a/@href")
    assert toc[0] == "#examples"
    examples = doc.xpath("//section[h2[@id='examples']]//pre/code")
    joined = "\n".join(e.text_content() for e in examples)
    assert joined.count("curl ") >= 6 and "/api/v1/runs" in joined and ".json" in joined
    assert server.url + "/search.json?q=4090" in joined
    # Every route's reference is folded under its first paragraph.
    ops = doc.xpath("//section[@class='api-op']")
    assert len(ops) >= 20 and all(op.xpath("./details[@class='api-more']") for op in ops)
    visible = " ".join(t for t in doc.xpath("//main//text()[not(ancestor::details)]"))
    assert len(visible) < len(doc.xpath("string(//main)")) / 2
    for f in ("schema/", "deploy/", "static/reference", "API.md", "TLOG.md", "domain/ceiling.c"):
        assert f not in text, f


# ---- item 20: compare's labels and its best ----

LONG = "Qwen3-Coder-30B-A3B-Instruct-Long-Name-Test"


def test_compare_labels_are_whole_and_best_marks_one_run(server, seen):
    a, b = upload_all(server, [payload(LONG, "NVIDIA GeForce RTX 4090", "llama.cpp", 90.0),
                               payload("Other Model", "M3 Ultra", "mlx", 120.0)])
    j = server.get("/compare.json", params={"r": "%s,%s" % (a, b)}).json()
    assert j["runs"][0]["label"].startswith(LONG) and "…" not in j["runs"][0]["label"]
    assert [r["best"] for r in j["runs"]] == [False, True]
    doc = doc_of(page(server, "/compare?r=%s,%s" % (a, b), seen))
    # The charts' legends hold every word of the label, wrapped, never cut.
    for svg in doc.xpath("//figure//*[local-name()='svg']"):
        legend = [t.xpath("string(.)") for t in svg.xpath(".//*[local-name()='g'][@class='legend']/*[local-name()='text']")]
        assert "…" not in "".join(legend)
        assert re.sub(r"\s+", "", legend[0]) == re.sub(r"\s+", "", j["runs"][0]["label"])
    # One visible "best": on the run with the fastest W1 decode; each
    # figure row's best is in bold.
    shown = [s for s in doc.xpath("//main//span[@class='best']") if not s.xpath("ancestor::p")]
    assert len(shown) == 1
    assert shown[0].xpath("ancestor::tr[1]/th/a/text()") == [b]
    assert doc.xpath("//table[contains(@class, 'compare-figures')]//td[contains(@class, 'is-best')]/strong")
