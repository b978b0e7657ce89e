"""Database trouble: a database locked by another process, a full disk and
a read-only file are each answered 503 with a message an operator can act
on and a Retry-After; nothing half-written is ever stored; reads go on; and
uploads work again once the trouble is gone.

The full-disk test mounts a small tmpfs and the read-only test sets the
immutable attribute (chattr +i), since root ignores permission bits; both
need root and skip with the reason when the machine does not allow it.
"""
import os
import sqlite3
import subprocess
import uuid

import pytest

from conftest import make_payload, sign


def count_runs(db_path):
    with sqlite3.connect("file:%s?mode=ro" % db_path, uri=True) as c:
        return c.execute("SELECT count(*) FROM runs").fetchone()[0]


def integrity(db_path):
    with sqlite3.connect("file:%s?mode=ro" % db_path, uri=True) as c:
        return c.execute("PRAGMA integrity_check").fetchone()[0]


def upload(server):
    token, _ = sign(make_payload())
    return server.upload(token), token


def assert_unavailable(r, *words):
    assert r.status_code == 503, r.text
    err = r.json()["error"]
    assert err["code"] == "unavailable"
    assert int(r.headers["Retry-After"]) >= 1
    msg = err["message"].lower()
    assert "nothing was stored" in msg
    for w in words:
        assert w in msg, msg


def assert_reads_work(server, run_id, token):
    r = server.get("/r/%s.json" % run_id)
    assert r.status_code == 200 and r.json()["id"] == run_id
    assert server.get("/r/%s.jws" % run_id).content == token.encode()
    assert server.get("/r/%s" % run_id).status_code == 200
    assert server.get("/").status_code == 200


def test_locked_database_is_503_and_reads_go_on(make_server):
    server = make_server(["--db-busy-timeout", "200"])
    first, first_token = upload(server)
    assert first.status_code == 201
    run_id = first.json()["id"]
    lock = sqlite3.connect(server.db, isolation_level=None, timeout=10)
    try:
        lock.execute("BEGIN EXCLUSIVE")
        for _ in range(3):
            r, _ = upload(server)
            assert_unavailable(r, "locked")
        assert_reads_work(server, run_id, first_token)
    finally:
        lock.execute("ROLLBACK")
        lock.close()
    assert count_runs(server.db) == 1
    r, token = upload(server)
    assert r.status_code == 201, r.text
    assert server.get("/r/%s.jws" % r.json()["id"]).content == token.encode()
    assert "locked by another process" in server.read_log()


@pytest.fixture
def small_fs(tmp_path):
    """A 4 MiB tmpfs, unmounted afterwards; skips when mount is refused."""
    d = tmp_path / "smallfs"
    d.mkdir()
    out = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(d)],
                         capture_output=True, text=True)
    if out.returncode != 0:
        pytest.skip("cannot mount a tmpfs here (needs root): " + out.stderr.strip())
    yield d
    subprocess.run(["umount", "-l", str(d)], capture_output=True)


def fill(path):
    """Writes to path until the file system is full.  (The write that
    failed stays in the file's buffer, so closing it fails too unless the
    free space was a whole number of writes: that is ignored.)"""
    f = open(path, "wb")
    try:
        while True:
            f.write(b"\0" * 65536)
            f.flush()
    except OSError:
        pass
    try:
        f.close()
    except OSError:
        pass
    try:
        os.sync()
    except AttributeError:
        pass


def test_full_disk_is_503_nothing_half_written(make_server, small_fs):
    db = str(small_fs / "llm-speed.db")
    server = make_server(["--db", db])
    stored = []
    for _ in range(2):
        r, token = upload(server)
        assert r.status_code == 201, r.text
        stored.append((r.json()["id"], token))
    filler = str(small_fs / "filler")
    fill(filler)
    refused = 0
    for _ in range(5):
        r, token = upload(server)
        if r.status_code == 201:       # a page SQLite had free already
            stored.append((r.json()["id"], token))
            continue
        assert_unavailable(r, "disk is full")
        refused += 1
    assert refused >= 3
    for run_id, token in stored:
        assert_reads_work(server, run_id, token)
    assert count_runs(db) == len(stored)
    assert integrity(db) == "ok"
    os.unlink(filler)
    r, token = upload(server)
    assert r.status_code == 201, r.text
    stored.append((r.json()["id"], token))
    assert count_runs(db) == len(stored)
    assert "free space" in server.read_log()
    server.stop()


def chattr(flag, *paths):
    return subprocess.run(["chattr", flag] + list(paths), capture_output=True, text=True)


def test_read_only_database_is_503_and_reads_go_on(make_server):
    server = make_server()
    first, first_token = upload(server)
    assert first.status_code == 201
    run_id = first.json()["id"]
    # Everything SQLite writes to: the database and its write-ahead log.
    files = [server.db, server.db + "-wal"]
    probe = os.path.join(server.tmpdir, "probe-%s" % uuid.uuid4().hex)
    open(probe, "w").close()
    out = chattr("+i", probe)
    chattr("-i", probe)
    if out.returncode != 0:
        pytest.skip("chattr +i is not supported here: " + out.stderr.strip())
    try:
        assert chattr("+i", *files).returncode == 0
        for _ in range(3):
            r, _ = upload(server)
            assert_unavailable(r, "read-only")
        assert_reads_work(server, run_id, first_token)
    finally:
        chattr("-i", *files)
    assert count_runs(server.db) == 1
    assert integrity(server.db) == "ok"
    r, token = upload(server)
    assert r.status_code == 201, r.text
    assert server.get("/r/%s.jws" % r.json()["id"]).content == token.encode()
    assert "make it writable" in server.read_log()


def test_unwritable_database_at_start_is_a_clear_error(tmp_path):
    """A database the server cannot open for writing stops it at once with
    the path and what to check, rather than serving a site that cannot
    store anything."""
    from conftest import BIN, ROOT
    db = str(tmp_path / "missing-folder" / "llm-speed.db")
    out = subprocess.run([BIN, "--listen", "127.0.0.1:1", "--db", db, "--assets", ROOT],
                         capture_output=True, text=True, timeout=20)
    assert out.returncode != 0
    assert db in out.stderr and "writable" in out.stderr
