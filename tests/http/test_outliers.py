"""Outlier flags (contract section 4) checked against an independent
computation: runs are uploaded over HTTP into generated clusters, and every
run's /r/<id>.json flag and cluster figures must match a plain-Python
population mean and standard deviation over the runs the test itself knows
to share suite, model digest, hardware class and backend.

With the population standard deviation one point of n can be at most
sqrt(n - 1) standard deviations from the mean, so a cluster needs at least
11 runs before anything can be flagged."""
import math
import random
import re

import pytest

from conftest import digest_for, make_payload, new_key, sign

SUITE = "suite-v1"


def population(xs):
    """(n, mean, population standard deviation) of xs."""
    n = len(xs)
    mean = sum(xs) / n
    return n, mean, math.sqrt(sum((x - mean) ** 2 for x in xs) / n)


def flagged(x, mean, sd):
    return sd > 0 and abs(x - mean) > 3 * sd


class Clusters:
    """The test's own record of every uploaded run and its cluster key."""

    def __init__(self, server):
        self.server = server
        self.runs = {}          # id -> (key, decode_tok_s)
        self.exact = False      # True: the figures are exact in binary, a
                                # point on the boundary is meant

    def upload(self, decode, backend="mlx", model="Qwen3-Coder-30B-A3B-Instruct",
               digest=None, fingerprint="3f9a0c11d2e4b5a6", accel="M3 Ultra", hw_slug="m3-ultra"):
        """Uploads one run; fingerprint None makes it strict-anon (fresh
        key, no fingerprint hash, no account).  Returns (id, 201 body)."""
        p = make_payload()
        p["model"]["name"] = model
        p["model"]["digest"] = digest or digest_for(model)
        p["backend"]["name"] = backend
        p["hardware"]["accelerator_summary"] = accel
        if fingerprint is None:
            del p["hardware"]["fingerprint_hash"]
        else:
            p["hardware"]["fingerprint_hash"] = fingerprint
        p["workloads"]["chat-short"]["decode_tok_s"] = decode
        token, _ = sign(p, new_key())
        r = self.server.upload(token)
        assert r.status_code == 201, r.text
        body = r.json()
        hw_class = fingerprint if fingerprint is not None else "slug:" + hw_slug
        self.runs[body["id"]] = ((SUITE, p["model"]["digest"], hw_class, backend), decode)
        return body["id"], body

    def members(self, key):
        return [(i, x) for i, (k, x) in self.runs.items() if k == key]

    def expected(self, run_id):
        """(flagged, n, mean, sd) for run_id by the independent computation."""
        key, x = self.runs[run_id]
        n, mean, sd = population([v for _, v in self.members(key)])
        if sd > 0 and not self.exact:
            # Keep clear of the boundary, where rounding could decide.
            assert abs(abs(x - mean) / sd - 3) > 1e-6, "test data sits on the 3-sigma boundary"
        return flagged(x, mean, sd), n, mean, sd

    def check(self, run_id):
        """Asserts the server's view of run_id matches the computation."""
        want, n, mean, sd = self.expected(run_id)
        r = self.server.get("/r/%s.json" % run_id)
        assert r.status_code == 200, r.text
        o = r.json()["outlier"]
        assert o["flagged"] is want, (run_id, o, want, n, mean, sd)
        assert o["hw_class"] == self.runs[run_id][0][2]
        assert o["cluster"]["n"] == n
        assert o["cluster"]["mean"] == pytest.approx(mean, rel=1e-9, abs=1e-9)
        assert o["cluster"]["stddev"] == pytest.approx(sd, rel=1e-9, abs=1e-9)
        if sd > 0:
            assert o["sigma"] == pytest.approx((self.runs[run_id][1] - mean) / sd, rel=1e-9, abs=1e-9)
        return want


def outlier_ids(server):
    r = server.get("/outliers")
    assert r.status_code == 200
    return set(re.findall(r'id="outlier-(r_[a-z0-9_-]{11})"', r.text))


def tight(rng, centre, n, spread=0.02):
    return [round(centre * (1 + rng.uniform(-spread, spread)), 3) for _ in range(n)]


def test_flags_match_independent_computation_across_split_clusters(server):
    """Clusters that differ only in backend, digest, hardware class
    (fingerprint against strict-anon hardware slug, and slug against slug)
    are kept apart; flags and figures match the computation."""
    rng = random.Random(20260428)
    c = Clusters(server)
    d2 = "sha256:" + "ab" * 16
    plan = [
        # (values, upload keyword arguments)
        (tight(rng, 100, 14) + [160.0], {}),
        (tight(rng, 50, 12) + [80.0], {"backend": "llama.cpp"}),
        (tight(rng, 70, 12) + [20.0], {"digest": d2}),
        (tight(rng, 120, 13) + [190.0], {"fingerprint": None}),
        (tight(rng, 90, 12) + [91.0], {"fingerprint": "0123456789abcdef"}),
        (tight(rng, 30, 11) + [300.0], {"fingerprint": None, "accel": "NVIDIA GeForce RTX 4090", "hw_slug": "rtx-4090"}),
        ([100.0, 400.0], {"backend": "vllm"}),
    ]
    for values, kw in plan:
        rng.shuffle(values)
        for v in values:
            rid, body = c.upload(v, **kw)
            # The 201 body agrees with the cluster as it stands right then.
            assert body["outlier"] is c.expected(rid)[0]
    want_flagged = {rid for rid in c.runs if c.check(rid)}
    # Not vacuous: some clusters have a flagged run, some runs are clean.
    assert len(want_flagged) >= 4
    assert len(want_flagged) < len(c.runs)
    # Every cluster of the plan is its own: 7 distinct keys.
    assert len({k for k, _ in c.runs.values()}) == len(plan)
    assert outlier_ids(server) == want_flagged


def test_growing_cluster_flags_then_clears_an_earlier_run(server):
    """A later upload flags an earlier run, and later ones clear it again;
    after every upload the whole cluster matches the computation."""
    c = Clusters(server)
    first, body = c.upload(200.0)
    assert body["outlier"] is False
    history = []
    normals = [100.0 + ((i * 37) % 11 - 5) * 0.3 for i in range(12)]
    for v in normals + [199.0, 201.0, 198.0]:
        c.upload(v)
        for rid in c.runs:
            c.check(rid)
        history.append(c.expected(first)[0])
    # The first run was clean, became flagged as the cluster grew, and was
    # cleared when more runs like it arrived.
    assert history[0] is False
    assert True in history
    assert history[-1] is False
    assert history.index(True) >= 9     # 11 runs at least before any flag
    assert first not in outlier_ids(server)


def test_ten_runs_cannot_flag_exactly_three_sigma_is_not_more(server):
    """Ten runs cannot flag anything: nine at 100 and one at 1000 give mean
    190 and standard deviation 270 exactly, so the far run is exactly
    sqrt(9) = 3 standard deviations out, which is not more than 3."""
    c = Clusters(server)
    c.exact = True
    for v in [100.0] * 9 + [1000.0]:
        c.upload(v)
    for rid in c.runs:
        assert c.check(rid) is False
    assert outlier_ids(server) == set()


def test_outliers_page_lists_flagged_runs_and_validates(server, tmp_path):
    from conftest import validate_html
    c = Clusters(server)
    for v in [100.0] * 12 + [500.0]:
        c.upload(v)
    flagged_ids = {rid for rid in c.runs if c.check(rid)}
    assert len(flagged_ids) == 1
    r = server.get("/outliers")
    assert r.status_code == 200
    assert r.headers["Content-Type"].startswith("text/html")
    (rid,) = flagged_ids
    assert 'href="/r/%s#dispute"' % rid in r.text
    ok, report = validate_html(r.text, tmp_path)
    assert ok, report
    # The thread's size in words, singular for one post.
    for n, words in ((1, "(1 post)"), (2, "(2 posts)")):
        p = server.post("/api/v1/runs/%s/disputes" % rid, json={"body": "Post %d." % n})
        assert p.status_code == 201, p.text
        row = server.get("/outliers").text.split('id="outlier-%s"' % rid)[1].split("</tr>")[0]
        assert words in row, row
    assert "1 posts" not in server.get("/outliers").text
    assert server.get("/outliers?after=0").status_code == 400
    assert server.get("/outliers?after=x:" + rid).status_code == 400
    # The cursor is (received_at, id): nothing is older than the epoch.
    empty = server.get("/outliers?after=0:" + rid)
    assert empty.status_code == 200 and 'id="outlier-%s"' % rid not in empty.text
    assert rid not in server.get("/outliers?suite=suite-v9").text
    # A suite argument that is not text is the client's mistake, said so.
    for bad in ["%FF", "x" * 200]:
        r = server.get("/outliers?suite=" + bad)
        assert r.status_code == 400, r.text
        assert "suite-v1" in r.text and r.headers["Content-Type"].startswith("text/html")


def find_run(obj, run_id):
    """The list item with id run_id anywhere in a JSON document."""
    if isinstance(obj, dict):
        if obj.get("id") == run_id and "sigma" in obj:
            return obj
        obj = list(obj.values())
    if isinstance(obj, list):
        for v in obj:
            hit = find_run(v, run_id)
            if hit is not None:
                return hit
    return None


def test_flags_show_the_keys_behind_the_cluster_and_lists_agree(server):
    """A swarm of fresh keys flags a run; the run page and its JSON say how
    many keys stand behind the cluster and how many are new, and the model
    list shows the same sigma as the run page.  When a swarm key stores a
    second run (elsewhere), it is no longer new, and the cached page of the
    first cluster says so."""
    c = Clusters(server)
    steady = new_key()
    rng = random.Random(7)
    ids = []
    for v in tight(rng, 100, 5):
        p = make_payload()
        p["workloads"]["chat-short"]["decode_tok_s"] = v
        p["model"]["digest"] = digest_for(p["model"]["name"])
        token, _ = sign(p, steady)
        r = server.upload(token)
        assert r.status_code == 201, r.text
        ids.append(r.json()["id"])
    swarm = [new_key() for _ in range(10)]
    for k, v in zip(swarm, tight(rng, 100, 10)):
        p = make_payload()
        p["workloads"]["chat-short"]["decode_tok_s"] = v
        p["model"]["digest"] = digest_for(p["model"]["name"])
        assert server.upload(sign(p, k)[0]).status_code == 201
    far, _ = c.upload(300.0)       # one more fresh key, far away
    o = server.get("/r/%s.json" % far).json()["outlier"]
    assert o["flagged"] is True
    assert o["cluster"]["n"] == 16
    assert (o["cluster"]["keys"], o["cluster"]["new_keys"]) == (12, 11)
    page = server.get("/r/%s" % far).text
    assert "a cluster of 16 runs from 12 signing keys, 11 of them new" in page
    # Lists compute sigma from the same figures as the run page.
    slug = server.get("/r/%s.json" % far).json()["model"]["slug"]
    item = find_run(server.get("/m/%s.json" % slug).json(), far)
    assert item is not None and item["sigma"] == pytest.approx(o["sigma"], rel=1e-12)
    assert item["sigma"] > 3
    # A swarm key signs a second run in another cluster: no longer new.
    p = make_payload()
    p["backend"]["name"] = "vllm"
    assert server.upload(sign(p, swarm[0])[0]).status_code == 201
    o = server.get("/r/%s.json" % far).json()["outlier"]
    assert (o["cluster"]["keys"], o["cluster"]["new_keys"]) == (12, 10)
    assert "12 signing keys, 10 of them new" in server.get("/r/%s" % far).text
    # A steady run's cached page follows its cluster too.
    assert server.get("/r/%s.json" % ids[0]).json()["outlier"]["cluster"]["n"] == 16
