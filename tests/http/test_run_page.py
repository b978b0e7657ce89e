"""The run permalink /r/<id>: every workload laid out for comparison, the
charts as inline SVG, the provenance (digest, hardware, backend, key,
account), the outlier check, the badge embeds, escaping, caching headers
and the 404 page; every page passes html-validate."""
import copy
import json
import os
import html
import re
import statistics
import xml.etree.ElementTree as ET

import lxml.html
import pytest

from conftest import (MODERATOR_TOKEN, ROOT, digest_for, make_payload, new_key, sign,
                      upload_payload, validate_html)

SVG_NS = "{http://www.w3.org/2000/svg}"
HOSTILE_MODEL = "<script>alert(1)</script>Qwen"
HOSTILE_HW = "<img src=x onerror=alert(2)> & \"Ultra\""

REF_MODELS = json.load(open(os.path.join(ROOT, "static", "reference", "models.json")))["models"]


def upload_ok(server, payload=None, key=None, headers=None):
    """Uploads a run; returns the 201 body."""
    r = upload_payload(server, payload or make_payload(), key, headers)
    assert r.status_code == 201, r.text
    return r.json()


def page(server, rid, tmp_path, validate=True):
    """GETs /r/<rid>; checks it is a valid HTML page; returns the response
    and its lxml tree."""
    r = server.get("/r/%s" % rid)
    assert r.status_code == 200, r.text
    assert r.headers["Content-Type"].startswith("text/html")
    if validate:
        ok, report = validate_html(r.text, tmp_path)
        assert ok, report
    return r, lxml.html.fromstring(r.text)


def text_of(el):
    """The text of el, without the glossary markers ("?") beside headers."""
    el = copy.deepcopy(el)
    for gl in el.xpath('.//a[@class="gl"]'):
        gl.drop_tree()
    return " ".join(el.text_content().split())


def section(doc, sid):
    found = doc.xpath('//section[@id="%s"]' % sid)
    return found[0] if found else None


def svgs(text):
    """Every inline <svg> of the page, parsed as XML (they must be
    well-formed on their own)."""
    return [ET.fromstring(m) for m in re.findall(r"<svg\b.*?</svg>", text, re.S)]


def svg_texts(svg, cls):
    """The texts of the <text> elements inside groups (or with a class)
    matching cls."""
    out = []
    for g in svg.iter():
        if cls in (g.get("class") or "").split():
            if g.tag == SVG_NS + "text":
                out.append("".join(g.itertext()))
            else:
                out.extend("".join(t.itertext()) for t in g.iter(SVG_NS + "text"))
    return out


def chart_in(text, title_part):
    """The chart whose <title> contains title_part."""
    for s in svgs(text):
        t = s.find(SVG_NS + "title")
        if t is not None and title_part in t.text:
            return s
    raise AssertionError("no chart titled %r" % title_part)


def facts(sec):
    """The definition lists of a section as {dt text: dd text}."""
    return {text_of(dt): text_of(dt.getnext()) for dt in sec.xpath(".//dl/dt")}


def cells(sec):
    """The table rows of a section as lists of cell texts."""
    return [[text_of(c) for c in tr.xpath("./th|./td")] for tr in sec.xpath(".//tbody/tr")]


# ---- the full page --------------------------------------------------------------


def test_every_workload_is_laid_out(server, tmp_path):
    token = server.account("alice")
    body = upload_ok(server, headers={"Authorization": "Bearer " + token})
    rid = body["id"]
    r, doc = page(server, rid, tmp_path)

    # W1 and W2 side by side: one row per measure, a column per workload.
    chat = section(doc, "chat")
    rows = {row[0]: row[1:] for row in cells(chat)}
    assert rows["Time to first token ms"] == ["539.3", "9,800"]
    assert rows["Prefill tok/s"] == ["204.0", "418.0"]
    assert rows["Decode tok/s"] == ["112.2", "98.5"]
    assert rows["p50 between tokens ms"] == ["8.9", "10.1"]
    assert rows["p95 between tokens ms"] == ["10.4", "12.0"]
    assert rows["Wall time ms"] == ["2,821", "20,200"]
    assert rows["Prompt tokens"] == ["128", "4,096"]
    assert rows["Prefix-cache hit rate"] == ["\u2013", "0%"]
    heads = [text_of(th) for th in chat.xpath(".//thead/th|.//thead/tr/th")]
    assert heads == ["Measure", "chat-short W1", "chat-long W2"]

    # W3: decode and prefill against context length, each in its own panel
    # on its own y axis (on one axis prefill flattens decode), and the points.
    w3 = chart_in(r.text, "Decode speed by context length")
    assert w3.get("role") == "img" and w3.get("aria-label") == w3.find(SVG_NS + "title").text
    assert svg_texts(w3, "x") == ["32K", "64K", "128K", "context length (tokens, log scale)"]
    assert "decode tok/s" in svg_texts(w3, "axis-label")
    assert svg_texts(w3, "legend") == []
    assert svg_texts(w3, "y")[0] == "0"
    assert len(list(w3.iter(SVG_NS + "circle"))) == 3          # the points, no legend
    assert len([e for e in w3.iter(SVG_NS + "title") if "80.1" in e.text]) == 1
    top = max(float(t.replace(",", "")) for t in svg_texts(w3, "y") if re.fullmatch(r"[\d,.]+", t))
    assert top < 2 * 80.1, "the decode axis is scaled for prefill: %s" % top
    w3p = chart_in(r.text, "Prefill speed by context length")
    assert "prefill tok/s" in svg_texts(w3p, "axis-label")
    assert len([e for e in w3p.iter(SVG_NS + "title") if "546" in e.text]) == 1
    assert cells(section(doc, "long-context"))[0] == ["32,768", "256", "60,000", "546.0", "80.1"]

    # W4: aggregate and per-stream against batch size; the streams ran serially.
    w4 = chart_in(r.text, "batch size")
    assert svg_texts(w4, "ticks")[-5:] == ["1", "2", "4", "8", "16"]
    assert "aggregate tok/s" in svg_texts(w4, "axis-label")
    assert "per-stream tok/s" in svg_texts(chart_in(r.text, "Per-stream"), "axis-label")
    assert "batch size (streams, log scale)" in svg_texts(w4, "axis-label")
    conc = section(doc, "concurrency")
    note = conc.xpath('.//*[@id="serial-note"]')
    assert note and "one after another" in text_of(note[0])
    assert "not parallel throughput" in text_of(note[0])
    assert cells(conc)[1] == ["4", "113.0", "28.2", "35.0", "40.0"]

    # W5: per-turn TTFT and decode with the prefix-cache hit rate.
    agent = section(doc, "agent")
    assert cells(agent) == [["1", "2,100", "610.0", "110.0"], ["2", "6,400", "420.0", "104.0"],
                            ["3", "11,000", "450.0", "99.0"], ["4", "16,000", "480.0", "95.0"]]
    assert "Prefix-cache hit rate 83.0%" in text_of(agent)
    assert "48,000 ms" in text_of(agent)
    assert chart_in(r.text, "per turn") is not None

    # No chart carries a style attribute (the CSP would drop it).
    assert all(e.get("style") is None for s in svgs(r.text) for e in s.iter())
    assert doc.xpath("//*[@style]") == [] and doc.xpath("//script[not(@src = '/static/typeahead.js') or node()]") == []

    # The headline and the title.
    assert "112.2 tok/s" in text_of(doc.xpath('//p[@class="lede"]')[0])
    assert doc.xpath("//title")[0].text == "Qwen3-Coder-30B-A3B-Instruct on M3 Ultra \u00b7 llm-speed"


def readable_date(ts):
    """An RFC 3339 timestamp as the pages write it (numfmt_date): "30 Nov 2026"."""
    import datetime
    d = datetime.date.fromisoformat(ts[:10])
    return "%d %s %d" % (d.day, d.strftime("%b"), d.year)


def test_provenance_signature_and_account(server, tmp_path):
    token = server.account("bob-the-benchmarker")
    key = new_key("Ed25519")
    payload = make_payload()
    jws_token, _ = sign(payload, key)
    up = server.upload(jws_token, {"Authorization": "Bearer " + token})
    assert up.status_code == 201, up.text
    rid = up.json()["id"]
    r, doc = page(server, rid, tmp_path)
    setup = facts(section(doc, "setup"))
    assert setup == {
        # as uploaded, with how the site read it (issue 32)
        "Model": "Qwen3-Coder-30B-A3B-Instruct (read as %s)" % REF_MODELS["qwen3-coder-30b-a3b"]["name"],
        "Digest": payload["model"]["digest"],
        "Quantization": "MLX-4bit (uploaded as 4bit)", "Format": "mlx",
        "Hardware": "M3 Ultra (read as Apple M3 Ultra (80-core GPU))",
        "CPU": "Apple M3 Ultra, 32 cores", "RAM": "512 GB", "GPU": "Apple M3 Ultra, 512 GB memory",
        "Operating system": "macOS 15", "Fingerprint hash": "3f9a0c11d2e4b5a6",
        "Backend": "mlx 0.31.3", "Client": "llm-speed 1.4.0", "Suite": "suite-v1",
        "Measured": readable_date(payload["created_at"]) + " (as signed by the client)",
        "Received": setup["Received"], "Account": "bob-the-benchmarker"}
    # The date is written for people; the exact instant is in <time datetime>.
    assert section(doc, "setup").xpath(".//time/@datetime")[0] == payload["created_at"]
    sig = section(doc, "signature")
    assert facts(sig)["Key thumbprint"] == key.thumbprint()
    assert facts(sig)["Algorithm"] == "EdDSA"
    assert "without trusting this server" in text_of(sig)
    links = [a.get("href") for a in sig.xpath(".//a") if a.get("href").endswith(".jws")]
    assert links == [up.json()["url"] + ".jws"]
    got = server.get("/r/%s.jws" % rid)
    assert got.status_code == 200 and got.content == jws_token.encode()
    # The lede says who uploaded it too.
    assert "uploaded by bob-the-benchmarker" in text_of(doc.xpath('//p[@class="lede"]')[0])


def test_badge_embeds_as_the_contract_gives_them(server, tmp_path):
    body = upload_ok(server)
    rid, url = body["id"], body["url"]
    origin = url[: -len("/r/" + rid)]
    r, doc = page(server, rid, tmp_path)
    codes = [c.text for c in section(doc, "badge").xpath(".//pre/code")]
    assert codes[0] == "[![llm-speed](%s/badge/%s.svg)](%s/r/%s)" % (origin, rid, origin, rid)
    assert body["badge_url"] == "%s/badge/%s.svg" % (origin, rid)
    snippet = lxml.html.fragment_fromstring(codes[1])
    assert snippet.tag == "a" and snippet.get("href") == "%s/r/%s" % (origin, rid)
    img = snippet.xpath("./img")[0]
    assert img.get("src") == "%s/badge/%s.svg" % (origin, rid)
    # One submitter so far: the badge is labelled "unconfirmed" (issue 35).
    assert img.get("alt").startswith("unconfirmed: 112.2 tok/s")
    # Shown as text: the raw page has the snippet escaped, not as markup.
    assert "&lt;a href=&quot;%s/r/%s&quot;&gt;" % (origin, rid) in r.text


def test_serial_notice_only_for_serial_runs(server, tmp_path):
    p = make_payload()
    p["workloads"]["concurrent-decode"]["serial"] = False
    rid = upload_ok(server, p)["id"]
    r, doc = page(server, rid, tmp_path)
    assert doc.xpath('//*[@id="serial-note"]') == []
    assert "one after another" not in r.text and "serially" not in r.text
    w4 = chart_in(r.text, "batch size")
    assert w4.find(SVG_NS + "title").text == "Aggregate throughput by batch size"
    # Aggregate and per-stream each get their own panel and y axis.
    assert chart_in(r.text, "Per-stream").find(SVG_NS + "title").text == "Per-stream speed by batch size"

    rid2 = upload_ok(server)["id"]      # serial: true
    r2, doc2 = page(server, rid2, tmp_path, validate=False)
    assert len(doc2.xpath('//*[@id="serial-note"]')) == 1
    assert "serially" in chart_in(r2.text, "batch size").find(SVG_NS + "title").text


def test_minimal_strict_anon_run(server, tmp_path):
    p = make_payload()
    for k in ("chat-long", "long-context-decay", "concurrent-decode", "agent-trace"):
        del p["workloads"][k]
    del p["hardware"]["fingerprint_hash"]
    for k in ("gpu_name", "vram_gb", "os"):
        del p["hardware"][k]
    del p["model"]["quantization"]
    del p["model"]["format"]
    rid = upload_ok(server, p)["id"]
    r, doc = page(server, rid, tmp_path)
    for sid in ("long-context", "concurrency", "agent"):
        assert section(doc, sid) is None, sid
    # No chart; the rank strip (rank.c) is the page's only drawing.
    assert [s.get("class") for s in svgs(r.text)] == ["rank-strip"]
    assert [text_of(th) for th in section(doc, "chat").xpath(".//thead//th")] == ["Measure", "chat-short W1"]
    setup = facts(section(doc, "setup"))
    assert setup["Fingerprint hash"].startswith("none (no fingerprint was sent")
    assert text_of(section(doc, "chat").xpath(".//h2")[0]) == "Chat: W1"
    assert setup["Account"] == "not attributed to an account"
    assert setup["Quantization"] == "not given"
    assert setup["Format"] == "mlx (not given: read from the name or the backend)"
    assert "GPU" not in setup and "Operating system" not in setup


def test_one_point_workloads_render(server, tmp_path):
    p = make_payload()
    for w, k in (("long-context-decay", "points"), ("concurrent-decode", "points"), ("agent-trace", "turns")):
        p["workloads"][w][k] = p["workloads"][w][k][:1]
    r, doc = page(server, upload_ok(server, p)["id"], tmp_path)
    w3 = chart_in(r.text, "context length")
    assert "32K" in svg_texts(w3, "x")
    assert len([c for c in w3.iter(SVG_NS + "circle") if c.find(SVG_NS + "title") is not None]) == 1
    assert "1" in svg_texts(chart_in(r.text, "batch size"), "x")
    for sid in ("long-context", "concurrency", "agent"):
        assert len(cells(section(doc, sid))) == 1, sid


# ---- escaping ---------------------------------------------------------------------


def test_markup_in_names_is_escaped(server, tmp_path):
    p = make_payload(model__name=HOSTILE_MODEL, hardware__accelerator_summary=HOSTILE_HW)
    p["hardware"]["os"] = "</dd><script>alert(3)</script>"
    rid = upload_ok(server, p)["id"]
    r, doc = page(server, rid, tmp_path)
    assert "<script>" not in r.text and "<img src=x" not in r.text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;Qwen" in r.text
    assert "&lt;img src=x onerror=alert(2)&gt; &amp; &quot;Ultra&quot;" in r.text
    # No script but the search box's type-ahead: an empty element naming our static file.
    assert doc.xpath("//script[not(@src = '/static/typeahead.js') or node()]") == []
    h1 = text_of(doc.xpath("//h1")[0])
    assert h1 == "%s on %s" % (HOSTILE_MODEL, " ".join(HOSTILE_HW.split()))
    # Both names in the title, each cut to its share of the width.
    title = doc.xpath("//title")[0].text
    assert title.startswith("<script>alert(1)") and " on <img src=x" in title, title
    # The HTML embed's alt text is attribute-escaped inside the snippet, and
    # the snippet is escaped again to show as text.
    code = section(doc, "badge").xpath(".//pre/code")[1].text
    # One submitter so far: the badge says "unconfirmed" (issue 35).
    assert 'alt="unconfirmed: 112.2 tok/s' in code and "&lt;script" in code
    assert "<script>" not in code
    assert lxml.html.fragment_fromstring(code).xpath("./img")[0].get("alt").count("<script") == 1


def test_long_names_keep_the_title_short(server, tmp_path):
    name = "Very-Long-Model-Name-" + "x" * 150 + "-\u00e9\u00e9\u00e9"
    rid = upload_ok(server, make_payload(model__name=name))["id"]
    r, doc = page(server, rid, tmp_path)       # html-validate: long-title
    title = doc.xpath("//title")[0].text
    # The model is cut, the short hardware name stays whole.
    assert title.endswith("\u2026 on M3 Ultra \u00b7 llm-speed") and len(title) <= 70, title
    assert name in text_of(doc.xpath("//h1")[0])


# ---- outliers, disputes, demo -----------------------------------------------------


def cluster_uploads(server, values):
    """Uploads one run per value into one cluster (same digest, hardware
    and backend; a fresh key each, so the JWS bytes differ)."""
    ids = []
    for v in values:
        p = make_payload()
        p["workloads"]["chat-short"]["decode_tok_s"] = v
        ids.append(upload_ok(server, p)["id"])
    return ids


def fig(x):
    """x as pages print figures: two significant digits below 1, one
    decimal below 1,000, none from 1,000 (with thousands commas)."""
    return "%.2g" % x if abs(x) < 1 else "%.1f" % x if abs(x) < 1000 else "{:,.0f}".format(x)


def test_flagged_outlier_shows_its_cluster(server, tmp_path):
    values = [100.0 + i * 0.1 for i in range(10)] + [200.0]
    ids = cluster_uploads(server, values)
    assert (200.0 - statistics.fmean(values)) / statistics.pstdev(values) > 3
    # The 200's key leaves by sigma clipping: the figures are the others'.
    mean, sd = statistics.fmean(values[:-1]), statistics.pstdev(values[:-1])
    sigma = (200.0 - mean) / sd
    r, doc = page(server, ids[-1], tmp_path)
    banner = doc.xpath('//p[@class="flag"]')
    assert banner and "Flagged as an outlier" in text_of(banner[0])
    # The flag sits right under the figure (issue 38), one sentence that
    # says why and links to the check's details.
    lede = doc.xpath('//p[@class="lede"]')[0]
    assert lede.getnext() is banner[0] and banner[0].get("id") == "flag-line"
    words = text_of(banner[0])
    assert re.fullmatch(r"\u2691 Flagged as an outlier: its decode is [\d.,]+ standard deviations above "
                        r"the mean of its (cluster|combination)'s 11 submitters \(the check\)\.", words), words
    assert banner[0].xpath('.//a/@href') == ["#outlier"]
    sec = facts(section(doc, "outlier"))
    # Eleven keys, one run each: the cluster judges it, each key once.
    assert sec["Runs judged against"] == "11"
    assert sec["Mean of the submitters' medians"] == "%s tok/s" % fig(mean)
    assert sec["Standard deviation"] == "%s tok/s" % fig(sd)
    assert sec["This run"] == "%s standard deviations above the mean" % fig(sigma)
    assert sec["Status"].startswith("\u2691 flagged")
    link = [a for a in section(doc, "outlier").xpath(".//a") if "this combination" in text_of(a)][0]
    p = make_payload()
    assert link.get("href") == "/m/qwen3-coder-30b-a3b?digest=%s&hw=m3-ultra&backend=mlx" % (
        p["model"]["digest"].replace(":", "%3A"))

    # Its neighbours are not flagged, and say how far below the mean they sit.
    r0, doc0 = page(server, ids[0], tmp_path, validate=False)
    assert doc0.xpath('//p[@class="flag"]') == []
    assert facts(section(doc0, "outlier"))["This run"].endswith("standard deviations below the mean")
    assert facts(section(doc0, "outlier"))["Status"].startswith("not flagged")


def test_a_disputed_run_says_so_at_the_top_and_its_contents_reach_the_thread(server, tmp_path):
    values = [100.0 + i * 0.1 for i in range(10)] + [200.0]
    ids = cluster_uploads(server, values)
    rid = ids[-1]
    r, doc = page(server, rid, tmp_path, validate=False)
    assert doc.xpath('//*[@id="dispute-summary"]') == []      # nobody has posted
    toc = [a.get("href") for a in doc.xpath('//nav[@class="toc"]//a')]
    assert toc[-1] == "#dispute"
    for i in range(3):
        assert server.post("/api/v1/runs/%s/disputes" % rid, json={"body": "Too fast %d." % i}).status_code == 201
    r, doc = page(server, rid, tmp_path)
    (summary,) = doc.xpath('//*[@id="dispute-summary"]')
    assert text_of(summary) == "Disputed: 3 posts, open: no moderator has ruled yet."
    assert summary.xpath(".//a/@href") == ["#dispute"] and "flag" in summary.get("class")
    # Near the top: right after the headline, before the ceiling, the rank
    # and the boxes below them.
    article = doc.xpath("//article")[0]
    order = [e.get("id") or e.get("class") for e in article]
    assert order.index("dispute-summary") == 2, order
    (thread_link,) = doc.xpath('//nav[@class="toc"]//a[@href="#dispute"]')
    assert text_of(thread_link) == "Dispute thread (3 posts)"
    # Dismissed: the summary says who ruled, and the outlier box does too.
    r = server.post("/api/v1/runs/%s/disputes/resolve" % rid, json={"resolution": "dismissed", "note": "Fine."},
                    headers={"Authorization": "Bearer " + MODERATOR_TOKEN})
    assert r.status_code == 200, r.text
    r, doc = page(server, rid, tmp_path)
    assert text_of(doc.xpath('//*[@id="dispute-summary"]')[0]).startswith("Disputed: 3 posts, dismissed by a moderator on ")
    flag = text_of(doc.xpath('//p[@class="flag"]')[0])
    assert "a moderator dismissed its dispute on " in flag and "keeps its place in the rankings" in flag
    # One post: singular.
    assert server.post("/api/v1/runs/%s/disputes" % ids[0], json={"body": "Hm."}).status_code == 201
    r, doc = page(server, ids[0], tmp_path, validate=False)
    assert text_of(doc.xpath('//*[@id="dispute-summary"]')[0]).startswith("Disputed: 1 post, open")


def test_alone_in_its_cluster(server, tmp_path):
    rid = upload_ok(server)["id"]
    r, doc = page(server, rid, tmp_path)
    sec = facts(section(doc, "outlier"))
    assert sec["Runs judged against"] == "1"
    assert sec["This run"].startswith("its submitter is the only one so far")
    # One key: nothing can check it yet, and the page says so.
    assert sec["Status"].startswith("not yet checked against other runs: needs 11 submitters to flag")
    assert "Not yet checked against other runs" in r.text


EMPTY_CLAUSE = re.compile(r":\s*[.)]|\bit \(|,\s*\.|\(\s*\)")


def test_an_upheld_run_in_a_full_cluster_reads_whole(server, tmp_path):
    """An upheld run among 16 submitters (issue 38): no sentence that ends
    on nothing ("...stands out: it (why 11).", "Status: not yet checked
    against other runs: "), no count of submitters against the 11 a check
    needs, and its Status says why it is not judged."""
    values = [100.0 + i * 0.1 for i in range(15)] + [101.0]
    ids = cluster_uploads(server, values)
    r = server.post("/api/v1/runs/%s/disputes/resolve" % ids[-1], json={"resolution": "upheld", "note": "Bad log."},
                    headers={"Authorization": "Bearer " + MODERATOR_TOKEN})
    assert r.status_code == 200, r.text
    r, doc = page(server, ids[-1], tmp_path)
    assert "why 11" not in r.text and "so far" not in r.text
    for p in doc.xpath("//main//p | //main//dd"):
        assert not EMPTY_CLAUSE.search(text_of(p)), text_of(p)
    for dd in doc.xpath("//main//dd"):
        assert not text_of(dd).endswith(":"), text_of(dd)
    sec = facts(section(doc, "outlier")) if section(doc, "outlier").xpath(".//dl") else {}
    if sec:
        assert sec["Status"] == "not judged: this run counts in no figure, so no figure judges it", sec


def test_upheld_dispute_banner(server, tmp_path):
    rid = upload_ok(server)["id"]
    r = server.post("/api/v1/runs/%s/disputes/resolve" % rid, json={"resolution": "upheld", "note": "Bad log."},
                    headers={"Authorization": "Bearer " + MODERATOR_TOKEN})
    assert r.status_code == 200, r.text
    r, doc = page(server, rid, tmp_path)
    banner = doc.xpath('//p[@class="upheld"]')
    assert banner
    assert "taken out of the rankings after a dispute was upheld" in text_of(banner[0]).lower()
    # Out of its cluster: the page says so instead of cluster figures.
    assert "in no cluster right now" in text_of(section(doc, "outlier"))
    # The thread's partial is on the page.
    assert doc.xpath('//*[@id="dispute"]')


def test_demo_run_is_marked(make_server, tmp_path):
    s = make_server(["--demo"])
    r, doc = page(s, "r_y2_5y8oo97d", tmp_path)
    demo = doc.xpath('//p[@class="demo"]')
    assert demo and "Demo run" in text_of(demo[0])
    assert "192.5 tok/s" in text_of(doc.xpath('//p[@class="lede"]')[0])
    rid = upload_ok(s)["id"]
    r2, doc2 = page(s, rid, tmp_path, validate=False)
    assert doc2.xpath('//p[@class="demo"]') == []


def test_json_keeps_its_shape(server):
    rid = upload_ok(server)["id"]
    assert server.get("/r/%s" % rid).status_code == 200   # render (and cache) the HTML first
    j = server.get("/r/%s.json" % rid).json()
    assert "view" not in j and "title" not in j
    assert j["decode_tok_s"] == 112.2 and j["id"] == rid
    assert j["outlier"]["cluster"]["n"] == 1


# ---- HTTP behaviour ------------------------------------------------------------------


def test_headers_etag_and_cluster_change(server, tmp_path):
    rid = upload_ok(server)["id"]
    r = server.get("/r/%s" % rid, headers={"Accept-Encoding": "identity"})
    assert r.status_code == 200
    h = r.headers
    assert "default-src 'none'" in h["Content-Security-Policy"]
    assert "style-src 'self'" in h["Content-Security-Policy"]
    assert h["X-Content-Type-Options"] == "nosniff"
    assert h["Referrer-Policy"] == "strict-origin-when-cross-origin"
    assert h["Cache-Control"] == "public, max-age=60, stale-while-revalidate=300"
    etag = h["ETag"]
    assert re.fullmatch(r'"[0-9a-f]{32}"', etag)

    again = server.get("/r/%s" % rid, headers={"If-None-Match": etag, "Accept-Encoding": "identity"})
    assert again.status_code == 304 and again.content == b""
    assert again.headers["ETag"] == etag

    # A second run joins the cluster: the cluster figures on this page move.
    p = make_payload()
    p["workloads"]["chat-short"]["decode_tok_s"] = 120.0
    upload_ok(server, p)
    after = server.get("/r/%s" % rid, headers={"If-None-Match": etag})
    assert after.status_code == 200
    assert after.headers["ETag"] != etag
    doc = lxml.html.fromstring(after.text)
    assert facts(section(doc, "outlier"))["Runs judged against"] == "2"
    assert facts(section(doc, "outlier"))["Mean of the submitters' medians"] == "116.1 tok/s"


@pytest.mark.parametrize("rid", ["r_doesnotexis", "r_short", "nope", "r_" + "a" * 40, "r_%3Cscript%3E",
                                 "r_%FF%FE", "%C0%AF%ED%A0%80"])
def test_unknown_run_is_a_usable_404_page(server, tmp_path, rid):
    r = server.get("/r/" + rid)
    assert r.status_code == 404
    assert r.headers["Content-Type"].startswith("text/html")
    assert r.headers["X-Content-Type-Options"] == "nosniff"
    ok, report = validate_html(r.text, tmp_path)
    assert ok, report
    doc = lxml.html.fromstring(r.text)
    assert "no run with this id" in text_of(doc).lower()
    assert doc.xpath('//a[@href="/"]')
    assert "<script>" not in r.text


def test_a_run_whose_thread_cannot_be_read_is_503_and_not_cached(server):
    """The dispute thread is part of the page: when it cannot be read the
    page is a 503, and nothing without it is kept in the render cache."""
    import sqlite3
    rid = upload_ok(server)["id"]
    con = sqlite3.connect(server.db, timeout=10)
    try:
        con.execute("ALTER TABLE dispute_posts RENAME TO dispute_posts_away")
        con.commit()
        for path in ["/r/%s", "/r/%s.json"]:
            assert server.get(path % rid).status_code == 503
        con.execute("ALTER TABLE dispute_posts_away RENAME TO dispute_posts")
        con.commit()
    finally:
        con.close()
    j = server.get("/r/%s.json" % rid)
    assert j.status_code == 200 and j.json()["dispute"]["count"] == 0
    assert 'name="token" value="' in server.get("/r/%s" % rid).text


def test_signed_bytes_are_503_not_404_when_the_database_fails(server):
    """/r/<id>.jws tells a database failure (503, try again) from an unknown
    run (404): a reader whose query fails must not claim the run is gone."""
    import sqlite3
    rid = upload_ok(server)["id"]
    # Every reader prepares the query first, so the failure below comes from
    # running an already prepared statement against a changed schema.
    for _ in range(8):
        assert server.get("/r/%s.jws" % rid).status_code == 200
    con = sqlite3.connect(server.db, timeout=10)
    try:
        con.execute("ALTER TABLE runs RENAME COLUMN jws TO jws_away")
        con.commit()
        for _ in range(8):
            r = server.get("/r/%s.jws" % rid)
            assert r.status_code == 503, r.text
            assert r.json()["error"]["code"] == "unavailable"
            assert int(r.headers["Retry-After"]) >= 1
        assert server.get("/r/r_doesnotexis.jws").status_code == 503
        con.execute("ALTER TABLE runs RENAME COLUMN jws_away TO jws")
        con.commit()
    finally:
        con.close()
    assert server.get("/r/%s.jws" % rid).status_code == 200
    assert server.get("/r/r_doesnotexis.jws").status_code == 404
