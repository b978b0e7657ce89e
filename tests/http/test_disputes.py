"""Dispute threads (contract section 5) over HTTP: the JSON and JWS API, the
browser form and its cross-site protection, escaping, rate limiting,
moderation, and an upheld run leaving its cluster while its page stays."""
import base64
import json
import math
import re
from html import unescape as html_unescape
import socket
import sqlite3
import struct
import time

import pytest
import requests

from conftest import MODERATOR_TOKEN, make_payload, new_key, sign, tcp_sockets, validate_html, wait_for

UNKNOWN = "r_zzzzzzzzzzz"


def upload(server, key=None, decode=112.2, **over):
    p = make_payload(**over)
    p["workloads"]["chat-short"]["decode_tok_s"] = decode
    token, key = sign(p, key or new_key())
    r = server.upload(token)
    assert r.status_code == 201, r.text
    return r.json()["id"], key


def post(server, rid, body=None, **kw):
    return server.post("/api/v1/runs/%s/disputes" % rid, json=body, **kw)


def post_signed(server, rid, payload, key):
    token, _ = sign(payload, key)
    return server.post("/api/v1/runs/%s/disputes" % rid, data=token,
                       headers={"Content-Type": "application/jose"})


def resolve(server, rid, resolution, note=None, token=MODERATOR_TOKEN):
    body = {"resolution": resolution}
    if note is not None:
        body["note"] = note
    headers = {"Authorization": "Bearer " + token} if token is not None else {}
    return server.post("/api/v1/runs/%s/disputes/resolve" % rid, json=body, headers=headers)


def thread(server, rid):
    r = server.get("/r/%s.json" % rid)
    assert r.status_code == 200, r.text
    return r.json()["dispute"]


def error_of(r, status, code, field=None):
    assert r.status_code == status, r.text
    assert r.headers["Content-Type"].startswith("application/json")
    e = r.json()["error"]
    assert e["code"] == code, e
    assert e["message"] and e["message"][0].isupper()
    if field is not None:
        assert e.get("field") == field, e
    return e


def form_token(server, rid):
    page = server.get("/r/%s" % rid).text
    m = re.search(r'<input type="hidden" name="token" value="([^"]+)">', page)
    assert m, "the run page has no form token"
    return m.group(1)


def form_post(server, rid, fields, origin="self", referer=None):
    headers = {}
    if origin == "self":
        headers["Origin"] = server.url
    elif origin is not None:
        headers["Origin"] = origin
    if referer is not None:
        headers["Referer"] = referer
    return server.post("/r/%s/disputes" % rid, data=fields, headers=headers,
                       allow_redirects=False)


# ---- posting through the API ----

def test_json_post_is_created_and_shown_as_plain_text(server):
    rid, _ = upload(server)
    body = "This is <script>alert(1)</script> & co.\nSecond line\r\nThird"
    r = post(server, rid, {"author": "Ann <b>", "body": body})
    assert r.status_code == 201, r.text
    p = r.json()
    assert set(p) == {"id", "run_id", "author", "body", "by_submitter", "created_at"}
    assert p["run_id"] == rid and p["author"] == "Ann <b>" and p["by_submitter"] is False
    assert p["body"] == body.replace("\r\n", "\n")
    anon = post(server, rid, {"body": "no name"})
    assert anon.status_code == 201 and anon.json()["author"] is None
    t = thread(server, rid)
    assert t["state"] == "open" and t["resolution"] is None
    assert [x["id"] for x in t["posts"]] == [p["id"], anon.json()["id"]]
    page = server.get("/r/%s" % rid).text
    section = page[page.index('<section id="dispute">'):]
    assert "<script>alert" not in page
    assert "This is &lt;script&gt;alert(1)&lt;/script&gt; &amp; co.<br>" in section
    assert "Second line<br>" in section and "Third" in section
    assert "Ann &lt;b&gt;" in section and "<b>" not in section
    assert "anonymous" in section


def test_run_ids_in_posts_and_notes_become_links_built_through_the_escapers(server):
    rid, _ = upload(server)
    other, _ = upload(server, decode=50.0)
    body = ("Compare <b>%s</b>, not x%s or %sx.\r\nSee %s." % (other, other, other, rid) +
            "\n\u202e%s&\"><script>" % other)
    assert post(server, rid, {"body": body}).status_code == 201
    assert resolve(server, rid, "dismissed", note="Same as %s." % other).status_code == 200
    page = server.get("/r/%s" % rid).text
    section = page[page.index('<section id="dispute">'):]
    link = '<a href="/r/%s">%s</a>' % (other, other)
    # A run id standing alone is a link, the markup around it text.
    assert "Compare &lt;b&gt;%s&lt;/b&gt;, not x%s or %sx.<br>" % (link, other, other) in section
    assert "See <a href=\"/r/%s\">%s</a>.<br>" % (rid, rid) in section
    # The text after a link is escaped (and isolated) on its own.
    assert "\u2068\u202e\u2069%s&amp;&quot;&gt;&lt;script&gt;" % link in section
    assert "<script>" not in section
    # The moderator's note links its run ids too; the JSON keeps the text.
    assert "Same as %s." % link in section
    t = thread(server, rid)
    assert t["posts"][0]["body"] == body.replace("\r\n", "\n")
    assert link in t["posts"][0]["body_html"]


def test_post_validation_errors(server):
    rid, _ = upload(server)
    error_of(post(server, rid, {"body": ""}), 422, "schema_violation", "body")
    error_of(post(server, rid, {"body": " \n\t "}), 422, "schema_violation", "body")
    error_of(post(server, rid, {"author": "x"}), 422, "schema_violation", "body")
    error_of(post(server, rid, {"body": 5}), 422, "schema_violation", "body")
    error_of(post(server, rid, {"body": "a" * 4001}), 422, "schema_violation", "body")
    error_of(post(server, rid, {"body": "ok", "author": 7}), 422, "schema_violation", "author")
    error_of(post(server, rid, {"body": "ok", "author": "a" * 81}), 422, "schema_violation", "author")
    error_of(post(server, rid, {"body": "a\u0000b"}), 422, "schema_violation", "body")
    bad = server.post("/api/v1/runs/%s/disputes" % rid, data=b"{not json",
                      headers={"Content-Type": "application/json"})
    error_of(bad, 400, "invalid_json")
    arr = server.post("/api/v1/runs/%s/disputes" % rid, data=b'["body"]',
                      headers={"Content-Type": "application/json"})
    error_of(arr, 400, "invalid_json")
    text = server.post("/api/v1/runs/%s/disputes" % rid, data=b"body=hi",
                       headers={"Content-Type": "text/plain"})
    error_of(text, 415, "unsupported_media_type")
    # 4000 characters is the limit, counted in characters, not bytes.
    long = "\u00e9" * 3999 + "\U0001F600"
    r = post(server, rid, {"body": long})
    assert r.status_code == 201, r.text
    assert r.json()["body"] == long
    # Nothing that was refused was stored.
    assert len(thread(server, rid)["posts"]) == 1


def test_unknown_run_is_404_on_every_dispute_route(server):
    for rid in (UNKNOWN, "nonsense"):
        error_of(post(server, rid, {"body": "hi"}), 404, "not_found")
        error_of(resolve(server, rid, "upheld"), 404, "not_found")
        r = form_post(server, rid, {"body": "hi", "token": "x"})
        assert r.status_code == 404
        assert r.headers["Content-Type"].startswith("text/html")
        signed, _ = sign({"run_id": rid, "body": "hi"})
        r = server.post("/api/v1/runs/%s/disputes" % rid, data=signed,
                        headers={"Content-Type": "application/jose"})
        error_of(r, 404, "not_found")


# ---- signed replies ----

@pytest.mark.parametrize("kind", ["Ed25519", "ES256"])
def test_signed_reply_by_the_runs_key_is_the_submitters(server, kind):
    key = new_key(kind)
    rid, _ = upload(server, key)
    r = post_signed(server, rid, {"run_id": rid, "body": "I measured this twice.\nSee log."}, key)
    assert r.status_code == 201, r.text
    assert r.json()["by_submitter"] is True
    t = thread(server, rid)
    assert t["posts"][0]["by_submitter"] is True
    page = server.get("/r/%s" % rid).text
    section = page[page.index('<section id="dispute">'):]
    assert "signed with the run&#39;s own key" in section or "signed with the run's own key" in section
    assert "I measured this twice.<br>" in section


def test_signed_reply_by_another_key_is_refused(server):
    key = new_key()
    rid, _ = upload(server, key)
    other = new_key()
    e = error_of(post_signed(server, rid, {"run_id": rid, "body": "Trust me."}, other), 403, "forbidden_key")
    assert rid in e["message"] and "key" in e["message"]
    # The run's key signing a payload for another run is refused too.
    rid2, _ = upload(server, other)
    error_of(post_signed(server, rid2, {"run_id": rid, "body": "x"}, other), 422, "schema_violation", "run_id")
    error_of(post_signed(server, rid, {"body": "no run id"}, key), 422, "schema_violation", "run_id")
    error_of(post_signed(server, rid, {"run_id": rid}, key), 422, "schema_violation", "body")
    # Broken JWS and a signature that does not verify.
    r = server.post("/api/v1/runs/%s/disputes" % rid, data=b"not.a.jws",
                    headers={"Content-Type": "application/jose"})
    error_of(r, 400, "malformed_jws")
    token, _ = sign({"run_id": rid, "body": "hello"}, key)
    h, p, s = token.split(".")
    forged = base64.urlsafe_b64encode(json.dumps({"run_id": rid, "body": "forged"}).encode()).rstrip(b"=").decode()
    r = server.post("/api/v1/runs/%s/disputes" % rid, data="%s.%s.%s" % (h, forged, s),
                    headers={"Content-Type": "application/jose"})
    error_of(r, 401, "invalid_signature")
    assert thread(server, rid)["posts"] == []


# ---- the browser form ----

def test_form_posts_and_redirects_back_to_the_thread(server):
    rid, _ = upload(server)
    token = form_token(server, rid)
    r = form_post(server, rid, {"author": "Bo", "body": "From the form\r\n<i>two</i>", "token": token})
    assert r.status_code == 303, r.text
    loc = r.headers["Location"]
    assert loc.startswith("/r/%s" % rid) and loc.endswith("#dispute")
    page = requests.get(server.url + loc, timeout=10)
    assert page.status_code == 200
    assert "From the form<br>" in page.text and "&lt;i&gt;two&lt;/i&gt;" in page.text
    t = thread(server, rid)
    assert t["posts"][-1]["author"] == "Bo" and t["posts"][-1]["body"] == "From the form\n<i>two</i>"
    # Without an Origin, a Referer from our own pages does as well.
    r = form_post(server, rid, {"body": "by referer", "token": token}, origin=None,
                  referer=server.url + "/r/" + rid)
    assert r.status_code == 303, r.text


def test_form_token_outlives_a_restart(server):
    """Pages cached by browsers and proxies before a restart still post:
    the token's key is kept in the database, not drawn per process."""
    rid, _ = upload(server)
    token = form_token(server, rid)
    server.restart()
    r = form_post(server, rid, {"body": "after a restart", "token": token})
    assert r.status_code == 303, r.text
    assert thread(server, rid)["posts"][-1]["body"] == "after a restart"


def test_form_refuses_other_sites_and_bad_tokens(server):
    rid, _ = upload(server)
    other, _ = upload(server)
    token = form_token(server, rid)
    ok = {"body": "hello", "token": token}
    refusals = [
        form_post(server, rid, ok, origin="http://evil.example"),
        form_post(server, rid, ok, origin="null"),
        form_post(server, rid, ok, origin=None),
        form_post(server, rid, ok, origin=None, referer="http://evil.example/r/" + rid),
        form_post(server, rid, {"body": "hello"}),
        form_post(server, rid, {"body": "hello", "token": "A" * 43}),
        form_post(server, rid, {"body": "hello", "token": ""}),
        form_post(server, rid, {"body": "hello", "token": form_token(server, other)}),
    ]
    for r in refusals:
        assert r.status_code == 403, r.text
        assert r.headers["Content-Type"].startswith("text/html")
        assert "reload" in r.text or "this site" in r.text
    assert thread(server, rid)["posts"] == []
    assert form_post(server, rid, ok).status_code == 303



def test_made_up_form_token_does_not_drop_the_cached_page(server):
    """A refused token drops the run's cached page only when it is one of
    ours from an older day (the page was a stale copy); a made-up one must
    not let anyone empty the cache at will."""
    rid, _ = upload(server)
    # A checkpoint signed while the page renders keeps that render out of
    # the cache (its data may have moved); wait until the log covers the run.
    server.wait_logged(rid)
    # And until the refresh thread's passes for it are done: their write
    # makes the page stale, and its rebuild would read the change below.
    server.wait_refreshed()
    token = form_token(server, rid)   # the page is cached now
    # Change the run behind the server's back: only a fresh render shows it.
    con = sqlite3.connect(server.db, timeout=10)
    con.execute("UPDATE runs SET backend_version = 'behind-the-back' WHERE id = ?", (rid,))
    con.commit()
    con.close()
    for forged in ["A" * 43, token[:-1] + ("A" if token[-1] != "A" else "B"), "x"]:
        r = form_post(server, rid, {"body": "hello", "token": forged})
        assert r.status_code == 403, r.text
    assert "behind-the-back" not in server.get("/r/%s" % rid).text

def test_form_behind_a_proxy_takes_the_public_origin_only(make_server):
    s = make_server(["--base-url", "https://llm-speed.example/"])
    rid, _ = upload(s)
    token = form_token(s, rid)
    r = form_post(s, rid, {"body": "hi", "token": token}, origin="https://llm-speed.example")
    assert r.status_code == 303, r.text
    # With a public origin configured, the address the client used does not count.
    assert form_post(s, rid, {"body": "hi", "token": token}).status_code == 403
    assert form_post(s, rid, {"body": "hi", "token": token}, origin="http://llm-speed.example").status_code == 403


def test_form_validation_is_reported_on_a_page(server):
    rid, _ = upload(server)
    token = form_token(server, rid)
    r = form_post(server, rid, {"body": "   ", "token": token})
    assert r.status_code == 422 and r.headers["Content-Type"].startswith("text/html")
    assert "body" in r.text
    r = form_post(server, rid, {"body": "x" * 4001, "token": token})
    assert r.status_code == 422
    r = server.post("/r/%s/disputes" % rid, data=json.dumps({"body": "x"}),
                    headers={"Origin": server.url, "Content-Type": "application/json"},
                    allow_redirects=False)
    assert r.status_code == 415
    r = server.post("/r/%s/disputes" % rid, data="body=%zz&token=" + token,
                    headers={"Origin": server.url, "Content-Type": "application/x-www-form-urlencoded"},
                    allow_redirects=False)
    assert r.status_code == 400
    assert thread(server, rid)["posts"] == []


# ---- rate limiting ----

def test_posting_is_rate_limited_per_client(make_server):
    s = make_server(["--dispute-rate", "2"])
    rid, _ = upload(s)
    assert post(s, rid, {"body": "one"}).status_code == 201
    assert post(s, rid, {"body": "two"}).status_code == 201
    r = post(s, rid, {"body": "three"})
    error_of(r, 429, "rate_limited")
    assert int(r.headers["Retry-After"]) >= 1
    # The form shares the allowance and says so on a page.
    r = form_post(s, rid, {"body": "four", "token": form_token(s, rid)})
    assert r.status_code == 429 and int(r.headers["Retry-After"]) >= 1
    assert len(thread(s, rid)["posts"]) == 2
    # Invalid posts do not use up the allowance of a fresh server.
    s2 = make_server(["--dispute-rate", "2"])
    rid2, _ = upload(s2)
    for _ in range(3):
        assert post(s2, rid2, {"body": ""}).status_code == 422
    assert post(s2, rid2, {"body": "ok"}).status_code == 201


# ---- moderation ----

def test_moderation_needs_the_right_token(server):
    rid, _ = upload(server)
    post(server, rid, {"body": "Suspicious."})
    error_of(resolve(server, rid, "upheld", token="wrong-token"), 401, "invalid_token")
    error_of(resolve(server, rid, "upheld", token=MODERATOR_TOKEN + "x"), 401, "invalid_token")
    error_of(resolve(server, rid, "upheld", token=None), 401, "invalid_token")
    assert thread(server, rid)["state"] == "open"
    error_of(resolve(server, rid, "maybe"), 422, "schema_violation", "resolution")
    r = server.post("/api/v1/runs/%s/disputes/resolve" % rid, data="resolution=upheld",
                    headers={"Authorization": "Bearer " + MODERATOR_TOKEN,
                             "Content-Type": "application/x-www-form-urlencoded"})
    error_of(r, 415, "unsupported_media_type")
    r = resolve(server, rid, "dismissed", note="Checked <b>the</b> logs.\nLooks fine.")
    assert r.status_code == 200, r.text
    assert r.json()["state"] == "dismissed"
    t = thread(server, rid)
    assert t["state"] == "dismissed" and t["resolution"] == "dismissed"
    assert t["note"] == "Checked <b>the</b> logs.\nLooks fine." and t["resolved_at"]
    page = server.get("/r/%s" % rid).text
    assert "Checked &lt;b&gt;the&lt;/b&gt; logs.<br>" in page
    assert server.get("/r/%s.json" % rid).json()["status"] == "ok"
    # A moderator can rule on a run nobody posted about.
    quiet, _ = upload(server)
    r = resolve(server, quiet, "upheld")
    assert r.status_code == 200 and r.json()["note"] is None
    t = thread(server, quiet)
    assert t["state"] == "upheld" and t["posts"] == [] and t["count"] == 0
    assert server.get("/r/%s.json" % quiet).json()["status"] == "upheld"


def test_moderation_not_configured_is_refused_with_a_message(make_server):
    s = make_server(env={"LLMSPEED_MODERATOR_TOKEN": ""})
    rid, _ = upload(s)
    e = error_of(resolve(s, rid, "upheld"), 401, "invalid_token")
    assert "LLMSPEED_MODERATOR_TOKEN" in e["message"]
    assert s.get("/r/%s.json" % rid).json()["status"] == "ok"


def population(xs):
    n = len(xs)
    mean = sum(xs) / n
    return n, mean, math.sqrt(sum((x - mean) ** 2 for x in xs) / n)


def test_upheld_run_leaves_rankings_and_its_cluster_but_its_page_stays(server, tmp_path):
    values = [100.0, 100.5, 99.5, 100.2, 99.8, 100.1, 99.9, 100.3, 99.7, 100.4, 99.6, 100.0]
    ids = [upload(server, decode=v)[0] for v in values]
    bad, _ = upload(server, decode=400.0)
    other = ids[0]
    before = server.get("/r/%s.json" % other).json()["outlier"]["cluster"]
    # The 400's key is clipped away: the mean is the others' (n counts runs).
    n, _, _ = population(values + [400.0])
    _, mean, _ = population(values)
    assert before["n"] == n and before["mean"] == pytest.approx(mean)
    assert server.get("/r/%s.json" % bad).json()["outlier"]["flagged"] is True
    assert 'id="outlier-%s"' % bad in server.get("/outliers").text

    assert post(server, bad, {"body": "400 tok/s on this machine is impossible."}).status_code == 201
    assert 'id="thread-%s"' % bad in server.get("/disputes").text
    r = resolve(server, bad, "upheld", note="The log shows a cached answer.")
    assert r.status_code == 200, r.text
    assert r.json()["run_status"] == "upheld"

    # The cluster no longer counts it: the others' figures change at once.
    after = server.get("/r/%s.json" % other).json()["outlier"]["cluster"]
    n2, mean2, sd2 = population(values)
    assert after["n"] == n2 == before["n"] - 1
    assert after["mean"] == pytest.approx(mean2) and after["stddev"] == pytest.approx(sd2)
    # Its page stays, marked, with the ruling and the note.
    page = server.get("/r/%s" % bad)
    assert page.status_code == 200
    assert 'class="upheld"' in page.text or 'class="note upheld"' in page.text
    assert "The log shows a cached answer." in page.text
    j = server.get("/r/%s.json" % bad).json()
    assert j["status"] == "upheld" and j["outlier"]["flagged"] is False
    assert j["dispute"]["state"] == "upheld"
    # Out of the lists: not a flagged outlier, not an open thread.
    assert 'id="outlier-%s"' % bad not in server.get("/outliers").text
    assert 'id="thread-%s"' % bad not in server.get("/disputes").text
    ok, report = validate_html(page.text, tmp_path)
    assert ok, report

    # A later post does not reopen it; a moderator can rule again.
    assert post(server, bad, {"body": "Appeal."}).status_code == 201
    assert thread(server, bad)["state"] == "upheld"
    assert resolve(server, bad, "dismissed").status_code == 200
    back = server.get("/r/%s.json" % other).json()["outlier"]["cluster"]
    assert back["n"] == n
    assert server.get("/r/%s.json" % bad).json()["outlier"]["flagged"] is True
    assert server.get("/r/%s.json" % bad).json()["status"] == "ok"


# ---- the lists ----

def test_disputes_lists_open_threads_newest_first_and_paginates(server, tmp_path):
    ids = [upload(server, decode=100.0 + i)[0] for i in range(52)]
    for rid in ids:
        assert post(server, rid, {"body": "Dispute of " + rid}).status_code == 201
    # A new post moves a thread to the top.
    assert post(server, ids[0], {"body": "Bump."}).status_code == 201
    first = server.get("/disputes")
    assert first.status_code == 200
    listed = re.findall(r'id="thread-(r_[a-z0-9_-]{11})"', first.text)
    assert len(listed) == 50
    assert listed[:3] == [ids[0], ids[51], ids[50]]
    (nxt,) = re.findall(r'href="(/disputes\?after=[^"]+)"', first.text)
    second_page = server.get(html_unescape(nxt)).text
    second = re.findall(r'id="thread-(r_[a-z0-9_-]{11})"', second_page)
    assert second == [ids[2], ids[1]]
    assert 'href="/disputes"' in second_page     # back to the first page
    # Previous page: from page 2, the first page; from a cursor on the last
    # row, the 50 rows that end with it, by keyset paging backwards.
    (prev,) = re.findall(r'<a rel="prev" href="([^"]+)"', second_page)
    assert html_unescape(prev) == "/disputes"
    assert 'rel="prev"' not in first.text
    rows = server.get("/disputes.json").json()["rows"] + \
        server.get("/disputes.json" + html_unescape(nxt)[len("/disputes"):]).json()["rows"]
    assert len(rows) == 52
    last = "%d:%s" % (rows[-1]["last_post_id"], rows[-1]["id"])
    back = server.get("/disputes.json?after=" + last).json()
    assert back["rows"] == [] and back["prev"]
    before = server.get(back["prev"].replace("/disputes", "/disputes.json", 1)).json()["rows"]
    assert [r["id"] for r in before] == [r["id"] for r in rows[2:]]
    assert back["prev"] == "/disputes?after=%d%%3A%s" % (rows[1]["last_post_id"], rows[1]["id"])
    assert resolve(server, ids[51], "dismissed").status_code == 200
    listed = re.findall(r'id="thread-(r_[a-z0-9_-]{11})"', server.get("/disputes").text)
    assert ids[51] not in listed and listed[:2] == [ids[0], ids[50]]
    ok, report = validate_html(first.text, tmp_path)
    assert ok, report
    assert server.get("/disputes?after=-1:" + ids[0]).status_code == 400



def test_disputes_list_shows_the_latest_post_and_the_ruled_threads(server, tmp_path):
    a, _ = upload(server)
    b, _ = upload(server, decode=90.0)
    c, _ = upload(server, decode=80.0)
    long_body = "First line\n\nThese   figures " + "look far too good for this card " * 8
    assert post(server, a, {"author": "Ann <b>", "body": long_body}).status_code == 201
    assert post(server, b, {"body": "Short <i>one</i>."}).status_code == 201
    assert post(server, c, {"body": "Ruled on."}).status_code == 201
    rows = {r["id"]: r for r in server.get("/disputes.json").json()["rows"]}
    snip = rows[a]["latest_snippet"]
    # White space collapsed, cut after a word, within 160 characters.
    assert snip.startswith("First line These figures look far too good") and snip.endswith("\u2026"), snip
    assert len(snip) <= 160 and long_body.replace("\n\n", " ").replace("   ", " ").startswith(snip[:-1].rstrip())
    assert not snip[:-1].endswith(" ") and "latest_body" not in rows[a]
    assert rows[a]["latest_author"] == "Ann <b>" and rows[a]["posts_text"] == "1 post"
    assert rows[b]["latest_snippet"] == "Short <i>one</i>." and rows[b]["latest_author"] is None
    page = server.get("/disputes").text
    row = page.split('id="thread-%s"' % b)[1].split("</tr>")[0]
    assert "<q>Short &lt;i&gt;one&lt;/i&gt;.</q>" in row and "anonymous" in row
    assert "Ann &lt;b&gt;" in page and "<b>" not in page.split("<main")[1]
    # The ruled threads have their own views, each with its tab.
    assert resolve(server, b, "upheld").status_code == 200
    assert resolve(server, c, "dismissed", note="Fine.").status_code == 200
    ids = lambda q: re.findall(r'id="thread-(r_[a-z0-9_-]{11})"', server.get("/disputes" + q).text)
    assert ids("") == [a]
    assert ids("?state=upheld") == [b]
    assert ids("?state=dismissed") == [c]
    j = server.get("/disputes.json?state=dismissed").json()
    assert j["state"] == "dismissed" and j["rows"][0]["resolved_at"]
    assert [(v["label"], v["href"], v["selected"]) for v in j["views"]] == [
        ("Open", "/disputes", False), ("Upheld", "/disputes?state=upheld", False),
        ("Dismissed", "/disputes?state=dismissed", True)]
    html = server.get("/disputes?state=upheld")
    assert 'aria-current="page">Upheld</a>' in html.text and "Ruled" in html.text
    ok, report = validate_html(html.text, tmp_path)
    assert ok, report
    ok, report = validate_html(page, tmp_path)
    assert ok, report
    # The ruled views have one order; a wrong state is the client's mistake.
    assert server.get("/disputes?state=upheld&sort=posts").status_code == 400
    r = server.get("/disputes.json?state=closed")
    assert r.status_code == 400 and "open, upheld or dismissed" in r.json()["error"]["message"]
    csv_ids = [line.split(",")[0].strip('"') for line in server.get("/disputes.csv?state=upheld").text.splitlines()[1:]]
    assert csv_ids == [b], csv_ids


def test_disputes_list_keeps_suites_apart(server):
    """Every list is within one suite: /disputes shows the newest suite's
    threads, ?suite= another's, and never both at once."""
    a, _ = upload(server)
    b, _ = upload(server)
    for rid in (a, b):
        assert post(server, rid, {"body": "Dispute of " + rid}).status_code == 201
    con = sqlite3.connect(server.db, timeout=10)
    con.execute("UPDATE runs SET suite_version = 'suite-v0' WHERE id = ?", (b,))
    con.commit()
    con.close()
    listed = lambda q: re.findall(r'id="thread-(r_[a-z0-9_-]{11})"', server.get("/disputes" + q).text)
    assert listed("") == [a]
    assert listed("?suite=suite-v1") == [a]
    assert listed("?suite=suite-v0") == [b]
    assert server.get("/disputes?suite=suite-v9").status_code == 404
    assert server.get("/disputes?suite=%FF").status_code == 400


def test_lists_choose_suites_as_the_browse_pages_do(server):
    """/disputes and /outliers default to the newest suite by version order
    (suite-v10 after suite-v9, not text order) and answer 404 for a suite
    without runs, as /, /m/ and /hw/ do."""
    a, _ = upload(server)
    b, _ = upload(server)
    for rid in (a, b):
        assert post(server, rid, {"body": "Dispute of " + rid}).status_code == 201
    con = sqlite3.connect(server.db, timeout=10)
    con.execute("UPDATE runs SET suite_version = 'suite-v9' WHERE id = ?", (a,))
    con.execute("UPDATE runs SET suite_version = 'suite-v10' WHERE id = ?", (b,))
    con.commit()
    con.close()
    listed = lambda q: re.findall(r'id="thread-(r_[a-z0-9_-]{11})"', server.get("/disputes" + q).text)
    assert listed("") == [b]
    assert listed("?suite=suite-v9") == [a]
    r = server.get("/outliers")
    assert r.status_code == 200 and "suite-v10" in r.text and "suite-v9" not in r.text
    for path in ("/disputes", "/outliers"):
        r = server.get(path + "?suite=suite-v11")
        assert r.status_code == 404 and "suite-v11" in r.text, path
        assert r.headers["Content-Type"].startswith("text/html")
    # The home page agrees on the newest suite.
    assert "suite-v10" in server.get("/").text

def test_pages_validate_with_a_full_thread(server, tmp_path):
    key = new_key()
    rid, _ = upload(server, key)
    post(server, rid, {"author": "Ann", "body": "Line one\nLine two <tag>"})
    post_signed(server, rid, {"run_id": rid, "body": "Signed reply."}, key)
    resolve(server, rid, "dismissed", note="Fine.\nReally.")
    for path in ("/r/" + rid, "/disputes", "/outliers"):
        r = server.get(path)
        assert r.status_code == 200, path
        ok, report = validate_html(r.text, tmp_path)
        assert ok, path + "\n" + report
    empty, _ = upload(server)
    ok, report = validate_html(server.get("/r/" + empty).text, tmp_path)
    assert ok, report



# ---- a client that hangs up before its answer ----

def hang_up_post(server, path, body, headers):
    """Sends one POST while another process holds the database's write
    lock, resets the connection while the write waits (the connection is
    suspended then), and lets the write go on."""
    head = "POST %s HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n" % (path, len(body))
    head += "".join("%s: %s\r\n" % kv for kv in headers.items()) + "\r\n"
    lock = sqlite3.connect(server.db, timeout=10, isolation_level=None)
    try:
        lock.execute("BEGIN IMMEDIATE")
        s = socket.create_connection(("127.0.0.1", server.port), timeout=10)
        s.sendall(head.encode() + body)
        me = s.getsockname()[1]

        def read_by_server():
            # Our bytes acknowledged, and none left unread on the server's side.
            socks = tcp_sockets()
            return (any(l == me and r == server.port and tx == 0 for l, r, _, tx, _ in socks) and
                    any(l == server.port and r == me and rx == 0 for l, r, _, _, rx in socks))
        wait_for(read_by_server, what="the server to read the whole request")
        s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        s.close()
        wait_for(lambda: not any(l == server.port and r == me for l, r, *_ in tcp_sockets()),
                 what="the reset to close the server's side")
        lock.execute("COMMIT")
    finally:
        lock.close()


def db_count(server, sql):
    con = sqlite3.connect("file:%s?mode=ro" % server.db, uri=True, timeout=10)
    try:
        return con.execute(sql).fetchone()[0]
    finally:
        con.close()


def wait_for_row(server, sql):
    """Waits until the hung-up write is stored, then makes one more write:
    the writer finishes a write's job (and its cache drop) before it starts
    the next, so that write's answer means the first one is all done."""
    wait_for(lambda: db_count(server, sql), timeout=5, interval=0.01, what="a row of " + sql)
    upload(server)


def test_hung_up_post_and_ruling_still_refresh_the_cached_run_page(server):
    """The cached run page, JSON and badge are dropped when a post or a
    ruling commits: a client that hung up while its write waited must not
    leave the page without its post, or an upheld run shown as counted."""
    rid, _ = upload(server)
    assert thread(server, rid)["count"] == 0   # cached now
    assert "No posts yet." in server.get("/r/%s" % rid).text
    hang_up_post(server, "/api/v1/runs/%s/disputes" % rid,
                 json.dumps({"body": "Hung up."}).encode(),
                 {"Content-Type": "application/json"})
    wait_for_row(server, "SELECT count(*) FROM dispute_posts")
    assert thread(server, rid)["count"] == 1
    assert "Hung up." in server.get("/r/%s" % rid).text

    # The open thread turns the cached badge amber at once (issue 35).
    assert "disputed: 112.2 tok/s" in server.get("/badge/%s.svg" % rid).text
    hang_up_post(server, "/api/v1/runs/%s/disputes/resolve" % rid,
                 json.dumps({"resolution": "upheld"}).encode(),
                 {"Content-Type": "application/json",
                  "Authorization": "Bearer " + MODERATOR_TOKEN})
    wait_for_row(server, "SELECT count(*) FROM runs WHERE status = 'upheld'")
    assert server.get("/r/%s.json" % rid).json()["status"] == "upheld"
    assert "disputed: upheld" in server.get("/badge/%s.svg" % rid).text


# ---- issue 11: long threads, replays, reserved names ----

def stuff_thread(server, rid, n):
    """Adds n anonymous posts straight into the database (as n posts
    through the API would, without n HTTP round trips)."""
    con = sqlite3.connect(server.db, timeout=10)
    try:
        with con:
            con.execute("INSERT INTO dispute_threads(run_id, state, opened_at, last_post_at) "
                        "VALUES (?, 'open', '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z') "
                        "ON CONFLICT DO NOTHING", (rid,))
            con.executemany("INSERT INTO dispute_posts(run_id, body, created_at) "
                            "VALUES (?, ?, '2026-01-01T00:00:00Z')",
                            [(rid, "filler %d" % i) for i in range(n)])
            con.execute("UPDATE dispute_threads SET posts = posts + ? WHERE run_id = ?", (n, rid))
    finally:
        con.close()


def test_submitter_reply_after_500_posts_stays_visible(server, tmp_path):
    key = new_key()
    rid, _ = upload(server, key)
    stuff_thread(server, rid, 520)
    r = post_signed(server, rid, {"run_id": rid, "body": "My late reply.", "nonce": "a1"}, key)
    assert r.status_code == 201, r.text
    reply = r.json()["id"]
    assert resolve(server, rid, "dismissed", note="Ruled after 520 posts.").status_code == 200
    t = thread(server, rid)
    assert len(t["posts"]) == 500 and t["truncated"] is True
    assert [p["id"] for p in t["submitter_posts"]] == [reply]
    assert t["note"] == "Ruled after 520 posts."
    page = server.get("/r/%s" % rid).text
    assert "My late reply." in page and "Ruled after 520 posts." in page
    assert 'href="?after=%d#dispute"' % t["next_after"] in page
    ok, report = validate_html(page, tmp_path)
    assert ok, report
    # The next page, by key, holds the reply in its place and pins nothing.
    nxt = t["next_after"]
    later = server.get("/r/%s.json?after=%d" % (rid, nxt)).json()["dispute"]
    assert later["after"] == nxt and later["next_after"] is None
    assert later["posts"][0]["id"] == nxt + 1
    assert later["posts"][-1]["id"] == reply and later["submitter_posts"] == []
    html = server.get("/r/%s?after=%d" % (rid, nxt)).text
    assert "filler 519" in html and "filler 0<" not in html
    ok, report = validate_html(html, tmp_path)
    assert ok, report
    # The first page is still the cached one, not the later page.
    assert thread(server, rid)["after"] is None


def test_signed_post_sent_twice_is_refused_as_a_replay(server):
    key = new_key("ES256")
    rid, _ = upload(server, key)
    token, _ = sign({"run_id": rid, "body": "Only once."}, key)
    h = {"Content-Type": "application/jose"}
    first = server.post("/api/v1/runs/%s/disputes" % rid, data=token, headers=h)
    assert first.status_code == 201, first.text
    again = server.post("/api/v1/runs/%s/disputes" % rid, data=token, headers=h)
    error_of(again, 409, "replayed_post")
    # The same payload signed again (ES256 signs at random) is a replay too.
    resigned, _ = sign({"run_id": rid, "body": "Only once."}, key)
    assert resigned != token
    error_of(server.post("/api/v1/runs/%s/disputes" % rid, data=resigned, headers=h), 409, "replayed_post")
    assert thread(server, rid)["count"] == 1
    # A fresh nonce or iat makes a new post of the same words.
    assert post_signed(server, rid, {"run_id": rid, "body": "Only once.", "nonce": "n2"}, key).status_code == 201
    assert post_signed(server, rid, {"run_id": rid, "body": "Only once.", "iat": int(time.time())}, key).status_code == 201
    error_of(post_signed(server, rid, {"run_id": rid, "body": "Old.", "iat": int(time.time()) - 3600}, key),
             422, "schema_violation", "iat")
    assert thread(server, rid)["count"] == 3


@pytest.mark.parametrize("name", [
    "the submitter", "Submitter", "The Sub-Mitter", "SUBMITTER (verified)",
    "sub\u200bmitter", "\u0455ubm\u0456tter", "\uff53\uff55\uff42\uff4d\uff49\uff54\uff54\uff45\uff52",
    "subm1tter", "subrnitter", "s\u00fcbmitter", "moderator", "M\u043eder\u0430tor",
])
def test_unsigned_author_cannot_pose_as_submitter_or_moderator(server, name):
    rid, _ = upload(server)
    error_of(post(server, rid, {"author": name, "body": "Trust me."}), 422, "reserved_author", "author")
    r = form_post(server, rid, {"author": name, "body": "Trust me."})
    assert r.status_code == 422, r.text
    assert thread(server, rid)["count"] == 0


def test_ordinary_author_names_are_kept(server):
    rid, _ = upload(server)
    for name in ["Alice", "submit team lead", "mod", "\u05e9\u05dc\u05d5\u05dd"]:
        assert post(server, rid, {"author": name, "body": "Hi."}).status_code == 201, name
