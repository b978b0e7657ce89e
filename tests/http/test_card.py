"""Link-preview cards over HTTP: /card/<id>.png and /card/<id>.svg.

The PNG comes from the real rasterizer (rsvg-convert) through the real
daemon; each one is parsed here chunk by chunk (signature, CRCs, IHDR,
IDAT inflated and unfiltered), so a truncated or mis-sized image fails,
and its pixels are looked at: the headline is drawn, and nothing is drawn
past the card's right margin however long the names.  Every SVG the tests
fetch goes through xmllint (Server.get).
"""
import json
import os
import re
import sqlite3
import struct
import threading
import time
import zlib

import requests

from conftest import ROOT, built_once, make_payload, sign, wait_for

CC_BADGE = "public, max-age=14400, stale-while-revalidate=86400"
HOSTILE = "<script>alert(1)</script>&\"'"
LONG_MODEL = "Meta-Llama-3.1-405B-Instruct-Turbo-Extended-Context-Long-Name-Q4_K_M-imatrix-v2-final"
LONG_HW = "NVIDIA GeForce RTX 4090 Laptop GPU with a very long name that goes on and on and on"
RLO = "\u202e"

REF = json.load(open(os.path.join(ROOT, "static", "reference", "models.json")))["models"]


def upload(server, key=None, **over):
    """Uploads a signed run built from make_payload(**over); returns (its
    JSON, the key that signed it)."""
    token, key = sign(make_payload(**over), key)
    r = server.upload(token)
    assert r.status_code == 201, r.text
    return r.json(), key


def card(server, rid, ext="png", **kw):
    return server.get("/card/%s.%s" % (rid, ext), **kw)


def png_chunks(data):
    """The (type, body) chunks of a PNG, every CRC checked, ending at IEND."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG signature"
    chunks, at = [], 8
    while at < len(data):
        n, kind = struct.unpack(">I4s", data[at:at + 8])
        body = data[at + 8:at + 8 + n]
        crc, = struct.unpack(">I", data[at + 8 + n:at + 12 + n])
        assert len(body) == n and zlib.crc32(kind + body) == crc, "bad chunk %r" % kind
        chunks.append((kind, body))
        at += 12 + n
        if kind == b"IEND":
            break
    assert chunks[0][0] == b"IHDR" and chunks[-1][0] == b"IEND" and at == len(data)
    return chunks


def png_pixels(data):
    """Decodes an 8-bit RGB or RGBA, non-interlaced PNG: (width, height,
    rows), each row a list of (r, g, b)."""
    chunks = png_chunks(data)
    w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", chunks[0][1])
    assert depth == 8 and ctype in (2, 6) and interlace == 0, (depth, ctype, interlace)
    bpp = 3 if ctype == 2 else 4
    raw = zlib.decompress(b"".join(b for k, b in chunks if k == b"IDAT"))
    stride = w * bpp
    assert len(raw) == h * (stride + 1)
    rows, prev = [], bytearray(stride)
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
            else:
                assert f == 0, "filter %d" % f
        rows.append([tuple(line[x * bpp:x * bpp + 3]) for x in range(w)])
        prev = line
    return w, h, rows


def dark(px):
    """A pixel of text ink: well below the card's light backgrounds."""
    return sum(px) < 3 * 160


def ink_columns(rows, y0, y1):
    """The x of every column holding ink between rows y0 and y1."""
    xs = set()
    for y in range(y0, y1):
        for x, px in enumerate(rows[y]):
            if dark(px):
                xs.add(x)
    return xs


def assert_inside(png, what):
    """Nothing of the card's text is drawn past its right margin (60 px,
    less 4 of antialiasing) below the band."""
    w, h, rows = png_pixels(png)
    assert (w, h) == (1200, 630)
    past = [x for x in ink_columns(rows, 100, 630) if x >= 1200 - 60 + 4]
    assert not past, "%s: ink at x=%s, past the margin" % (what, past[:5])


def test_card_is_a_png_of_the_run(server):
    run, _ = upload(server)
    r = card(server, run["id"])
    assert r.status_code == 200, r.text
    assert r.headers["Content-Type"] == "image/png"
    assert r.headers["Cache-Control"] == CC_BADGE
    assert r.headers["X-Content-Type-Options"] == "nosniff"
    etag = r.headers["ETag"]
    assert etag.startswith('"') and etag.endswith('"') and len(etag) > 2
    w, h, rows = png_pixels(r.content)
    assert (w, h) == (1200, 630) and w >= 1200 and h >= 630
    # The background is white, the band at the top light grey, and the
    # headline (112.2 at 140 px, between y 360 and 460) is drawn in ink.
    assert rows[620][600] == (255, 255, 255)
    assert rows[10][1190] == (0xf3, 0xf5, 0xf7)
    assert len(ink_columns(rows, 360, 460)) > 300
    # It is drawn from the card's SVG, which says what the PNG shows.
    svg = card(server, run["id"], "svg")
    assert svg.status_code == 200 and svg.headers["Content-Type"] == "image/svg+xml"
    assert svg.headers["Cache-Control"] == CC_BADGE and svg.headers["ETag"] != etag
    for text in (">112.2<", REF["qwen3-coder-30b-a3b"]["name"], "M3 Ultra", "mlx 0.31.3",
                 "204.0 tok/s", "539.3 ms", 'width="1200" height="630"'):
        assert text in svg.text, text
    assert "outlier" not in svg.text and "withdrawn" not in svg.text


def test_card_is_cached_and_revalidated(server):
    run, _ = upload(server)
    first = card(server, run["id"])
    etag = first.headers["ETag"]
    again = card(server, run["id"])
    assert again.content == first.content and again.headers["ETag"] == etag
    same = card(server, run["id"], headers={"If-None-Match": etag})
    assert same.status_code == 304 and same.content == b""
    assert same.headers["ETag"] == etag and same.headers["Cache-Control"] == CC_BADGE
    other = card(server, run["id"], headers={"If-None-Match": '"0123456789abcdef"'})
    assert other.status_code == 200 and other.content == first.content
    # HEAD answers as GET does, without the body.
    head = requests.head(server.url + "/card/%s.png" % run["id"], timeout=30)
    assert head.status_code == 200 and head.content == b""
    assert head.headers["ETag"] == etag and head.headers["Content-Type"] == "image/png"
    # The tag follows the drawing, so after a restart (nothing cached) the
    # same card revalidates with a 304, and draws the same bytes.
    server.restart()
    assert card(server, run["id"], headers={"If-None-Match": etag}).status_code == 304
    assert card(server, run["id"]).content == first.content
    # The SVG's own tag.
    s = card(server, run["id"], "svg")
    assert card(server, run["id"], "svg", headers={"If-None-Match": s.headers["ETag"]}).status_code == 304


def run_with(server, decode, **over):
    """A run of one cluster (same digest, fingerprint and backend) with
    the given chat-short decode tok/s."""
    over.setdefault("hardware__fingerprint_hash", "5eed0000c1a55e02")
    over["workloads__chat_short__decode_tok_s"] = decode
    return upload(server, **over)[0]


def test_card_follows_its_run(server):
    """Fetched (and so cached) before its run is flagged, a card comes back
    with the flag and a new ETag once it is; and once its run is withdrawn,
    it says so and shows no figure."""
    far = run_with(server, 600.0)           # within 1.5 times its peak ceiling
    run_with(server, 100.0)
    before = card(server, far["id"])
    assert "outlier" not in card(server, far["id"], "svg").text
    for i in range(1, 12):
        run_with(server, 100.0 + 0.05 * i)
    after = card(server, far["id"])
    assert after.status_code == 200 and after.headers["ETag"] != before.headers["ETag"]
    assert after.content != before.content
    assert "\u2691 outlier" in card(server, far["id"], "svg").text
    stale = card(server, far["id"], headers={"If-None-Match": before.headers["ETag"]})
    assert stale.status_code == 200

    run, key = upload(server, model__name="Qwen3-8B")
    shown = card(server, run["id"])
    body = {"run_id": run["id"], "action": "withdraw", "reason": "Measured with the wrong model file."}
    r = server.post("/api/v1/runs/%s/withdraw" % run["id"], data=sign(body, key)[0].encode(),
                    headers={"Content-Type": "application/jose"})
    assert r.status_code == 200, r.text
    gone = card(server, run["id"])
    assert gone.status_code == 200 and gone.headers["ETag"] != shown.headers["ETag"]
    svg = card(server, run["id"], "svg").text
    assert ">withdrawn<" in svg and "112.2" not in svg and "tok/s" not in svg
    assert_inside(gone.content, "a withdrawn run")


def test_upheld_run_shows_no_figures(server):
    run, _ = upload(server, model__name=LONG_MODEL)
    shown = card(server, run["id"])
    server.stop()
    db = sqlite3.connect(server.db)
    db.execute("UPDATE runs SET status = 'upheld' WHERE id = ?", (run["id"],))
    db.commit()
    db.close()
    server.start()
    r = card(server, run["id"])
    assert r.status_code == 200 and r.headers["ETag"] != shown.headers["ETag"]
    svg = card(server, run["id"], "svg").text
    assert ">disputed: upheld<" in svg and "112.2" not in svg and "tok/s" not in svg
    assert "A moderator upheld a dispute" in svg
    assert_inside(r.content, "an upheld run")


def test_unknown_and_malformed_ids_are_404(server):
    upload(server)
    for rid in ("r_aaaaaaaaaaa", "nope", "r_short", "r_" + "a" * 40, "R_AAAAAAAAAAA"):
        for ext in ("png", "svg"):
            r = card(server, rid, ext)
            assert r.status_code == 404, (rid, ext)
            assert r.headers["Content-Type"] == "application/json"
            assert r.json()["error"]["code"] == "not_found"
            assert "ETag" not in r.headers and r.headers["Cache-Control"] == "no-store"
    assert server.get("/card/r_aaaaaaaaaaa.gif").status_code == 404


def test_hostile_and_long_names_stay_inside(server):
    """Names that are markup, that are very long, or that hold a
    right-to-left override: the SVG stays well-formed (xmllint, in
    Server.get), nothing of them is markup, and in the PNG nothing is drawn
    past the right margin (60 px) below the band."""
    for model, hw in ((HOSTILE, HOSTILE), (LONG_MODEL, LONG_HW),
                      ("Qwen3" + RLO + "-8B", "M3 " + RLO + "Ultra")):
        run, _ = upload(server, model__name=model, hardware__accelerator_summary=hw)
        svg = card(server, run["id"], "svg")
        assert svg.status_code == 200, svg.text
        assert "<script" not in svg.text and RLO not in svg.text
        if model == HOSTILE:
            assert "&lt;script&gt;alert(1)&lt;/script&gt;&amp;&quot;&#39;" in svg.text
        if model == LONG_MODEL:
            assert "\u2026" in svg.text   # cut, ended with "…"
        r = card(server, run["id"])
        assert r.status_code == 200, r.text
        assert_inside(r.content, model)


def test_many_cards_at_once(server):
    """More cards than rasterizers at once: each answer is a card or a 503
    with Retry-After (never anything else), and other requests are served
    meanwhile."""
    ids = [upload(server, model__name="Qwen3-%dB" % (i + 1))[0]["id"] for i in range(10)]
    answers, health = {}, []

    def fetch(rid):
        answers[rid] = requests.get(server.url + "/card/%s.png" % rid, timeout=60)

    threads = [threading.Thread(target=fetch, args=(rid,)) for rid in ids]
    for t in threads:
        t.start()
    health.append(requests.get(server.url + "/healthz", timeout=30).status_code)
    for t in threads:
        t.join()
    assert health == [200]
    assert len(answers) == len(ids)
    for rid, r in answers.items():
        if r.status_code == 503:
            assert int(r.headers["Retry-After"]) >= 1
            assert r.json()["error"]["code"] == "unavailable"
        else:
            assert r.status_code == 200, r.text
            assert png_pixels(r.content)[:2] == (1200, 630)
    assert any(r.status_code == 200 for r in answers.values())


def test_without_a_rasterizer_cards_are_503(make_server):
    """No rsvg-convert on PATH: the log says so once at start, the PNG is
    a 503 that says what to install, and the SVG, the run page and the
    badge still answer."""
    s = make_server(env={"PATH": "/nonexistent"})
    run, _ = upload(s)
    r = s.get("/card/%s.png" % run["id"])
    assert r.status_code == 503
    assert r.headers["Retry-After"] == "3600"
    e = r.json()["error"]
    assert e["code"] == "unavailable" and "librsvg2-bin" in e["message"]
    assert s.get("/card/%s.svg" % run["id"]).status_code == 200
    assert s.get("/r/%s" % run["id"]).status_code == 200
    assert s.get("/badge/%s.svg" % run["id"]).status_code == 200
    wait_for(lambda: "link-preview cards are off" in s.read_log(), what="the start-up log line")
    assert s.read_log().count("link-preview cards are off") == 1
    assert s.get("/card/r_aaaaaaaaaaa.png").status_code == 404


def test_log_names_the_rasterizer(server):
    assert "link-preview cards: rsvg-convert version " in server.read_log()


def test_model_card_counts_kinds_of_hardware(server):
    """A model's card says what it counts (issue 38): runs on so many kinds
    of hardware, not "machines" (two runs on one kind are one), and its
    rows' bars stand out from the card, under their texts."""
    run, _ = upload(server)
    upload(server)
    slug = server.get("/r/%s.json" % run["id"]).json()["model"]["slug"]
    r = server.get("/card/m/%s.svg" % slug)
    assert r.status_code == 200, r.text
    assert "2 counted runs on 1 kind of hardware" in r.text, r.text[:2000]
    assert "machine" not in r.text
    assert 'fill="#eef5fc"' not in r.text


# ---- the cards of model and hardware pages: kept as their pages are ----

def metric(server, name, kind=None):
    """A sample of /metrics: name, or name{kind="..."}."""
    label = r'\{kind="%s"\}' % kind if kind else ""
    m = re.search(r"^%s%s (\S+)$" % (name, label), server.get("/metrics").text, re.M)
    assert m, name
    return float(m.group(1))


def page_cards(server, rid):
    """The SVG paths of the model's and the hardware's card of run rid."""
    j = server.get("/r/%s.json" % rid).json()
    return ["/card/m/%s.svg" % j["model"]["slug"], "/card/hw/%s.svg" % j["hardware"]["slug"]]


def test_page_card_svgs_are_kept(server):
    """A model's and a hardware's card SVG are built once and then served
    from the response cache (a hit of list_html, as their pages), with the
    same bytes, ETag and Cache-Control, 304 on If-None-Match; arguments
    the card does not read make no copy of their own."""
    run, _ = upload(server)
    server.wait_refreshed()
    for path in page_cards(server, run["id"]):
        first = server.get(path)
        assert first.status_code == 200, first.text
        assert first.headers["Cache-Control"] == CC_BADGE
        hits = metric(server, "llmspeed_response_cache_hits_total", "list_html")
        again = server.get(path)
        assert metric(server, "llmspeed_response_cache_hits_total", "list_html") == hits + 1, path
        assert again.content == first.content and again.headers["ETag"] == first.headers["ETag"]
        assert again.headers["Cache-Control"] == CC_BADGE
        same = server.get(path, headers={"If-None-Match": first.headers["ETag"]})
        assert same.status_code == 304 and same.headers["ETag"] == first.headers["ETag"]
        assert same.headers["Cache-Control"] == CC_BADGE
        # ?x= no page reads is the card itself; ?sort= and ?hw= the card
        # does not read are answered, the same drawing, and not kept.
        n = metric(server, "llmspeed_response_cache_entries")
        for q in ("?x=1", "?x=2", "?sort=date", "?sort=prefill", "?hw=m3-ultra"):
            r = server.get(path + q)
            assert r.status_code == 200 and r.content == first.content, path + q
        assert metric(server, "llmspeed_response_cache_entries") == n, path
    # A malformed slug or one no run names: 404, as before.
    assert server.get("/card/m/Not_A_Slug.svg").status_code == 404
    assert server.get("/card/hw/no-such-hardware.svg").status_code == 404


def test_page_card_svg_follows_uploads_within_the_bound(make_server):
    """Kept, a page card still shows an upload that changes its figures
    within the bound of kept pages (about a second, schema/API.md): the
    server's default stale copies, not the tests' none."""
    s = make_server(["--test-stale-ms", "1000"])
    run, _ = upload(s)
    s.wait_refreshed()
    model, hw = page_cards(s, run["id"])
    assert "1 counted run on 1 kind of hardware" in s.get(model).text
    assert "1 counted run of 1 model" in s.get(hw).text
    before = s.get(model).headers["ETag"]
    upload(s)
    s.wait_refreshed()
    for path, text in ((model, "2 counted runs on 1 kind of hardware"), (hw, "2 counted runs of 1 model")):
        wait_for(lambda: text in s.get(path).text, timeout=5, what=text + " on " + path)
    assert s.get(model).headers["ETag"] != before


def test_a_page_card_is_built_once(make_server, tmp_path):
    """Concurrent first requests for a page card's SVG wait on one build
    (suspended, holding no thread) instead of each drawing it."""
    hold = str(tmp_path / "hold")
    s = make_server(["--test-hold-builds", hold])
    run, _ = upload(s)
    s.wait_refreshed()
    for path in page_cards(s, run["id"]):
        built_once(s, path, hold)


def test_a_stale_page_card_is_answered_while_it_is_rebuilt(make_server, tmp_path):
    """After a write, the first request for a kept page card is answered
    from the stale copy at once, as a kept page's is, while one rebuild
    runs on a build thread (held open here); then the card shows it."""
    hold = str(tmp_path / "hold")
    s = make_server(["--test-hold-builds", hold, "--test-stale-ms", "60000"])
    run, _ = upload(s)
    s.wait_refreshed()
    path = page_cards(s, run["id"])[0]
    assert "1 counted run on" in s.get(path).text          # built and kept
    open(hold, "w").close()
    try:
        upload(s)
        s.wait_refreshed()
        time.sleep(0.25)                # past the settling time: the next request leads
        for _ in range(3):
            r = requests.get(s.url + path, timeout=20)
            assert r.status_code == 200 and "1 counted run on" in r.text
        wait_for(lambda: metric(s, "llmspeed_page_builds_running") == 1,
                 what="the rebuild to run on a build thread")
        assert metric(s, "llmspeed_response_cache_builds") == 1
        assert metric(s, "llmspeed_page_builds_queued") == 0
    finally:
        os.unlink(hold)
    wait_for(lambda: "2 counted runs on" in s.get(path).text, timeout=5, what="the rebuilt card")


def test_a_page_card_png_is_drawn_from_the_kept_svg(server):
    """A page card's PNG reads its SVG from the response cache (a list_html
    hit, nothing read from the database), the SVG the SVG's route keeps;
    asked for first, the PNG keeps that SVG for the SVG's route; and an
    upload that changes the card changes the PNG."""
    run, _ = upload(server)
    server.wait_refreshed()
    model, hw = page_cards(server, run["id"])
    hits = lambda: metric(server, "llmspeed_response_cache_hits_total", "list_html")
    # The SVG first, then the PNG drawn from the SVG kept.
    assert server.get(model).status_code == 200
    n = hits()
    first = server.get(model[:-4] + ".png")
    assert first.status_code == 200 and first.headers["Content-Type"] == "image/png"
    assert hits() == n + 1
    png_hits = metric(server, "llmspeed_response_cache_hits_total", "card_png")
    again = server.get(model[:-4] + ".png")
    assert again.content == first.content and again.headers["ETag"] == first.headers["ETag"]
    assert hits() == n + 2
    assert metric(server, "llmspeed_response_cache_hits_total", "card_png") == png_hits + 1
    # The PNG first: the SVG it drew is the one the SVG's route then serves.
    png = server.get(hw[:-4] + ".png")
    assert png.status_code == 200
    n = hits()
    svg = server.get(hw)
    assert svg.status_code == 200 and "1 counted run of 1 model" in svg.text
    assert hits() == n + 1
    # A write that changes the card: the next PNG shows it (the tests'
    # servers keep no stale copy, conftest.py).
    upload(server)
    server.wait_refreshed()
    after = server.get(model[:-4] + ".png")
    assert after.status_code == 200 and after.headers["ETag"] != first.headers["ETag"]
    assert "2 counted runs on" in server.get(model).text


def test_png_requests_wait_on_the_one_build_of_the_svg(make_server, tmp_path):
    """PNG requests that come while the card's SVG is being built wait on
    that one build (suspended) instead of each reading the database."""
    hold = str(tmp_path / "hold")
    s = make_server(["--test-hold-builds", hold])
    run, _ = upload(s)
    s.wait_refreshed()
    path = page_cards(s, run["id"])[0]
    got, threads = [], []

    def fetch(p):
        got.append((p, requests.get(s.url + p, timeout=60)))

    open(hold, "w").close()
    try:
        threads.append(threading.Thread(target=fetch, args=(path,)))
        threads[-1].start()
        wait_for(lambda: metric(s, "llmspeed_page_builds_running") == 1, what="the SVG's build")
        for _ in range(5):
            threads.append(threading.Thread(target=fetch, args=(path[:-4] + ".png",)))
            threads[-1].start()
        wait_for(lambda: metric(s, "llmspeed_response_cache_waiting") == 5,
                 what="five PNG requests waiting on the SVG's build")
        assert metric(s, "llmspeed_response_cache_builds") == 1
    finally:
        os.unlink(hold)
    for t in threads:
        t.join(60)
    assert sorted(r.status_code for _, r in got) == [200] * 6
    pngs = {r.content for p, r in got if p.endswith(".png")}
    assert len(pngs) == 1 and next(iter(pngs))[:8] == b"\x89PNG\r\n\x1a\n"
