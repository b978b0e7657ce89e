"""Privacy: no client address reaches the database or the log, and a
strict-anon upload stores neither a fingerprint nor an account.

Requests come from 127.0.0.9, an address that appears nowhere else: the
listen address 127.0.0.1 is in the log's "serving on" line by design, so
it cannot be the client's.
"""
import glob
import json
import os
import socket
import sqlite3

import pytest

from conftest import client_from, make_payload, new_key, sign

CLIENT = "127.0.0.9"
FORWARDED = "203.0.113.77"          # what a client or proxy claims in X-Forwarded-For


def address_forms(ip):
    """The ways an address could be written down: text, IPv4-mapped IPv6
    (which contains the text) and the packed 4 bytes."""
    return [ip.encode(), socket.inet_aton(ip)]


def server_files(server):
    """The database, its -wal and -shm, and the log."""
    files = glob.glob(server.db + "*") + [server.log_path]
    assert server.db in files and server.log_path in files
    return files


def assert_no_address(server):
    for path in server_files(server):
        with open(path, "rb") as f:
            data = f.read()
        for ip in (CLIENT, FORWARDED):
            for form in address_forms(ip):
                assert form not in data, "%r found in %s" % (form, os.path.basename(path))


def traffic(server):
    """Uploads of every kind and dispute posts of every kind, from CLIENT,
    each with an X-Forwarded-For naming FORWARDED."""
    s = client_from(CLIENT)
    s.headers["X-Forwarded-For"] = FORWARDED
    token = server.account("privacy")
    url = server.url + "/api/v1/runs"
    jose = {"Content-Type": "application/jose"}
    ids = []
    for extra in ({}, {"Authorization": "Bearer " + token},
                  {"Authorization": "Bearer " + token, "X-LLM-Speed-Anon": "1"}):
        tok, key = sign(make_payload())
        r = s.post(url, data=tok.encode(), headers=dict(jose, **extra), timeout=10)
        assert r.status_code == 201, r.text
        ids.append((r.json()["id"], key))
    # Failed uploads go through the error paths (and their log lines) too.
    assert s.post(url, data=b"not a jws", headers=jose, timeout=10).status_code == 400
    assert s.post(url, data=b"x", headers={"Authorization": "Bearer nope", **jose},
                  timeout=10).status_code in (400, 401)
    run_id, key = ids[0]
    posts = [
        ("/api/v1/runs/%s/disputes" % run_id, json.dumps({"author": "a", "body": "too fast"}),
         "application/json"),
        ("/r/%s/disputes" % run_id, "author=b&body=looks+wrong", "application/x-www-form-urlencoded"),
        ("/api/v1/runs/%s/disputes" % run_id,
         sign(None, key, raw_payload=json.dumps({"run_id": run_id, "body": "re-ran it"}).encode())[0],
         "application/jose"),
    ]
    for path, body, ctype in posts:
        r = s.post(server.url + path, data=body.encode(), headers={"Content-Type": ctype},
                   timeout=10, allow_redirects=False)
        assert r.status_code < 500 or r.status_code == 501, r.text
    for run_id, _ in ids:
        assert s.get(server.url + "/r/%s" % run_id, timeout=10).status_code == 200
    assert s.get(server.url + "/nowhere", timeout=10).status_code == 404
    return ids


@pytest.mark.parametrize("args", [[], ["--trust-proxy=127.0.0.1"]], ids=["default", "trust-proxy"])
def test_no_client_address_in_database_or_log(make_server, args):
    server = make_server(args)
    traffic(server)
    assert_no_address(server)          # while running: the -wal holds the writes
    assert server.stop() == 0
    assert_no_address(server)          # after the checkpoint into the main file


def test_strict_anon_run_stores_no_fingerprint_and_no_account(server):
    payload = make_payload()
    del payload["hardware"]["fingerprint_hash"]
    tok, _ = sign(payload, new_key())
    r = server.upload(tok)
    assert r.status_code == 201, r.text
    strict = r.json()["id"]
    token = server.account("someone")
    tok, _ = sign(make_payload())
    r = server.upload(tok, headers={"Authorization": "Bearer " + token, "X-LLM-Speed-Anon": "1"})
    assert r.status_code == 201
    anon_flag = r.json()["id"]
    with sqlite3.connect("file:%s?mode=ro" % server.db, uri=True) as c:
        row = c.execute("SELECT fingerprint_hash, account_id FROM runs WHERE id = ?", (strict,)).fetchone()
        assert row == (None, None)
        assert c.execute("SELECT account_id FROM runs WHERE id = ?", (anon_flag,)).fetchone() == (None,)
    view = server.get("/r/%s.json" % strict).json()
    assert view.get("account") is None
    assert "fingerprint_hash" not in view["hardware"] or view["hardware"]["fingerprint_hash"] is None
