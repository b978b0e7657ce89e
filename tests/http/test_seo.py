"""What pages say about themselves to search engines and link previews:
<meta name="description"> written from each page's own figures, the
canonical link under --base-url (query variants name the plain page),
OpenGraph and Twitter card tags on run, model, hardware and
model-on-hardware pages with their PNG cards (/card/<id>.png,
/card/m/<slug>.png, /card/hw/<slug>.png; a pair shows its model's),
and the schema.org JSON-LD of the glossary (FAQPage) and /api (Dataset).

The head is read with html.parser (so an attribute value that broke out of
its quotes shows up as a stray attribute or tag), the JSON-LD blocks with
json.loads, and every page goes through html-validate.
"""
import html.parser
import json
import os
import re

import pytest

from conftest import ROOT, make_payload, sign, validate_html
from test_card import png_chunks

BASE = "https://speed.example.org"
HOSTILE = "Evil\"><script>alert(1)</script>&'model"

# Pages that gather runs show the reference's name of a model (issue 32).
_REF = json.load(open(os.path.join(ROOT, "static", "reference", "models.json")))["models"]
Q8B, L8B = _REF["qwen3-8b"]["name"], _REF["llama-3-1-8b"]["name"]


class Head(html.parser.HTMLParser):
    """The <head>'s meta and link tags, and the text of each JSON-LD
    script, as parsed by a browser-like tokenizer."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.meta, self.links, self.ld, self.scripts = {}, {}, [], []
        self._in_ld = None
        self.in_head = True

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "body":
            self.in_head = False
        if not self.in_head:
            return
        if tag == "meta" and "content" in a:
            key = a.get("name") or a.get("property")
            assert key not in self.meta, "meta %s twice" % key
            self.meta[key] = a["content"]
        elif tag == "link" and a.get("rel") == "canonical":
            self.links["canonical"] = a["href"]
        elif tag == "script":
            self.scripts.append(a)
            if a.get("type") == "application/ld+json":
                self._in_ld = []

    def handle_data(self, data):
        if self._in_ld is not None:
            self._in_ld.append(data)

    def handle_endtag(self, tag):
        if tag == "script" and self._in_ld is not None:
            self.ld.append(json.loads("".join(self._in_ld)))
            self._in_ld = None


def head_of(text):
    h = Head()
    h.feed(text)
    return h


def upload(server, key=None, **over):
    token, key = sign(make_payload(**over), key)
    r = server.upload(token)
    assert r.status_code == 201, r.text
    return r.json()["id"], key


@pytest.fixture
def site(make_server):
    """A server under --base-url with runs of two models on two machines,
    three submitters on the first combination."""
    s = make_server(["--base-url", BASE + "/"])
    ids = []
    for i, dec in enumerate((131.2, 128.0, 135.5)):
        rid, _ = upload(s, model__name="Qwen3-8B", model__quantization="Q4_K_M",
                        model__format="gguf", backend={"name": "llama.cpp", "version": "b4567", "runner": None},
                        hardware__accelerator_summary="NVIDIA GeForce RTX 4090",
                        hardware__gpu_name="NVIDIA GeForce RTX 4090",
                        hardware__fingerprint_hash="aa%014d" % i,
                        workloads__chat_short__decode_tok_s=dec)
        ids.append(rid)
    upload(s, model__name="Qwen3-8B", model__quantization="Q4_K_M", model__format="gguf")
    upload(s)
    s.ids = ids
    return s


def test_run_page_describes_its_figures_and_previews_its_card(site, tmp_path):
    rid = site.ids[0]
    r = site.get("/r/%s" % rid)
    h = head_of(r.text)
    d = h.meta["description"]
    assert d.startswith("Qwen3-8B Q4_K_M on NVIDIA GeForce RTX 4090 with llama.cpp b4567: 131.2 tok/s decode")
    assert "204.0 tok/s prefill" in d and "539.3 ms to first token" in d
    assert "3 runs by 3 submitters" in d
    assert h.links["canonical"] == BASE + "/r/" + rid
    assert h.meta["og:url"] == BASE + "/r/" + rid
    assert h.meta["og:image"] == BASE + "/card/%s.png" % rid
    assert h.meta["og:title"] == "Qwen3-8B on NVIDIA GeForce RTX 4090"
    assert h.meta["og:description"] == d
    assert h.meta["twitter:card"] == "summary_large_image"
    assert (h.meta["og:image:width"], h.meta["og:image:height"]) == ("1200", "630")
    ok, report = validate_html(r.text, tmp_path)
    assert ok, report


def test_model_and_hw_pages_describe_their_fastest_and_have_cards(site, tmp_path):
    for path, card, want in (
            ("/m/qwen3-8b", "/card/m/qwen3-8b.png",
             "2 combinations; fastest: Q4_K_M on NVIDIA GeForce RTX 4090 with llama.cpp, median 131.2 tok/s decode over 3 submitters."),
            ("/hw/rtx-4090", "/card/hw/rtx-4090.png",
             "Typical: %s (Q4_K_M) with llama.cpp, median 131.2 tok/s decode over 3 submitters." % Q8B)):
        r = site.get(path)
        h = head_of(r.text)
        assert want in h.meta["description"], h.meta["description"]
        assert h.links["canonical"] == BASE + path
        assert h.meta["og:image"] == BASE + card
        assert h.meta["twitter:card"] == "summary_large_image"
        ok, report = validate_html(r.text, tmp_path)
        assert ok, report
        png = site.get(card)
        assert png.status_code == 200 and png.headers["Content-Type"] == "image/png"
        ihdr = png_chunks(png.content)[0][1]
        assert ihdr[:8] == bytes.fromhex("000004b000000276")   # 1200 x 630
        again = site.get(card, headers={"If-None-Match": png.headers["ETag"]})
        assert again.status_code == 304
    svg = site.get("/card/m/qwen3-8b.svg")
    assert svg.status_code == 200 and "NVIDIA GeForce RTX 4090" in svg.text and "131.2" in svg.text
    # Its second machine has one submitter: awaiting confirmation, so not
    # among the card's fastest (issue 35).
    assert "M3 Ultra" not in svg.text
    for bad in ("/card/m/no-such-model.png", "/card/hw/no-such-hw.svg", "/card/m/Bad%20Slug.png"):
        r = site.get(bad)
        assert r.status_code == 404 and r.json()["error"]["code"] == "not_found", bad


def test_model_on_hardware_page_describes_its_figures_and_has_a_card(site, tmp_path):
    path = "/m/qwen3-8b/hw/rtx-4090"
    r = site.get(path)
    assert r.status_code == 200
    h = head_of(r.text)
    d = h.meta["description"]
    assert d.startswith(Q8B + " on NVIDIA GeForce RTX 4090: typical decode speeds"), d
    assert ("Typical: Q4_K_M with llama.cpp, median 131.2 tok/s decode over 3 submitters, "
            "best 135.5 tok/s, prefill 204.0 tok/s.") in d, d
    assert h.links["canonical"] == BASE + path
    assert h.meta["og:url"] == BASE + path
    assert h.meta["og:title"] == Q8B + " on NVIDIA GeForce RTX 4090"
    assert h.meta["og:description"] == d
    assert h.meta["og:image"] == BASE + "/card/m/qwen3-8b.png"
    assert h.meta["twitter:card"] == "summary_large_image"
    assert (h.meta["og:image:width"], h.meta["og:image:height"]) == ("1200", "630")
    ok, report = validate_html(r.text, tmp_path)
    assert ok, report
    # Its description is its own, not its model's or its machine's.
    for other in ("/m/qwen3-8b", "/hw/rtx-4090", "/m/qwen3-8b/hw/m3-ultra"):
        assert head_of(site.get(other).text).meta["description"] != d, other
    png = site.get("/card/m/qwen3-8b.png")
    assert png.status_code == 200 and png.headers["Content-Type"] == "image/png"
    # A pair with no runs is a 404 page: no card, not indexed.
    r = site.get("/m/qwen3-8b/hw/no-such-hw")
    h = head_of(r.text)
    assert r.status_code == 404 and h.meta.get("robots") == "noindex" and "og:image" not in h.meta


def test_hostile_names_stay_inside_the_pair_page_attributes(make_server):
    s = make_server(["--base-url", BASE])
    rid, _ = upload(s, model__name=HOSTILE)
    slug = s.get("/r/%s.json" % rid).json()["model"]["slug"]
    r = s.get("/m/%s/hw/m3-ultra" % slug)
    assert r.status_code == 200, r.text[:300]
    h = head_of(r.text)
    assert HOSTILE in h.meta["description"] and HOSTILE in h.meta["og:description"]
    assert h.meta["og:image"] == BASE + "/card/m/%s.png" % slug
    assert "<script>alert" not in r.text.split("</head>")[0]


def test_a_page_card_follows_the_next_upload(site):
    before = site.get("/card/hw/rtx-4090.svg").text
    png = site.get("/card/hw/rtx-4090.png")
    # Three submitters confirm the new combination; only then is it on the
    # card (issue 35), with the reference's name (issue 32).
    for i in range(3):
        upload(site, model__name="Llama-3.1-8B", hardware__accelerator_summary="NVIDIA GeForce RTX 4090",
               hardware__gpu_name="NVIDIA GeForce RTX 4090", workloads__chat_short__decode_tok_s=150.0 + i)
        after = site.get("/card/hw/rtx-4090.svg").text
        assert (L8B in after) is (i == 2)
    assert L8B not in before
    png2 = site.get("/card/hw/rtx-4090.png")
    assert png2.status_code == 200 and png2.headers["ETag"] != png.headers["ETag"]


def test_query_variants_name_the_plain_page(site):
    for path, plain in (("/?sort=prefill", "/"), ("/hw/rtx-4090?sort=prefill", "/hw/rtx-4090"),
                        ("/m/qwen3-8b?suite=suite-v1", "/m/qwen3-8b"),
                        ("/r/%s?after=1" % site.ids[0], "/r/%s" % site.ids[0]),
                        ("/models?sort=name", "/models"), ("/cheatsheet?memory=24", "/cheatsheet")):
        r = site.get(path)
        assert r.status_code == 200, (path, r.text[:200])
        assert head_of(r.text).links["canonical"] == BASE + plain, path


def test_every_page_has_a_description_of_its_own(site):
    seen = {}
    for path in ("/", "/models", "/hardware", "/cheatsheet", "/fit", "/fit?model=qwen3-5-9b&hw=rtx-4090",
                 "/explain/quantization", "/glossary", "/methodology", "/privacy", "/api", "/log",
                 "/outliers", "/disputes", "/search", "/compare?r=%s,%s" % tuple(site.ids[:2]),
                 "/r/" + site.ids[0], "/m/qwen3-8b", "/hw/rtx-4090", "/m/qwen3-8b/hw/rtx-4090"):
        r = site.get(path)
        assert r.status_code == 200, path
        h = head_of(r.text)
        d = h.meta.get("description")
        assert d and len(d) >= 50, (path, d)
        assert d not in seen, "%s has %s's description" % (path, seen.get(d))
        seen[d] = path
        assert h.links.get("canonical", "").startswith(BASE + "/"), path
    fit = head_of(site.get("/fit?model=qwen3-5-9b&hw=rtx-4090").text).meta["description"]
    assert "on NVIDIA GeForce RTX 4090: fits" in fit and "decode ceiling" in fit
    assert "7 models" not in head_of(site.get("/models").text).meta["description"]
    assert "(2 models)" in head_of(site.get("/models").text).meta["description"]


def test_an_error_page_is_described_and_not_indexed(site):
    r = site.get("/r/r_doesnotexist")
    assert r.status_code == 404
    h = head_of(r.text)
    assert h.meta["description"] and h.meta["robots"] == "noindex"
    assert "canonical" not in h.links and "og:image" not in h.meta


def test_hostile_names_stay_inside_their_attributes(make_server, tmp_path):
    s = make_server(["--base-url", BASE])
    rid, _ = upload(s, model__name=HOSTILE, hardware__accelerator_summary="RTX \u202e4090 \"x\"")
    r = s.get("/r/" + rid)
    h = head_of(r.text)
    assert len(h.scripts) == 1      # only the page's own typeahead.js
    for key in ("description", "og:description"):
        assert HOSTILE in h.meta[key], key
    for key in ("og:title", "og:image:alt"):     # the page's title, cut to its width
        assert 'Evil"><script>a' in h.meta[key], key
    assert "\u2068" in h.meta["description"]  # the override is isolated
    head = r.text.split("</head>")[0]
    assert "<script>alert" not in head


def test_glossary_questions_are_a_faq_page(site):
    r = site.get("/glossary")
    h = head_of(r.text)
    assert len(h.ld) == 1
    faq = h.ld[0]
    assert faq["@context"] == "https://schema.org" and faq["@type"] == "FAQPage"
    questions = re.findall(r'<h3 id="faq-[^"]*">(.*?)</h3>',
                           r.text.split('id="common-questions"')[1].split("</section>")[0])
    assert [q["name"] for q in faq["mainEntity"]] == [html.unescape(q) for q in questions]
    for q in faq["mainEntity"]:
        assert set(q) == {"@type", "name", "acceptedAnswer"} and q["@type"] == "Question"
        a = q["acceptedAnswer"]
        assert a["@type"] == "Answer" and len(a["text"]) > 80
        assert "<" not in a["text"] and not re.search(r"&[a-z#0-9]+;", a["text"]), a["text"]
    assert "OLLAMA_KV_CACHE_TYPE" in faq["mainEntity"][0]["acceptedAnswer"]["text"]
    raw = r.text.split('<script type="application/ld+json">')[1].split("</script>")[0]
    assert "</" not in raw and "<" not in raw


def test_api_describes_the_export_as_a_dataset(site):
    h = head_of(site.get("/api").text)
    assert len(h.ld) == 1
    d = h.ld[0]
    assert d["@context"] == "https://schema.org" and d["@type"] == "Dataset"
    assert d["url"] == BASE + "/api" and d["name"] and len(d["description"]) >= 50
    dist = d["distribution"]
    assert dist[0]["@type"] == "DataDownload" and dist[0]["contentUrl"] == BASE + "/export"
    assert dist[0]["encodingFormat"] == "application/x-ndjson"
    assert d["creator"]["@type"] == "Organization" and d["isAccessibleForFree"] is True
    # The properties are schema.org's Dataset properties.
    assert set(d) <= {"@context", "@type", "name", "description", "url", "keywords",
                      "isAccessibleForFree", "variableMeasured", "creator", "distribution"}
