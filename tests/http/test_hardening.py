"""Attacks from the security probe (issue 11): ES256 malleability, lenient
HTTP parsing, bidi text, connection exhaustion."""
import base64
import json
import sqlite3

from conftest import Server, make_payload, new_key, sign

# The order of the P-256 group.
P256_N = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551


def b64u(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64u(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def flip_s(token):
    """The same ES256 JWS with s replaced by n - s: a second valid
    signature over the same bytes."""
    head, payload, sig = token.split(".")
    raw = unb64u(sig)
    r, s = raw[:32], int.from_bytes(raw[32:], "big")
    return "%s.%s.%s" % (head, payload, b64u(r + (P256_N - s).to_bytes(32, "big")))


def count_runs(server):
    con = sqlite3.connect("file:%s?mode=ro" % server.db, uri=True)
    try:
        return con.execute("SELECT count(*) FROM runs").fetchone()[0]
    finally:
        con.close()


def test_es256_s_flip_by_another_account_is_the_same_run(server):
    alice, mallory = server.account("alice"), server.account("mallory")
    token, _ = sign(make_payload(), new_key("ES256"))
    first = server.upload(token, {"Authorization": "Bearer " + alice})
    assert first.status_code == 201, first.text
    twin = flip_s(server.get("/r/%s.jws" % first.json()["id"]).text)
    assert twin != token
    again = server.upload(twin, {"Authorization": "Bearer " + mallory})
    assert again.status_code == 200, again.text
    assert again.json()["id"] == first.json()["id"]
    assert count_runs(server) == 1
    run = server.get("/r/%s.json" % first.json()["id"]).text
    assert "mallory" not in run


def test_es256_high_s_is_accepted(server):
    """Hardware keys produce either form; both verify and are stored."""
    token, _ = sign(make_payload(), new_key("ES256"))
    r = server.upload(flip_s(token))
    assert r.status_code == 201, r.text


def test_payload_dedup_survives_the_migration_backfill(tmp_path):
    """Runs stored before migration 0008 get their payload digest."""
    s = Server(str(tmp_path))
    try:
        token, _ = sign(make_payload(), new_key("ES256"))
        first = s.upload(token).json()["id"]
        s.stop()
        con = sqlite3.connect(s.db)
        # Back to the schema before migration 0008.
        # (0034 replaced 0008's index; both run again.)
        con.executescript("DROP INDEX runs_payload; ALTER TABLE runs DROP COLUMN payload_sha256;"
                          "DROP INDEX dispute_posts_signed; DROP INDEX dispute_posts_submitter;"
                          "ALTER TABLE dispute_posts DROP COLUMN signed_sha256;"
                          "DELETE FROM schema_migrations WHERE version IN (8, 34);")
        con.close()
        s.start()
        again = s.upload(flip_s(token))
        assert again.status_code == 200, again.text
        assert again.json()["id"] == first
    finally:
        s.stop()


# ---- request framing (libmicrohttpd 0.9.75 is lenient; the router refuses) ----

import re
import socket

import pytest


def raw_exchange(server, data, timeout=10):
    """Sends data on a fresh connection and reads until the server closes
    it; returns (bytes read, closed).  closed is False when the server kept
    the connection open past timeout."""
    s = socket.create_connection(("127.0.0.1", server.port))
    s.settimeout(timeout)
    out = b""
    try:
        s.sendall(data)
        while True:
            d = s.recv(65536)
            if not d:
                return out, True
            out += d
    except socket.timeout:
        return out, False
    finally:
        s.close()


SMUGGLED = b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"
FRAMING = {
    "two_content_lengths": (400, b"POST /api/v1/runs HTTP/1.1\r\nHost: x\r\nContent-Type: application/jose\r\n"
                                 b"Content-Length: 5\r\nContent-Length: %d\r\n\r\nhello" % (5 + len(SMUGGLED)) + SMUGGLED),
    "te_and_cl": (400, b"POST /api/v1/runs HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n"
                       b"Content-Length: 5\r\n\r\n0\r\n\r\n"),
    "unknown_te": (501, b"POST /api/v1/runs HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\nabc"),
    "no_host": (400, b"GET /healthz HTTP/1.1\r\n\r\n"),
    "two_hosts": (400, b"GET /healthz HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n"),
    "space_before_colon": (400, b"GET /healthz HTTP/1.1\r\nHost: a\r\nX-Thing : b\r\n\r\n"),
    "space_before_host_colon": (400, b"GET /healthz HTTP/1.1\r\nHost : a\r\n\r\n"),
}


@pytest.mark.parametrize("case", sorted(FRAMING))
def test_ambiguous_framing_is_refused_and_closed(server, case):
    status, data = FRAMING[case]
    out, closed = raw_exchange(server, data)
    assert closed, out
    assert out.startswith(b"HTTP/1.1 %d " % status), out
    assert len(re.findall(rb"HTTP/1\.1 \d{3} ", out)) == 1, out   # nothing smuggled through
    head = out.split(b"\r\n\r\n", 1)[0].lower()
    assert b"\r\nconnection: close" in head, out


def test_plain_requests_still_pass(server):
    out, _ = raw_exchange(server, b"GET /healthz HTTP/1.0\r\n\r\n")
    assert out.startswith(b"HTTP/1.") and b" 200 " in out.split(b"\r\n")[0], out
    token, _ = sign(make_payload())
    body = token.encode()
    chunked = b"%x\r\n%s\r\n0\r\n\r\n" % (len(body), body)
    out, _ = raw_exchange(server, b"POST /api/v1/runs HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
                                  b"Content-Type: application/jose\r\nTransfer-Encoding: chunked\r\n\r\n" + chunked)
    assert out.startswith(b"HTTP/1.1 201 "), out


# ---- connection exhaustion from many addresses ----

import os
import subprocess
import threading

import requests

from conftest import BIN, ROOT, free_port, tcp_sockets, wait_for


class Holders:
    """20 loopback addresses (127.0.0.10..29), each opening 64 connections
    that either sit idle or trickle a request line one byte every 2 s (so
    the idle timeout never closes them)."""

    def __init__(self, port, addresses=20, per_address=64, idle=True):
        self.port = port
        self.socks = []
        for a in range(addresses):
            for i in range(per_address):
                s = socket.socket()
                s.bind(("127.0.0.%d" % (10 + a), 0))
                s.setblocking(False)
                s.connect_ex(("127.0.0.1", port))
                self.socks.append((s, not idle or i % 2 == 0))
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.trickle, daemon=True)
        self.thread.start()

    def settled(self, accepted=True):
        """True once every holder's handshake is done (none is still
        sending its SYN) and, with accepted, the server has taken each
        connection from its listen queue (kept or refused)."""
        socks = tcp_sockets()
        if any(r == self.port and st == "02" for _, r, st, _, _ in socks):
            return False
        return not accepted or not any(l == self.port and st == "0A" and rx
                                       for l, _, st, _, rx in socks)

    def trickle(self):
        while not self.stop.wait(2):
            for s, trickles in self.socks:
                if trickles:
                    try:
                        s.send(b"G")
                    except OSError:
                        pass

    def close(self):
        self.stop.set()
        self.thread.join()
        for s, _ in self.socks:
            s.close()


def start_daemon(tmp_path, *args):
    """The daemon with its default limits (conftest's Server raises them)."""
    port = free_port()
    log = open(os.path.join(str(tmp_path), "server.log"), "ab")
    proc = subprocess.Popen([BIN, "--listen", "127.0.0.1:%d" % port, "--assets", ROOT,
                             "--db", os.path.join(str(tmp_path), "held.db")] + list(args),
                            stdout=log, stderr=log)

    def ready():
        try:
            return requests.get("http://127.0.0.1:%d/healthz" % port, timeout=1).status_code == 200
        except requests.ConnectionError:
            return False
    try:
        wait_for(ready, what="llm-speedd to start")
    except AssertionError:
        proc.kill()
        raise
    return proc, port


def normal_client_served(port, wait=20):
    """A fresh client from an address of its own; its request may wait for
    a slot (wait seconds), but not as long as the --request-timeout (30 s)
    an attacker's slot would last without shedding."""
    s = socket.socket()
    s.bind(("127.0.0.200", 0))
    s.settimeout(wait)
    try:
        s.connect(("127.0.0.1", port))
        s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        return s.recv(100).startswith(b"HTTP/1.1 200 ")
    except OSError:
        return False
    finally:
        s.close()


def test_twenty_addresses_holding_64_connections_do_not_lock_out_others(tmp_path):
    """With the default limits, 20 x 64 slow or idle connections cannot
    fill the server: each address gets its 32, the rest are refused, and a
    normal client is served without waiting for any of them to time out
    (the idle timeout is 10 s)."""
    proc, port = start_daemon(tmp_path)
    holders = Holders(port)
    try:
        wait_for(holders.settled, timeout=20, what="the server to take every held connection")
        assert normal_client_served(port, wait=8)
    finally:
        holders.close()
        proc.terminate()
        proc.wait(timeout=30)


def test_under_pressure_slow_connections_are_shed(tmp_path):
    """When the slots do fill (8 x 64 trickling connections against
    --max-connections 256), they are shed after GUARD_PRESSURE_SECONDS
    instead of at --request-timeout (30 s), so a client queued behind a
    second wave of them still gets in."""
    proc, port = start_daemon(tmp_path, "--max-connections", "256", "--max-per-ip", "64")
    holders = Holders(port, addresses=8, idle=False)
    try:
        # More than --max-connections: the rest wait in the listen queue.
        wait_for(lambda: holders.settled(accepted=False), timeout=20,
                 what="every held connection to be made")
        assert normal_client_served(port, wait=25)
    finally:
        holders.close()
        proc.terminate()
        proc.wait(timeout=30)


# ---- bidi and invisible characters ----

RLO, FSI, PDI, ZWSP = "\u202e", "\u2068", "\u2069", "\u200b"


def test_bidi_override_in_names_and_posts_is_isolated(server):
    p = make_payload(model__name="Qwen" + RLO + "3" + ZWSP + "-7B")
    token, _ = sign(p)
    up = server.upload(token)
    assert up.status_code == 201, up.text
    rid = up.json()["id"]
    post = server.post("/api/v1/runs/%s/disputes" % rid,
                       json={"author": "x" + PDI + RLO + "y", "body": "see " + RLO + "here"})
    assert post.status_code == 201, post.text
    page = server.get("/r/" + rid).text
    h1 = re.search(r"<h1>(.*?)</h1>", page, re.S).group(1)
    # The override ends inside the isolate, before " on M3 Ultra".
    assert FSI + "Qwen" + RLO + "3" + ZWSP + "-7B" + PDI in h1, h1
    assert h1.count(RLO) == 1
    # The title isolates each field on its own too: the override in the
    # model name ends before " on M3 Ultra", which reads left to right.
    title = re.search(r"<title>(.*?)</title>", page, re.S).group(1)
    assert title == FSI + "Qwen" + RLO + "3" + ZWSP + "-7B" + PDI + " on M3 Ultra \u00b7 llm-speed", title
    assert FSI + "see " + RLO + "here" + PDI in page
    # The author's own PDI, which would close the isolate early, is gone.
    assert FSI + "x" + RLO + "y" + PDI in page
    # The JSON keeps the name exactly as signed.
    assert server.get("/r/%s.json" % rid).json()["model"]["name"] == p["model"]["name"]
    badge = server.get("/badge/%s.svg" % rid).text
    assert RLO not in badge and ZWSP not in badge


# ---- issue 37 ----

EVIL_VERSION = "99.0 SECURITY: update from https://evil.example"


def test_a_free_text_backend_version_is_shown_as_unrecognised_everywhere(server):
    """Issue 37, L2: a backend version is text the uploader chooses; one that
    does not look like a version ("99.0 SECURITY: update from ...") is shown
    as "unrecognised version" on every page and JSON, and the signed bytes
    keep it as sent."""
    p = make_payload()
    p["backend"]["version"] = EVIL_VERSION
    p["model"]["digest"] = "sha256:" + "ab" * 32
    token, _ = sign(p)
    up = server.upload(token)
    assert up.status_code == 201, up.text
    rid = up.json()["id"]
    ok = make_payload()
    ok["model"]["digest"] = p["model"]["digest"]
    ok["backend"]["version"] = "0.31.3-abc1234"
    assert server.upload(sign(ok)[0]).status_code == 201
    run = server.get("/r/%s.json" % rid).json()
    assert run["backend"]["version"] == "unrecognised version", run["backend"]
    assert EVIL_VERSION.encode() in base64.urlsafe_b64decode(
        server.get("/r/%s.jws" % rid).text.split(".")[1] + "==")
    slug = run["model"]["slug"]
    hw = run["hardware"]["slug"]
    server.wait_refreshed()
    pages = ["/r/" + rid, "/r/%s.json" % rid, "/", "/?sort=best", "/m/" + slug, "/m/%s.json" % slug,
             "/m/%s/hw/%s" % (slug, hw), "/m/%s/hw/%s.json" % (slug, hw), "/hw/" + hw,
             "/feed.atom", "/m/%s.atom" % slug, "/compare?r=%s,%s" % (rid, up.json()["id"]),
             "/changes.json", "/export", "/card/%s.svg" % rid]
    for path in pages:
        r = server.get(path)
        assert r.status_code == 200, (path, r.status_code)
        text = r.text
        if path == "/r/%s.json" % rid:      # the signed payload, as sent, is kept apart
            j = r.json()
            assert j["payload"]["backend"]["version"] == EVIL_VERSION
            del j["payload"]
            text = json.dumps(j)
        assert "evil.example" not in text and "SECURITY" not in text, path
    assert "unrecognised version" in server.get("/r/" + rid).text
    assert "0.31.3-abc1234" in server.get("/m/%s/hw/%s.json" % (slug, hw)).text


def test_versions_stored_before_the_rule_are_read_again_at_start(server):
    """A row written before migration 0030 kept the version as sent: the
    identity pass at the next start rewrites it from the signed payload."""
    p = make_payload()
    p["backend"]["version"] = EVIL_VERSION
    up = server.upload(sign(p)[0])
    assert up.status_code == 201, up.text
    rid = up.json()["id"]
    server.stop()
    con = sqlite3.connect(server.db)
    with con:
        con.execute("UPDATE runs SET backend_version = ? WHERE id = ?", (EVIL_VERSION, rid))
        con.execute("UPDATE stats_state SET value = '' WHERE name = 'identity'")
    con.close()
    server.start()
    assert server.get("/r/%s.json" % rid).json()["backend"]["version"] == "unrecognised version"
