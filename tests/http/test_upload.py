"""POST /api/v1/runs against the running daemon (contract section 1).

Every rejection in the contract's response table is produced here over
HTTP, with its status, error code, message and field, and each one checks
that nothing was stored.  Signed bodies come from jwcrypto (conftest.sign)
or, for the malformed ones jwcrypto refuses to make, from raw_jws() below,
which signs with the `cryptography` package directly.
"""
import base64
import concurrent.futures
import json
import random
import re
import socket
import sqlite3
import subprocess

import pytest
import requests
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature

from conftest import BIN, Server, make_payload, new_key, now_rfc3339, sign, upload_payload

RUN_ID = re.compile(r"^r_[a-z0-9_-]{11}$")


# ---- helpers ----

def b64u(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def raw_jws(header, payload, key):
    """Compact JWS with header (dict or raw bytes) and payload (dict or raw
    bytes) signed by key over ASCII(b64u(header) "." b64u(payload))."""
    h = header if isinstance(header, bytes) else json.dumps(header).encode()
    p = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    signing_input = (b64u(h) + "." + b64u(p)).encode()
    return signing_input.decode() + "." + b64u(sign_bytes(key, signing_input))


def sign_bytes(key, msg):
    """Raw signature of msg: Ed25519, or ES256 as the 64-byte r||s."""
    op = key.get_op_key("sign")
    if key.get("kty") == "EC":
        r, s = decode_dss_signature(op.sign(msg, ec.ECDSA(hashes.SHA256())))
        return r.to_bytes(32, "big") + s.to_bytes(32, "big")
    return op.sign(msg)


def header_for(key, **extra):
    alg = "ES256" if key.get("kty") == "EC" else "EdDSA"
    h = {"alg": alg, "jwk": json.loads(key.export_public())}
    h.update(extra)
    return h


def count_runs(server):
    """Rows in runs, read from the DB file while the server runs."""
    con = sqlite3.connect("file:%s?mode=ro" % server.db, uri=True)
    try:
        return con.execute("SELECT count(*) FROM runs").fetchone()[0]
    finally:
        con.close()


def db_row(server, run_id):
    con = sqlite3.connect("file:%s?mode=ro" % server.db, uri=True)
    con.row_factory = sqlite3.Row
    try:
        return con.execute("SELECT * FROM runs WHERE id = ?", (run_id,)).fetchone()
    finally:
        con.close()


ANY = object()


def assert_error(r, status, code, field=None):
    """The contract's error body: status, code, a sentence, and the field at
    fault (None: no field member)."""
    assert r.status_code == status, (r.status_code, r.text)
    assert r.headers["Content-Type"].startswith("application/json"), r.headers
    err = r.json()["error"]
    assert err["code"] == code, err
    msg = err["message"]
    assert isinstance(msg, str) and len(msg.split()) >= 4 and msg.endswith("."), err
    assert "\n" not in msg, err
    if field is None:
        assert "field" not in err, err
    elif field is not ANY:
        assert err.get("field") == field, err
    return err


def rejected(server, r, status, code, field=None):
    """assert_error, then nothing stored and the server still answering."""
    err = assert_error(r, status, code, field)
    assert count_runs(server) == getattr(server, "baseline", 0)
    assert server.get("/healthz").status_code == 200
    return err


def upload_ok(server, payload=None, key=None, headers=None):
    r = upload_payload(server, payload, key, headers)
    assert r.status_code == 201, r.text
    return r.json()


@pytest.fixture(scope="module")
def shared_server(tmp_path_factory):
    s = Server(str(tmp_path_factory.mktemp("upload")))
    yield s
    s.stop()


@pytest.fixture
def rserver(shared_server):
    """One daemon for the many rejection cases (starting one per case is
    most of their cost); rejected() compares the run count with the count
    at the start of the test."""
    shared_server.baseline = count_runs(shared_server)
    return shared_server


# ---- storing, reading back, idempotency ----

def test_upload_stores_and_answers_with_links(server):
    token, _ = sign(make_payload())
    r = server.upload(token)
    assert r.status_code == 201, r.text
    body = r.json()
    assert set(body) == {"id", "url", "badge_url", "outlier"}
    assert RUN_ID.match(body["id"])
    assert body["url"].endswith("/r/" + body["id"])
    assert body["badge_url"].endswith("/badge/%s.svg" % body["id"])
    assert r.headers["Location"] == body["url"]
    assert body["outlier"] is False
    assert count_runs(server) == 1
    # 201 comes after the commit: the run reads back at once.
    got = server.get("/r/%s.json" % body["id"])
    assert got.status_code == 200
    assert got.headers["Content-Type"].startswith("application/json")
    run = got.json()
    assert run["id"] == body["id"]
    assert run["model"]["name"] == "Qwen3-Coder-30B-A3B-Instruct"
    assert run["hardware"]["fingerprint_hash"] == "3f9a0c11d2e4b5a6"
    assert run["account"] is None
    assert run["signing"]["alg"] == "EdDSA"


def test_jws_route_returns_the_exact_bytes(server):
    token, _ = sign(make_payload(), header_extra={"typ": "JOSE", "kid": "laptop-1"})
    r = server.upload(token)
    assert r.status_code == 201, r.text
    body = r.json()
    r = server.get("/r/%s.jws" % body["id"])
    assert r.status_code == 200
    assert r.headers["Content-Type"] == "application/jose"
    assert r.content == token.encode()


def test_same_bytes_twice_is_200_with_the_first_id(server):
    token, _ = sign(make_payload())
    first = server.upload(token)
    assert first.status_code == 201, first.text
    again = server.upload(token)
    assert again.status_code == 200, again.text
    assert again.json() == first.json()
    assert again.headers["Location"] == first.headers["Location"]
    assert count_runs(server) == 1


def test_same_payload_signed_again_is_a_new_run(server):
    """Idempotency is on the exact bytes; Ed25519 is deterministic, so a
    second signature needs a second key."""
    p = make_payload()
    a = upload_ok(server, p, new_key())
    b = upload_ok(server, p, new_key())
    assert a["id"] != b["id"]
    assert count_runs(server) == 2


def test_run_ids_follow_the_contract_and_differ(server):
    ids = [upload_ok(server)["id"] for _ in range(20)]
    assert all(RUN_ID.match(i) for i in ids), ids
    assert len(set(ids)) == len(ids)
    # Not sequential or shared-prefix: the 11 random characters vary at
    # every position across 20 runs.
    for pos in range(2, 13):
        assert len({i[pos] for i in ids}) > 1, (pos, ids)


def test_es256_upload_is_accepted(server):
    key = new_key("ES256")
    token, _ = sign(make_payload(), key)
    # jwcrypto writes ES256 as the raw 64-byte r||s of RFC 7518.
    assert len(base64.urlsafe_b64decode(token.split(".")[2] + "==")) == 64
    r = server.upload(token)
    assert r.status_code == 201, r.text
    body = r.json()
    run = server.get("/r/%s.json" % body["id"]).json()
    assert run["signing"]["alg"] == "ES256"
    assert db_row(server, body["id"])["alg"] == "ES256"


def test_es256_with_our_own_signer(rserver):
    key = new_key("ES256")
    r = rserver.upload(raw_jws(header_for(key), make_payload(), key))
    assert r.status_code == 201, r.text


def test_typ_and_kid_are_ignored(rserver):
    key = new_key()
    r = rserver.upload(raw_jws(header_for(key, typ="JWT", kid="k1"), make_payload(), key))
    assert r.status_code == 201, r.text


def test_content_type_parameters_are_ignored(rserver):
    token, _ = sign(make_payload())
    r = rserver.upload(token, content_type="Application/JOSE; charset=us-ascii")
    assert r.status_code == 201, r.text


def test_unknown_members_are_kept_in_the_jws(server):
    p = make_payload(extra_note="kept, not shown")
    p["workloads"]["chat-short"]["gpu_temp_c"] = 71
    token, _ = sign(p)
    body = server.upload(token).json()
    assert server.get("/r/%s.jws" % body["id"]).content == token.encode()


def test_strict_anon_upload_stores_no_fingerprint_or_account(server):
    p = make_payload()
    del p["hardware"]["fingerprint_hash"]
    body = upload_ok(server, p, new_key())
    row = db_row(server, body["id"])
    assert row["fingerprint_hash"] is None
    assert row["account_id"] is None
    assert row["hw_class"] == "slug:m3-ultra"
    run = server.get("/r/%s.json" % body["id"]).json()
    assert run["account"] is None
    assert "fingerprint_hash" not in run["hardware"]


def test_fingerprint_null_is_strict_anon_too(rserver):
    body = upload_ok(rserver, make_payload(hardware__fingerprint_hash=None))
    assert db_row(rserver, body["id"])["fingerprint_hash"] is None


@pytest.mark.parametrize("name,slug,page", [
    # The contract's slug of the name (section 2); a name the reference
    # data knows is shown on its reference's page, and its own slug
    # redirects there (section 9).
    ("Qwen2.5-7B-Instruct", "qwen2-5-7b-instruct", "qwen2-5-7b"),
    ("Qwen2.5-Coder-32B-Instruct-4bit", "qwen2-5-coder-32b-instruct", "qwen2-5-coder-32b"),
    ("meta-llama/Llama-4-Scout", "llama-4-scout", "llama-4-scout-17b-16e"),
    ("Acme/Unknown-Model-7B-Instruct-4bit", "unknown-model-7b-instruct", None),
])
def test_model_slug_examples(rserver, name, slug, page):
    p = make_payload(model__name=name)
    body = upload_ok(rserver, p)
    run = rserver.get("/r/%s.json" % body["id"]).json()
    assert run["model"]["slug"] == (page or slug)
    assert run["model"]["ref"] == page
    assert run["model"]["name"] == name
    if page:
        r = rserver.get("/m/" + slug, allow_redirects=False)
        assert r.status_code == 301 and r.headers["Location"] == "/m/" + page


@pytest.mark.parametrize("accel,slug", [
    ("M3 Ultra", "m3-ultra"),
    ("NVIDIA GeForce RTX 4090", "rtx-4090"),
])
def test_hardware_slug_examples(rserver, accel, slug):
    body = upload_ok(rserver, make_payload(hardware__accelerator_summary=accel))
    run = rserver.get("/r/%s.json" % body["id"]).json()
    assert run["hardware"]["slug"] == slug


def test_sample_run_output_uploads_as_is(rserver):
    """`llm-speedd sample-run > run.jws` then curl --data-binary @run.jws,
    as its help says."""
    for args in ([], ["--all", "--fingerprint", "0123456789abcdef", "--model", "Qwen2.5-7B-Instruct"]):
        out = subprocess.run([BIN, "sample-run"] + args, capture_output=True, timeout=30)
        assert out.returncode == 0, out.stderr
        assert not out.stdout.endswith(b"\n")
        r = rserver.upload(out.stdout)
        assert r.status_code == 201, r.text


def test_created_at_nine_minutes_ahead_is_accepted(rserver):
    upload_ok(rserver, make_payload(created_at=now_rfc3339(9 * 60)))


def test_concurrent_uploads_all_commit(server):
    """64 uploads at once (they share commits in the writer; the group
    counts are asserted in tests/store/check_db.c): every one is 201 with its own
    id and is readable right after."""
    tokens = [sign(make_payload())[0] for _ in range(64)]
    with concurrent.futures.ThreadPoolExecutor(max_workers=64) as ex:
        resps = list(ex.map(server.upload, tokens))
    assert [r.status_code for r in resps] == [201] * 64, [r.text for r in resps if r.status_code != 201]
    ids = {r.json()["id"] for r in resps}
    assert len(ids) == 64
    assert count_runs(server) == 64
    for i in list(ids)[:8]:
        assert server.get("/r/%s.json" % i).status_code == 200


def test_concurrent_identical_uploads_store_one_run(server):
    token, _ = sign(make_payload())
    with concurrent.futures.ThreadPoolExecutor(max_workers=16) as ex:
        resps = list(ex.map(server.upload, [token] * 16))
    codes = sorted(r.status_code for r in resps)
    assert codes == [200] * 15 + [201], codes
    assert len({r.json()["id"] for r in resps}) == 1
    assert count_runs(server) == 1


def test_later_upload_flags_an_earlier_run_in_its_cached_json(server):
    """Ten runs at 100 tok/s make an earlier run at 200 an outlier (with
    11 runs, one value can sit 3.16 standard deviations out).  The earlier
    run's JSON, cached before, shows the flag once the tenth is stored, even
    when the client of that upload hung up before its answer."""
    x = upload_ok(server, make_payload(workloads__chat_short__decode_tok_s=200.0))["id"]
    for _ in range(9):
        upload_ok(server, make_payload(workloads__chat_short__decode_tok_s=100.0))
    for _ in range(2):
        assert server.get("/r/%s.json" % x).json()["outlier"]["flagged"] is False
    for attempt in range(20):
        tok = sign(make_payload(workloads__chat_short__decode_tok_s=100.0))[0].encode()
        with socket.create_connection(("127.0.0.1", server.port), timeout=10) as s:
            s.sendall(b"POST /api/v1/runs HTTP/1.1\r\nHost: x\r\nContent-Type: application/jose\r\n"
                      b"Content-Length: %d\r\n\r\n" % len(tok) + tok)
            s.shutdown(socket.SHUT_WR)     # hang up without waiting
            try:
                s.recv(65536)
            except ConnectionResetError:
                pass
        # Whether that upload was stored depends on when the daemon saw
        # the hang-up (no answer means no id): ask the database, and send
        # another until one was stored.
        if count_runs(server) == 11:
            break
    else:
        pytest.skip("no hung-up upload was stored")
    run = server.get("/r/%s.json" % x).json()
    assert run["outlier"]["flagged"] is True, run["outlier"]


# ---- 415 ----

@pytest.mark.parametrize("ctype", [
    "application/json", "text/plain", "application/jose+json",
    "application/x-www-form-urlencoded", "application/josex",
])
def test_wrong_content_type_is_415(rserver, ctype):
    token, _ = sign(make_payload())
    r = rserver.upload(token, content_type=ctype)
    rejected(rserver, r, 415, "unsupported_media_type")


def test_missing_content_type_is_415(rserver):
    token, _ = sign(make_payload())
    r = requests.post(rserver.url + "/api/v1/runs", data=token.encode(), timeout=10)
    assert "Content-Type" not in r.request.headers
    rejected(rserver, r, 415, "unsupported_media_type")


# ---- 400 malformed_jws / unsupported_alg ----

def test_padded_jws_is_malformed(rserver):
    token, _ = sign(make_payload())
    parts = token.split(".")
    for i in range(3):
        padded = list(parts)
        padded[i] += "=" * (-len(padded[i]) % 4 or 2)
        r = rserver.upload(".".join(padded))
        err = rejected(rserver, r, 400, "malformed_jws")
        assert "padding" in err["message"], err


def test_standard_base64_is_malformed(rserver):
    key = new_key()
    # A payload whose base64 uses '+' and '/' in the standard alphabet.
    p = make_payload(model__name="Qwen3-Coder-30B-A3B-Instruct???>>>")
    token = raw_jws(header_for(key), p, key)
    std = token.replace("-", "+").replace("_", "/")
    assert std != token
    err = rejected(rserver, rserver.upload(std), 400, "malformed_jws")
    assert "base64url" in err["message"], err


@pytest.mark.parametrize("junk", ["\n", "\r\n", " ", "\t"])
def test_whitespace_around_the_jws_is_malformed(rserver, junk):
    token, _ = sign(make_payload())
    for body in (token + junk, junk + token):
        err = rejected(rserver, rserver.upload(body), 400, "malformed_jws")
        assert "whitespace" in err["message"], err


def test_json_serialization_instead_of_compact_is_malformed(rserver):
    key = new_key()
    token, _ = sign(make_payload(), key)
    h, p, s = token.split(".")
    general = json.dumps({"protected": h, "payload": p, "signature": s})
    rejected(rserver, rserver.upload(general), 400, "malformed_jws")


@pytest.mark.parametrize("body", [
    b"", b".", b"..", b"a.b", b"a.b.c.d", b"...", b"abc", b"e30.e30.",
    b"e30..AAAA", b"\x00\x01\x02", b"\xff\xfe.\xff.\xff", "é.é.é".encode(),
    b"eyJhbGciOiJFZERTQSJ9",
])
def test_garbage_bodies_are_malformed(rserver, body):
    rejected(rserver, rserver.upload(body), 400, "malformed_jws")


def test_header_that_is_not_json_is_malformed(rserver):
    key = new_key()
    tok = raw_jws(b'{"alg":"EdDSA",', make_payload(), key)
    rejected(rserver, rserver.upload(tok), 400, "malformed_jws")
    tok = raw_jws(b'["EdDSA"]', make_payload(), key)
    rejected(rserver, rserver.upload(tok), 400, "malformed_jws")


def test_deeply_nested_header_is_malformed(rserver):
    key = new_key()
    tok = raw_jws(b"[" * 20000 + b"]" * 20000, make_payload(), key)
    rejected(rserver, rserver.upload(tok), 400, "malformed_jws")


def test_header_with_duplicate_members_is_malformed(rserver):
    key = new_key()
    h = json.dumps(header_for(key))[:-1] + ', "alg": "EdDSA"}'
    rejected(rserver, rserver.upload(raw_jws(h.encode(), make_payload(), key)), 400, "malformed_jws")


def test_private_key_in_the_header_is_malformed(rserver):
    key = new_key()
    h = {"alg": "EdDSA", "jwk": json.loads(key.export_private())}
    assert "d" in h["jwk"]
    err = rejected(rserver, rserver.upload(raw_jws(h, make_payload(), key)), 400, "malformed_jws")
    assert "private" in err["message"]


def test_private_es256_key_in_the_header_is_malformed(rserver):
    key = new_key("ES256")
    h = {"alg": "ES256", "jwk": json.loads(key.export_private())}
    rejected(rserver, rserver.upload(raw_jws(h, make_payload(), key)), 400, "malformed_jws")


@pytest.mark.parametrize("alg", ["none", "HS256", "RS256", "ES384", "Ed25519", "eddsa", "PS256"])
def test_unimplemented_alg_is_unsupported(rserver, alg):
    key = new_key()
    h = header_for(key)
    h["alg"] = alg
    tok = raw_jws(h, make_payload(), key)
    rejected(rserver, rserver.upload(tok), 400, "unsupported_alg", "header.alg")


def test_alg_none_with_empty_signature_is_unsupported(rserver):
    key = new_key()
    h = header_for(key, alg="none")
    tok = b64u(json.dumps(h).encode()) + "." + b64u(json.dumps(make_payload()).encode()) + "."
    rejected(rserver, rserver.upload(tok), 400, "unsupported_alg", "header.alg")


def test_hs256_signed_with_the_public_key_is_unsupported(rserver):
    """The classic confusion attack: HMAC keyed with the public key bytes."""
    import hmac
    import hashlib
    key = new_key()
    h = header_for(key, alg="HS256")
    si = (b64u(json.dumps(h).encode()) + "." + b64u(json.dumps(make_payload()).encode())).encode()
    mac = hmac.new(key.export_public().encode(), si, hashlib.sha256).digest()
    rejected(rserver, rserver.upload(si.decode() + "." + b64u(mac)), 400, "unsupported_alg", "header.alg")


def test_missing_alg_is_malformed(rserver):
    key = new_key()
    h = header_for(key)
    del h["alg"]
    rejected(rserver, rserver.upload(raw_jws(h, make_payload(), key)), 400, "malformed_jws")


def test_crit_is_refused(rserver):
    key = new_key()
    tok = raw_jws(header_for(key, crit=["exp"], exp=1), make_payload(), key)
    rejected(rserver, rserver.upload(tok), 400, "malformed_jws")


def test_unencoded_payload_b64_false_is_refused(rserver):
    key = new_key()
    h = header_for(key, b64=False, crit=["b64"])
    payload = json.dumps(make_payload())
    si = b64u(json.dumps(h).encode()).encode() + b"." + payload.encode()
    # RFC 7797 detached form: the payload part is left empty.
    tok = b64u(json.dumps(h).encode()) + ".." + b64u(sign_bytes(key, si))
    rejected(rserver, rserver.upload(tok), 400, "malformed_jws")
    h = header_for(key, b64=False)
    rejected(rserver, rserver.upload(raw_jws(h, make_payload(), key)), 400, "malformed_jws")


def test_header_without_jwk_is_malformed(rserver):
    key = new_key()
    h = header_for(key)
    del h["jwk"]
    rejected(rserver, rserver.upload(raw_jws(h, make_payload(), key)), 400, "malformed_jws")
    h["jwk"] = "not an object"
    rejected(rserver, rserver.upload(raw_jws(h, make_payload(), key)), 400, "malformed_jws")


@pytest.mark.parametrize("nbytes", [31, 33, 0, 64])
def test_ed25519_key_of_the_wrong_size_is_malformed(rserver, nbytes):
    key = new_key()
    h = header_for(key)
    h["jwk"]["x"] = b64u(bytes(range(1, nbytes + 1)))
    rejected(rserver, rserver.upload(raw_jws(h, make_payload(), key)), 400, "malformed_jws")


def test_ed25519_key_with_padding_is_malformed(rserver):
    key = new_key()
    h = header_for(key)
    h["jwk"]["x"] += "="
    rejected(rserver, rserver.upload(raw_jws(h, make_payload(), key)), 400, "malformed_jws")


def test_ec_key_of_the_wrong_size_or_off_the_curve_is_malformed(rserver):
    key = new_key("ES256")
    h = header_for(key)
    h["jwk"]["x"] = b64u(b"\x01" * 31)
    rejected(rserver, rserver.upload(raw_jws(h, make_payload(), key)), 400, "malformed_jws")
    h = header_for(key)
    h["jwk"]["y"] = b64u(b"\x01" * 32)   # not on P-256
    rejected(rserver, rserver.upload(raw_jws(h, make_payload(), key)), 400, "malformed_jws")


def test_key_type_that_does_not_match_alg_is_malformed(rserver):
    ed, p256 = new_key(), new_key("ES256")
    h = {"alg": "EdDSA", "jwk": json.loads(p256.export_public())}
    rejected(rserver, rserver.upload(raw_jws(h, make_payload(), ed)), 400, "malformed_jws")
    h = {"alg": "ES256", "jwk": json.loads(ed.export_public())}
    rejected(rserver, rserver.upload(raw_jws(h, make_payload(), p256)), 400, "malformed_jws")


def test_signature_of_the_wrong_length_is_malformed(rserver):
    token, _ = sign(make_payload())
    h, p, s = token.split(".")
    sig = base64.urlsafe_b64decode(s + "==")
    rejected(rserver, rserver.upload("%s.%s.%s" % (h, p, b64u(sig[:63]))), 400, "malformed_jws")
    rejected(rserver, rserver.upload("%s.%s.%s" % (h, p, b64u(sig + b"\0"))), 400, "malformed_jws")


def test_es256_der_signature_is_refused(rserver):
    """A Secure Enclave hands out DER; the contract wants raw r||s."""
    key = new_key("ES256")
    h = b64u(json.dumps(header_for(key)).encode())
    p = b64u(json.dumps(make_payload()).encode())
    der = key.get_op_key("sign").sign((h + "." + p).encode(), ec.ECDSA(hashes.SHA256()))
    r = rserver.upload(h + "." + p + "." + b64u(der))
    assert r.status_code in (400, 401), r.text
    assert r.json()["error"]["code"] in ("malformed_jws", "invalid_signature")
    assert count_runs(rserver) == rserver.baseline


# ---- 401 invalid_signature ----

def test_signature_by_another_key_is_401(rserver):
    """The header's jwk is swapped for another key's: the signature no
    longer verifies with the key the header names."""
    signer, other = new_key(), new_key()
    token, _ = sign(make_payload(), signer)
    _, p, s = token.split(".")
    h = b64u(json.dumps(header_for(other)).encode())
    rejected(rserver, rserver.upload("%s.%s.%s" % (h, p, s)), 401, "invalid_signature")


def test_es256_signature_by_another_key_is_401(rserver):
    signer, other = new_key("ES256"), new_key("ES256")
    token, _ = sign(make_payload(), signer)
    _, p, s = token.split(".")
    h = b64u(json.dumps(header_for(other)).encode())
    rejected(rserver, rserver.upload("%s.%s.%s" % (h, p, s)), 401, "invalid_signature")


def test_tampered_payload_is_401(rserver):
    token, _ = sign(make_payload())
    h, _, s = token.split(".")
    forged = make_payload()
    forged["workloads"]["chat-short"]["decode_tok_s"] = 999.0
    p = b64u(json.dumps(forged).encode())
    rejected(rserver, rserver.upload("%s.%s.%s" % (h, p, s)), 401, "invalid_signature")


def test_flipped_signature_bit_is_401(rserver):
    token, _ = sign(make_payload())
    h, p, s = token.split(".")
    sig = bytearray(base64.urlsafe_b64decode(s + "=="))
    sig[5] ^= 1
    rejected(rserver, rserver.upload("%s.%s.%s" % (h, p, b64u(bytes(sig)))), 401, "invalid_signature")


# ---- 400 invalid_json ----

@pytest.mark.parametrize("payload", [
    b"not json", b"{", b'{"suite_version": "suite-v1",}', b"{'a': 1}",
    b'{"a": NaN}', b'{"a": 1e400}', b"\xef\xbb\xbf{}", b'{"a": "\xff"}',
    b'{"a": 1, "a": 2}', b'{"a": "\\u0000"}', b"[" * 100 + b"]" * 100, b"{}\x00",
    b'{"a": "\\ud800"}', b"{} {}", b"\xc0\xaf",
])
def test_payload_that_is_not_json_is_400(rserver, payload):
    key = new_key()
    r = rserver.upload(raw_jws(header_for(key), payload, key))
    rejected(rserver, r, 400, "invalid_json")


# ---- 422 ----

@pytest.mark.parametrize("payload", [b"[]", b"[1, 2]", b'"run"', b"42", b"null", b"true"])
def test_payload_that_is_not_an_object_is_422(rserver, payload):
    key = new_key()
    r = rserver.upload(raw_jws(header_for(key), payload, key))
    rejected(rserver, r, 422, "schema_violation")


def test_payload_as_an_array_of_the_run_is_422(rserver):
    key = new_key()
    r = rserver.upload(raw_jws(header_for(key), json.dumps([make_payload()]).encode(), key))
    rejected(rserver, r, 422, "schema_violation")


def test_hosted_api_is_rejected(rserver):
    r = upload_payload(rserver, make_payload(backend__name="hosted-api"))
    rejected(rserver, r, 422, "hosted_api_rejected", "backend.name")


@pytest.mark.parametrize("suite", ["suite-v2", "suite-v0", "SUITE-V1", "suite-v1 "])
def test_unknown_suite_is_rejected(rserver, suite):
    r = upload_payload(rserver, make_payload(suite_version=suite))
    rejected(rserver, r, 422, "unknown_suite", "suite_version")


def test_created_at_in_the_future_is_422(rserver):
    r = upload_payload(rserver, make_payload(created_at=now_rfc3339(20 * 60)))
    err = rejected(rserver, r, 422, "schema_violation", "created_at")
    assert "future" in err["message"]
    r = upload_payload(rserver, make_payload(created_at=now_rfc3339(3 * 86400)))
    rejected(rserver, r, 422, "schema_violation", "created_at")


def test_number_sent_as_a_string_is_422(rserver):
    p = make_payload()
    p["workloads"]["chat-short"]["decode_tok_s"] = "112.2"
    err = rejected(rserver, upload_payload(rserver, p), 422, "schema_violation",
                   "workloads.chat-short.decode_tok_s")
    assert "string" in err["message"]


SCHEMA_CASES = [
    # (what to change, the field the error names)
    (lambda p: p.pop("suite_version"), "suite_version"),
    (lambda p: p.pop("created_at"), "created_at"),
    (lambda p: p.update(created_at="2026-04-28 10:12:00"), "created_at"),
    (lambda p: p.update(created_at="2026-04-28T12:12:00+02:00"), "created_at"),
    (lambda p: p.update(created_at="2026-02-30T10:12:00Z"), "created_at"),
    (lambda p: p.update(created_at=1777370000), "created_at"),
    (lambda p: p.pop("client"), "client"),
    (lambda p: p["client"].pop("version"), "client.version"),
    (lambda p: p["backend"].update(name="tensorrt"), "backend.name"),
    (lambda p: p["backend"].pop("version"), "backend.version"),
    (lambda p: p["model"].update(name=""), "model.name"),
    (lambda p: p["model"].update(name="x" * 201), "model.name"),
    (lambda p: p["model"].update(digest="sha256:ABCDEF0123456789"), "model.digest"),
    (lambda p: p["model"].update(digest="sha256:abc"), "model.digest"),
    (lambda p: p["model"].update(digest="md5:0123456789abcdef0123"), "model.digest"),
    (lambda p: p["model"].update(weights_bytes=1.5), "model.weights_bytes"),
    (lambda p: p["model"].update(weights_bytes="17200000000"), "model.weights_bytes"),
    (lambda p: p["hardware"].pop("cpu_model"), "hardware.cpu_model"),
    (lambda p: p["hardware"].pop("accelerator_summary"), "hardware.accelerator_summary"),
    (lambda p: p["hardware"].update(fingerprint_hash="3F9A0C11D2E4B5A6"), "hardware.fingerprint_hash"),
    (lambda p: p["hardware"].update(fingerprint_hash="3f9a0c11"), "hardware.fingerprint_hash"),
    (lambda p: p["hardware"].update(ram_gb="512"), "hardware.ram_gb"),
    (lambda p: p.update(workloads={}), "workloads.chat-short"),
    (lambda p: p["workloads"].pop("chat-short"), "workloads.chat-short"),
    (lambda p: p["workloads"]["chat-short"].update(decode_tok_s=0), "workloads.chat-short.decode_tok_s"),
    (lambda p: p["workloads"]["chat-short"].update(decode_tok_s=-3.5), "workloads.chat-short.decode_tok_s"),
    (lambda p: p["workloads"]["chat-short"].update(decode_tok_s=None), "workloads.chat-short.decode_tok_s"),
    (lambda p: p["workloads"]["chat-short"].update(decode_tok_s=1e300), "workloads.chat-short.decode_tok_s"),
    (lambda p: p["workloads"]["chat-short"].update(ttft_ms=-1), "workloads.chat-short.ttft_ms"),
    (lambda p: p["workloads"]["chat-short"].update(batch_size=4), "workloads.chat-short.batch_size"),
    (lambda p: p["workloads"]["chat-short"].update(prompt_tokens=128.5), "workloads.chat-short.prompt_tokens"),
    (lambda p: p["workloads"]["chat-short"].update(prompt_tokens="128"), "workloads.chat-short.prompt_tokens"),
    (lambda p: p["workloads"]["chat-long"].update(prefix_cache_hit_rate=1.5), "workloads.chat-long.prefix_cache_hit_rate"),
    (lambda p: p["workloads"]["long-context-decay"].update(points=[]), "workloads.long-context-decay.points"),
    (lambda p: p["workloads"]["long-context-decay"]["points"][2].update(decode_tok_s="45.2"),
     "workloads.long-context-decay.points[2].decode_tok_s"),
    (lambda p: p["workloads"]["concurrent-decode"].update(serial="yes"), "workloads.concurrent-decode.serial"),
    (lambda p: p["workloads"]["concurrent-decode"]["points"][1].update(batch_size=0),
     "workloads.concurrent-decode.points[1].batch_size"),
    (lambda p: p["workloads"]["agent-trace"]["turns"].append("turn 5"), "workloads.agent-trace.turns[4]"),
    (lambda p: p["workloads"]["agent-trace"].pop("wall_ms"), "workloads.agent-trace.wall_ms"),
]


@pytest.mark.parametrize("change,field", SCHEMA_CASES, ids=[c[1] + "-%d" % i for i, c in enumerate(SCHEMA_CASES)])
def test_schema_violations_name_the_field(rserver, change, field):
    p = make_payload()
    change(p)
    r = upload_payload(rserver, p)
    err = rejected(rserver, r, 422, "schema_violation", field)
    # The message names the field as it is spelled in the payload.
    assert field in err["message"], err


# ---- 413 ----

def jws_of_length(n, key):
    """A valid signed upload whose compact form is exactly n bytes, padded
    with an unknown payload member (which the rserver keeps and ignores)."""
    for kid in range(4):
        h = header_for(key, kid="k" * kid) if kid else header_for(key)
        hlen = len(b64u(json.dumps(h).encode()))
        plen = n - hlen - 2 - 86           # two dots, 64-byte signature
        if plen % 4 == 1:
            continue
        raw_len = plen // 4 * 3 + {0: 0, 2: 1, 3: 2}[plen % 4]
        p = make_payload(filler="")
        base = len(json.dumps(p).encode())
        p["filler"] = "x" * (raw_len - base)
        tok = raw_jws(h, p, key)
        assert len(tok) == n
        return tok
    raise AssertionError("no header length fits")


def test_body_of_exactly_64_kib_is_accepted(server):
    tok = jws_of_length(65536, new_key())
    r = server.upload(tok)
    assert r.status_code == 201, r.text
    assert server.get("/r/%s.jws" % r.json()["id"]).content == tok.encode()


def test_body_one_byte_over_64_kib_is_413(rserver):
    tok = jws_of_length(65537, new_key())
    r = rserver.upload(tok)
    rejected(rserver, r, 413, "payload_too_large")


def test_chunked_body_at_and_over_64_kib(server):
    def chunks(data, size=5000):
        for i in range(0, len(data), size):
            yield data[i:i + size]
    key = new_key()
    over = jws_of_length(65537, key).encode()
    r = server.post("/api/v1/runs", data=chunks(over), headers={"Content-Type": "application/jose"})
    assert r.request.headers.get("Transfer-Encoding") == "chunked"
    rejected(server, r, 413, "payload_too_large")
    at = jws_of_length(65536, key).encode()
    r = server.post("/api/v1/runs", data=chunks(at), headers={"Content-Type": "application/jose"})
    assert r.status_code == 201, r.text


def test_large_bodies_are_413_and_the_server_survives(rserver):
    big = b"A" * (1024 * 1024)
    r = rserver.upload(big)
    rejected(rserver, r, 413, "payload_too_large")
    # Oversized and the wrong content type: the size is decided first.
    r = rserver.upload(big, content_type="text/plain")
    rejected(rserver, r, 413, "payload_too_large")


def test_content_length_that_lies_high_is_413(rserver):
    """A Content-Length over the limit is refused whatever is then sent."""
    with socket.create_connection(("127.0.0.1", rserver.port), timeout=10) as s:
        s.sendall(b"POST /api/v1/runs HTTP/1.1\r\nHost: x\r\nContent-Type: application/jose\r\n"
                  b"Content-Length: 99999999999\r\nConnection: close\r\n\r\n")
        s.sendall(b"A" * 70000)
        s.shutdown(socket.SHUT_WR)
        resp = b""
        try:
            while True:
                d = s.recv(65536)
                if not d:
                    break
                resp += d
        except (ConnectionResetError, socket.timeout):
            pass
    # Either an answered 413 or a closed connection; never a stored run.
    assert resp == b"" or resp.startswith(b"HTTP/1.1 413"), resp[:200]
    assert count_runs(rserver) == rserver.baseline
    assert rserver.get("/healthz").status_code == 200


def raw_exchange(port, request):
    """Sends request bytes on a fresh connection and returns what comes
    back until the daemon closes it (b"" when it closes without a word)."""
    out = b""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(request)
        try:
            while True:
                d = s.recv(65536)
                if not d:
                    break
                out += d
        except ConnectionResetError:
            pass
    return out


def test_broken_http_framing_is_refused(rserver):
    tok = sign(make_payload())[0].encode()
    head = b"POST /api/v1/runs HTTP/1.1\r\nHost: x\r\nContent-Type: application/jose\r\nConnection: close\r\n"
    cases = [
        head + b"Content-Length: -1\r\n\r\n" + tok,
        head + b"Content-Length: abc\r\n\r\n" + tok,
        head + b"Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
        head + b"Transfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n",
        head + b"Authorization: Bearer " + b"a" * 100000 + b"\r\nContent-Length: %d\r\n\r\n" % len(tok) + tok,
        head + b"".join(b"X-A%d: b\r\n" % i for i in range(3000)) + b"Content-Length: %d\r\n\r\n" % len(tok) + tok,
        b"POST /api/v1/runs HTTP/1.0\r\nContent-Type: application/jose\r\n\r\n" + tok,
    ]
    for req in cases:
        try:
            resp = raw_exchange(rserver.port, req)
        except (BrokenPipeError, ConnectionResetError):
            resp = b""
        status = int(resp.split()[1]) if resp.startswith(b"HTTP/1.") else 0
        assert status == 0 or 400 <= status < 500, (req[:120], resp[:200])
    assert count_runs(rserver) == rserver.baseline
    assert rserver.get("/healthz").status_code == 200


# ---- 405, 404 ----

def test_get_on_the_upload_path_is_405_with_allow(rserver):
    r = rserver.get("/api/v1/runs")
    assert_error(r, 405, "method_not_allowed")
    assert r.headers["Allow"] == "POST"
    r = requests.put(rserver.url + "/api/v1/runs", data=b"x", timeout=10)
    assert r.status_code == 405
    assert r.headers["Allow"] == "POST"


@pytest.mark.parametrize("rid", ["r_aaaaaaaaaaa", "r_zzzzzzzzzz", "nope", "r_AAAAAAAAAAA", "r_%3Cscript%3E"])
def test_unknown_run_ids_are_json_404(rserver, rid):
    upload_ok(rserver)
    for suffix in (".json", ".jws"):
        r = rserver.get("/r/%s%s" % (rid, suffix))
        assert_error(r, 404, "not_found")


# ---- 429 ----

def test_upload_rate_is_enforced_with_retry_after(make_server):
    s = make_server(["--upload-rate", "2"])    # overrides conftest's --upload-rate 0
    for _ in range(2):
        assert upload_payload(s, make_payload(), new_key()).status_code == 201
    r = upload_payload(s, make_payload(), new_key())
    assert_error(r, 429, "rate_limited")
    # 2 a minute: the next token is at most 30 seconds away.
    assert 1 <= int(r.headers["Retry-After"]) <= 30
    assert count_runs(s) == 2


def test_uploads_over_the_limit_are_refused_before_verification(make_server):
    """A flood over the limit costs no signature check: an over-limit upload
    whose signature is wrong gets 429, not 401 (nor 400 for garbage), by
    address and by account."""
    s = make_server(["--upload-rate", "2"])
    key = new_key()
    good = raw_jws(header_for(key), make_payload(), key)
    forged = good[:-4] + ("AAAA" if not good.endswith("AAAA") else "BBBB")
    assert_error(s.upload(forged.encode()), 401, "invalid_signature")   # under the limit: checked
    for _ in range(2):
        assert upload_payload(s, make_payload(), new_key()).status_code == 201
    assert_error(s.upload(forged.encode()), 429, "rate_limited")
    assert_error(s.upload(b"not a jws at all"), 429, "rate_limited")
    token = s.account("flooder")
    auth = {"Authorization": "Bearer " + token}
    for _ in range(2):
        k = new_key()
        assert s.upload(raw_jws(header_for(k), make_payload(), k).encode(), headers=auth).status_code == 201
    assert_error(s.upload(forged.encode(), headers=auth), 429, "rate_limited")
    # An unknown token is still refused as such: the lookup comes first.
    assert_error(s.upload(forged.encode(), headers={"Authorization": "Bearer nope"}), 401, "invalid_token")
    assert count_runs(s) == 4


def test_rejected_uploads_do_not_use_up_the_rate(make_server):
    s = make_server(["--upload-rate", "2"])
    for _ in range(5):
        assert upload_payload(s, make_payload(suite_version="suite-v9")).status_code == 422
    assert upload_payload(s, make_payload()).status_code == 201


# ---- no input crashes the server ----

def test_mutated_uploads_never_crash_or_store(server):
    """Deterministic random mutations of a valid upload: every answer is a
    contract error (or, rarely, a valid run), and the daemon keeps going."""
    rng = random.Random(1234)
    key = new_key()
    good = raw_jws(header_for(key), make_payload(), key).encode()
    stored = 0
    for i in range(300):
        b = bytearray(good)
        for _ in range(rng.randint(1, 6)):
            op = rng.randrange(4)
            at = rng.randrange(len(b))
            if op == 0:
                b[at] = rng.randrange(256)
            elif op == 1:
                del b[at:at + rng.randint(1, 40)]
            elif op == 2:
                b[at:at] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 8)))
            else:
                b[at] = ord(rng.choice(".=+/ A_-"))
        r = server.upload(bytes(b))
        assert r.status_code in (200, 201, 400, 401, 422), (i, r.status_code, r.text)
        if r.status_code in (200, 201):
            stored += r.status_code == 201
            continue
        assert_error(r, r.status_code, r.json()["error"]["code"], ANY)
    assert count_runs(server) == stored
    assert server.get("/healthz").status_code == 200


def test_signed_hostile_payloads_never_crash(rserver):
    """Validly signed payloads with hostile values: each is a contract
    error, and the rserver keeps answering."""
    key = new_key()
    cases = [
        make_payload(model__name="\u202eevil\u0000"),
        make_payload(hardware__accelerator_summary="NVIDIA"),
        make_payload(model__name="////"),
        make_payload(workloads={"chat-short": [1, 2, 3]}),
        make_payload(model=[]),
        make_payload(hardware="M3"),
        make_payload(created_at="9999-12-31T23:59:59Z"),
        make_payload(created_at="0000-00-00T00:00:00Z"),
        make_payload(created_at="2026-04-28T10:12:00.1234567890Z"),
    ]
    for p in cases:
        r = rserver.upload(raw_jws(header_for(key), p, key))
        assert r.status_code in (400, 422), (p, r.text)
        assert_error(r, r.status_code, r.json()["error"]["code"], ANY)
    assert count_runs(rserver) == rserver.baseline
    assert rserver.get("/healthz").status_code == 200


def test_markup_in_names_is_stored_as_text(server):
    name = "<script>alert(1)</script>\"'&" * 6
    body = upload_ok(server, make_payload(model__name=name))
    run = server.get("/r/%s.json" % body["id"]).json()
    assert run["model"]["name"] == name
    assert re.match(r"^[a-z0-9]+(-[a-z0-9]+)*$", run["model"]["slug"]), run["model"]["slug"]


def test_rate_limits_count_an_ipv6_slash_64_as_one_client(make_server):
    """A host is given a whole IPv6 /64: new addresses in it do not buy new
    allowances, for uploads or for dispute posts; another /64 has its own."""
    s = make_server(["--upload-rate", "2", "--dispute-rate", "2", "--trust-proxy=127.0.0.1"])

    def up(addr):
        token, _ = sign(make_payload())
        return s.upload(token, headers={"X-Forwarded-For": addr})

    def dispute(rid, addr):
        return s.post("/api/v1/runs/%s/disputes" % rid, json={"body": "Why?"},
                      headers={"X-Forwarded-For": addr})

    first = up("2001:db8:1:2::1")
    assert first.status_code == 201, first.text
    assert up("2001:db8:1:2::2").status_code == 201
    r = up("2001:db8:1:2:ffff:ffff:ffff:fffe")
    assert r.status_code == 429 and r.json()["error"]["code"] == "rate_limited", r.text
    assert up("2001:db8:1:3::1").status_code == 201
    assert up("192.0.2.1").status_code == 201
    rid = first.json()["id"]
    assert dispute(rid, "2001:db8:5:6::1").status_code == 201
    assert dispute(rid, "2001:db8:5:6::a").status_code == 201
    assert dispute(rid, "2001:db8:5:6:1::").status_code == 429
    assert dispute(rid, "2001:db8:5:7::1").status_code == 201


def test_base_url_with_a_trailing_slash_makes_no_double_slash(make_server):
    """--base-url https://host/ and https://host give the same links: the
    contract's url, Location, badge_url and Markdown embed."""
    s = make_server(["--base-url", "https://llm-speed.example/"])
    token, _ = sign(make_payload())
    r = s.upload(token)
    assert r.status_code == 201, r.text
    rid = r.json()["id"]
    assert r.json()["url"] == "https://llm-speed.example/r/" + rid
    assert r.headers["Location"] == r.json()["url"]
    assert r.json()["badge_url"] == "https://llm-speed.example/badge/%s.svg" % rid
    md = "[![llm-speed](https://llm-speed.example/badge/%s.svg)](https://llm-speed.example/r/%s)" % (rid, rid)
    assert md in s.get("/r/%s" % rid).text
    assert "example//" not in s.get("/r/%s.json" % rid).text
