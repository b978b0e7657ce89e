"""Attacks from the security probe (issue 11): ES256 malleability, lenient
HTTP parsing, bidi text, connection exhaustion."""
import base64
import sqlite3

from conftest import Server, make_payload, new_key, sign

# The order of the P-256 group.
P256_N = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551


def b64u(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64u(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def flip_s(token):
    """The same ES256 JWS with s replaced by n - s: a second valid
    signature over the same bytes."""
    head, payload, sig = token.split(".")
    raw = unb64u(sig)
    r, s = raw[:32], int.from_bytes(raw[32:], "big")
    return "%s.%s.%s" % (head, payload, b64u(r + (P256_N - s).to_bytes(32, "big")))


def count_runs(server):
    con = sqlite3.connect("file:%s?mode=ro" % server.db, uri=True)
    try:
        return con.execute("SELECT count(*) FROM runs").fetchone()[0]
    finally:
        con.close()


def test_es256_s_flip_by_another_account_is_the_same_run(server):
    alice, mallory = server.account("alice"), server.account("mallory")
    token, _ = sign(make_payload(), new_key("ES256"))
    first = server.upload(token, {"Authorization": "Bearer " + alice})
    assert first.status_code == 201, first.text
    twin = flip_s(server.get("/r/%s.jws" % first.json()["id"]).text)
    assert twin != token
    again = server.upload(twin, {"Authorization": "Bearer " + mallory})
    assert again.status_code == 200, again.text
    assert again.json()["id"] == first.json()["id"]
    assert count_runs(server) == 1
    run = server.get("/r/%s.json" % first.json()["id"]).text
    assert "mallory" not in run


def test_es256_high_s_is_accepted(server):
    """Hardware keys produce either form; both verify and are stored."""
    token, _ = sign(make_payload(), new_key("ES256"))
    r = server.upload(flip_s(token))
    assert r.status_code == 201, r.text


def test_payload_dedup_survives_the_migration_backfill(tmp_path):
    """Runs stored before migration 0008 get their payload digest."""
    s = Server(str(tmp_path))
    try:
        token, _ = sign(make_payload(), new_key("ES256"))
        first = s.upload(token).json()["id"]
        s.stop()
        con = sqlite3.connect(s.db)
        con.executescript("DROP INDEX runs_key_payload; ALTER TABLE runs DROP COLUMN payload_sha256;"
                          "DELETE FROM schema_migrations WHERE version = 8;")
        con.close()
        s.start()
        again = s.upload(flip_s(token))
        assert again.status_code == 200, again.text
        assert again.json()["id"] == first
    finally:
        s.stop()
