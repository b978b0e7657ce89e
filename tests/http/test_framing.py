"""Strict framing (issue 25): HTTP/1.0 with a chunked body, escapes in the
path that decode to NUL or are broken, and requests with many query
arguments, which must always be answered."""
import re
import socket
import sqlite3

import pytest

from conftest import make_payload, sign

PIPELINED = b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"


def exchange(server, data, timeout=5):
    """Sends data on a fresh connection and reads until the server closes
    it or timeout passes; returns (bytes read, closed by the server)."""
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
    except ConnectionResetError:
        return out, True
    finally:
        s.close()


def stored_runs(server):
    con = sqlite3.connect("file:%s?mode=ro" % server.db, uri=True)
    try:
        return con.execute("SELECT count(*) FROM runs").fetchone()[0]
    finally:
        con.close()


def status_of(out):
    m = re.match(rb"HTTP/1\.[01] (\d{3}) ", out)
    return int(m.group(1)) if m else None


def test_http10_with_chunked_body_is_refused_and_closed(server):
    token, _ = sign(make_payload())
    body = token.encode()
    chunked = b"%x\r\n%s\r\n0\r\n\r\n" % (len(body), body)
    out, closed = exchange(server, b"POST /api/v1/runs HTTP/1.0\r\nHost: x\r\nConnection: keep-alive\r\n"
                                   b"Content-Type: application/jose\r\nTransfer-Encoding: chunked\r\n\r\n"
                                   + chunked + PIPELINED)
    assert closed, out
    assert status_of(out) == 400, out
    assert b"Transfer-Encoding" in out
    assert len(re.findall(rb"HTTP/1\.[01] \d{3} ", out)) == 1, out    # the pipelined one is not served
    assert b"connection: close" in out.split(b"\r\n\r\n", 1)[0].lower()
    assert stored_runs(server) == 0


def test_http10_with_content_length_still_works(server):
    token, _ = sign(make_payload())
    body = token.encode()
    out, _ = exchange(server, b"POST /api/v1/runs HTTP/1.0\r\nContent-Type: application/jose\r\n"
                              b"Content-Length: %d\r\n\r\n" % len(body) + body)
    assert status_of(out) == 201, out


@pytest.mark.parametrize("path", [
    "/r/r_aaaaaaaaaaa%00.json",
    "/badge/r_aaaaaaaaaaa.svg%00.html",
    "/healthz%00",
    "/%00",
    "/glossary%0",
    "/glossary%",
    "/glossary%zz",
    "/r/r_aaaaaaaaaaa%g0.json",
])
def test_path_escape_that_is_nul_or_broken_is_400(server, path):
    out, _ = exchange(server, b"GET %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n" % path.encode())
    assert status_of(out) == 400, out
    assert b'"code": "bad_request"' in out or b'"code":"bad_request"' in out, out


def test_nul_cut_no_longer_reaches_a_page(server):
    """Before: /r/<id>%00.json answered the HTML run page and
    /badge/<id>.svg%00.html the badge."""
    r = server.upload(sign(make_payload())[0])
    rid = r.json()["id"]
    for path in ("/r/%s%%00.json" % rid, "/badge/%s.svg%%00.html" % rid):
        out, _ = exchange(server, b"GET %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n" % path.encode())
        assert status_of(out) == 400, (path, out[:300])
    # Escapes that decode to ordinary characters still route.
    assert server.get("/r/%s" % rid.replace("_", "%5F")).status_code == 200
    assert server.get("/badge/%s.svg" % rid).status_code == 200


def args_request(n, width=1, extra=b""):
    q = "&".join("a%0*d=1" % (width, i) for i in range(n))
    return b"GET /healthz?%s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n%s\r\n" % (q.encode(), extra)


@pytest.mark.parametrize("n", [1, 100, 127, 128, 129, 130, 450, 500, 600, 2000, 6000])
def test_any_number_of_query_arguments_is_answered(server, n):
    """Before: 500 arguments (3.4 KB) were never answered."""
    req = args_request(n)
    out, closed = exchange(server, req)
    assert closed, "no answer to %d arguments" % n
    want = 200 if n <= 128 else 414
    assert status_of(out) == want, out[:300]
    if want == 414:
        assert b"uri_too_long" in out, out
        # Within the length limit the message names the argument limit.
        assert (b"128" in out) == (len(req) < 32768), out


@pytest.mark.parametrize("piece", ["a", "a=", "&", "a=1"])
def test_the_argument_limit_counts_as_the_parser_does(server, piece):
    q = "&".join([piece] * 129)
    out, closed = exchange(server, b"GET /healthz?%s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n" % q.encode())
    assert closed and status_of(out) in (200, 414), out
    q = "&".join([piece] * 64)
    out, _ = exchange(server, b"GET /healthz?%s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n" % q.encode())
    assert status_of(out) == 200, out


def test_longest_target_with_most_arguments_is_answered(make_server):
    """The boundary: a target of exactly --max-header-bytes holding 128
    arguments is answered, shorter ones are served; one byte more is 414."""
    limit = 16384
    server = make_server(["--max-header-bytes", str(limit)])
    q = "&".join("a%d=1" % i for i in range(127))
    head = "/healthz?" + q + "&pad="
    target = head + "x" * (limit - len(head))
    assert len(target) == limit
    req = b"GET %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n" % target.encode()
    out, closed = exchange(server, req)
    # The request line is the target and 15 bytes more, so line and
    # headers are over the limit: an answer either way, never silence.
    assert closed and status_of(out) in (200, 431), out[:300]
    target = target[:-64]
    out, closed = exchange(server, b"GET %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n" % target.encode())
    assert closed and status_of(out) == 200, out[:300]
    out, closed = exchange(server, b"GET %sx HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
                           % (head + "x" * (limit - len(head))).encode())
    assert closed and status_of(out) == 414, out[:300]
    # Far past it too, with many tiny arguments.
    for q in ("a&" * 12000, "a&" * 7000 + "b" * 3000):
        out, closed = exchange(server, b"GET /healthz?%s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n" % q.encode())
        assert closed and status_of(out) == 414, out[:300]
    assert server.get("/healthz").status_code == 200


def test_headers_over_the_limit_get_431(make_server):
    server = make_server(["--max-header-bytes", "16384"])
    out, closed = exchange(server, b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: %s\r\nConnection: close\r\n\r\n"
                           % (b"v" * 17000))
    assert closed and status_of(out) == 431, out[:300]
    out, closed = exchange(server, b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: %s\r\nConnection: close\r\n\r\n"
                           % (b"v" * 15000))
    assert closed and status_of(out) == 200, out[:300]
    # Many arguments and headers together.
    out, closed = exchange(server, args_request(120, extra=b"X-A: %s\r\n" % (b"v" * 14000)))
    assert closed and status_of(out) in (200, 431), out[:300]


def test_keepalive_after_many_arguments(server):
    """The connection's pool is reset between requests: the second request
    on a connection is measured as the first was."""
    s = socket.create_connection(("127.0.0.1", server.port))
    s.settimeout(5)
    try:
        for n in (128, 128, 5, 128):
            q = "&".join("a%d=1" % i for i in range(n))
            s.sendall(b"GET /healthz?%s HTTP/1.1\r\nHost: x\r\n\r\n" % q.encode())
            got = b""
            while b"\r\n\r\n" not in got:
                got += s.recv(4096)
            head, rest = got.split(b"\r\n\r\n", 1)
            assert status_of(got) == 200, got
            length = int(re.search(rb"(?i)content-length: (\d+)", head).group(1))
            while len(rest) < length:
                rest += s.recv(4096)
    finally:
        s.close()
