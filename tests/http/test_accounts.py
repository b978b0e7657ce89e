"""Accounts over the CLI and the upload endpoint (contract section 1 and 6):
`llm-speedd account add NAME` prints a bearer token once and stores only its
hash; uploads with the token are attributed to the account unless
X-LLM-Speed-Anon: 1; unknown or revoked tokens are 401 invalid_token."""
import hashlib
import os
import re
import sqlite3
import subprocess

import pytest

from conftest import BIN, ROOT, make_payload, new_key, sign, upload_payload


def cli(server, *args):
    return subprocess.run([BIN, "--db", server.db, "--assets", ROOT] + list(args),
                          capture_output=True, text=True, timeout=30)


def query(server, sql, params=()):
    con = sqlite3.connect("file:%s?mode=ro" % server.db, uri=True)
    try:
        return con.execute(sql, params).fetchall()
    finally:
        con.close()


def count_runs(server):
    return query(server, "SELECT count(*) FROM runs")[0][0]


def assert_401(server, r, before):
    assert r.status_code == 401, r.text
    err = r.json()["error"]
    assert err["code"] == "invalid_token", err
    assert err["message"].endswith(".") and len(err["message"].split()) >= 4, err
    assert count_runs(server) == before


def test_account_add_prints_a_token_once_and_stores_its_hash(server):
    out = cli(server, "account", "add", "alice")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert len(lines) == 1
    token = lines[0]
    assert re.match(r"^[A-Za-z0-9_-]{40,}$", token), token
    rows = query(server, "SELECT name, token_hash, revoked FROM accounts")
    assert len(rows) == 1
    name, token_hash, revoked = rows[0]
    assert name == "alice" and revoked == 0
    assert token_hash == hashlib.sha256(token.encode()).digest()
    # The token itself is nowhere in the database files.
    for suffix in ("", "-wal"):
        path = server.db + suffix
        if os.path.exists(path):
            with open(path, "rb") as f:
                assert token.encode() not in f.read()


def test_account_tokens_differ(server):
    a, b = server.account("a1"), server.account("b1")
    assert a != b


def test_account_add_of_a_taken_name_fails_without_a_token(server):
    server.account("alice")
    out = cli(server, "account", "add", "alice")
    assert out.returncode != 0
    assert out.stdout == ""
    assert "alice" in out.stderr
    assert query(server, "SELECT count(*) FROM accounts")[0][0] == 1


def test_account_add_refuses_a_bad_name(server):
    for bad in ("", "a b", "x" * 65, "<b>", "é"):
        out = cli(server, "account", "add", bad)
        assert out.returncode != 0, bad
        assert out.stdout == ""
        assert out.stderr.strip()
    assert query(server, "SELECT count(*) FROM accounts")[0][0] == 0


def test_upload_with_a_token_is_attributed(server):
    token = server.account("alice")
    r = upload_payload(server, make_payload(), headers={"Authorization": "Bearer " + token})
    assert r.status_code == 201, r.text
    rid = r.json()["id"]
    run = server.get("/r/%s.json" % rid).json()
    assert run["account"] == "alice"
    acc = query(server, "SELECT r.account_id = a.id FROM runs r, accounts a WHERE r.id = ? AND a.name = 'alice'", (rid,))
    assert acc == [(1,)]


def test_bearer_scheme_is_case_insensitive(server):
    token = server.account("alice")
    r = upload_payload(server, make_payload(), headers={"Authorization": "bearer " + token})
    assert r.status_code == 201, r.text
    assert server.get("/r/%s.json" % r.json()["id"]).json()["account"] == "alice"


def test_anon_header_keeps_the_run_unattributed(server):
    token = server.account("alice")
    key = new_key()
    r = upload_payload(server, make_payload(), key,
                       headers={"Authorization": "Bearer " + token, "X-LLM-Speed-Anon": "1"})
    assert r.status_code == 201, r.text
    rid = r.json()["id"]
    run = server.get("/r/%s.json" % rid).json()
    assert run["account"] is None
    # The key and the fingerprint hash are kept.
    assert run["hardware"]["fingerprint_hash"] == "3f9a0c11d2e4b5a6"
    assert run["signing"]["thumbprint"] == key.thumbprint()
    assert query(server, "SELECT account_id, fingerprint_hash FROM runs WHERE id = ?", (rid,)) == \
        [(None, "3f9a0c11d2e4b5a6")]


def test_anon_header_without_a_token(server):
    r = upload_payload(server, make_payload(), headers={"X-LLM-Speed-Anon": "1"})
    assert r.status_code == 201, r.text
    assert server.get("/r/%s.json" % r.json()["id"]).json()["account"] is None


def test_unknown_token_is_401(server):
    server.account("alice")
    r = upload_payload(server, make_payload(), headers={"Authorization": "Bearer lls_not-a-real-token"})
    assert_401(server, r, 0)


def test_near_miss_tokens_are_401(server):
    """What users paste: a padded token, a token with a quote, another
    scheme, the scheme alone, the token without the scheme."""
    token = server.account("alice")
    for auth in (token + "=", token + "==", '"%s"' % token, token[:-1], token.upper(),
                 "Basic " + token, "Token " + token, "Bearer", "Bearer ", token,
                 "Bearer  " + token, "Bearer " + token + " x"):
        r = upload_payload(server, make_payload(), headers={"Authorization": auth})
        assert_401(server, r, 0)
    assert server.get("/healthz").status_code == 200


def test_unknown_token_with_anon_header_is_still_401(server):
    """A wrong token is a configuration mistake worth saying, even when the
    run would not have been attributed."""
    r = upload_payload(server, make_payload(),
                       headers={"Authorization": "Bearer lls_nope", "X-LLM-Speed-Anon": "1"})
    assert_401(server, r, 0)


def test_revoked_token_is_401(server):
    token = server.account("alice")
    auth = {"Authorization": "Bearer " + token}
    assert upload_payload(server, make_payload(), headers=auth).status_code == 201
    out = cli(server, "account", "revoke", "alice")
    assert out.returncode == 0, out.stderr
    assert query(server, "SELECT revoked FROM accounts WHERE name = 'alice'") == [(1,)]
    r = upload_payload(server, make_payload(), headers=auth)
    assert_401(server, r, 1)
    # Earlier runs stay attributed.
    assert query(server, "SELECT count(*) FROM runs WHERE account_id IS NOT NULL") == [(1,)]


def test_revoke_of_an_unknown_account_fails(server):
    out = cli(server, "account", "revoke", "nobody")
    assert out.returncode != 0
    assert "nobody" in out.stderr


def test_account_cli_usage_errors(server):
    for args in (["account"], ["account", "add"], ["account", "delete", "x"],
                 ["account", "add", "a", "b"]):
        out = cli(server, *args)
        assert out.returncode == 2, args
        assert "usage" in out.stderr


def test_duplicate_upload_with_a_token_returns_the_first_run(server):
    token = server.account("alice")
    jws, _ = sign(make_payload())
    first = server.upload(jws)
    assert first.status_code == 201
    again = server.upload(jws, headers={"Authorization": "Bearer " + token})
    assert again.status_code == 200
    assert again.json()["id"] == first.json()["id"]
    assert server.get("/r/%s.json" % first.json()["id"]).json()["account"] is None


def test_rate_limit_is_per_account(make_server):
    s = make_server(["--upload-rate", "1"])
    a, b = s.account("a"), s.account("b")
    assert upload_payload(s, make_payload(), headers={"Authorization": "Bearer " + a}).status_code == 201
    r = upload_payload(s, make_payload(), headers={"Authorization": "Bearer " + a})
    assert r.status_code == 429, r.text
    assert r.json()["error"]["code"] == "rate_limited"
    assert int(r.headers["Retry-After"]) >= 1
    assert upload_payload(s, make_payload(), headers={"Authorization": "Bearer " + b}).status_code == 201


def help_account_forms():
    """The account command lines --help prints, e.g. 'account add NAME [--db F]'."""
    out = subprocess.run([BIN, "--help"], capture_output=True, text=True, timeout=30)
    assert out.returncode == 0
    forms = re.findall(r"llm-speedd (account \w+ NAME) \[--db F\]", out.stdout)
    assert sorted(forms) == ["account add NAME", "account revoke NAME"], out.stdout
    return forms


@pytest.mark.parametrize("where", ["before", "after", "between"])
def test_every_account_form_of_the_help_takes_its_options_anywhere(tmp_path, where):
    """`account add NAME --db FILE` (the form --help prints), `--db FILE
    account add NAME` and `account --db FILE add NAME` all act on FILE."""
    db = str(tmp_path / "accounts.db")
    opts = ["--db", db, "--assets", ROOT]
    for form in help_account_forms():
        words = form.replace("NAME", "erin").split()
        if where == "before":
            argv = opts + words
        elif where == "after":
            argv = words + opts
        else:
            argv = words[:1] + opts + words[1:]
        out = subprocess.run([BIN] + argv, capture_output=True, text=True, timeout=30)
        assert out.returncode == 0, (argv, out.stderr)
        assert "usage" not in out.stderr
        con = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
        try:
            rows = con.execute("SELECT name, token_hash, revoked FROM accounts").fetchall()
        finally:
            con.close()
        assert [r[0] for r in rows] == ["erin"]
        if words[1] == "add":
            assert rows[0][1] == hashlib.sha256(out.stdout.strip().encode()).digest()
            assert rows[0][2] == 0
        else:
            assert rows[0][2] == 1


def test_account_with_a_missing_name_or_an_unknown_option_is_a_usage_error(tmp_path):
    db = str(tmp_path / "accounts.db")
    for argv in (["account", "add", "--db", db], ["account", "add", "x", "--nope", "--db", db],
                 ["account", "add", "x", "y", "--db", db]):
        out = subprocess.run([BIN] + argv, capture_output=True, text=True, timeout=30)
        assert out.returncode == 2, argv
        assert out.stdout == "" and "usage" in out.stderr, argv
    assert not os.path.exists(db)


def test_the_sample_run_forms_of_the_help_work():
    out = subprocess.run([BIN, "--help"], capture_output=True, text=True, timeout=30)
    assert "llm-speedd sample-run [--help]" in out.stdout
    helped = subprocess.run([BIN, "sample-run", "--help"], capture_output=True, text=True, timeout=30)
    assert helped.returncode == 0 and "usage: llm-speedd sample-run" in helped.stdout
    run = subprocess.run([BIN, "sample-run"], capture_output=True, text=True, timeout=30)
    assert run.returncode == 0
    assert re.match(r"^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$", run.stdout.strip())
