#!/usr/bin/python3
"""pages_digest.py: one SHA-256 per answer of the daemon on a fixed database,
to show that a change keeps every page's bytes.

    tests/bench/pages_digest.py --bin ./llm-speedd > after.txt
    diff before.txt after.txt

prints "<sha256> <status> <METHOD> <path>" for every page kind (each page
and its JSON, CSV and Atom twins, with the query arguments the tests use),
the fixed routes (badges, cards, the run's JWS, the log, the sitemaps,
static files, the export), error pages (400, 404, 405, 413, 415, 422 ...),
redirects (301, 303), conditional requests (304), and the answers of the
write endpoints (upload, dispute posts by API and form, a ruling, a
withdrawal), then the pages those writes change.  The digest covers the
status line, every header but Date, and the body.

The database is fixed, not rebuilt: the first run builds it with --bin into
--fixture (default build/pages-fixture): the demo runs, a few runs signed
by keys derived from fixed seeds, an account, dispute posts, rulings and a
withdrawal, all under a frozen clock (--test-clock) and a fixed --base-url,
so that nothing a page shows depends on the machine, the port or the time.
Run ids, the log's key and the form-token key are random when drawn; the
fixture keeps them, and every later run (of any binary) serves a copy of
it under the same frozen clock, so the same bytes are due each time.  Keep
one fixture for a before/after comparison (--fixture DIR); delete it to
draw a new one.

Needs /usr/bin/python3 with `cryptography` (as tests/bench/bench.py).
"""
import argparse
import base64
import hashlib
import http.client
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
ASSETS = ROOT      # --assets: templates/, static/, migrations/, schema/
sys.path.insert(0, os.path.join(ROOT, "tests", "http"))
from conftest import make_payload, digest_for, MODERATOR_TOKEN  # noqa: E402

BASE = "http://llm-speed.test"
# The frozen clock: 2030-03-17T17:46:40Z.  Later than any real start of
# the daemon, so the sitemap's reference pages' <lastmod> (the later of
# the newest run and the process's start on the real clock) is the
# newest run's.
T0 = 1900000000
DB = "llm-speed.db"


def iso(t):
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))


def b64u(b):
    return base64.urlsafe_b64encode(b).rstrip(b"=").decode()


class Signer:
    """An Ed25519 key drawn from a fixed seed, and its compact JWS."""

    def __init__(self, n):
        seed = hashlib.sha256(b"pages-digest-key-%d" % n).digest()
        self.key = Ed25519PrivateKey.from_private_bytes(seed)
        x = self.key.public_key().public_bytes(serialization.Encoding.Raw,
                                               serialization.PublicFormat.Raw)
        header = {"alg": "EdDSA", "jwk": {"kty": "OKP", "crv": "Ed25519", "x": b64u(x)}}
        self.header = b64u(json.dumps(header, separators=(",", ":")).encode())

    def sign(self, payload):
        data = payload if isinstance(payload, bytes) else json.dumps(payload, sort_keys=True).encode()
        signing_input = self.header + "." + b64u(data)
        return (signing_input + "." + b64u(self.key.sign(signing_input.encode()))).encode()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Daemon:
    """llm-speedd on dir's database, frozen at T0, behind the fixed origin."""

    def __init__(self, binary, d, extra=()):
        self.binary, self.dir = binary, d
        self.exports = 0
        with open(os.path.join(d, "clock"), "w") as f:
            f.write("%d\n" % T0)
        self.port = free_port()
        env = dict(os.environ, LLMSPEED_MODERATOR_TOKEN=MODERATOR_TOKEN)
        self.log = open(os.path.join(d, "server.log"), "ab")
        self.proc = subprocess.Popen(
            [binary, "--listen", "127.0.0.1:%d" % self.port, "--db", os.path.join(d, DB),
             "--assets", ASSETS, "--base-url", BASE, "--test-clock", os.path.join(d, "clock"),
             "--upload-rate", "0", "--dispute-rate", "0", "--search-rate", "0",
             "--max-per-ip", "512", "--threads", "2"] + list(extra),
            stdout=self.log, stderr=self.log, env=env)
        self.wait(lambda: self.request("GET", "/healthz")[0] == 200, "/healthz")

    def command(self, *args):
        out = subprocess.run([self.binary, "--db", os.path.join(self.dir, DB), "--assets", ROOT,
                              "--test-clock", os.path.join(self.dir, "clock")] + list(args),
                             capture_output=True, text=True, timeout=60)
        if out.returncode:
            raise SystemExit("%s: %s" % (" ".join(args), out.stderr))
        return out.stdout

    def request(self, method, path, body=None, headers=None):
        """(status, [(header, value)], body bytes); status 0 when the
        daemon does not answer."""
        # Exports are limited per address (2 a minute, on the monotonic
        # clock): each comes from an address of its own.
        src = None
        if path.startswith("/export"):
            self.exports += 1
            src = ("127.0.1.%d" % self.exports, 0)
        c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30, source_address=src)
        try:
            c.request(method, path, body=body, headers=headers or {})
            r = c.getresponse()
            return r.status, r.getheaders(), r.read()
        except (ConnectionError, OSError, http.client.HTTPException):
            if self.proc.poll() is not None:
                raise SystemExit("llm-speedd exited; see %s/server.log" % self.dir)
            return 0, [], b""
        finally:
            c.close()

    def json(self, path):
        status, _, body = self.request("GET", path)
        if status != 200:
            raise SystemExit("GET %s: %d %s" % (path, status, body[:300]))
        return json.loads(body)

    def wait(self, cond, what, timeout=30):
        deadline = time.monotonic() + timeout
        while not cond():
            if self.proc.poll() is not None:
                raise SystemExit("llm-speedd exited; see %s/server.log" % self.dir)
            if time.monotonic() > deadline:
                raise SystemExit("waited %d s for %s" % (timeout, what))
            time.sleep(0.05)

    def settle(self):
        """Waits until the log has signed every entry and the refresh
        thread owes nothing, so the pages stop changing."""
        def refreshed():
            m = re.search(rb"^llmspeed_refresh_owed (\S+)$", self.request("GET", "/metrics")[2], re.M)
            return m is not None and float(m.group(1)) == 0
        def signed():
            m = re.search(rb"^llmspeed_tlog_entries (\S+)$", self.request("GET", "/metrics")[2], re.M)
            status, _, ck = self.request("GET", "/log/checkpoint")
            return m is None or (status == 200 and int(ck.split(b"\n")[1]) >= float(m.group(1)))
        self.wait(refreshed, "the refresh thread to catch up")
        self.wait(signed, "the log to sign every entry")

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()


# ---- the fixture ----

# The runs the fixture adds to the demo's: (signer, model, hardware,
# backend, decode tok/s).  Three keys on one combination give it typical
# figures; the last of them is far off (an outlier).
RUNS = [
    (1, "Qwen3-8B", "M3 Ultra", "llama.cpp", 61.5),
    (2, "Qwen3-8B", "M3 Ultra", "llama.cpp", 63.0),
    (3, "Qwen3-8B", "M3 Ultra", "llama.cpp", 60.2),
    (1, "Qwen3-8B", "NVIDIA GeForce RTX 4090", "vllm", 120.4),
    (2, "Llama-3.1-8B-Instruct", "NVIDIA GeForce RTX 4090", "llama.cpp", 128.0),
    (4, "Llama-3.1-8B-Instruct", "NVIDIA GeForce RTX 4090", "llama.cpp", 131.5),
    (3, "Llama-3.1-8B-Instruct", "NVIDIA GeForce RTX 4090", "llama.cpp", 129.1),
    (4, "Qwen3-8B", "M3 Ultra", "llama.cpp", 190.0),
]


def run_payload(i, model, hw, backend, decode):
    quant, fmt = ("Q4_K_M", "gguf") if backend != "vllm" else ("AWQ-4bit", "safetensors")
    p = make_payload(model__name=model, model__digest=digest_for(model + quant),
                     model__quantization=quant, model__format=fmt,
                     hardware__accelerator_summary=hw,
                     hardware__fingerprint_hash="%016x" % (0x1000 + i),
                     backend__name=backend, backend__version="b6123" if backend == "llama.cpp" else "0.11.0",
                     workloads__chat_short__decode_tok_s=decode)
    p["created_at"] = iso(T0 - 3600 + 60 * i)
    return p


def upload_run(d, i, row, token=None):
    n, model, hw, backend, decode = row
    h = {"Content-Type": "application/jose"}
    if token:
        h["Authorization"] = "Bearer " + token
    status, _, body = d.request("POST", "/api/v1/runs", Signer(n).sign(run_payload(i, *row[1:])), h)
    if status not in (200, 201):
        raise SystemExit("upload %d: %d %s" % (i, status, body[:300]))
    return json.loads(body)["id"]


def build_fixture(binary, fx):
    """Fills fx with the demo, RUNS, an account's run, dispute posts, two
    rulings and a withdrawal; writes fx/fixture.json (ids and names)."""
    os.makedirs(fx)
    d = Daemon(binary, fx, ["--demo"])
    try:
        token = d.command("account", "add", "alice").strip()
        ids = [upload_run(d, i, row, token if i == 4 else None) for i, row in enumerate(RUNS)]
        post = lambda rid, body, h: d.request("POST", "/api/v1/runs/%s/disputes" % rid, body, h)  # noqa: E731
        jh = {"Content-Type": "application/json"}
        post(ids[7], json.dumps({"author": "Ann", "body": "Three times the others; a typo?"}), jh)
        post(ids[7], Signer(4).sign({"run_id": ids[7], "body": "Measured twice.", "nonce": "a"}),
             {"Content-Type": "application/jose"})
        post(ids[3], json.dumps({"body": "Which driver?"}), jh)
        post(ids[5], json.dumps({"body": "Seems high."}), jh)
        mh = {"Content-Type": "application/json", "Authorization": "Bearer " + MODERATOR_TOKEN}
        d.request("POST", "/api/v1/runs/%s/disputes/resolve" % ids[7],
                  json.dumps({"resolution": "upheld", "note": "Not reproducible."}), mh)
        d.request("POST", "/api/v1/runs/%s/disputes/resolve" % ids[3],
                  json.dumps({"resolution": "dismissed"}), mh)
        d.request("POST", "/api/v1/runs/%s/withdraw" % ids[6],
                  Signer(3).sign({"run_id": ids[6], "action": "withdraw", "reason": "Wrong build."}),
                  {"Content-Type": "application/jose"})
        d.settle()
        models = [m["slug"] for m in d.json("/models.json")["rows"]]
        hws = [h["slug"] for h in d.json("/hardware.json")["rows"]]
        index = d.json("/index.json")
        demo = [r["id"] for r in index["recent"]["runs"]][:6]
        combos = [(c["model_slug"], c["hw_slug"]) for c in index["board"]["rows"]]
        kinds = json.loads(subprocess.run([binary, "kinds"], capture_output=True, check=True).stdout)
    finally:
        d.stop()
    with open(os.path.join(fx, "fixture.json"), "w") as f:
        json.dump({"ids": ids, "demo_ids": demo, "token": token, "models": models, "hws": hws,
                   "combos": combos, "kinds": kinds}, f, indent=1)


# ---- the requests ----

def star(path, *args):
    """path with each '*' replaced by the next of args."""
    for a in args:
        path = path.replace("*", urllib.parse.quote(a, safe=""), 1)
    return path


def kind_paths(k, fx):
    """Every address of kind k (page, JSON, CSV, feed) for the things the
    fixture holds."""
    arg = k["arg"]
    if arg == "run":
        things = [(r,) for r in fx["ids"] + fx["demo_ids"] + ["r_y2_5y8oo97d", "r_fpsca03u2o_"]]
    elif arg == "model":
        things = [(m,) for m in fx["models"]]
    elif arg == "hw":
        things = [(h,) for h in fx["hws"]]
    elif arg == "account":
        things = [("alice",)]
    elif arg == "model-hw":
        things = sorted(set(tuple(c) for c in fx["combos"]))[:12] + [("qwen3-8b", "m3-ultra")]
    else:
        things = [()]
    out = []
    for t in things:
        for p in (k["path"], k["json"], k["csv"], k["feed"]):
            if p:
                out.append(star(p, *t))
    return out


def gets(fx):
    """The GET paths, in order."""
    ids, m0, h0 = fx["ids"], fx["models"][0], fx["hws"][0]
    out = []
    for k in fx["kinds"]:
        out += kind_paths(k, fx)
    q = [
        # sorting, filters, paging
        "/?sort=ttft", "/?sort=best", "/index.json?sort=best", "/index.json?sort=date",
        "/index.json?sort=nope", "/index.csv?after=bogus", "/?hw=m3-ultra",
        "/?hw=&hw=m3-ultra&backend=", "/?hw=rtx-4090&hw=m3-ultra",
        "/?backend=llama.cpp", "/?suite=suite-v1", "/?suite=suite-v9",
        "/m/qwen3-8b?sort=decode", "/m/qwen3-8b.json?sort=ttft", "/m/qwen3-8b?sort=date",
        "/m/qwen3-8b.csv?sort=date", "/m/qwen3-8b?hw=m3-ultra&backend=llama.cpp",
        "/m/qwen3-8b.json?backend=nope", "/m/qwen3-8b.json?suite=suite-v3",
        "/m/qwen3-8b.json?digests_after=x", "/m/qwen3-8b.json?digest=",
        "/m/qwen3-8b.json?digest=" + urllib.parse.quote(digest_for("Qwen3-8BQ4_K_M")),
        "/hw/m3-ultra?sort=ttft", "/hw/m3-ultra.csv?sort=ttft", "/hw/m3-ultra.json?model=qwen3-8b",
        "/hw/m3-ultra.json?suite=suite-v2",
        "/models?sort=speed", "/models.csv?sort=name", "/models.json?sort=runs",
        "/hardware.csv?sort=name", "/hardware.csv?sort=name&cursor=m3-ultra", "/hardware?sort=bogus",
        "/outliers?sort=ttft", "/outliers.json?sort=date", "/outliers?after=x:", "/outliers?after=0",
        "/outliers?suite=", "/outliers?suite=suite-v9", "/outliers.csv?after=zz",
        "/disputes?sort=posts", "/disputes?state=upheld", "/disputes.json?state=dismissed",
        "/disputes.json?state=closed", "/disputes.csv?state=upheld", "/disputes?after=-1:",
        "/disputes?suite=%FF", "/disputes.json?after=",
        "/cheatsheet?backend=llama.cpp", "/cheatsheet.csv?memory=24", "/cheatsheet?memory=bogus",
        "/changes.json?backend=mlx", "/changes?hw=m3-ultra", "/changes.atom?backend=mlx",
        "/r/%s?after=0" % ids[7], "/r/%s.json?after=1" % ids[7], "/r/%s?after=0&sort=x" % ids[7],
        "/r/%s?after=bogus" % ids[7],
        # search, compare, fit, explain
        "/search?q=qwen", "/search.json?q=qwen", "/search.csv?q=llama", "/search?q=", "/search?q=zzzz",
        "/search?q=Qwen3-8B", "/search?q=qwen3-8b+on+m3-ultra", "/search.json?q=Qwen3-8B+on+M3+Ultra",
        "/search?q=qwen&page=2", "/search?q=qwen&page=x",
        "/compare?r=%s,%s" % (ids[0], ids[1]), "/compare.json?r=%s,%s,%s" % (ids[0], ids[3], ids[4]),
        "/compare.csv?r=%s,%s" % (ids[0], ids[1]), "/compare.csv?r=nope", "/compare.csv?r=",
        "/compare?r=%s&with=%s" % (ids[0], ids[1]),
        "/fit?model=qwen2-5-7b&hw=m3-ultra", "/fit.json?model=llama-3-1-8b&hw=rtx-4090",
        "/fit.json?model=llama-3-1-8b&hw=rtx-4090&format=q4_k_m&context=384",
        "/fit?model=qwen2-5-7b&hw=rtx-4090&context=abc", "/fit?model=nope&hw=nope",
        "/explain/quantization?model=llama-3-1-8b", "/explain/quantization?model=nope",
        # the picker and canonical names
        "/?model=qwen3-8b&hw=m3-ultra", "/?model=Qwen3-8B&hw=M3+Ultra&suite=suite-v1",
        "/?model=&hw=m3-ultra", "/?model=nope&hw=m3-ultra", "/?model=qwen3-8b&hw=nope",
        "/m/Qwen3-8B", "/m/Qwen3-8B.json", "/hw/M3%20Ultra", "/m/No%20Such%20Model", "/m/NOT_A_SLUG.csv",
        "/m/Not_A_Slug.atom",
        "/m/%s/hw/rtx-5090" % m0, "/m/qwen3-8b/hw/no-such-hw",
        # fixed routes
        "/healthz", "/r/%s.jws" % ids[0], "/r/r_y2_5y8oo97d.jws", "/r/r_doesnotexis.jws",
        "/badge/%s.svg" % ids[0], "/badge/%s.json" % ids[0], "/badge/%s.svg" % ids[7],
        "/badge/%s.svg" % ids[6], "/badge/r_aaaaaaaaaaa.svg", "/badge/r_aaaaaaaaaaa.json",
        "/badge/r_y2_5y8oo97d.svg",
        "/card/%s.svg" % ids[0], "/card/%s.png" % ids[0], "/card/r_aaaaaaaaaaa.png",
        "/card/r_aaaaaaaaaaa.gif", "/card/m/%s.svg" % m0, "/card/m/%s.png" % m0,
        "/card/hw/%s.svg" % h0, "/card/hw/%s.png" % h0, "/card/m/nope.svg", "/card/hw/nope.png",
        "/log/checkpoint", "/log/tile/0/000", "/log/tile/0/000.p/1", "/log/tile/0/001.p/1",
        "/log/tile/1/000.p/1", "/log/tile/entries/000", "/log/tile/entries/000.p/1",
        "/log/tile/0/0", "/log/tile/0/999",
        "/static/style.css", "/static/typeahead.js", "/static/nope.css", "/favicon.ico",
        "/robots.txt", "/sitemap.xml", "/sitemap-1.xml", "/sitemap-2.xml", "/sitemap-x.xml",
        "/sitemap.xml?x=1", "/.well-known/security.txt", "/export",
        "/feed.atom", "/disputes.atom", "/u/nobody.atom", "/m/nope.atom",
        # not found
        "/no/such/page", "/r/", "/m/", "/hw/", "/r/r_doesnotexist", "/r/r_aaaaaaaaaaa.json",
        "/m/no-such-model", "/m/no-such-model.json", "/hw/no-such-hw.json", "/u/nobody",
        "/u/nobody.json", "/u/bad%20name", "/api/v1/runs",
        "/%FF%FE", "/r/%s/extra" % ids[0],
    ]
    return out + q


def digest(status, headers, body):
    h = hashlib.sha256()
    h.update(b"%d\n" % status)
    for k, v in sorted(headers):
        if k.lower() != "date":
            h.update(("%s: %s\n" % (k.lower(), v)).encode())
    h.update(b"\n" + body)
    return h.hexdigest()


class Out:
    """Writes one digest line per answer (and, with save, the answer into
    save/<line number>, to see what differs)."""

    def __init__(self, d, f, save=None):
        self.d, self.f, self.save = d, f, save
        self.n = 0
        self.last = None

    def ask(self, method, path, body=None, headers=None, label=None):
        status, hs, b = self.d.request(method, path, body, headers)
        self.n += 1
        self.f.write("%s %d %s %s\n" % (digest(status, hs, b), status, method, label or path))
        if self.save:
            with open(os.path.join(self.save, "%04d" % self.n), "wb") as f:
                f.write(b"%d %s %s\n" % (status, method.encode(), (label or path).encode()))
                for k, v in hs:
                    f.write(("%s: %s\n" % (k, v)).encode())
                f.write(b"\n" + b)
        self.last = (status, dict((k.lower(), v) for k, v in hs), b)
        return self.last


def conditional(o, paths):
    """Each path again with If-None-Match its ETag (304), and as HEAD."""
    for p in paths:
        _, hs, _ = o.ask("GET", p)
        if "etag" in hs:
            o.ask("GET", p, headers={"If-None-Match": hs["etag"]}, label=p + " [If-None-Match]")
        o.ask("HEAD", p)


def writes(o, fx):
    """The write endpoints' answers, on the copy."""
    ids = fx["ids"]
    jose = {"Content-Type": "application/jose"}
    js = {"Content-Type": "application/json"}
    mod = {"Content-Type": "application/json", "Authorization": "Bearer " + MODERATOR_TOKEN}
    same = Signer(RUNS[0][0]).sign(run_payload(0, *RUNS[0][1:]))
    # uploads: the same bytes again (200), and refusals
    o.ask("POST", "/api/v1/runs", same, jose, "/api/v1/runs [duplicate]")
    o.ask("POST", "/api/v1/runs", same, dict(jose, Authorization="Bearer " + fx["token"]),
          "/api/v1/runs [duplicate, account]")
    o.ask("POST", "/api/v1/runs", same, {"Content-Type": "text/plain"}, "/api/v1/runs [415]")
    o.ask("POST", "/api/v1/runs", b"not.a.jws", jose, "/api/v1/runs [400]")
    o.ask("POST", "/api/v1/runs", same, dict(jose, Authorization="Bearer nope"), "/api/v1/runs [401 token]")
    o.ask("POST", "/api/v1/runs", same, dict(jose, Authorization="Basic x"), "/api/v1/runs [401 scheme]")
    bad = run_payload(0, *RUNS[0][1:])
    bad["workloads"]["chat-short"]["decode_tok_s"] = -1
    o.ask("POST", "/api/v1/runs", Signer(1).sign(bad), jose, "/api/v1/runs [422 schema]")
    look = run_payload(9, "Qwen3-8\u0412", "M3 Ultra", "llama.cpp", 60.0)
    o.ask("POST", "/api/v1/runs", Signer(2).sign(look), jose, "/api/v1/runs [422 confusable]")
    o.ask("POST", "/api/v1/runs", b"x" * (70 * 1024), jose, "/api/v1/runs [413]")
    # dispute posts
    path = "/api/v1/runs/%s/disputes" % ids[0]
    o.ask("POST", path, json.dumps({"author": "Bo", "body": "Same as mine."}), js, path + " [json]")
    signed = Signer(1).sign({"run_id": ids[0], "body": "Rechecked.", "nonce": "n1"})
    o.ask("POST", path, signed, jose, path + " [signed]")
    o.ask("POST", path, signed, jose, path + " [replayed]")
    o.ask("POST", path, Signer(2).sign({"run_id": ids[0], "body": "x"}), jose, path + " [other key]")
    o.ask("POST", path, json.dumps({"author": "moderator", "body": "x"}), js, path + " [reserved]")
    o.ask("POST", path, json.dumps({"body": ""}), js, path + " [empty]")
    o.ask("POST", path, "{", js, path + " [bad json]")
    o.ask("POST", path, "x", {"Content-Type": "text/plain"}, path + " [415]")
    o.ask("POST", "/api/v1/runs/r_aaaaaaaaaaa/disputes", json.dumps({"body": "x"}), js,
          "/api/v1/runs/r_aaaaaaaaaaa/disputes [404]")
    # the form
    _, _, page = o.ask("GET", "/r/%s" % ids[1])
    token = re.search(rb'name="token" value="([^"]+)"', page).group(1).decode()
    form = {"Content-Type": "application/x-www-form-urlencoded", "Origin": BASE}
    fpath = "/r/%s/disputes" % ids[1]
    o.ask("POST", fpath, urllib.parse.urlencode({"author": "Cy", "body": "From the form", "token": token}),
          form, fpath + " [form]")
    o.ask("POST", fpath, urllib.parse.urlencode({"body": "x", "token": token}),
          dict(form, Origin="http://elsewhere.test"), fpath + " [cross-site]")
    o.ask("POST", fpath, urllib.parse.urlencode({"body": "x", "token": "bogus"}), form, fpath + " [token]")
    o.ask("POST", fpath, "body=%zz", form, fpath + " [malformed]")
    # rulings
    rpath = "/api/v1/runs/%s/disputes/resolve" % ids[0]
    o.ask("POST", rpath, json.dumps({"resolution": "dismissed", "note": "Fine."}), mod, rpath)
    o.ask("POST", rpath, json.dumps({"resolution": "maybe"}), mod, rpath + " [422]")
    o.ask("POST", rpath, "{}", dict(mod, Authorization="Bearer wrong"), rpath + " [401]")
    o.ask("POST", "/api/v1/runs/r_aaaaaaaaaaa/disputes/resolve", json.dumps({"resolution": "upheld"}),
          mod, "/api/v1/runs/r_aaaaaaaaaaa/disputes/resolve [404]")
    # withdrawals
    wpath = "/api/v1/runs/%s/withdraw" % ids[2]
    wd = lambda n, rid, why: Signer(n).sign({"run_id": rid, "action": "withdraw", "reason": why})  # noqa: E731
    o.ask("POST", wpath, wd(1, ids[2], "x"), jose, wpath + " [other key]")
    o.ask("POST", wpath, wd(3, ids[2], " "), jose, wpath + " [422 reason]")
    o.ask("POST", wpath, wd(3, ids[2], "Thermal throttling."), jose, wpath)
    o.ask("POST", wpath, wd(3, ids[2], "Again."), jose, wpath + " [409]")
    o.ask("POST", wpath, "x", {"Content-Type": "text/plain"}, wpath + " [415]")
    o.ask("POST", "/api/v1/runs/r_aaaaaaaaaaa/withdraw", wd(3, "r_aaaaaaaaaaa", "x"), jose,
          "/api/v1/runs/r_aaaaaaaaaaa/withdraw [404]")
    # methods
    o.ask("POST", "/models", "", None, "/models [405]")
    o.ask("DELETE", "/r/%s" % ids[0], None, None, "/r/<id> [DELETE]")
    o.ask("PUT", "/api/v1/runs", "", None, "/api/v1/runs [PUT]")


def after_writes(o, fx):
    ids = fx["ids"]
    o.d.settle()
    for p in ["/", "/index.json", "/r/%s" % ids[0], "/r/%s.json" % ids[0], "/r/%s" % ids[1],
              "/r/%s" % ids[2], "/r/%s.json" % ids[2], "/disputes", "/disputes.json", "/outliers",
              "/m/qwen3-8b", "/m/qwen3-8b.json", "/hw/m3-ultra", "/changes", "/log",
              "/log/checkpoint", "/feed.atom", "/disputes.atom", "/badge/%s.svg" % ids[2],
              "/u/alice", "/wanted.json", "/sitemap.xml"]:
        o.ask("GET", p, label=p + " [after the writes]")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin", default=os.path.join(ROOT, "llm-speedd"))
    ap.add_argument("--fixture", default=os.path.join(ROOT, "build", "pages-fixture"))
    ap.add_argument("--assets", default=ROOT,
                    help="the daemon's --assets (default: this tree), for a binary built elsewhere")
    ap.add_argument("--out", help="write here instead of standard output")
    ap.add_argument("--save", help="also keep each answer in this folder, one file per line")
    a = ap.parse_args()
    global ASSETS
    ASSETS = os.path.abspath(a.assets)
    b = os.path.abspath(a.bin)
    if not os.path.exists(os.path.join(a.fixture, "fixture.json")):
        shutil.rmtree(a.fixture, ignore_errors=True)
        build_fixture(b, a.fixture)
    with open(os.path.join(a.fixture, "fixture.json")) as f:
        fx = json.load(f)
    tmp = tempfile.mkdtemp(prefix="pages-digest-")
    for name in os.listdir(a.fixture):
        if name.startswith(DB):
            shutil.copy2(os.path.join(a.fixture, name), tmp)
    out = open(a.out, "w") if a.out else sys.stdout
    d = Daemon(b, tmp)
    try:
        if a.save:
            os.makedirs(a.save, exist_ok=True)
        o = Out(d, out, a.save)
        for p in gets(fx):
            o.ask("GET", p)
        conditional(o, ["/", "/index.json", "/m/qwen3-8b", "/r/%s" % fx["ids"][0], "/badge/%s.svg" % fx["ids"][0],
                        "/log/tile/0/000", "/static/style.css", "/models.csv", "/export"])
        o.ask("GET", "/export", headers={"Accept-Encoding": "gzip"}, label="/export [gzip]")
        writes(o, fx)
        after_writes(o, fx)
    finally:
        d.stop()
        if a.out:
            out.close()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
