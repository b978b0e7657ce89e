"""Crash durability: the daemon is SIGKILLed in the middle of an upload storm
from concurrent clients, several times over the same database.  Every
upload that was answered 201 must be there after the restart, byte for
byte, and the database must pass SQLite's integrity check right after each
kill, before the server touches it again.
"""
import sqlite3
import threading
import time

import requests

from conftest import make_payload, sign, wait_for

KILLS = 3
CLIENTS = 6
ACKS_BEFORE_KILL = 25      # per round; the kill comes with uploads in flight


def storm(server, acked, lock, stop):
    """One client: uploads fresh runs until stop is set, recording each
    201 as id -> (token, payload)."""
    session = requests.Session()
    n = 0
    while not stop.is_set():
        n += 1
        payload = make_payload(workloads__chat_short__decode_tok_s=100.0 + (n % 97) / 10.0)
        token, _ = sign(payload)
        try:
            r = session.post(server.url + "/api/v1/runs", data=token.encode(),
                             headers={"Content-Type": "application/jose"}, timeout=10)
        except requests.RequestException:
            if stop.is_set():
                return
            time.sleep(0.05)
            continue
        if r.status_code == 201:
            with lock:
                acked[r.json()["id"]] = (token, payload)


def kill_during_storm(server, acked):
    """Runs a storm until ACKS_BEFORE_KILL more runs were stored, then
    SIGKILLs the daemon while the clients are still sending."""
    lock = threading.Lock()
    stop = threading.Event()
    start = len(acked)
    threads = [threading.Thread(target=storm, args=(server, acked, lock, stop))
               for _ in range(CLIENTS)]
    for t in threads:
        t.start()

    def enough():
        with lock:
            return len(acked) - start >= ACKS_BEFORE_KILL
    wait_for(enough, timeout=60, interval=0.02, what="%d more stored runs" % ACKS_BEFORE_KILL)
    server.proc.kill()
    server.proc.wait()
    stop.set()
    for t in threads:
        t.join(30)
    server.log.close()
    assert len(acked) - start >= ACKS_BEFORE_KILL, "the storm stored too little: " + server.read_log()


def check_integrity(db_path):
    c = sqlite3.connect(db_path)
    try:
        assert c.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        return c.execute("SELECT count(*) FROM runs").fetchone()[0]
    finally:
        c.close()


def check_all_there(server, acked):
    for run_id, (token, payload) in sorted(acked.items()):
        r = server.get("/r/%s.json" % run_id)
        assert r.status_code == 200, (run_id, r.text)
        assert r.json()["id"] == run_id
        assert r.json()["payload"] == payload
        jws = server.get("/r/%s.jws" % run_id)
        assert jws.status_code == 200 and jws.content == token.encode(), run_id


def test_sigkill_during_upload_storm_loses_no_acknowledged_run(make_server):
    server = make_server()
    acked = {}
    for _ in range(KILLS):
        kill_during_storm(server, acked)
        stored = check_integrity(server.db)
        assert stored >= len(acked)
        server.start()
        check_all_there(server, acked)
    assert len(acked) >= KILLS * ACKS_BEFORE_KILL
    assert server.stop() == 0
    check_integrity(server.db)
