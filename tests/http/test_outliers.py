"""Outlier flags (contract section 4) checked against an independent
computation: runs are uploaded over HTTP into generated clusters, and every
run's /r/<id>.json flag and figures must match a plain-Python computation
of the rule over the runs the test itself knows.

The rule: in a run's fingerprint cluster (suite, model digest, hardware
class, backend) and in its combination (suite, model, digest, hardware
slug, backend) each signing key counts once, as the median decode of its
counted runs there.  The bounds are the mean plus and minus 3 population
standard deviations of those key values after sigma clipping: a key whose
value and every counted run lie outside the bounds leaves, and the bounds
are computed again (at most 10 rounds, and never to no spread at all), so one extreme key cannot widen
them until nothing is ever flagged.  A run is flagged when its decode is
outside its combination's bounds, or outside its cluster's when the
cluster has 11 keys or more.  With the population standard deviation one
value of n can be at most sqrt(n - 1) standard deviations from the mean,
so a key whose runs agree needs 11 keys around it before it can be
flagged; a run judged by fewer is "not yet checked".  Independently of
both, a run whose decode is more than 1.5 times its peak-bandwidth
ceiling is flagged (reason "above_ceiling") and is in no population."""
import math
import random
import re
import statistics

import pytest

from conftest import digest_for, make_payload, new_key, sign

SUITE = "suite-v1"
MIN_KEYS = 11
CLIP_ROUNDS = 10


def population(values):
    """(n, mean, population standard deviation) of values."""
    n = len(values)
    mean = sum(values) / n
    return n, mean, math.sqrt(sum((x - mean) ** 2 for x in values) / n)


def clipped(per_key):
    """(keys, mean, sd) of per_key (key -> its runs' decodes) after sigma
    clipping, keys counting every key."""
    vals = {k: statistics.median(xs) for k, xs in per_key.items()}
    out = set()

    def moments():
        left = [v for k, v in vals.items() if k not in out]
        return population(left)[1:] if left else (0.0, 0.0)

    mean, sd = moments()
    for _ in range(CLIP_ROUNDS):
        if sd <= 0:
            break
        lo, hi = mean - 3 * sd, mean + 3 * sd
        gone = [k for k, v in vals.items() if k not in out and not lo <= v <= hi
                and all(not lo <= x <= hi for x in per_key[k])]
        if not gone:
            break
        out.update(gone)
        m2, s2 = moments()
        if s2 <= 0:
            break       # a round that would leave no spread is not taken
        mean, sd = m2, s2
    return len(vals), mean, sd


def outside(x, mean, sd):
    return sd > 0 and abs(x - mean) > 3 * sd


class Clusters:
    """The test's own record of every uploaded run: its signing key, its
    cluster and combination, its decode."""

    def __init__(self, server):
        self.server = server
        self.runs = {}          # id -> (key id, cluster, combination, decode)
        self.above = {}         # id -> above 1.5 times its peak ceiling
        self.exact = False      # True: the figures are exact in binary, a
                                # point on the boundary is meant

    def upload(self, decode, backend="mlx", model="Qwen3-Coder-30B-A3B-Instruct",
               digest=None, fingerprint="3f9a0c11d2e4b5a6", accel="M3 Ultra", hw_slug="m3-ultra",
               key=None, slug="qwen3-coder-30b-a3b"):
        """Uploads one run, signed by key (None: a fresh key each time);
        fingerprint None makes it strict-anon (no fingerprint hash).
        Returns (id, 201 body)."""
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
        key = key or new_key()
        token, _ = sign(p, key)
        r = self.server.upload(token)
        assert r.status_code == 201, r.text
        body = r.json()
        peak = (self.server.get("/r/%s.json" % body["id"]).json().get("ceiling") or {}).get("peak_tok_s")
        self.above[body["id"]] = peak is not None and decode > 1.5 * peak
        # contract section 4: the fingerprint together with the resolved hardware
        hw_class = fingerprint + ":" + hw_slug if fingerprint is not None else "slug:" + hw_slug
        self.runs[body["id"]] = (key.thumbprint(),
                                 (SUITE, p["model"]["digest"], hw_class, backend),
                                 (SUITE, slug, p["model"]["digest"], hw_slug, backend), decode)
        return body["id"], body

    def pop(self, which, of):
        """(keys, mean, sd) of population which (1 cluster, 2 combination) of
        of, clipped, runs above their ceiling left out."""
        per_key = {}
        for rid, (k, c, w, x) in self.runs.items():
            if (c, w)[which - 1] == of and not self.above[rid]:
                per_key.setdefault(k, []).append(x)
        return clipped(per_key) if per_key else (0, 0.0, 0.0)

    def expected(self, run_id):
        """(flagged, checked, judging keys, mean, sd) by the rule; the judge
        is the population that decides (the cluster when it judges and flags
        the run, or has more keys and the combination does not flag it)."""
        _, c, w, x = self.runs[run_id]
        ck, cmean, csd = self.pop(1, c)
        wk, wmean, wsd = self.pop(2, w)
        for mean, sd in ((cmean, csd), (wmean, wsd)):
            if sd > 0 and not self.exact:
                # Keep clear of the boundary, where rounding could decide.
                assert abs(abs(x - mean) / sd - 3) > 1e-6, "test data sits on the 3-sigma boundary"
        cflag = ck >= MIN_KEYS and outside(x, cmean, csd)
        wflag = outside(x, wmean, wsd)
        flag = self.above[run_id] or cflag or wflag
        by_cluster = ck >= MIN_KEYS and (cflag and not wflag or not wflag and ck > wk)
        keys, mean, sd = (ck, cmean, csd) if by_cluster else (wk, wmean, wsd)
        self.by_cluster = by_cluster
        return flag, flag or ck >= MIN_KEYS or wk >= MIN_KEYS, keys, mean, sd

    def check(self, run_id):
        """Asserts the server's view of run_id matches the computation."""
        want, checked, keys, mean, sd = self.expected(run_id)
        r = self.server.get("/r/%s.json" % run_id)
        assert r.status_code == 200, r.text
        o = r.json()["outlier"]
        assert o["flagged"] is want, (run_id, o, want, keys, mean, sd)
        assert o["checked"] is checked, (run_id, o)
        assert o["reason"] == (None if not want else "above_ceiling" if self.above[run_id] else "cluster")
        assert o["hw_class"] == self.runs[run_id][1][2]
        assert o["judging_keys"] == keys
        assert o["decided_by"] == ("cluster" if self.by_cluster else "combination")
        if self.above[run_id]:
            return want
        judge = o["cluster"] if o["decided_by"] == "cluster" else o["combination"]
        assert judge["mean"] == pytest.approx(mean, rel=1e-9, abs=1e-9)
        assert judge["stddev"] == pytest.approx(sd, rel=1e-9, abs=1e-9)
        if sd > 0:
            assert o["sigma"] == pytest.approx((self.runs[run_id][3] - mean) / sd, rel=1e-9, abs=1e-9)
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
    are kept apart, small ones are judged by their combination; flags and
    figures match the computation, and the 201 body's boolean too."""
    rng = random.Random(20260428)
    c = Clusters(server)
    d2 = "sha256:" + "ab" * 16
    plan = [
        # (values, upload keyword arguments)
        (tight(rng, 100, 14) + [160.0], {}),
        (tight(rng, 50, 12) + [80.0], {"backend": "llama.cpp"}),
        (tight(rng, 70, 12) + [20.0], {"digest": d2}),
        (tight(rng, 120, 13) + [190.0], {"fingerprint": None}),
        # A small cluster of its own inside the first one's combination.
        (tight(rng, 90, 5) + [91.0], {"fingerprint": "0123456789abcdef"}),
        (tight(rng, 30, 11) + [300.0], {"fingerprint": None, "accel": "NVIDIA GeForce RTX 4090", "hw_slug": "rtx-4090"}),
        ([100.0, 400.0], {"backend": "vllm"}),
    ]
    for values, kw in plan:
        rng.shuffle(values)
        for v in values:
            rid, body = c.upload(v, **kw)
            # The 201 body agrees with the rule as things stand right then.
            assert body["outlier"] is c.expected(rid)[0]
    want_flagged = {rid for rid in c.runs if c.check(rid)}
    # Not vacuous: some clusters have a flagged run, some runs are clean.
    assert len(want_flagged) >= 4
    assert len(want_flagged) < len(c.runs)
    assert len({k for _, k, _, _ in c.runs.values()}) == len(plan)
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
    assert history[0] is False
    assert True in history
    assert history[-1] is False
    assert history.index(True) >= 9     # 11 keys at least before any flag
    assert first not in outlier_ids(server)


def test_ten_keys_cannot_flag_exactly_three_sigma_is_not_more(server):
    """Ten keys cannot flag anything: nine at 10 and one at 100 give mean
    19 and standard deviation 27 exactly, so the far key is exactly
    sqrt(9) = 3 standard deviations out, which is not more than 3 (and 100
    is within this model's ceiling on an M3 Ultra)."""
    c = Clusters(server)
    c.exact = True
    for v in [10.0] * 9 + [100.0]:
        c.upload(v)
    for rid in c.runs:
        assert c.check(rid) is False
    assert outlier_ids(server) == set()


def test_one_key_cannot_flag_another(server):
    """Issue 23, finding 1: a victim's one run at 200, then another key's
    eleven runs at about 100 in the same cluster: two keys, so the victim
    is not flagged, and nobody is checked yet."""
    c = Clusters(server)
    victim, _ = c.upload(200.0)
    other = new_key()
    for i in range(11):
        _, body = c.upload(100.0 + 0.02 * i, key=other)
        assert body["outlier"] is False
    o = server.get("/r/%s.json" % victim).json()["outlier"]
    assert o["flagged"] is False and o["checked"] is False
    assert o["cluster"]["keys"] == 2 and o["cluster"]["n"] == 12
    for rid in c.runs:
        c.check(rid)
    page = server.get("/r/%s" % victim).text
    assert "Not yet checked against other runs" in page
    assert "needs 11 submitters to flag" in page
    assert victim not in outlier_ids(server)


def test_own_fingerprint_is_checked_against_the_combination(server):
    """Finding 2: a 950 tok/s run with a fingerprint nobody else uses is a
    cluster of one, so the wider combination (same model, digest, hardware
    slug and backend) judges it, and flags it."""
    c = Clusters(server)
    for i in range(14):
        c.upload(100.0 + 0.4 * i, fingerprint="%016x" % (0xa000 + i))
    lone, body = c.upload(600.0, fingerprint="fedcba9876543210")
    assert body["outlier"] is True
    o = server.get("/r/%s.json" % lone).json()["outlier"]
    assert o["decided_by"] == "combination" and o["checked"] is True
    assert o["cluster"]["keys"] == 1 and o["combination"]["keys"] == 15
    assert c.check(lone) is True
    assert lone in outlier_ids(server)
    # Alone in its combination too, it would say so instead of looking clean.
    alone, body = c.upload(600.0, fingerprint="0f0f0f0f0f0f0f0f", backend="exllamav2")
    assert body["outlier"] is False
    o = server.get("/r/%s.json" % alone).json()["outlier"]
    assert o["checked"] is False
    assert "Not yet checked against other runs" in server.get("/r/%s" % alone).text


def test_far_above_the_ceiling_is_flagged_alone(server):
    """A 2,000 tok/s Llama 3.1 8B Q4_K_M run on an RTX 4090 (both in the
    reference data: about 165 tok/s at most) is flagged "above the
    bandwidth ceiling" though nothing else was ever measured there."""
    p = make_payload()
    p["model"].update(name="Llama-3.1-8B-Instruct", quantization="Q4_K_M", format="gguf",
                      digest=digest_for("Llama-3.1-8B-Instruct-Q4_K_M"))
    p["backend"]["name"] = "llama.cpp"
    p["hardware"].update(accelerator_summary="NVIDIA GeForce RTX 4090", gpu_name="NVIDIA GeForce RTX 4090",
                         vram_gb=24, fingerprint_hash="1234123412341234")
    p["workloads"]["chat-short"]["decode_tok_s"] = 2000.0
    r = server.upload(sign(p)[0])
    assert r.status_code == 201, r.text
    body = r.json()
    assert body["outlier"] is True          # a boolean, as the contract keeps it
    rid = body["id"]
    j = server.get("/r/%s.json" % rid).json()
    assert j["outlier"]["flagged"] is True and j["outlier"]["reason"] == "above_ceiling"
    assert j["outlier"]["checked"] is True
    assert j["ceiling"]["above"] is True and j["ceiling"]["ceiling_tok_s"] < 200
    page = server.get("/r/%s" % rid).text
    assert "above the bandwidth ceiling" in page
    assert rid in outlier_ids(server)
    # 250 tok/s is above the physical line (the ceiling at the maker's peak
    # bandwidth, about 205 tok/s) but within 1.5 times it: marked, not flagged.
    assert 200 < j["ceiling"]["peak_tok_s"] < 250 * 0.9
    p["workloads"]["chat-short"]["decode_tok_s"] = 250.0
    p["hardware"]["fingerprint_hash"] = "5678567856785678"
    r = server.upload(sign(p)[0])
    assert r.json()["outlier"] is False
    j = server.get("/r/%s.json" % r.json()["id"]).json()
    assert j["ceiling"]["above"] is True and j["outlier"]["flagged"] is False


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
    """A swarm of fresh keys and one steady key whose five runs weigh as
    one: the run page and its JSON say how many keys stand behind the
    cluster and how many are new, and the model list shows the same sigma
    as the run page.  When a swarm key stores a second run (elsewhere), it
    is no longer new, and the cached page of the first cluster says so."""
    c = Clusters(server)
    steady = new_key()
    rng = random.Random(7)
    ids = []
    for v in tight(rng, 100, 5):
        rid, _ = c.upload(v, key=steady)
        ids.append(rid)
    swarm = [new_key() for _ in range(10)]
    for k, v in zip(swarm, tight(rng, 100, 10)):
        c.upload(v, key=k)
    far, _ = c.upload(300.0)       # one more fresh key, far away
    o = server.get("/r/%s.json" % far).json()["outlier"]
    assert o["flagged"] is True and c.check(far)
    assert o["cluster"]["n"] == 16
    assert (o["cluster"]["keys"], o["cluster"]["new_keys"]) == (12, 11)
    page = server.get("/r/%s" % far).text
    assert "a cluster of 16 runs from 12 submitters, 11 of them new" in page
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
    assert "12 submitters, 10 of them new" in server.get("/r/%s" % far).text
    # A steady run's cached page follows its cluster too.
    assert server.get("/r/%s.json" % ids[0]).json()["outlier"]["cluster"]["n"] == 16


def test_every_run_that_judged_a_run_is_reachable_from_its_page(server):
    """Issue 37: a fingerprint cluster is (digest, this machine, backend)
    whatever model name its runs were uploaded under, so runs named as
    another model judged a run and appeared nowhere its page led.  Its
    page links /r/<id>/judges, which lists every counted run of its
    cluster a page at a time, whatever the name, and leaves out what does
    not judge (a run above its ceiling)."""
    digest = digest_for("judges-7b")
    llama = "Meta-Llama-3.1-8B-Instruct"           # a reference model: it has a ceiling
    names = [llama] * 3 + ["Someone-Else-7B"] * 3
    ids = []
    for i, name in enumerate(names + [llama] * 50):
        p = make_payload()
        p["model"].update({"name": name, "digest": digest})
        p["workloads"]["chat-short"]["decode_tok_s"] = 100.0 + i * 0.1
        r = server.upload(sign(p, new_key())[0])
        assert r.status_code == 201, r.text
        ids.append(r.json()["id"])
    p = make_payload()
    p["model"].update({"name": llama, "digest": digest})
    p["workloads"]["chat-short"]["decode_tok_s"] = 5000.0          # far above the ceiling
    far = server.upload(sign(p, new_key())[0]).json()["id"]
    assert server.get("/r/%s.json" % far).json()["outlier"]["reason"] == "above_ceiling"
    run = server.get("/r/%s.json" % ids[0]).json()
    assert run["model"]["slug"] != server.get("/r/%s.json" % ids[3]).json()["model"]["slug"]
    url = run["outlier"]["judges_url"]
    assert url == "/r/%s/judges" % ids[0]
    listed, page, first = [], url + ".json", None
    while page:
        got = server.get(page)
        assert got.status_code == 200, got.text
        body = got.json()
        listed += [x["id"] for x in body["list"]["runs"]]
        first = first or body["list"]["runs"]
        page = body["list"]["next"]
    assert sorted(listed) == sorted(ids)                     # all, once each, over pages
    assert far not in listed
    html = server.get("/r/%s" % ids[0]).text
    assert 'href="%s"' % url in html
    text = server.get(url).text                              # the HTML holds the same page
    assert all(x["id"] in text for x in first)
    assert {x["model"]["slug"] for x in server.get(url + ".json").json()["list"]["runs"]} <= \
        {run["model"]["slug"], server.get("/r/%s.json" % ids[3]).json()["model"]["slug"]}
    assert server.get("/r/r_nosuchrun00/judges").status_code == 404
