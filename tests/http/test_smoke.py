"""The daemon starts, answers /healthz, stores a signed run and stops on SIGTERM."""
from conftest import make_payload, sign


def test_healthz(server):
    r = server.get("/healthz")
    assert r.status_code == 200


def test_upload_then_read_back(server):
    token, key = sign(make_payload())
    r = server.upload(token)
    assert r.status_code == 201, r.text
    body = r.json()
    assert body["id"].startswith("r_") and len(body["id"]) == 13
    assert r.headers["Location"] == body["url"]
    assert body["outlier"] is False
    got = server.get("/r/%s.jws" % body["id"])
    assert got.status_code == 200
    assert got.headers["Content-Type"] == "application/jose"
    assert got.content == token.encode()


def test_sigterm_exits_zero(server):
    assert server.stop() == 0
