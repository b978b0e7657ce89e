"""Floods: connection limits in total and per client address, idle and
request deadlines against slow clients (slowloris), header and body size
limits, and the upload rate limit with and without a trusted proxy.

Every server here is started with the limits under test set on the command
line; client addresses are told apart by binding to 127.0.0.x.
"""
import socket
import subprocess
import time

import pytest

from conftest import BIN, client_from, make_payload, raw_connect, sign, tcp_sockets, wait_for

UPLOAD_HEADERS = {"Content-Type": "application/jose"}


def closed_by_server(sock):
    """True when the server has closed sock (EOF or reset) or answered on
    it; False while it is still open and silent."""
    sock.setblocking(False)
    try:
        return sock.recv(4096) is not None
    except BlockingIOError:
        return False
    except OSError:
        return True
    finally:
        sock.setblocking(True)


def wait_closed(sock, limit_s):
    """Waits up to limit_s for the server to close sock; fails if it does not."""
    return wait_for(lambda: closed_by_server(sock), timeout=limit_s, interval=0.2,
                    what="the server to close the connection")


def read_response(sock):
    """Reads one whole response (headers and Content-Length body) from
    sock; returns its status, or None when the server closed first."""
    got = b""
    while b"\r\n\r\n" not in got:
        d = sock.recv(4096)
        if not d:
            return None
        got += d
    head, body = got.split(b"\r\n\r\n", 1)
    length = 0
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value)
    while len(body) < length:
        d = sock.recv(4096)
        if not d:
            return None
        body += d
    return int(head.split()[1])


def keepalive_connection(server, source_ip):
    """A connection that completed one request and stays open (keep-alive),
    so the server has certainly accepted and counted it."""
    s = raw_connect(server, source_ip)
    s.sendall(b"GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n")
    assert read_response(s) == 200
    return s


def refused(server, source_ip):
    """True when a new connection from source_ip gets no answer: the server
    accepts it and closes it at once (or resets it) without serving."""
    try:
        s = raw_connect(server, source_ip)
        s.sendall(b"GET /healthz HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
        data = s.recv(4096)
        s.close()
    except OSError:
        return True
    return data == b""


def served(session, url, tries=5):
    """GET url with a few retries (a flood may cost one attempt); the last
    response, or None when every attempt failed to connect."""
    r = None
    for _ in range(tries):
        try:
            r = session.get(url, timeout=20)
            if r.status_code == 200:
                return r
        except OSError:
            time.sleep(0.5)
    return r


def upload_from(session, server, headers=None):
    token, _ = sign(make_payload())
    h = dict(UPLOAD_HEADERS)
    h.update(headers or {})
    return session.post(server.url + "/api/v1/runs", data=token.encode(), headers=h, timeout=20)


# ---- slow clients ----

def test_trickling_clients_neither_starve_others_nor_stay(make_server):
    """300 connections trickling one header byte a second: a normal client is
    still served, and every trickler is cut at --request-timeout although
    each byte resets the idle timeout."""
    server = make_server(["--max-per-ip", "400", "--max-connections", "1000",
                          "--timeout", "15", "--request-timeout", "4"])
    socks = []
    for _ in range(300):
        s = raw_connect(server)
        s.sendall(b"GET / HTTP/1.1\r\nHost: t\r\n")
        socks.append(s)
    normal = client_from("127.0.0.1")
    open_socks = list(socks)
    checked = False

    def trickle():
        """One byte on every open trickler (a second apart), the normal
        client served once; True when the server has cut them all."""
        nonlocal open_socks, checked
        for s in open_socks:
            try:
                s.sendall(b"X")
            except OSError:
                pass
        if not checked:
            r = served(normal, server.url + "/healthz")
            assert r is not None and r.status_code == 200
            r = upload_from(normal, server)
            assert r.status_code == 201, r.text
            assert served(normal, server.url + "/r/%s.json" % r.json()["id"]).status_code == 200
            checked = True
        open_socks = [s for s in open_socks if not closed_by_server(s)]
        return not open_socks
    try:
        wait_for(trickle, timeout=40, interval=1,
                 what="the trickling connections to be cut at --request-timeout")
        assert checked
        assert served(normal, server.url + "/healthz").status_code == 200
    finally:
        for s in socks:
            s.close()


def test_trickled_body_is_cut_at_request_timeout(make_server):
    """A slow POST (headers at once, then a body byte now and then) is cut
    at --request-timeout; nothing is stored."""
    server = make_server(["--request-timeout", "2", "--timeout", "30"])
    s = raw_connect(server)
    s.sendall(b"POST /api/v1/runs HTTP/1.1\r\nHost: t\r\nContent-Type: application/jose\r\n"
              b"Content-Length: 5000\r\n\r\n")

    def cut():
        try:
            s.sendall(b"e")
        except OSError:
            return True
        return closed_by_server(s)
    wait_for(cut, timeout=30, interval=0.5, what="the trickled body to be cut")
    s.close()
    assert server.get("/healthz").status_code == 200


def test_busy_keepalive_connection_outlives_request_timeout(make_server):
    """The deadline is per request: a keep-alive connection sending one
    quick request a second keeps being served long past --request-timeout."""
    server = make_server(["--request-timeout", "2", "--timeout", "30"])
    s = keepalive_connection(server, "127.0.0.1")
    try:
        for _ in range(6):
            time.sleep(1)
            s.sendall(b"GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n")
            assert read_response(s) == 200, "the server cut a connection that was never slow"
    finally:
        s.close()


def test_idle_connections_are_closed_after_timeout(make_server):
    """A connection that sends nothing, and a keep-alive connection left
    idle after a request, are both closed after --timeout."""
    server = make_server(["--timeout", "2", "--request-timeout", "0"])
    silent = raw_connect(server)
    kept = keepalive_connection(server, "127.0.0.1")
    try:
        assert wait_closed(silent, 30)
        assert wait_closed(kept, 30)
    finally:
        silent.close()
        kept.close()


# ---- connection limits ----

def test_client_over_max_per_ip_is_refused_while_others_are_served(make_server):
    server = make_server(["--max-per-ip", "4", "--max-connections", "100"])
    # From an address of its own: the harness's own connections from
    # 127.0.0.1 (its start-up probe) may still be open and count there.
    held = [keepalive_connection(server, "127.0.0.3") for _ in range(4)]
    try:
        assert refused(server, "127.0.0.3")
        r = served(client_from("127.0.0.2"), server.url + "/healthz")
        assert r is not None and r.status_code == 200
        assert upload_from(client_from("127.0.0.2"), server).status_code == 201
    finally:
        for s in held:
            s.close()
    # Once the held connections are gone, the address is served again.
    r = served(client_from("127.0.0.3"), server.url + "/healthz", tries=20)
    assert r is not None and r.status_code == 200


def test_max_connections_in_total(make_server):
    """At --max-connections the server stops accepting: a new client, from
    any address, waits in the listen queue and is served once a slot frees.
    (The held connections are mid-request, which pressure sheds only after
    GUARD_PRESSURE_SECONDS, 5 s.)"""
    server = make_server(["--max-per-ip", "4", "--max-connections", "6"])
    held = [raw_connect(server, "127.0.0.%d" % (10 + i)) for i in range(6)]
    for s in held:
        s.sendall(b"GET /healthz HTTP/1.1\r\n")
    # The server has accepted them all: none waits in its listen queue.
    wait_for(lambda: not any(l == server.port and st == "0A" and rx
                             for l, _, st, _, rx in tcp_sockets()),
             what="the server to accept the held connections")
    late = raw_connect(server, "127.0.0.30")
    late.sendall(b"GET /healthz HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
    late.settimeout(2)
    try:
        with pytest.raises(socket.timeout):
            late.recv(4096)
    finally:
        for s in held:
            s.close()
    late.settimeout(30)
    assert read_status(late) == 200
    late.close()


def test_idle_keepalive_connections_are_shed_under_pressure(make_server):
    """With every slot held by keep-alive connections idle after a response,
    a new client does not wait for the idle timeout (60 s here): over three
    quarters of --max-connections, idle connections are shed first."""
    server = make_server(["--max-per-ip", "4", "--max-connections", "6",
                          "--timeout", "60", "--request-timeout", "0"])
    held = [keepalive_connection(server, "127.0.0.%d" % (10 + i)) for i in range(6)]
    late = raw_connect(server, "127.0.0.30")
    late.sendall(b"GET /healthz HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
    late.settimeout(30)
    try:
        assert read_status(late) == 200
        assert sum(closed_by_server(s) for s in held) > 0
    finally:
        late.close()
        for s in held:
            s.close()


# ---- size limits ----

def read_status(sock):
    got = b""
    try:
        while b"\r\n" not in got:
            d = sock.recv(4096)
            if not d:
                break
            got += d
    except OSError:
        pass
    return int(got.split()[1]) if got.startswith(b"HTTP/1.1 ") else None


@pytest.mark.parametrize("request_bytes", [
    b"GET / HTTP/1.1\r\nHost: t\r\nX-Big: " + b"a" * 40000 + b"\r\n\r\n",
    b"GET / HTTP/1.1\r\nHost: t\r\n" + b"".join(b"X-H%d: %s\r\n" % (i, b"v" * 100) for i in range(400)) + b"\r\n",
    b"GET /" + b"p" * 40000 + b" HTTP/1.1\r\nHost: t\r\n\r\n",
], ids=["one-big-header", "many-headers", "long-request-line"])
def test_oversized_headers_are_refused_not_fatal(make_server, request_bytes):
    server = make_server(["--max-header-bytes", "16384"])
    s = raw_connect(server)
    try:
        s.sendall(request_bytes)
    except OSError:
        pass   # the server may close while we are still sending
    status = read_status(s)
    s.close()
    assert status in (None, 400, 413, 414, 431), status
    assert server.get("/healthz").status_code == 200


def test_normal_headers_fit_the_default_limit(server):
    r = server.get("/healthz", headers={"X-Some": "v" * 4000, "Cookie": "c" * 4000})
    assert r.status_code == 200


def test_declared_oversized_body_with_expect_is_413_before_sending(server):
    """A client that asks "100 Continue?" for a body over the route's limit
    is answered 413 at once and never has to send it."""
    for path, ctype in (("/api/v1/runs", "application/jose"),
                        ("/api/v1/runs/r_aaaaaaaaaaa/disputes", "application/json")):
        s = raw_connect(server)
        s.sendall(b"POST %s HTTP/1.1\r\nHost: t\r\nContent-Type: %s\r\n"
                  b"Content-Length: 10000000000\r\nExpect: 100-continue\r\n\r\n"
                  % (path.encode(), ctype.encode()))
        assert read_status(s) == 413
        s.close()
    assert server.get("/healthz").status_code == 200


def test_body_limits_per_route(server):
    """Uploads and dispute posts over 64 KiB are 413 payload_too_large."""
    big = b"A" * (64 * 1024 + 1)
    r = server.post("/api/v1/runs", data=big, headers=UPLOAD_HEADERS)
    assert r.status_code == 413 and r.json()["error"]["code"] == "payload_too_large"
    r = server.post("/api/v1/runs/r_aaaaaaaaaaa/disputes", data=big,
                    headers={"Content-Type": "application/json"})
    assert r.status_code == 413


# ---- upload rate limit ----

def exhaust(session, server, n, headers=None):
    """Sends n uploads that must all be stored."""
    for _ in range(n):
        r = upload_from(session, server, headers)
        assert r.status_code == 201, r.text


def assert_limited(r):
    assert r.status_code == 429, r.text
    assert r.json()["error"]["code"] == "rate_limited"
    assert int(r.headers["Retry-After"]) >= 1


def test_upload_rate_limit_per_address_ignores_spoofed_forwarded_for(make_server):
    server = make_server(["--upload-rate", "3"])
    a = client_from("127.0.0.1")
    exhaust(a, server, 3)
    assert_limited(upload_from(a, server))
    # Without --trust-proxy a made-up X-Forwarded-For changes nothing.
    for i in range(3):
        assert_limited(upload_from(a, server, {"X-Forwarded-For": "198.51.100.%d" % i}))
    # Another address has its own allowance.
    exhaust(client_from("127.0.0.2"), server, 3)


def test_upload_rate_limit_counts_forwarded_clients_apart_behind_trusted_proxy(make_server):
    server = make_server(["--upload-rate", "3", "--trust-proxy=127.0.0.1"])
    proxy = client_from("127.0.0.1")
    exhaust(proxy, server, 3, {"X-Forwarded-For": "203.0.113.1"})
    assert_limited(upload_from(proxy, server, {"X-Forwarded-For": "203.0.113.1"}))
    # The proxy appends the address it saw; that last entry is the client.
    assert_limited(upload_from(proxy, server, {"X-Forwarded-For": "10.9.9.9, 203.0.113.1"}))
    exhaust(proxy, server, 3, {"X-Forwarded-For": "203.0.113.1, 203.0.113.2"})
    exhaust(proxy, server, 1, {"X-Forwarded-For": "2001:db8::7"})


def test_trust_proxy_with_address_trusts_only_that_peer(make_server):
    server = make_server(["--upload-rate", "3", "--trust-proxy=127.0.0.2"])
    direct = client_from("127.0.0.1")
    exhaust(direct, server, 3, {"X-Forwarded-For": "203.0.113.10"})
    # Not the proxy: its X-Forwarded-For is ignored, the peer address counts.
    assert_limited(upload_from(direct, server, {"X-Forwarded-For": "203.0.113.11"}))
    proxy = client_from("127.0.0.2")
    exhaust(proxy, server, 3, {"X-Forwarded-For": "203.0.113.10"})
    assert_limited(upload_from(proxy, server, {"X-Forwarded-For": "203.0.113.10"}))
    exhaust(proxy, server, 1, {"X-Forwarded-For": "203.0.113.12"})
    # Garbage in X-Forwarded-For falls back to the peer's own allowance.
    exhaust(proxy, server, 3, {"X-Forwarded-For": "not-an-address"})
    assert_limited(upload_from(proxy, server, {"X-Forwarded-For": "not-an-address"}))


@pytest.mark.parametrize("args,env", [
    (["--trust-proxy"], {}),
    ([], {"LLMSPEED_TRUST_PROXY": "1"}),
], ids=["flag", "environment"])
def test_trust_proxy_without_the_proxys_address_is_refused_saying_what_to_write(tmp_path, args, env):
    """Issue 37, L1: trusting X-Forwarded-For from any peer let every direct
    client choose its address (/metrics opened, per-address limits went)."""
    import os
    e = dict(os.environ)
    e.update(env)
    out = subprocess.run([BIN, "--listen", "127.0.0.1:1", "--db", str(tmp_path / "x.db")] + args,
                         capture_output=True, text=True, timeout=10, env=e)
    assert out.returncode == 2, out.stderr
    assert "--trust-proxy=127.0.0.1" in out.stderr and "LLMSPEED_TRUST_PROXY=" in out.stderr, out.stderr
    assert not os.path.exists(str(tmp_path / "x.db"))


def test_upload_rate_limit_follows_the_account_across_addresses(make_server):
    server = make_server(["--upload-rate", "2"])
    token = server.account("ratelimited")
    auth = {"Authorization": "Bearer " + token}
    exhaust(client_from("127.0.0.1"), server, 2, auth)
    assert_limited(upload_from(client_from("127.0.0.3"), server, auth))
    # The address's own allowance was not used by the account's uploads.
    exhaust(client_from("127.0.0.1"), server, 2)


# ---- settings ----

def test_every_limit_is_a_documented_setting():
    out = subprocess.run([BIN, "--help"], capture_output=True, text=True, timeout=10)
    assert out.returncode == 0
    for flag, env in (("--max-connections", "LLMSPEED_MAX_CONNECTIONS"),
                      ("--max-per-ip", "LLMSPEED_MAX_PER_IP"),
                      ("--timeout", "LLMSPEED_TIMEOUT"),
                      ("--request-timeout", "LLMSPEED_REQUEST_TIMEOUT"),
                      ("--max-header-bytes", "LLMSPEED_MAX_HEADER_BYTES"),
                      ("--upload-rate", "LLMSPEED_UPLOAD_RATE"),
                      ("--dispute-rate", "LLMSPEED_DISPUTE_RATE"),
                      ("--db-busy-timeout", "LLMSPEED_DB_BUSY_TIMEOUT"),
                      ("--trust-proxy", "LLMSPEED_TRUST_PROXY")):
        assert flag in out.stdout and env in out.stdout, flag


@pytest.mark.parametrize("args,env", [
    (["--max-per-ip", "lots"], {}),
    (["--max-connections", "0"], {}),
    (["--max-header-bytes", "100"], {}),
    (["--trust-proxy=proxy.example"], {}),
    (["--trust-proxy"], {}),
    (["--trust-proxy=1"], {}),
    ([], {"LLMSPEED_TRUST_PROXY": "1"}),
    ([], {"LLMSPEED_MAX_PER_IP": "64k"}),
])
def test_bad_limit_values_stop_the_server_with_a_reason(tmp_path, args, env):
    import os
    e = dict(os.environ)
    e.update(env)
    out = subprocess.run([BIN, "--listen", "127.0.0.1:1", "--db", str(tmp_path / "x.db")] + args,
                         capture_output=True, text=True, timeout=10, env=e)
    assert out.returncode == 2
    assert "llm-speedd:" in out.stderr
