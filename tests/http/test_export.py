"""/export: every run as one NDJSON line with its exact JWS, streamed in
keyset chunks (several read transactions for more than one chunk), gzip on
request, rate limited; deploy/verify-export.py re-verifies it offline."""
import gzip
import json
import os
import subprocess
import sys

import pytest

from conftest import ROOT, TestClock, make_payload, new_key, sign

VERIFY = os.path.join(ROOT, "deploy", "verify-export.py")


def upload(server, key):
    upload.n = getattr(upload, "n", 0) + 1
    p = make_payload()
    p["workloads"]["chat-short"]["decode_tok_s"] = 10.0 + upload.n / 1000.0
    token = sign(p, key)[0]
    r = server.upload(token)
    assert r.status_code == 201, r.text
    return r.json()["id"], token


def verify(path):
    return subprocess.run([sys.executable, VERIFY, str(path)], capture_output=True,
                          text=True, timeout=300)


def test_export_has_every_run_and_verifies_offline(server, tmp_path):
    keys = [new_key(), new_key("ES256")]
    runs = dict(upload(server, keys[i % 2]) for i in range(6))
    gone = sorted(runs)[0]
    # Withdraw one (signed by its own key, whichever of the two it was).
    for k in keys:
        w = sign({"run_id": gone, "action": "withdraw", "reason": "Wrong file."}, k)[0]
        r = server.post("/api/v1/runs/%s/withdraw" % gone, data=w,
                        headers={"Content-Type": "application/jose"})
        if r.status_code == 200:
            break
    assert r.status_code == 200, r.text

    r = server.get("/export", headers={"Accept-Encoding": "identity"})
    assert r.status_code == 200
    assert r.headers["Content-Type"] == "application/x-ndjson"
    assert "Content-Encoding" not in r.headers
    lines = [json.loads(line) for line in r.text.splitlines()]
    assert [l["id"] for l in lines] == sorted(runs)
    for l in lines:
        assert l["jws"] == runs[l["id"]]          # the exact bytes uploaded
        assert set(l) >= {"id", "received_at", "status", "withdrawn", "outlier", "jws"}
    w = [l for l in lines if l["id"] == gone][0]
    assert w["withdrawn"] is True and w["status"] == "withdrawn"
    assert w["withdrawal"]["reason"] == "Wrong file." and w["outlier"]["cluster"] is None
    assert all(l["withdrawn"] is False for l in lines if l["id"] != gone)

    path = tmp_path / "export.ndjson"
    path.write_bytes(r.content)
    out = verify(path)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "6 runs, 6 verified, 0 failed" in out.stdout

    # One flipped signature character is found and named.
    bad = dict(lines[2])
    h, p, s = bad["jws"].split(".")
    bad["jws"] = ".".join([h, p, ("A" if s[5] != "A" else "B").join([s[:5], s[6:]])])
    lines2 = list(lines)
    lines2[2] = bad
    path.write_text("".join(json.dumps(l) + "\n" for l in lines2))
    out = verify(path)
    assert out.returncode == 1 and ("FAIL %s" % bad["id"]) in out.stdout


def test_export_streams_many_chunks_and_gzips(server, tmp_path):
    key = new_key()
    ids = sorted(upload(server, key)[0] for _ in range(600))   # > 2 chunks of 256
    plain = server.get("/export", headers={"Accept-Encoding": "identity"})
    assert "Content-Encoding" not in plain.headers
    assert [json.loads(l)["id"] for l in plain.text.splitlines()] == ids
    r = server.get("/export", headers={"Accept-Encoding": "gzip"}, stream=True)
    assert r.headers["Content-Encoding"] == "gzip" and "Accept-Encoding" in r.headers["Vary"]
    raw = r.raw.read(decode_content=False)
    assert gzip.decompress(raw) == plain.content
    path = tmp_path / "export.ndjson.gz"
    path.write_bytes(raw)
    out = verify(path)
    assert out.returncode == 0 and "600 runs, 600 verified" in out.stdout, out.stdout


def test_export_is_rate_limited(server):
    # q=0 refuses gzip.
    r = server.get("/export", headers={"Accept-Encoding": "gzip;q=0, identity"})
    assert r.status_code == 200 and "Content-Encoding" not in r.headers
    codes = [server.get("/export").status_code for _ in range(3)]
    assert codes[0] == 200 and 429 in codes[1:]
    r = server.get("/export")
    assert r.status_code == 429 and int(r.headers["Retry-After"]) >= 1
    assert r.json()["error"]["code"] == "rate_limited"


def test_snapshot_writes_export_and_manifest(server, tmp_path):
    import hashlib
    from conftest import BIN
    key = new_key()
    ids = sorted(upload(server, key)[0] for _ in range(5))
    snaps = tmp_path / "snaps"
    snaps.mkdir()
    made = []
    clock = TestClock(str(tmp_path / "clock"))
    for _ in range(2):
        out = subprocess.run([BIN, "snapshot", str(snaps), "--db", server.db, "--assets", ROOT] + clock.args(),
                             capture_output=True, text=True, timeout=120)
        assert out.returncode == 0, out.stderr
        made.append(os.path.basename(out.stdout.strip()))
        clock.advance()                   # names are to the second
    files = sorted(p.name for p in snaps.iterdir())
    assert files == sorted(made + ["SHA256SUMS"])   # no temporary file left
    sums = {}
    for line in (snaps / "SHA256SUMS").read_text().splitlines():
        digest, name = line.split("  ")
        sums[name] = digest
    assert set(sums) == set(made)
    for name in made:
        data = (snaps / name).read_bytes()
        assert hashlib.sha256(data).hexdigest() == sums[name]
        assert [json.loads(l)["id"] for l in gzip.decompress(data).decode().splitlines()] == ids
        assert verify(snaps / name).returncode == 0
    bad = subprocess.run([BIN, "snapshot", str(tmp_path / "missing"), "--db", server.db,
                          "--assets", ROOT], capture_output=True, text=True, timeout=60)
    assert bad.returncode == 1 and "missing" in bad.stderr


def test_verify_export_reports_bad_lines_by_number_and_checks_the_rest(server, tmp_path):
    """Issue 23 finding 6: a line verify-export.py cannot read (a protected
    header nested 1,500 deep, which the server once accepted; a line nested
    5,000 deep; not JSON at all) is reported with its line number, and every
    line after it is still checked; the exit status and the summary count
    the failures."""
    import base64
    key = new_key()
    runs = [upload(server, key) for _ in range(3)]
    r = server.get("/export", headers={"Accept-Encoding": "identity"})
    lines = r.text.splitlines()
    assert len(lines) == 3

    priv = json.loads(key.export_private())
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    d = priv["d"] + "=" * (-len(priv["d"]) % 4)
    sk = Ed25519PrivateKey.from_private_bytes(base64.urlsafe_b64decode(d))
    b64 = lambda b: base64.urlsafe_b64encode(b).rstrip(b"=").decode()  # noqa: E731
    header = ('{"alg": "EdDSA", "jwk": {"kty": "OKP", "crv": "Ed25519", "x": "%s"}, "x": %s%s}'
              % (priv["x"], "[" * 1500, "]" * 1500)).encode()
    signing = b64(header) + "." + b64(json.dumps(make_payload()).encode())
    deep_jws = signing + "." + b64(sk.sign(signing.encode()))
    # The daemon now refuses such a header outright.
    assert server.upload(deep_jws).status_code == 400
    deep = dict(json.loads(lines[0]), id="r_deepheader", jws=deep_jws)

    doc = [lines[0], json.dumps(deep), "[" * 5000 + "]" * 5000, "{not json", lines[1], lines[2]]
    path = tmp_path / "export.ndjson"
    path.write_text("\n".join(doc) + "\n")
    out = verify(path)
    assert out.returncode == 1, out.stdout + out.stderr
    assert "Traceback" not in out.stderr, out.stderr
    fails = [l for l in out.stdout.splitlines() if l.startswith("FAIL")]
    assert len(fails) == 3, out.stdout
    assert fails[0].startswith("FAIL r_deepheader (line 2): ") and "32 deep" in fails[0], fails
    assert fails[1].startswith("FAIL line 3: ") and "deep" in fails[1], fails
    assert fails[2].startswith("FAIL line 4: "), fails
    assert "6 runs, 3 verified, 3 failed" in out.stdout, out.stdout
