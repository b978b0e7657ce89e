"""Run badges over HTTP: /badge/<id>.svg and /badge/<id>.json.

Every SVG goes through a real XML parser (lxml).  The caching tests prove the
render cache is invalidated: a badge fetched (and so cached) before its run's
outlier flag changed must come back with the flag and a new ETag.
"""
import sqlite3

import requests
from lxml import etree

from conftest import make_payload, sign

SVG_NS = "{http://www.w3.org/2000/svg}"
CC_BADGE = "public, max-age=14400, stale-while-revalidate=86400"
CC_MISSING = "public, max-age=300"
FLAG = "\u2691"
HOSTILE = "<script>alert(1)</script>&\"'"
SHIELDS_COLORS = {"brightgreen", "orange", "red", "lightgrey"}


def upload(server, **over):
    """Uploads a signed run built from make_payload(**over); returns its JSON."""
    token, _ = sign(make_payload(**over))
    r = server.upload(token)
    assert r.status_code == 201, r.text
    return r.json()


def confirmed(server, **over):
    """Uploads three runs of one payload from three keys (a confirmed
    combination, whose badges are green when nothing else holds); returns
    the first's JSON."""
    first = upload(server, **over)
    for _ in range(2):
        upload(server, **over)
    return first


def run_with(server, decode, fingerprint="5eed0000c1a55e01", **over):
    """Uploads a run of one cluster (same digest, fingerprint and backend)
    with the given chat-short decode tok/s."""
    over.setdefault("hardware__fingerprint_hash", fingerprint)
    over["workloads__chat_short__decode_tok_s"] = decode
    return upload(server, **over)


def parse(svg_bytes):
    """Parses a badge with lxml; returns a dict of what it shows."""
    root = etree.fromstring(svg_bytes)
    assert root.tag == SVG_NS + "svg"
    title = root.find(SVG_NS + "title").text
    assert root.get("aria-label") == title
    assert title.startswith("llm-speed: ")
    rects = root.find(SVG_NS + "g").findall(SVG_NS + "rect")
    texts = root.findall(".//" + SVG_NS + "text")
    assert len(rects) == 3 and len(texts) == 4
    return {
        "width": int(root.get("width")),
        "height": int(root.get("height")),
        "title": title,
        "message": title[len("llm-speed: "):],
        "label_w": int(rects[0].get("width")),
        "msg_x": int(rects[1].get("x")),
        "msg_w": int(rects[1].get("width")),
        "msg_fill": rects[1].get("fill"),
        "all_w": int(rects[2].get("width")),
        "texts": [(t.text, int(t.get("textLength")), int(t.get("x"))) for t in texts],
    }


def badge(server, run_id, **kw):
    return server.get("/badge/%s.svg" % run_id, **kw)


def test_badge_svg_headers_and_content(server):
    run = confirmed(server)
    r = badge(server, run["id"])
    assert r.status_code == 200
    assert r.headers["Content-Type"] == "image/svg+xml"
    assert r.headers["Cache-Control"] == CC_BADGE
    assert r.headers["X-Content-Type-Options"] == "nosniff"
    assert "script-src" not in r.headers["Content-Security-Policy"]
    etag = r.headers["ETag"]
    assert etag.startswith('"') and etag.endswith('"') and len(etag) > 2
    b = parse(r.content)
    # The reference's name, shortened ("Instruct" goes first), and the
    # short hardware name.
    assert b["message"] == "112.2 tok/s \u00b7 Qwen3-Coder 30B-A3B \u00b7 M3 Ultra"
    assert b["msg_fill"] == "#237a0f"
    assert b["height"] == 20
    # The contract's Markdown embed points here.
    assert run["badge_url"].endswith("/badge/%s.svg" % run["id"])


def test_box_widths_follow_text(server):
    short = parse(badge(server, confirmed(server, model__name="Qwen3-8B")["id"]).content)
    long_ = parse(badge(server, confirmed(server, model__name="Qwen3-Coder-480B-A35B")["id"]).content)
    for b in (short, long_):
        assert b["width"] == b["label_w"] + b["msg_w"] == b["all_w"]
        assert b["msg_x"] == b["label_w"]
        label, label_shadow, msg, msg_shadow = b["texts"]
        # Each box is its text's width (odd, as badge-maker rounds it)
        # plus 5 px on each side; texts are drawn at 10x and centred.
        assert label[1] == label_shadow[1] == (b["label_w"] - 10) * 10
        assert msg[1] == msg_shadow[1] == (b["msg_w"] - 10) * 10
        assert msg[2] == b["label_w"] * 10 + b["msg_w"] * 5 - 10   # as badge-maker: 1 px left
        assert msg[0] == b["message"]
    assert short["label_w"] == long_["label_w"] == 65   # "llm-speed" in Verdana 11px
    assert long_["msg_w"] > short["msg_w"]
    assert long_["width"] - short["width"] == long_["msg_w"] - short["msg_w"]


def test_hostile_names_escaped(server):
    run = confirmed(server, model__name=HOSTILE, hardware__accelerator_summary=HOSTILE)
    r = badge(server, run["id"])
    assert r.status_code == 200
    assert b"<script" not in r.content
    b = parse(r.content)   # still well-formed XML
    # Both cut to fit the badge's width, after a "word" (at a '/' or a space).
    assert b["message"].startswith("112.2 tok/s \u00b7 <script>alert("), b["message"]
    # The hardware without its part in parentheses, as "Ryzen AI Max+ 395
    # (Radeon 8060S)" is shown.
    hw = b["message"].split(" \u00b7 ")[2]
    assert hw.startswith("<script>alert") and "(1)" not in hw and b["width"] <= 340
    assert all(t[0] == b["message"] for t in b["texts"][2:])
    j = server.get("/badge/%s.json" % run["id"]).json()
    assert j["message"] == b["message"]


def test_if_none_match_gets_304(server):
    run = upload(server)
    first = badge(server, run["id"])
    etag = first.headers["ETag"]
    again = badge(server, run["id"], headers={"If-None-Match": etag})
    assert again.status_code == 304
    assert again.content == b""
    assert again.headers["ETag"] == etag
    assert again.headers["Cache-Control"] == CC_BADGE
    other = badge(server, run["id"], headers={"If-None-Match": '"0123456789abcdef"'})
    assert other.status_code == 200
    assert other.content == first.content and other.headers["ETag"] == etag


def test_head_matches_get(server):
    run = upload(server)
    get = badge(server, run["id"])
    h = requests.head(server.url + "/badge/%s.svg" % run["id"], timeout=10)
    assert h.status_code == 200
    assert h.headers["ETag"] == get.headers["ETag"]
    assert h.headers["Content-Type"] == "image/svg+xml"
    assert h.content == b""


def flagged(values):
    """The contract's rule: more than 3 population standard deviations from
    the cluster mean."""
    n = len(values)
    mean = sum(values) / n
    sd = (sum((v - mean) ** 2 for v in values) / n) ** 0.5
    return [sd > 0 and abs(v - mean) > 3 * sd for v in values]


def test_etag_changes_when_run_becomes_outlier(server):
    far = run_with(server, 600.0)           # within 1.5 times its peak ceiling
    tight = [run_with(server, 100.0)] + [run_with(server, 100.0 + 0.05 * i) for i in (1, 2)]
    far_before = badge(server, far["id"])
    tight_before = badge(server, tight[0]["id"])
    assert FLAG not in parse(far_before.content)["message"]
    # Served again from the cache: byte-identical.
    assert badge(server, far["id"]).content == far_before.content

    for i in range(3, 12):
        tight.append(run_with(server, 100.0 + 0.05 * i))
    values = [600.0] + [100.0 + 0.05 * i for i in range(12)]
    assert flagged(values)[0] and not any(flagged(values)[1:])

    far_after = badge(server, far["id"])
    b = parse(far_after.content)
    assert b["message"].startswith(FLAG + " 600.0 tok/s")
    assert b["msg_fill"] == "#b34700"
    assert far_after.headers["ETag"] != far_before.headers["ETag"]
    stale = badge(server, far["id"], headers={"If-None-Match": far_before.headers["ETag"]})
    assert stale.status_code == 200 and FLAG in parse(stale.content)["message"]
    j = server.get("/badge/%s.json" % far["id"]).json()
    assert j["color"] == "orange" and j["message"].startswith(FLAG)

    # What a tight run shows did not change, so neither did its tag.
    tight_after = badge(server, tight[0]["id"], headers={"If-None-Match": tight_before.headers["ETag"]})
    assert tight_after.status_code == 304

    # A newer, farther upload is flagged itself; without clipping the
    # spread it adds would take the flag off the first one, but its key
    # leaves the population (contract section 4) and both stay flagged.
    newest = run_with(server, 5000.0)
    values.append(5000.0)
    want = flagged(values)
    assert newest["outlier"] is True and want[-1] and not want[0]
    assert parse(badge(server, newest["id"]).content)["message"].startswith(FLAG + " 5,000 tok/s")
    assert parse(badge(server, far["id"]).content)["message"].startswith(FLAG + " 600.0 tok/s")


def test_upheld_dispute_replaces_figure(server):
    run = confirmed(server)
    assert FLAG not in parse(badge(server, run["id"]).content)["message"]
    server.stop()
    db = sqlite3.connect(server.db)
    db.execute("UPDATE runs SET status = 'upheld', outlier = 1 WHERE id = ?", (run["id"],))
    db.commit()
    db.close()
    server.start()
    b = parse(badge(server, run["id"]).content)
    assert b["message"] == "disputed: upheld \u00b7 Qwen3\u202630B-A3B \u00b7 M3 Ultra"   # cut to fit, its size kept
    assert "tok/s" not in b["message"] and FLAG not in b["message"]
    assert b["msg_fill"] == "#c0392b"
    assert server.get("/badge/%s.json" % run["id"]).json()["color"] == "red"


def test_unknown_and_malformed_ids_get_404_badge(server):
    upload(server)
    for run_id in ("r_aaaaaaaaaaa", "r_aaaaaaaaaaa", "nope", "r_short", "r_" + "a" * 40, "R_AAAAAAAAAAA"):
        r = badge(server, run_id)
        assert r.status_code == 404, run_id
        assert r.headers["Content-Type"] == "image/svg+xml"
        assert r.headers["Cache-Control"] == CC_MISSING
        assert "ETag" not in r.headers
        b = parse(r.content)
        assert b["message"] == "run not found"
        assert b["width"] == b["label_w"] + b["msg_w"]
        j = server.get("/badge/%s.json" % run_id)
        assert j.status_code == 404
        assert j.headers["Cache-Control"] == CC_MISSING
        assert j.json() == {"schemaVersion": 1, "label": "llm-speed", "message": "run not found",
                            "color": "lightgrey", "cacheSeconds": 300, "isError": True}


def test_json_endpoint(server):
    run = confirmed(server)
    r = server.get("/badge/%s.json" % run["id"])
    assert r.status_code == 200
    assert r.headers["Content-Type"] == "application/json"
    assert r.headers["Cache-Control"] == CC_BADGE
    assert r.headers["ETag"]
    j = r.json()
    assert set(j) == {"schemaVersion", "label", "message", "color", "cacheSeconds"}
    assert type(j["schemaVersion"]) is int and j["schemaVersion"] == 1
    assert j["label"] == "llm-speed"
    assert isinstance(j["message"], str)
    assert j["message"] == parse(badge(server, run["id"]).content)["message"]
    assert j["color"] in SHIELDS_COLORS and j["color"] == "brightgreen"
    assert type(j["cacheSeconds"]) is int and j["cacheSeconds"] == 14400
    again = server.get("/badge/%s.json" % run["id"], headers={"If-None-Match": r.headers["ETag"]})
    assert again.status_code == 304
