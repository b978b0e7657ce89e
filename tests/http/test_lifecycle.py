"""The daemon's life (contract section 6): /healthz, SIGTERM with an upload
in flight, a clean database on exit, data kept across restarts, and 201
only after the run is committed."""
import os
import signal
import socket
import sqlite3

import requests

from conftest import make_payload, sign, upload_payload, wait_for


def read_response(sock):
    """Reads one HTTP/1.1 response with a Content-Length; returns
    (status, headers, body)."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        assert chunk, "connection closed before the response: %r" % data
        data += chunk
    head, body = data.split(b"\r\n\r\n", 1)
    lines = head.decode("latin-1").split("\r\n")
    headers = {k.strip().lower(): v.strip() for k, v in (l.split(":", 1) for l in lines[1:])}
    n = int(headers.get("content-length", "0"))
    while len(body) < n:
        chunk = sock.recv(65536)
        assert chunk, "connection closed mid-body"
        body += chunk
    return int(lines[0].split()[1]), headers, body[:n]


def start_upload(server, body):
    """Opens a connection and sends an upload's headers with
    Expect: 100-continue.  The 100 answer proves the daemon has the request
    in hand (its handler has run) before the body is sent."""
    s = socket.create_connection(("127.0.0.1", server.port), timeout=10)
    s.sendall(b"POST /api/v1/runs HTTP/1.1\r\nHost: 127.0.0.1\r\n"
              b"Content-Type: application/jose\r\nExpect: 100-continue\r\n"
              b"Content-Length: %d\r\n\r\n" % len(body))
    assert s.recv(64).startswith(b"HTTP/1.1 100"), "no 100 Continue"
    return s


def connection_refused(port):
    """True once the daemon no longer takes connections, False while it
    still answers; a connection left unanswered fails the test, since a
    client would hang on it."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=2) as c:
            c.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            return c.recv(64) == b""
    except (ConnectionRefusedError, ConnectionResetError):
        return True
    except socket.timeout:
        raise AssertionError("a new connection was neither refused nor answered during the drain")


def runs_in(db):
    con = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
    try:
        return [r[0] for r in con.execute("SELECT id FROM runs ORDER BY id")]
    finally:
        con.close()


def assert_closed_cleanly(db):
    """No write-ahead log left behind and an intact file."""
    wal = db + "-wal"
    assert not os.path.exists(wal) or os.path.getsize(wal) == 0
    con = sqlite3.connect(db)
    try:
        assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    finally:
        con.close()


def test_healthz_is_a_plain_200(server):
    r = server.get("/healthz")
    assert r.status_code == 200
    assert requests.head(server.url + "/healthz", timeout=10).status_code == 200


def test_sigterm_finishes_the_upload_in_flight(server):
    token, _ = sign(make_payload())
    body = token.encode()
    sock = start_upload(server, body)
    sock.sendall(body[:200])
    server.proc.send_signal(signal.SIGTERM)
    # The daemon stops accepting: new connections fail while the
    # half-sent upload is still open.
    wait_for(lambda: connection_refused(server.port), interval=0.01,
             what="the daemon to stop accepting connections after SIGTERM")
    assert server.proc.poll() is None, "the daemon exited with an upload in flight"
    sock.sendall(body[200:])
    status, headers, resp = read_response(sock)
    sock.close()
    assert status == 201, resp
    assert server.proc.wait(timeout=15) == 0
    assert "stopped cleanly" in server.read_log()
    assert_closed_cleanly(server.db)
    assert len(runs_in(server.db)) == 1


def test_sigterm_and_sigint_exit_zero_with_a_clean_database(server):
    for i in range(3):
        assert upload_payload(server, make_payload()).status_code == 201
    assert server.stop(signal.SIGTERM) == 0
    assert_closed_cleanly(server.db)
    server.start()
    assert server.stop(signal.SIGINT) == 0
    assert_closed_cleanly(server.db)
    assert len(runs_in(server.db)) == 3


def test_restart_keeps_runs_accounts_and_idempotency(server):
    token = server.account("alice")
    jws, _ = sign(make_payload())
    first = server.upload(jws, headers={"Authorization": "Bearer " + token})
    assert first.status_code == 201
    rid = first.json()["id"]
    before = server.get("/r/%s.json" % rid).json()
    server.restart()
    assert server.get("/r/%s.jws" % rid).content == jws.encode()
    after = server.get("/r/%s.json" % rid).json()
    assert after["account"] == "alice"
    assert after["payload"] == before["payload"]
    again = server.upload(jws)
    assert again.status_code == 200 and again.json()["id"] == rid
    r = upload_payload(server, make_payload(), headers={"Authorization": "Bearer " + token})
    assert r.status_code == 201
    assert server.get("/r/%s.json" % r.json()["id"]).json()["account"] == "alice"


def test_restart_does_not_reapply_migrations(server):
    log = server.read_log()
    applied = log.count("applied migration")
    assert applied >= 1
    server.restart()
    assert server.read_log().count("applied migration") == applied


def test_201_means_committed_even_if_killed_at_once(server):
    """A run acknowledged with 201 survives the daemon being killed right
    after the answer (SIGKILL: no chance to flush anything)."""
    ids = [upload_payload(server, make_payload()).json()["id"] for _ in range(5)]
    server.stop(signal.SIGKILL)
    assert sorted(ids) == runs_in(server.db)
    server.start()
    for rid in ids:
        assert server.get("/r/%s.json" % rid).status_code == 200
