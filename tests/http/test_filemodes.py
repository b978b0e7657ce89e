"""Who may read the database files: the database (with the form-token key in
its secrets table), its -wal and -shm are 0600 whatever the umask, or 0640
with the group named by --db-group / LLMSPEED_DB_GROUP; an unknown group
stops start-up with a message naming it."""
import grp
import os
import stat
import subprocess

import pytest

from conftest import BIN, ROOT, make_payload, sign


@pytest.fixture
def umask_022():
    old = os.umask(0o022)
    yield
    os.umask(old)


def modes(db):
    """{suffix: (permission bits, gid)} of the database files."""
    out = {}
    for suffix in ("", "-wal", "-shm"):
        st = os.stat(db + suffix)
        out[suffix] = (stat.S_IMODE(st.st_mode), st.st_gid)
    return out


def other_group():
    """A group this process may give its files (root: any), other than its own."""
    gids = [g.gr_gid for g in grp.getgrall()] if os.geteuid() == 0 else os.getgroups()
    for gid in gids:
        if gid != os.getegid():
            return grp.getgrgid(gid)
    pytest.skip("no second group to give the database files")


def test_database_files_are_0600_under_umask_022(make_server, umask_022):
    server = make_server()
    token, _ = sign(make_payload())
    assert server.upload(token).status_code == 201
    got = modes(server.db)
    assert {k: m for k, (m, _) in got.items()} == {"": 0o600, "-wal": 0o600, "-shm": 0o600}


def test_an_older_0644_database_is_made_private_at_start(make_server, umask_022):
    server = make_server()
    server.stop()
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(server.db + suffix):
            os.chmod(server.db + suffix, 0o644)
    server.start()
    assert stat.S_IMODE(os.stat(server.db).st_mode) == 0o600


@pytest.mark.parametrize("how", ["flag", "env"])
def test_a_named_group_may_read_them(make_server, umask_022, how):
    g = other_group()
    if how == "flag":
        server = make_server(["--db-group", g.gr_name])
    else:
        server = make_server(env={"LLMSPEED_DB_GROUP": g.gr_name})
    token, _ = sign(make_payload())
    assert server.upload(token).status_code == 201
    assert modes(server.db) == {"": (0o640, g.gr_gid), "-wal": (0o640, g.gr_gid),
                                "-shm": (0o640, g.gr_gid)}


def test_an_unknown_group_stops_start_up(tmp_path):
    db = str(tmp_path / "x.db")
    out = subprocess.run([BIN, "--listen", "127.0.0.1:1", "--db", db, "--assets", ROOT,
                          "--db-group", "no-such-group-llms"],
                         capture_output=True, text=True, timeout=20)
    assert out.returncode != 0
    assert "no-such-group-llms" in out.stderr
    assert not os.path.exists(db)


def test_help_documents_the_group(tmp_path):
    out = subprocess.run([BIN, "--help"], capture_output=True, text=True, timeout=20)
    assert "--db-group NAME" in out.stdout and "LLMSPEED_DB_GROUP" in out.stdout
