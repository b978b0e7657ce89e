"""Signed withdrawal (POST /api/v1/runs/<id>/withdraw): who may withdraw,
the refusals, and a withdrawn run leaving every ranking, summary and its
cluster while its page stays and says so."""
import sqlite3

import pytest

from conftest import MODERATOR_TOKEN, make_payload, new_key, sign, validate_html

UNKNOWN = "r_zzzzzzzzzzz"


def upload(server, key=None, decode=100.0, **over):
    p = make_payload(**over)
    p["workloads"]["chat-short"]["decode_tok_s"] = decode
    token, key = sign(p, key or new_key())
    r = server.upload(token)
    assert r.status_code == 201, r.text
    return r.json()["id"], key


def withdraw_token(rid, key, reason="Measured with the wrong model file.", **over):
    body = {"run_id": rid, "action": "withdraw", "reason": reason}
    body.update(over)
    return sign(body, key)[0]


def send(server, rid, token, ctype="application/jose"):
    return server.post("/api/v1/runs/%s/withdraw" % rid, data=token.encode(),
                       headers={"Content-Type": ctype})


def error_of(r, status, code, field=None):
    assert r.status_code == status, r.text
    e = r.json()["error"]
    assert e["code"] == code, e
    assert e["message"] and e["message"][0].isupper()
    if field is not None:
        assert e.get("field") == field, e
    return e


def summaries(db):
    """The summary tables as stored, and as recomputed from runs."""
    c = sqlite3.connect(db)
    try:
        stored = {
            # The board's combinations (migration 0020): each one's best
            # unflagged run and its counted runs.
            "board": sorted(c.execute("SELECT suite_version, model_slug, model_digest, hw_slug, backend_name, "
                                      "best_id, runs FROM combos WHERE t_runs > 0")),
            "hw": sorted(c.execute("SELECT suite_version, hw_slug, model_slug, best_id FROM hw_best")),
            "digest": sorted(c.execute("SELECT suite_version, model_slug, model_digest, runs, best_id FROM digest_counts")),
        }
        fresh = {
            "board": sorted(c.execute(
                "SELECT suite_version, model_slug, model_digest, hw_slug, backend_name, "
                "(SELECT id FROM runs r2 WHERE r2.suite_version = r.suite_version AND r2.model_slug = r.model_slug "
                " AND r2.model_digest = r.model_digest AND r2.hw_slug = r.hw_slug "
                " AND r2.backend_name = r.backend_name AND r2.status = 'ok' AND r2.outlier = 0 "
                " ORDER BY decode_tok_s DESC, id DESC LIMIT 1), count(*) "
                "FROM runs r WHERE status = 'ok' GROUP BY 1, 2, 3, 4, 5 HAVING sum(outlier = 0) > 0")),
            "hw": sorted(c.execute(
                "SELECT suite_version, hw_slug, model_slug, "
                "(SELECT id FROM runs r2 WHERE r2.suite_version = r.suite_version AND r2.hw_slug = r.hw_slug "
                " AND r2.model_slug = r.model_slug AND r2.status = 'ok' ORDER BY decode_tok_s DESC, id DESC LIMIT 1) "
                "FROM runs r WHERE status = 'ok' GROUP BY 1, 2, 3")),
            "digest": sorted(c.execute(
                "SELECT suite_version, model_slug, model_digest, count(*), "
                "(SELECT id FROM runs r2 WHERE r2.suite_version = r.suite_version AND r2.model_slug = r.model_slug "
                " AND r2.model_digest = r.model_digest AND r2.status = 'ok' ORDER BY decode_tok_s DESC, id DESC LIMIT 1) "
                "FROM runs r WHERE status = 'ok' GROUP BY 1, 2, 3")),
        }
    finally:
        c.close()
    return stored, fresh


def test_refusals_name_what_to_fix(server):
    rid, key = upload(server)
    error_of(send(server, UNKNOWN, withdraw_token(UNKNOWN, key)), 404, "not_found")
    error_of(send(server, rid, withdraw_token(rid, key), ctype="application/json"),
             415, "unsupported_media_type")
    error_of(send(server, rid, "not.a.jws"), 400, "malformed_jws")
    # A flipped signature byte: the signature does not verify.
    tok = withdraw_token(rid, key)
    head, body, sig = tok.split(".")
    sig = ("A" if sig[0] != "A" else "B") + sig[1:]
    error_of(send(server, rid, ".".join([head, body, sig])), 401, "invalid_signature")
    # Another key, however valid its signature, may not withdraw it.
    error_of(send(server, rid, withdraw_token(rid, new_key())), 403, "forbidden_key")
    error_of(send(server, rid, withdraw_token(rid, new_key("ES256"))), 403, "forbidden_key")
    # The payload is bound to this run and this action.
    other, _ = upload(server, key=key, decode=101.0)
    error_of(send(server, rid, withdraw_token(other, key)), 422, "schema_violation", "run_id")
    error_of(send(server, rid, withdraw_token(rid, key, action="delete")), 422, "schema_violation", "action")
    error_of(send(server, rid, withdraw_token(rid, key, reason="")), 422, "schema_violation", "reason")
    error_of(send(server, rid, withdraw_token(rid, key, reason="x" * 501)), 422, "schema_violation", "reason")
    error_of(send(server, rid, withdraw_token(rid, key, reason="a\x00b")), 422, "schema_violation", "reason")
    # Nothing of that withdrew it.
    assert server.get("/r/%s.json" % rid).json()["status"] == "ok"
    assert server.get("/r/%s.json" % rid).json()["withdrawal"] is None


@pytest.mark.parametrize("kind", ["Ed25519", "ES256"])
def test_withdrawn_run_leaves_rankings_and_cluster_but_its_page_stays(server, tmp_path, kind):
    values = [100.0, 100.5, 99.5, 100.2, 99.8, 100.1, 99.9, 100.3, 99.7, 100.4, 99.6, 100.0]
    ids = [upload(server, decode=v)[0] for v in values]
    bad, key = upload(server, key=new_key(kind), decode=400.0)
    j = server.get("/r/%s.json" % bad).json()
    slug, hw = j["model"]["slug"], j["hardware"]["slug"]
    before = server.get("/r/%s.json" % ids[0]).json()["outlier"]["cluster"]
    assert before["n"] == 13 and j["outlier"]["flagged"] is True
    # The fastest run, flagged: listed among the model's runs and the
    # outliers, but never a figure of the board or the hardware page
    # (issue 22: flagged runs leave the typical figures).
    for path in ("/m/%s" % slug, "/outliers"):
        assert bad in server.get(path).text, path
    board = server.get("/index.json").json()["board"]["rows"]
    assert [r["best_run"] for r in board] == [ids[1]] and board[0]["flagged_runs"] == 1
    assert bad not in server.get("/hw/%s" % hw).text
    assert server.get("/badge/%s.svg" % bad).status_code == 200  # cached before

    reason = "Measured with <b>the wrong</b> model file & a hot cache."
    r = send(server, bad, withdraw_token(bad, key, reason=reason))
    assert r.status_code == 200, r.text
    out = r.json()
    assert out["run_id"] == bad and out["status"] == "withdrawn" and out["reason"] == reason
    assert out["withdrawn_at"].endswith("Z") and out["url"].endswith("/r/" + bad)

    # Out of the cluster: the others' figures are the other twelve's.
    after = server.get("/r/%s.json" % ids[0]).json()["outlier"]["cluster"]
    assert after["n"] == 12
    assert after["mean"] == pytest.approx(sum(values) / len(values))
    # Out of every list (the cached pages were dropped), and the summary
    # tables are what a recomputation from runs gives.
    for path in ("/", "/m/%s" % slug, "/hw/%s" % hw, "/outliers",
                 "/m/%s.json" % slug, "/hw/%s.json" % hw):
        assert bad not in server.get(path).text, path
    stored, fresh = summaries(server.db)
    assert stored == fresh
    assert all(bad not in row for rows in stored.values() for row in rows)
    # The page stays and says so, with the reason (escaped) and the date.
    page = server.get("/r/%s" % bad)
    assert page.status_code == 200
    assert "Withdrawn by its submitter" in page.text
    assert "&lt;b&gt;the wrong&lt;/b&gt; model file &amp; a hot cache." in page.text
    assert out["withdrawn_at"] in page.text
    ok, report = validate_html(page.text, tmp_path)
    assert ok, report
    j = server.get("/r/%s.json" % bad).json()
    assert j["status"] == "withdrawn" and j["outlier"]["flagged"] is False
    assert j["withdrawal"] == {"withdrawn_at": out["withdrawn_at"], "reason": reason}
    assert "withdrawn" in server.get("/badge/%s.svg" % bad).text
    # The exact signed run stays public.
    assert server.get("/r/%s.jws" % bad).status_code == 200


def test_replay_and_second_withdrawal_are_refused(server):
    rid, key = upload(server)
    tok = withdraw_token(rid, key)
    assert send(server, rid, tok).status_code == 200
    error_of(send(server, rid, tok), 409, "already_withdrawn")
    error_of(send(server, rid, withdraw_token(rid, key, reason="Again.")), 409, "already_withdrawn")
    # The same bytes cannot withdraw another run either: they name this one.
    other, _ = upload(server, key=key, decode=90.0)
    error_of(send(server, other, tok), 422, "schema_violation", "run_id")
    assert server.get("/r/%s.json" % other).json()["status"] == "ok"


def test_a_later_ruling_does_not_bring_a_withdrawn_run_back(server):
    values = [100.0, 101.0, 99.0]
    ids = [upload(server, decode=v)[0] for v in values]
    rid, key = upload(server, decode=100.5)
    assert send(server, rid, withdraw_token(rid, key)).status_code == 200
    assert server.post("/api/v1/runs/%s/disputes" % rid, json={"body": "Odd."}).status_code == 201
    r = server.post("/api/v1/runs/%s/disputes/resolve" % rid, json={"resolution": "dismissed"},
                    headers={"Authorization": "Bearer " + MODERATOR_TOKEN})
    assert r.status_code == 200, r.text
    assert r.json()["run_status"] == "withdrawn"
    assert server.get("/r/%s.json" % rid).json()["status"] == "withdrawn"
    assert server.get("/r/%s.json" % ids[0]).json()["outlier"]["cluster"]["n"] == 3
    stored, fresh = summaries(server.db)
    assert stored == fresh
