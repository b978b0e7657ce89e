"""The reference pages: /glossary, /methodology, /privacy and the stylesheet."""
import re

import pytest
from lxml import html as lhtml

from conftest import validate_html

# Every term of the seed glossary, by section, with the anchor people link to.
GLOSSARY_TERMS = [
    "tok-s", "decode-tok-s", "prefill-tok-s", "ttft", "p50", "p95", "wall-ms",
    "agent-trace-ttft", "suite-v1", "chat-short", "chat-long", "long-context-decay",
    "concurrent-decode", "agent-trace", "batch-size", "context-length", "prefix-cache",
    "prefill", "decode", "kv-cache", "q4-k-m", "q4-k-m-context", "model-digest", "eddsa",
    "jws", "fingerprint", "fingerprint-hash", "mlx", "llama-cpp", "vllm", "ollama",
    "exllamav2", "hosted-api", "strict-anon", "anon", "no-upload", "outlier-flag",
    "run-badge", "qwen3-coder-next", "llama-3-3-70b", "qwen2-5-7b-instruct",
    "llama-4-scout", "llama-4-maverick", "stable-code-instruct-3b",
    "qwen3-coder-30b-a3b-instruct", "gpt-oss-20b", "deepseek-coder-v2-lite-instruct",
    "qwen2-5-coder-32b-instruct-4bit", "m3-ultra", "m3-pro", "rtx-5090", "rtx-4090",
    # Issue 38: one term per idea, each defined.
    "median", "middle-half", "submitter", "predicted", "cluster", "combination", "typical-figure",
]

METHODOLOGY_SECTIONS = ["suite-v1", "chat-short", "chat-long", "long-context-decay",
                        "concurrent-decode", "agent-trace", "metrics", "signing",
                        "outliers", "disputes", "digests", "suite-versions", "hosted-api"]

PRIVACY_SECTIONS = ["what-an-upload-contains", "what-is-stored", "what-is-shown",
                    "anon", "strict-anon", "ip-addresses"]


def ids_of(server, path):
    r = server.get(path)
    assert r.status_code == 200, path
    return set(lhtml.fromstring(r.content).xpath("//@id")), r


@pytest.mark.parametrize("path", ["/glossary", "/methodology", "/privacy"])
def test_reference_pages_are_valid_and_cacheable(server, tmp_path, path):
    r = server.get(path)
    assert r.status_code == 200
    assert r.headers["Content-Type"].startswith("text/html")
    assert "frame-ancestors 'none'" in r.headers["Content-Security-Policy"]
    assert r.headers["X-Content-Type-Options"] == "nosniff"
    assert "Referrer-Policy" in r.headers
    assert "public" in r.headers["Cache-Control"]
    ok, report = validate_html(r.text, tmp_path)
    assert ok, report
    again = server.get(path, headers={"If-None-Match": r.headers["ETag"]})
    assert again.status_code == 304


def test_every_glossary_term_has_an_anchor_and_a_definition(server):
    ids, r = ids_of(server, "/glossary")
    missing = [t for t in GLOSSARY_TERMS if t not in ids]
    assert not missing, missing
    doc = lhtml.fromstring(r.content)
    for term in GLOSSARY_TERMS:
        dt = doc.xpath("//dt[@id=$i]", i=term)
        assert dt, term
        dd = dt[0].getnext()
        assert dd is not None and dd.tag == "dd", term
        first = dd.text_content().strip()
        # A one-sentence definition comes first.
        assert re.match(r"^.{20,}?[.](\s|$)", first, re.S), term


def test_cross_links_land_on_anchors_that_exist(server):
    pages = {p: ids_of(server, p)[0] for p in ("/glossary", "/methodology", "/privacy")}
    for page in pages:
        doc = lhtml.fromstring(server.get(page).content)
        for href in doc.xpath("//a/@href"):
            m = re.match(r"^(/glossary|/methodology|/privacy)?#([\w-]+)$", href)
            if not m:
                continue
            target = m.group(1) or page
            assert m.group(2) in pages[target], (page, href)
    glossary = server.get("/glossary").text
    assert "/methodology#" in glossary and "/privacy#" in glossary


def test_methodology_and_privacy_sections(server):
    ids, _ = ids_of(server, "/methodology")
    assert not [s for s in METHODOLOGY_SECTIONS if s not in ids]
    ids, r = ids_of(server, "/privacy")
    assert not [s for s in PRIVACY_SECTIONS if s not in ids]
    text = lhtml.fromstring(r.content).text_content()
    assert "IP address" in text


def test_stylesheet_is_served_with_a_long_cache(server):
    r = server.get("/static/style.css")
    assert r.status_code == 200
    assert r.headers["Content-Type"].startswith("text/css")
    assert "prefers-color-scheme: dark" in r.text
    assert "max-age" in r.headers["Cache-Control"]
    assert server.get("/static/style.css", headers={"If-None-Match": r.headers["ETag"]}).status_code == 304
    assert server.get("/static/nope.css").status_code == 404


def test_favicon_is_served_where_browsers_look(server):
    r = server.get("/favicon.ico")
    assert r.status_code == 200
    assert r.headers["Content-Type"] == "image/x-icon"
    assert r.content[:4] == b"\x00\x00\x01\x00"
    assert 'rel="icon" href="/favicon.ico"' in server.get("/").text


def test_pages_link_their_terms_to_glossary_entries(server):
    """Issue 38: the words the lists use (median, middle half, submitter,
    cluster, combination) link to entries that exist, and no page text
    says "hardware class" or "signing keys" for the people who measured."""
    from conftest import make_payload, sign
    r = server.upload(sign(make_payload())[0])
    assert r.status_code == 201, r.text
    rid = r.json()["id"]
    ids = ids_of(server, "/glossary")[0]
    seen = set()
    home = server.get("/").text
    model = re.search(r'href="(/m/[^"?#/]+)', home).group(1)
    hw = re.search(r'href="(/hw/[^"?#/]+)', home).group(1)
    for path in ("/", "/outliers", "/changes", "/models", "/hardware", "/wanted", "/r/" + rid,
                 model, hw, model + hw, "/cheatsheet"):
        page = server.get(path)
        assert page.status_code == 200, path
        doc = lhtml.fromstring(page.content)
        for href in doc.xpath("//a/@href"):
            m = re.match(r"^/glossary#([\w-]+)$", href)
            if m:
                assert m.group(1) in ids, (path, href)
                seen.add(m.group(1))
        words = " ".join(doc.xpath("//main")[0].itertext())
        assert "hardware class" not in words, path
        assert "Mean of keys" not in words, path
        # People are counted as submitters: "20 signing keys" or "(13 keys)" is not.
        assert not re.search(r"\b\d[\d,]* (signing )?keys?\b", words), (path, re.findall(r".{30}\d+ (?:signing )?keys?\b", words))
    assert {"median", "submitter", "combination", "cluster"} <= seen, seen
