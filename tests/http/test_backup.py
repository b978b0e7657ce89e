"""`llm-speedd backup --db FILE OUT` while the daemon serves and takes
uploads: the copy passes integrity_check, holds every run acknowledged
before the backup began, carries the log's key and a checkpoint it
extends, and a daemon started on it alone serves those runs and a log that
verifies; restoring an older copy over a site whose log moved on is
refused with a message that says what to do."""
import os
import shutil
import sqlite3
import stat
import subprocess
import sys
import threading
import time

import pytest

from conftest import BIN, ROOT, Server, make_payload, sign

VERIFY = os.path.join(ROOT, "deploy", "tlog-verify.py")
BASE = "https://llm-speed.test"


def backup(db, out):
    return subprocess.run([BIN, "backup", "--db", db, out], capture_output=True, text=True,
                          timeout=120)


class Uploader(threading.Thread):
    """Uploads fresh runs one after another until stopped, keeping each
    answer's status, id and the time it came."""

    def __init__(self, server):
        super().__init__(daemon=True)
        self.server, self.stop, self.answers = server, threading.Event(), []

    def run(self):
        i = 0
        while not self.stop.is_set():
            # Signed as it goes, so the uploads last however fast the
            # daemon takes them (a list signed ahead ran out before the
            # backup began on a quiet machine).
            token = sign(make_payload(workloads__chat_short__decode_tok_s=100 + i / 7))[0]
            i += 1
            r = self.server.upload(token)
            self.answers.append((r.status_code, r.json().get("id") if r.status_code == 201 else None,
                                 time.time()))


def verifier_key(server):
    import html
    import re
    m = re.search(r'<pre class="vkey">([^<]+)</pre>', server.get("/log").text)
    assert m
    return html.unescape(m.group(1))


def test_backup_under_upload_load_serves_and_verifies(tmp_path):
    live_dir, copy_dir = tmp_path / "live", tmp_path / "copy"
    live_dir.mkdir()
    copy_dir.mkdir()
    # One public origin for both, as an operator keeps --base-url: the
    # checkpoint that came with the copy is then this log's by name too.
    live = Server(str(live_dir), ["--base-url", BASE])
    copied = None
    try:
        for i in range(30):
            r = live.upload(sign(make_payload(workloads__chat_short__decode_tok_s=50 + i))[0])
            assert r.status_code == 201
        live.wait_for_checkpoint(30)
        loaders = [Uploader(live), Uploader(live)]
        for u in loaders:
            u.start()
        time.sleep(1.0)
        out = str(copy_dir / "llm-speed.db")
        began = time.time()
        done = backup(live.db, out)
        time.sleep(0.5)
        for u in loaders:
            u.stop.set()
        for u in loaders:
            u.join(60)
        assert done.returncode == 0, done.stderr
        answers = [a for u in loaders for a in u.answers]
        # Uploads went on during the backup: none was refused.
        assert answers and all(status == 201 for status, _, _ in answers), \
            sorted({s for s, _, _ in answers})
        # The uploads ran before, through and after the backup (how many
        # land inside it depends on the machine; none was refused).
        assert any(at >= began for _, _, at in answers), "the uploads stopped before the backup"
        acked = {rid for status, rid, at in answers if at < began}
        assert len(acked) > 0

        # The copy and the files beside it.
        con = sqlite3.connect("file:%s?mode=ro" % out, uri=True)
        try:
            assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
            stored = {row[0] for row in con.execute("SELECT id FROM runs")}
        finally:
            con.close()
        assert acked <= stored, "runs acknowledged before the backup are missing"
        assert len(stored) >= 30 + len(acked)
        for suffix in (".logkey", ".checkpoint"):
            assert stat.S_IMODE(os.stat(out + suffix).st_mode) == 0o600
        assert stat.S_IMODE(os.stat(out).st_mode) == 0o600
        with open(out + ".logkey", "rb") as a, open(live.db + ".logkey", "rb") as b:
            assert a.read() == b.read()
        assert not os.path.exists(out + ".tmp") and not os.path.exists(out + "-wal")
        assert "runs" in done.stdout and out in done.stdout
        backed_ckpt = open(out + ".checkpoint").read()
        backed_size = int(backed_ckpt.split("\n")[1])
        assert backed_size >= 30

        # A daemon started on the copy alone serves the runs, and its log
        # verifies, consistent with the checkpoint that came with the copy.
        copied = Server(str(copy_dir), ["--base-url", BASE])
        for rid in sorted(acked)[:40]:
            assert copied.get("/r/%s" % rid).status_code == 200, rid
        assert copied.get("/r/%s.json" % sorted(acked)[0]).json()["id"] == sorted(acked)[0]
        copied.wait_for_checkpoint(len(stored))
        vkey = verifier_key(copied)
        assert vkey.split("+", 2)[2] == verifier_key(live).split("+", 2)[2]   # the same key
        old = tmp_path / "backed.checkpoint"
        old.write_text(backed_ckpt)
        v = subprocess.run([sys.executable, VERIFY, copied.url + "/log", "--key", vkey,
                            "--old", str(old), "--run", sorted(acked)[0]],
                           capture_output=True, text=True, timeout=120)
        assert v.returncode == 0, v.stdout + v.stderr
        assert "ok consistent with the old checkpoint" in v.stdout
    finally:
        if copied:
            copied.stop()
        live.stop()


def test_restoring_an_older_copy_over_a_site_whose_log_moved_on_is_refused(tmp_path):
    site = Server(str(tmp_path))
    try:
        for i in range(3):
            assert site.upload(sign(make_payload(workloads__chat_short__decode_tok_s=70 + i))[0]).status_code == 201
        site.wait_for_checkpoint(3)
        out = str(tmp_path / "backup" / "llm-speed.db")
        os.makedirs(os.path.dirname(out))
        assert backup(site.db, out).returncode == 0
        assert site.upload(sign(make_payload())[0]).status_code == 201
        published = site.wait_for_checkpoint(4)            # the log moved on
        site.stop()
        # Restore: stop, copy the database over (keeping this site's
        # .logkey and .checkpoint), start.
        shutil.copy(out, site.db)
        for suffix in ("-wal", "-shm"):
            if os.path.exists(site.db + suffix):
                os.remove(site.db + suffix)
        with pytest.raises(RuntimeError) as e:
            site.start()
        msg = str(e.value)
        assert "older than the log" in msg
        assert "3 log entries" in msg and "checkpoint of 4" in msg
        assert "llm-speedd backup" in msg and "move both files aside" in msg
        with open(site.db + ".checkpoint") as f:
            assert f.read() == published                       # nothing was signed
    finally:
        site.stop()


def test_restoring_onto_a_fresh_host_is_stop_copy_start(tmp_path):
    (tmp_path / "a").mkdir()
    site = Server(str(tmp_path / "a"))
    try:
        assert site.upload(sign(make_payload())[0]).status_code == 201
        site.wait_for_checkpoint(1)
        out = str(tmp_path / "b" / "llm-speed.db")
        os.makedirs(os.path.dirname(out))
        r = backup(site.db, out)
        assert r.returncode == 0, r.stderr
    finally:
        site.stop()
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    for suffix in ("", ".logkey", ".checkpoint"):
        shutil.copy2(out + suffix, str(fresh / ("llm-speed.db" + suffix)))
    again = Server(str(fresh))
    try:
        assert again.checkpoint_size() == 1
    finally:
        again.stop()


def test_backup_refuses_what_would_harm(tmp_path):
    site = Server(str(tmp_path))
    try:
        same = backup(site.db, site.db)
        assert same.returncode == 1 and "in use" in same.stderr
        busy = str(tmp_path / "busy.db")
        open(busy + "-wal", "w").close()
        r = backup(site.db, busy)
        assert r.returncode == 1 and "-wal" in r.stderr and not os.path.exists(busy)
    finally:
        site.stop()
    missing = backup(str(tmp_path / "nothing.db"), str(tmp_path / "x.db"))
    assert missing.returncode == 1 and "no database" in missing.stderr
    usage = subprocess.run([BIN, "backup"], capture_output=True, text=True, timeout=30)
    assert usage.returncode == 2 and "usage" in usage.stderr
