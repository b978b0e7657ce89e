"""Crash durability: the daemon is SIGKILLed ten times over the same
database, each time while concurrent clients upload and others read pages,
run JSON, badges and the log.  Every upload that was answered 201 must be
there after the restart, byte for byte; the database must pass SQLite's
integrity check right after each kill, before the server touches it
again; and after each restart the transparency log must be consistent:
its checkpoint verifies against its tiles and extends the one before the
kill (deploy/tlog-verify.py), and it logs every acknowledged run.
Ten kills take about 10 s here.
"""
import os
import random
import re
import sqlite3
import subprocess
import sys
import threading

import requests

from conftest import ROOT, make_payload, sign, wait_for

KILLS = 10
UPLOADERS = 6
READERS = 3
ACKS_BEFORE_KILL = 25      # per round; the kill comes with uploads in flight
VERIFY = os.path.join(ROOT, "deploy", "tlog-verify.py")


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
            if stop.wait(0.05):    # the daemon is down: retry until told to stop
                return
            continue
        if r.status_code == 201:
            with lock:
                acked[r.json()["id"]] = (token, payload)


def reader(server, acked, lock, stop, errors):
    """One client reading what is there while the uploads go on: a run's
    page, JSON or badge, the home page, the log's checkpoint.  Anything but
    200 before the kill is an error."""
    session = requests.Session()
    rnd = random.Random()
    while not stop.is_set():
        with lock:
            ids = list(acked)
        rid = rnd.choice(ids) if ids else None
        path = rnd.choice(["/r/%s", "/r/%s.json", "/badge/%s.svg", "/", "/log/checkpoint"])
        if "%s" in path:
            if not rid:
                continue
            path = path % rid
        try:
            r = session.get(server.url + path, timeout=10)
        except requests.RequestException:
            if stop.is_set() or server.proc.poll() is not None:
                return
            continue
        if r.status_code != 200 and server.proc.poll() is None and not stop.is_set():
            errors.append((path, r.status_code, r.text[:200]))


def kill_during_storm(server, acked):
    """Runs uploads and reads until ACKS_BEFORE_KILL more runs were stored,
    then SIGKILLs the daemon while the clients are still sending."""
    lock = threading.Lock()
    stop = threading.Event()
    errors = []
    start = len(acked)
    threads = [threading.Thread(target=storm, args=(server, acked, lock, stop))
               for _ in range(UPLOADERS)]
    threads += [threading.Thread(target=reader, args=(server, acked, lock, stop, errors))
                for _ in range(READERS)]
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
    assert not errors, errors[:5]


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


def verifier_key(server):
    import html
    m = re.search(r'<pre class="vkey">([^<]+)</pre>', server.get("/log").text)
    assert m, "no verifier key on /log"
    return html.unescape(m.group(1))


def check_log(server, acked, old_path):
    """The log after a restart: signed over every acknowledged run (the
    signer catches up within seconds), its tiles and entries match its
    checkpoint, and it extends the checkpoint saved before the kill."""
    text = server.wait_for_checkpoint(len(acked))
    args = [sys.executable, VERIFY, server.url + "/log", "--key", verifier_key(server),
            "--run", sorted(acked)[0]]
    if os.path.exists(old_path):
        args += ["--old", old_path]
    v = subprocess.run(args, capture_output=True, text=True, timeout=120)
    assert v.returncode == 0, v.stdout + v.stderr
    with open(old_path, "w") as f:
        f.write(text)


def test_sigkill_under_uploads_and_reads_loses_no_acknowledged_run(make_server, tmp_path):
    # A fixed origin: the log keeps its name across restarts on new ports.
    server = make_server(["--base-url", "http://llm-speed.test"])
    acked = {}
    old = str(tmp_path / "before-kill.checkpoint")
    for _ in range(KILLS):
        kill_during_storm(server, acked)
        stored = check_integrity(server.db)
        assert stored >= len(acked)
        server.start()
        check_all_there(server, acked)
        check_log(server, acked, old)
    assert len(acked) >= KILLS * ACKS_BEFORE_KILL
    assert server.stop() == 0
    check_integrity(server.db)
