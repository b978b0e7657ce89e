"""/u/<name>: an account's runs (never the ones it uploaded anonymously),
keyset-paged, with JSON and CSV twins and its feed."""
import pytest

from conftest import make_payload, new_key, sign, validate_html


def upload(server, decode, headers=None):
    p = make_payload()
    p["workloads"]["chat-short"]["decode_tok_s"] = decode
    r = server.upload(sign(p, new_key())[0], headers)
    assert r.status_code == 201, r.text
    return r.json()["id"]


def test_account_page_lists_its_runs_only(server, tmp_path):
    token = server.account("alice")
    auth = {"Authorization": "Bearer " + token}
    mine = [upload(server, 10.0 + i, auth) for i in range(25)]
    anon = upload(server, 99.0, dict(auth, **{"X-LLM-Speed-Anon": "1"}))
    other = upload(server, 98.0)
    page = server.get("/u/alice")
    assert page.status_code == 200
    assert anon not in page.text and other not in page.text
    assert '<link rel="alternate" type="application/atom+xml" href="/u/alice.atom"' in page.text
    ok, report = validate_html(page.text, tmp_path)
    assert ok, report
    # Keyset pages of 20, fastest first, through the JSON twin.
    j = server.get("/u/alice.json").json()
    first = [r["id"] for r in j["list"]["runs"]]
    assert first == list(reversed(mine))[:20]
    nxt = server.get(j["list"]["next"]).json()
    assert [r["id"] for r in nxt["list"]["runs"]] == list(reversed(mine))[20:]
    assert nxt["list"]["next"] is None
    csv = server.get("/u/alice.csv")
    assert csv.headers["Content-Type"].startswith("text/csv")
    assert csv.text.count("\r\n") == 21 and anon not in csv.text
    # The run page links its account.
    assert 'href="/u/alice"' in server.get("/r/%s" % mine[0]).text


def test_unknown_or_impossible_account_is_404(server):
    assert server.get("/u/nobody").status_code == 404
    assert server.get("/u/nobody.json").json()["error"]["code"] == "not_found"
    assert server.get("/u/bad%20name").status_code == 404
