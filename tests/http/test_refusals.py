"""Failures cost the sender (issue 25): every refused upload counts against
its address, in an allowance checked before the signature is verified, and
wrong moderator tokens have a limit of their own."""
import base64
import json
import threading
import time

import pytest

from conftest import MODERATOR_TOKEN, client_from, make_payload, new_key, sign, wait_for

JOSE = {"Content-Type": "application/jose"}


def b64u(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64u(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def bad_signature(kind="ES256"):
    """A well-formed JWS whose signature does not verify (one bit of s
    flipped): the server does the whole verification to refuse it."""
    token, _ = sign(make_payload(), new_key(kind))
    head, payload, sig = token.split(".")
    raw = bytearray(unb64u(sig))
    raw[-1] ^= 1
    return "%s.%s.%s" % (head, payload, b64u(bytes(raw)))


def post(session, server, body, headers=JOSE):
    return session.post(server.url + "/api/v1/runs", data=body.encode() if isinstance(body, str) else body,
                        headers=headers, timeout=30)


def honest(session, server):
    return post(session, server, sign(make_payload())[0])


def assert_limited(r):
    assert r.status_code == 429, r.text
    assert r.json()["error"]["code"] == "rate_limited"
    assert int(r.headers["Retry-After"]) >= 1


def test_bad_signature_flood_is_refused_before_verifying(make_server):
    """Before: every bad ES256 signature was verified (4-5 ms of CPU each)
    and answered 401; none got 429."""
    server = make_server(["--upload-rate", "30"])
    bad = bad_signature("ES256")
    assert post(client_from("127.0.0.1"), server, bad).status_code == 401
    counts, lock, stop = {}, threading.Lock(), threading.Event()

    def flood():
        s = client_from("127.0.0.1")
        while not stop.is_set():
            code = post(s, server, bad).status_code
            with lock:
                counts[code] = counts.get(code, 0) + 1

    threads = [threading.Thread(target=flood) for _ in range(4)]
    t0 = time.time()
    for t in threads:
        t.start()
    try:
        # Honest uploads from another address are answered meanwhile.
        other = client_from("127.0.0.2")
        for _ in range(5):
            r = honest(other, server)
            assert r.status_code == 201, r.text
        try:
            wait_for(lambda: sum(counts.values()) >= 300, timeout=60 - (time.time() - t0))
        except AssertionError:
            pass                   # judged below on what did arrive
    finally:
        stop.set()
        for t in threads:
            t.join()
    minutes = (time.time() - t0) / 60
    assert set(counts) <= {401, 429}, counts
    # 120 in any minute by default (bursts of 30, then 90 a minute).
    assert counts.get(401, 0) <= 30 + 90 * minutes + 2, counts
    assert counts.get(429, 0) >= 200, counts
    r = post(client_from("127.0.0.1"), server, bad)
    assert_limited(r)
    assert "refused" in r.json()["error"]["message"]


@pytest.mark.parametrize("kind", ["bad_ed25519", "schema", "hosted_api", "media_type", "token",
                                  "malformed", "look_alike", "look_alike_word"])
def test_every_refusal_counts_against_the_address(make_server, kind):
    server = make_server(["--upload-rate", "30", "--refusal-rate", "4"])
    model = make_payload()["model"]["name"]
    assert honest(client_from("127.0.0.9"), server).status_code == 201
    bad = {
        # A look-alike of a stored name: one letter in another script, and
        # a whole word of look-alike letters (found by the writer, which
        # knows the stored names).
        "look_alike": (sign(make_payload(model__name=model.replace("o", "\u043e", 1)))[0], JOSE, 422),
        "look_alike_word": (sign(make_payload(model__name=model.replace("A3B", "\u04103\u0412")))[0],
                            JOSE, 422),
        "bad_ed25519": (bad_signature("Ed25519"), JOSE, 401),
        "schema": (sign(make_payload(workloads__chat_short__decode_tok_s=-1))[0], JOSE, 422),
        "hosted_api": (sign(make_payload(backend__name="hosted-api"))[0], JOSE, 422),
        "media_type": (sign(make_payload())[0], {"Content-Type": "text/plain"}, 415),
        "token": (sign(make_payload())[0], dict(JOSE, Authorization="Bearer nope"), 401),
        "malformed": ("not.a.jws", JOSE, 400),
    }[kind]
    s = client_from("127.0.0.3")
    r = post(s, server, bad[0], bad[1])
    assert r.status_code == bad[2], r.text
    # --refusal-rate 4: a burst of one, then three a minute; even an
    # honest upload from that address now waits.
    assert_limited(honest(s, server))
    assert honest(client_from("127.0.0.4"), server).status_code == 201


def test_accepted_uploads_do_not_use_the_refusal_allowance(make_server):
    server = make_server(["--upload-rate", "30", "--refusal-rate", "4"])
    s = client_from("127.0.0.5")
    for _ in range(6):
        assert honest(s, server).status_code == 201
    assert post(s, server, bad_signature("Ed25519")).status_code == 401
    assert_limited(post(s, server, bad_signature("Ed25519")))


def test_upload_rate_zero_lifts_the_refusal_allowance(server):
    """The test servers run with --upload-rate 0, as load tests do."""
    bad = bad_signature("Ed25519")
    s = client_from("127.0.0.1")
    for _ in range(60):
        assert post(s, server, bad).status_code == 401


def test_refusal_rate_zero_lifts_it_too(make_server):
    server = make_server(["--upload-rate", "30", "--refusal-rate", "0"])
    bad = bad_signature("Ed25519")
    s = client_from("127.0.0.1")
    for _ in range(40):
        assert post(s, server, bad).status_code == 401


# ---- moderator tokens ----

def resolve(session, server, rid, token):
    return session.post(server.url + "/api/v1/runs/%s/disputes/resolve" % rid,
                        data=json.dumps({"resolution": "dismissed"}),
                        headers={"Content-Type": "application/json",
                                 "Authorization": "Bearer " + token}, timeout=10)


def test_wrong_moderator_tokens_are_limited_even_with_dispute_rate_zero(server):
    """Before: with --dispute-rate 0 (as here), 300 wrong tokens all got
    401 in a quarter of a second."""
    rid = honest(client_from("127.0.0.1"), server).json()["id"]
    s = client_from("127.0.0.6")
    codes = [resolve(s, server, rid, "guess-%d" % i).status_code for i in range(40)]
    assert set(codes) <= {401, 429}, codes
    assert codes.count(401) <= 20, codes
    assert codes[-1] == 429, codes
    r = resolve(s, server, rid, "guess")
    assert_limited(r)
    assert "moderator" in r.json()["error"]["message"]
    # Over the allowance even the right token waits: a guess learns nothing.
    assert resolve(s, server, rid, MODERATOR_TOKEN).status_code == 429
    # Another address is not held back.
    assert resolve(client_from("127.0.0.7"), server, rid, MODERATOR_TOKEN).status_code == 200


def test_wrong_moderator_token_does_not_use_the_posting_allowance(make_server):
    """Before: at the default --dispute-rate of 5, five wrong guesses used
    up the address's posts."""
    server = make_server(["--dispute-rate", "5"])
    rid = honest(client_from("127.0.0.1"), server).json()["id"]
    s = client_from("127.0.0.8")
    for i in range(5):
        assert resolve(s, server, rid, "guess-%d" % i).status_code == 401
    for i in range(5):
        r = s.post(server.url + "/api/v1/runs/%s/disputes" % rid,
                   data=json.dumps({"body": "Post %d after the guesses." % i}),
                   headers={"Content-Type": "application/json"}, timeout=10)
        assert r.status_code == 201, r.text
    r = s.post(server.url + "/api/v1/runs/%s/disputes" % rid, data=json.dumps({"body": "One too many."}),
               headers={"Content-Type": "application/json"}, timeout=10)
    assert_limited(r)


def test_the_new_limits_are_documented():
    import subprocess
    from conftest import BIN, ROOT
    out = subprocess.run([BIN, "--help"], capture_output=True, text=True, timeout=10).stdout
    assert "--refusal-rate" in out and "LLMSPEED_REFUSAL_RATE" in out
    assert "wrong moderator tokens" in out
    readme = open(ROOT + "/README.md").read().lower()
    assert "--refusal-rate" in readme and "wrong moderator token" in readme
