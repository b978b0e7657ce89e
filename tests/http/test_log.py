"""The transparency log over the real daemon: checkpoints, tiles and the
inclusion proofs of /r/<id>.json, checked by an independent implementation
(Go's golang.org/x/mod/sumdb/tlog and sumdb/note, built offline from
Debian's golang-golang-x-mod-dev) and by the auditor script
deploy/tlog-verify.py; the entries of runs, posts and rulings; the caching
headers; and the refusal to sign after an older database is restored."""
import base64
import hashlib
import html
import json
import os
import re
import shutil
import stat
import subprocess
import sys

import pytest

from conftest import MODERATOR_TOKEN, ROOT, Server, make_payload, sign, validate_html

VERIFY = os.path.join(ROOT, "deploy", "tlog-verify.py")
GOPATH = "/usr/share/gocode"


@pytest.fixture(scope="module")
def go_check(tmp_path_factory):
    """The Go checker (tests/tlog_go), built offline: GO111MODULE=off with
    GOPATH at Debian's /usr/share/gocode, so nothing is downloaded."""
    go = shutil.which("go")
    assert go, "Go is missing: deploy/deps.sh installs golang-go and golang-golang-x-mod-dev"
    assert os.path.isdir(os.path.join(GOPATH, "src/golang.org/x/mod/sumdb/tlog")), \
        "golang.org/x/mod is missing: deploy/deps.sh installs golang-golang-x-mod-dev"
    out = tmp_path_factory.mktemp("go")
    env = dict(os.environ, GO111MODULE="off", GOPATH=GOPATH, GOFLAGS="", GOPROXY="off",
               GOCACHE=str(out / "cache"))
    binary = str(out / "tlog-go-check")
    r = subprocess.run([go, "build", "-o", binary, "./tests/tlog_go"], cwd=ROOT, env=env,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    return binary


def upload_run(server):
    token, _ = sign(make_payload())
    r = server.upload(token)
    assert r.status_code == 201, r.text
    return r.json()["id"], token


def post(server, rid, body, author=None):
    doc = {"body": body}
    if author:
        doc["author"] = author
    r = server.post("/api/v1/runs/%s/disputes" % rid, json=doc)
    assert r.status_code == 201, r.text
    return r.json()


def verifier_key(server):
    page = server.get("/log")
    assert page.status_code == 200
    m = re.search(r'<pre class="vkey">([^<]+)</pre>', page.text)
    assert m, "no verifier key on /log"
    return html.unescape(m.group(1))


def entries(server, size):
    """Every entry, from the entry bundles a checkpoint of size covers."""
    out = []
    for n in range((size + 255) // 256):
        width = min(256, size - n * 256)
        path = "/log/tile/entries/%03d%s" % (n, "" if width == 256 else ".p/%d" % width)
        data = server.get(path).content
        while data:
            length = int.from_bytes(data[:2], "big")
            out.append(data[2:2 + length].decode())
            data = data[2 + length:]
    return out


def netstring_sha(tag, fields):
    h = hashlib.sha256(("llm-speed-%s-v1\n" % tag).encode())
    for f in fields:
        b = (f or "").encode()
        h.update(b"%d:" % len(b) + b + b",")
    return h.hexdigest()


def node(l, r):
    return hashlib.sha256(b"\x01" + l + r).digest()


def check_inclusion(leaf, index, size, proof, root):
    """RFC 9162 2.1.3.2, written here again so the test does not trust the
    server's own verifier."""
    fn, sn, r = index, size - 1, leaf
    for p in proof:
        if sn == 0:
            return False
        if fn & 1 or fn == sn:
            r = node(p, r)
            while not fn & 1 and fn != 0:
                fn, sn = fn >> 1, sn >> 1
        else:
            r = node(r, p)
        fn, sn = fn >> 1, sn >> 1
    return sn == 0 and r == root


def test_go_checks_checkpoints_tiles_and_proofs(server, go_check, tmp_path):
    rid, _ = upload_run(server)
    old = server.wait_for_checkpoint(1)
    (tmp_path / "old").write_text(old)
    # 300 entries: a full level-0 tile, a partial one, and a level-1 tile.
    for i in range(299):
        post(server, rid, "post %d" % i)
    server.wait_for_checkpoint(300)
    run = server.get("/r/%s.json" % rid).json()
    (tmp_path / "run.json").write_text(json.dumps(run["log"]))
    vkey = verifier_key(server)
    r = subprocess.run([go_check, "check", server.url + "/log", vkey, str(tmp_path / "old"),
                        str(tmp_path / "run.json")], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "ok checkpoint 300 entries" in r.stdout
    assert "ok consistent with the checkpoint of 1 entries" in r.stdout
    assert "ok entry 0 included: run %s" % rid in r.stdout
    # A checkpoint under another key is refused by Go's note package.
    other = vkey.split("+", 2)
    other[2] = base64.b64encode(b"\x01" + bytes(32)).decode()
    bad = subprocess.run([go_check, "check", server.url + "/log", "+".join(other), "-", "-"],
                         capture_output=True, text=True, timeout=120)
    assert bad.returncode != 0


def test_the_auditor_script_checks_a_url_and_a_folder(server, tmp_path):
    rid, _ = upload_run(server)
    old = server.wait_for_checkpoint(1)
    (tmp_path / "old").write_text(old)
    for i in range(260):
        post(server, rid, "post %d" % i, author="auditor test")
    server.wait_for_checkpoint(261)
    vkey = verifier_key(server)
    mirror = tmp_path / "mirror"
    r = subprocess.run([sys.executable, VERIFY, server.url + "/log", "--key", vkey,
                        "--old", str(tmp_path / "old"), "--run", rid, "--save", str(mirror)],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "ok consistent with the old checkpoint of 1 entries" in r.stdout
    assert "ok /r/%s.json proves entry 0" % rid in r.stdout
    # The saved folder verifies offline, and a single edited entry does not.
    ok = subprocess.run([sys.executable, VERIFY, str(mirror), "--key", vkey, "--run", rid],
                        capture_output=True, text=True, timeout=120)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    bundle = mirror / "tile" / "entries" / "001.p" / "5"
    data = bytearray(bundle.read_bytes())
    data[10] ^= 1
    bundle.write_bytes(bytes(data))
    bad = subprocess.run([sys.executable, VERIFY, str(mirror), "--key", vkey],
                         capture_output=True, text=True, timeout=120)
    assert bad.returncode == 1 and "FAILED" in bad.stderr


def test_run_json_carries_a_proof_against_the_latest_checkpoint(server):
    first, _ = upload_run(server)
    rid, token = upload_run(server)
    ckpt = server.wait_for_checkpoint(2)
    log = server.get("/r/%s.json" % rid).json()["log"]
    assert log["index"] == 1
    assert log["checkpoint"] == ckpt
    lines = ckpt.split("\n")
    assert lines[0] == "127.0.0.1:%d" % server.port        # the origin: base URL without scheme
    assert int(lines[1]) == log["tree_size"] == 2
    assert lines[2] == log["root_hash"]
    entry = "run %s %s\n" % (rid, hashlib.sha256(token.encode()).hexdigest())
    assert entries(server, 2)[1] == entry
    leaf = hashlib.sha256(b"\x00" + entry.encode()).digest()
    proof = [base64.b64decode(h) for h in log["inclusion_proof"]]
    root = base64.b64decode(log["root_hash"])
    assert check_inclusion(leaf, 1, 2, proof, root)
    assert not check_inclusion(leaf, 0, 2, proof, root)
    # A later checkpoint: the same run's proof is now against it, though
    # nothing about this run changed (a post on the other run; the JSON
    # kept in the render cache is dropped when a checkpoint is signed).
    assert server.get("/r/%s.json" % rid).json()["log"]["tree_size"] == 2
    post(server, first, "elsewhere")
    ckpt3 = server.wait_for_checkpoint(3)
    log3 = server.get("/r/%s.json" % rid).json()["log"]
    assert log3["tree_size"] == 3 and log3["checkpoint"] == ckpt3
    assert check_inclusion(leaf, 1, 3, [base64.b64decode(h) for h in log3["inclusion_proof"]],
                           base64.b64decode(log3["root_hash"]))


def test_posts_and_rulings_are_entries_of_hashes(server):
    rid, _ = upload_run(server)
    p = post(server, rid, "Figures look\nodd.", author="Ann")
    r = server.post("/api/v1/runs/%s/disputes/resolve" % rid,
                    json={"resolution": "upheld", "note": "Checked."},
                    headers={"Authorization": "Bearer " + MODERATOR_TOKEN})
    assert r.status_code == 200, r.text
    server.wait_for_checkpoint(3)
    got = entries(server, 3)
    thread = server.get("/r/%s.json" % rid).json()["dispute"]
    posted = [x for x in thread["posts"] if x["id"] == p["id"]][0]
    assert got[1] == "post %s/%d %s\n" % (rid, p["id"], netstring_sha(
        "post", [rid, str(p["id"]), "Ann", "Figures look\nodd.", posted["created_at"]]))
    assert got[2] == "ruling %s %s\n" % (rid, netstring_sha(
        "ruling", [rid, "upheld", "Checked.", thread["resolved_at"]]))
    for e in got:
        assert "Figures" not in e and "Checked" not in e      # hashes, not content


def test_signed_posts_log_the_hash_of_their_jws(server):
    p = make_payload()
    token, key = sign(p)
    r = server.upload(token)
    rid = r.json()["id"]
    reply, _ = sign({"run_id": rid, "body": "Measured twice.", "nonce": "a"}, key)
    r = server.post("/api/v1/runs/%s/disputes" % rid, data=reply,
                    headers={"Content-Type": "application/jose"})
    assert r.status_code == 201, r.text
    server.wait_for_checkpoint(2)
    assert entries(server, 2)[1] == "post %s/%d %s\n" % (
        rid, r.json()["id"], hashlib.sha256(reply.encode()).hexdigest())


def test_tiles_caching_and_paths(server):
    rid, _ = upload_run(server)
    for i in range(256):
        post(server, rid, "p%d" % i)
    server.wait_for_checkpoint(257)
    full = server.get("/log/tile/0/000")
    assert full.status_code == 200 and len(full.content) == 256 * 32
    assert full.headers["Cache-Control"] == "public, max-age=31536000, immutable"
    assert full.headers["Content-Type"] == "application/octet-stream"
    bundle = server.get("/log/tile/entries/000")
    assert bundle.status_code == 200
    assert bundle.headers["Cache-Control"] == "public, max-age=31536000, immutable"
    part = server.get("/log/tile/0/001.p/1")
    assert part.status_code == 200 and len(part.content) == 32
    assert part.headers["Cache-Control"] == "public, max-age=5"
    # level 1 holds the root of the first 256 leaves
    top = server.get("/log/tile/1/000.p/1")
    assert top.status_code == 200 and len(top.content) == 32
    ck = server.get("/log/checkpoint")
    assert ck.headers["Cache-Control"] == "public, max-age=5"
    assert ck.headers["Content-Type"] == "text/plain; charset=utf-8"
    # a prefix of a partial tile is a partial tile; past the checkpoint is not served
    assert server.get("/log/tile/0/000.p/7").content == full.content[:7 * 32]
    for path in ("/log/tile/0/001.p/2", "/log/tile/0/001", "/log/tile/1/000",
                 "/log/tile/entries/001.p/2", "/log/tile/2/000.p/1"):
        assert server.get(path).status_code == 404, path
    for path in ("/log/tile/0/0", "/log/tile/0/0000", "/log/tile/00/000", "/log/tile/0/000.p/0",
                 "/log/tile/0/000.p/256", "/log/tile/8/data/000", "/log/tile/0/x000"):
        r = server.get(path)
        assert r.status_code == 404 and r.json()["error"]["code"] == "not_found", path


def test_the_key_is_private_and_restoring_an_older_database_is_refused(tmp_path):
    s = Server(str(tmp_path))
    try:
        upload_run(s)
        upload_run(s)
        s.wait_for_checkpoint(2)
        key = tmp_path / "llm-speed.db.logkey"
        assert stat.S_IMODE(os.stat(key).st_mode) == 0o600
        assert stat.S_IMODE(os.stat(str(tmp_path / "llm-speed.db.checkpoint")).st_mode) == 0o600
        vkey = verifier_key(s)
        s.stop()
        shutil.copy(s.db, str(tmp_path / "backup.db"))      # a backup of 2 entries
        s.start()
        # the same key after a restart (the port, so the origin, is new)
        assert verifier_key(s).split("+", 2)[2] == vkey.split("+", 2)[2]
        upload_run(s)
        published = s.wait_for_checkpoint(3)
        s.stop()
        # The operator restores the older backup: the daemon refuses to start
        # rather than sign a tree that forks the published one.
        shutil.copy(str(tmp_path / "backup.db"), s.db)
        for suffix in ("-wal", "-shm"):
            if os.path.exists(s.db + suffix):
                os.remove(s.db + suffix)
        with pytest.raises(RuntimeError) as e:
            s.start()
        assert "older than the log" in str(e.value)
        with open(str(tmp_path / "llm-speed.db.checkpoint")) as f:
            assert f.read() == published                     # nothing else was signed
    finally:
        s.stop()


def test_log_page_shows_the_key_and_validates(server, tmp_path):
    upload_run(server)
    ckpt = server.wait_for_checkpoint(1)
    page = server.get("/log")
    assert page.status_code == 200
    vkey = verifier_key(server)
    name, keyid, key = vkey.split("+", 2)
    assert name == ckpt.split("\n")[0]
    raw = base64.b64decode(key)
    assert len(raw) == 33 and raw[0] == 1
    assert hashlib.sha256(name.encode() + b"\n" + raw).digest()[:4].hex() == keyid
    ok, report = validate_html(page.text, tmp_path)
    assert ok, report
