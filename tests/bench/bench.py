#!/usr/bin/env python3
"""bench.py: how fast llm-speedd serves a badge, a run page and a log tile, against nginx
serving the same bytes as static files, measured with wrk in the same run.

A benchmark, not a test: it prints figures and asserts nothing about speed.
It exits non-zero only when something is broken (a server did not start, a
response was not 2xx/3xx, wrk saw socket errors, the keep-alive check failed).

  make bench                                   # as the Makefile runs it
  /usr/bin/python3 tests/bench/bench.py --bin ./llm-speedd [--runs 3000]
      [--duration 5] [--threads 1,2,4] [--connections 32] [--nginx-workers 1]
      [--reads-only] [--daemon-args "--access-log /tmp/a.log"]

Steps: start the daemon on a fresh database in a temporary folder; fill it
with --runs synthetic runs, each signed with its own Ed25519 key pool entry
and uploaded through the real upload path (POST /api/v1/runs) from several
threads; fetch one run's badge and page from the daemon and write the bytes
into nginx's root with the same Content-Type and caching headers; then wrk
each URL on nginx and on the daemon for each --threads value.  Everything it
starts is stopped on exit, on errors and on Ctrl-C.  See README.md here.
"""
import argparse
import base64
import concurrent.futures
import http.client
import json
import math
import os
import random
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import zlib

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tests", "http"))
from conftest import digest_for, make_payload  # noqa: E402  (the payload the tests use)

# The daemon's headers nginx is told to add too, so both send alike.
HEADERS_ADDED = ("Cache-Control", "X-Content-Type-Options", "Referrer-Policy",
                 "Content-Security-Policy")


class Failure(Exception):
    """Something the benchmark needs did not work; the message says what."""


# ---- processes -------------------------------------------------------------

class Children:
    """Every process the benchmark starts, stopped in reverse order."""

    def __init__(self):
        self.procs = []

    def start(self, args, log_path, **kw):
        log = open(log_path, "ab")
        p = subprocess.Popen(args, stdout=log, stderr=log, stdin=subprocess.DEVNULL, **kw)
        log.close()
        self.procs.append(p)
        return p

    def stop(self, p, sig=signal.SIGTERM):
        if p.poll() is None:
            p.send_signal(sig)
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        if p in self.procs:
            self.procs.remove(p)

    def stop_all(self):
        for p in reversed(list(self.procs)):
            self.stop(p)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_ready(port, proc, logs, path="/", timeout=10):
    """Waits until GET path on port answers; raises with the logs if not."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        if proc.poll() is not None:
            raise Failure("%s exited: %s" % (proc.args[0], " ".join(tail(p) for p in logs)))
        try:
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=1)
            c.request("GET", path)
            c.getresponse().read()
            c.close()
            return
        except OSError:
            time.sleep(0.05)
    raise Failure("%s not ready after %ds: %s" % (proc.args[0], timeout, " ".join(tail(p) for p in logs)))


def tail(path, n=2000):
    try:
        with open(path, "rb") as f:
            return f.read()[-n:].decode("utf-8", "replace")
    except OSError:
        return "(no log)"


# ---- the daemon and the synthetic runs -------------------------------------

class Daemon:
    def __init__(self, children, binary, tmp, threads, extra=()):
        self.port = free_port()
        self.log = os.path.join(tmp, "llm-speedd.log")
        args = [binary, "--listen", "127.0.0.1:%d" % self.port,
                "--db", os.path.join(tmp, "bench.db"), "--assets", ROOT,
                "--threads", str(threads), "--base-url", "https://llm-speed.example",
                "--upload-rate", "0", "--dispute-rate", "0",
                "--max-connections", "4096", "--max-per-ip", "4096"] + list(extra)
        self.children = children
        self.proc = children.start(args, self.log)
        wait_ready(self.port, self.proc, [self.log], "/healthz")

    def stop(self):
        self.children.stop(self.proc)
        if self.proc.returncode not in (0, None):
            raise Failure("llm-speedd exited with %s: %s" % (self.proc.returncode, tail(self.log)))


def b64u(b):
    return base64.urlsafe_b64encode(b).rstrip(b"=")


class Signer:
    """One Ed25519 key and its compact-JWS protected header."""

    def __init__(self):
        self.key = Ed25519PrivateKey.generate()
        x = self.key.public_key().public_bytes(serialization.Encoding.Raw,
                                               serialization.PublicFormat.Raw)
        header = {"alg": "EdDSA", "jwk": {"kty": "OKP", "crv": "Ed25519", "x": b64u(x).decode()}}
        self.header = b64u(json.dumps(header, separators=(",", ":")).encode())

    def sign(self, payload):
        signing_input = self.header + b"." + b64u(json.dumps(payload).encode())
        return signing_input + b"." + b64u(self.key.sign(signing_input))


MODELS = ["Qwen3-Coder-30B-A3B-Instruct", "Qwen3-8B", "Qwen2.5-7B-Instruct",
          "Llama-3.1-8B-Instruct", "Llama-3.3-70B-Instruct", "gemma-3-27b-it",
          "gemma-3-4b-it", "Mistral-Small-3.2-24B-Instruct", "phi-4", "gpt-oss-20b",
          "gpt-oss-120b", "DeepSeek-R1-Distill-Qwen-14B", "GLM-4.5-Air", "SmolLM3-3B"]
HARDWARE = ["M3 Ultra", "M4 Max", "M2 Pro", "RTX 4090", "RTX 3090", "RTX 5090",
            "RX 7900 XTX", "A100 80GB", "H100 SXM", "Ryzen AI Max+ 395", "M1 Max", "L40S"]
BACKENDS = ["mlx", "llama.cpp", "vllm", "ollama"]


# --old-data: the synthetic runs as before issue 22's bench fix (every key
# alike: no offsets, 3% noise), to compare the flags they draw.
OLD_DATA = False


def key_offsets(rnd, keys):
    """Each signing key's own speed factor: its machine a few per cent
    faster or slower than the typical one (log-normal, sigma 4%).  Without
    them every key's median is the same, and the 3-sigma bounds over key
    medians are so tight that a third of honest runs are flagged."""
    return [1.0 if OLD_DATA else math.exp(rnd.gauss(0.0, 0.04)) for _ in range(keys)]


def synthetic_payloads(n, seed=1, keys=32):
    """n valid payloads spread over models, hardware and backends, with
    figures that cluster (each key's offset, 2% noise per run) and an
    occasional far-off one (1 in 97, three times too fast).  Payload i is
    meant to be signed by key i % keys."""
    rnd = random.Random(seed)
    off = key_offsets(rnd, keys)
    out = []
    for i in range(n):
        model, hw = rnd.choice(MODELS), rnd.choice(HARDWARE)
        base = 20 + zlib.crc32((model + hw).encode()) % 180
        noise = rnd.gauss(1.0, 0.03 if OLD_DATA else 0.02)
        decode = base * off[i % keys] * noise * (3.0 if i % 97 == 0 else 1.0)
        out.append(make_payload(model__name=model, model__digest=digest_for(model),
                                hardware__accelerator_summary=hw,
                                hardware__fingerprint_hash="%016x" % zlib.crc32(hw.encode()),
                                backend__name=rnd.choice(BACKENDS),
                                workloads__chat_short__decode_tok_s=round(max(decode, 0.5), 3)))
    return out


def fill(port, n, workers=8):
    """Uploads n signed runs through POST /api/v1/runs; returns their ids."""
    payloads = synthetic_payloads(n)
    signers = [Signer() for _ in range(32)]
    local = threading.local()

    def one(i):
        c = getattr(local, "conn", None)
        if c is None:
            c = local.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        c.request("POST", "/api/v1/runs", body=signers[i % len(signers)].sign(payloads[i]),
                  headers={"Content-Type": "application/jose"})
        r = c.getresponse()
        body = r.read()
        if r.status not in (200, 201):
            raise Failure("upload %d: HTTP %d %s" % (i, r.status, body[:300]))
        if r.will_close:
            local.conn = None
        return json.loads(body)["id"]

    ex = concurrent.futures.ThreadPoolExecutor(workers)
    try:
        return list(ex.map(one, range(n)))
    finally:   # on Ctrl-C or a failed upload, do not send the rest
        ex.shutdown(wait=False, cancel_futures=True)


# ---- fetching, nginx and wrk -------------------------------------------------

def fetch(port, path):
    """GET path; returns (status, headers dict, body)."""
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        c.request("GET", path)
        r = c.getresponse()
        return r.status, dict(r.getheaders()), r.read()
    finally:
        c.close()


def check_keep_alive(port, path):
    """Two GETs on one connection: the first must not close it, and the
    second must travel on the same socket."""
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        c.request("GET", path)
        r = c.getresponse()
        r.read()
        sock = c.sock
        if r.will_close or sock is None:
            raise Failure("%s: the server closed the connection after one request "
                          "(Connection: %s)" % (path, r.getheader("Connection")))
        c.request("GET", path)
        r = c.getresponse()
        r.read()
        if c.sock is not sock or r.status != 200:
            raise Failure("%s: the second request did not reuse the connection" % path)
    finally:
        c.close()


def nginx_temp_paths(tmp):
    """Temp-path directives for the modules this nginx was built with, all
    inside tmp (the compiled-in defaults may not be writable)."""
    v = subprocess.run(["nginx", "-V"], capture_output=True, text=True).stderr
    lines = ["client_body_temp_path %s/nginx-body;" % tmp]
    for mod in ("proxy", "fastcgi", "uwsgi", "scgi"):
        if "--without-http_%s_module" % mod not in v:
            lines.append("%s_temp_path %s/nginx-%s;" % (mod, tmp, mod))
    return "\n    ".join(lines)


def nginx_location(path, headers):
    """An exact-match location serving one file with the daemon's headers."""
    adds = "".join('        add_header %s "%s" always;\n' % (k, headers[k].replace('"', '\\"'))
                   for k in HEADERS_ADDED if k in headers)
    return ("    location = %s {\n        types { }\n        default_type \"%s\";\n"
            "        etag on;\n%s    }\n" % (path, headers["Content-Type"], adds))


def start_nginx(children, tmp, files, workers, sendfile):
    """Writes files {url path: (headers, body)} under an nginx root and
    starts nginx on a free port as a child in the foreground."""
    www = os.path.join(tmp, "www")
    for path, (_, body) in files.items():
        dest = os.path.join(www, path.lstrip("/"))
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        with open(dest, "wb") as f:
            f.write(body)
    for d, _, names in os.walk(tmp):   # nginx workers run as nobody
        os.chmod(d, 0o755)
        for n in names:
            os.chmod(os.path.join(d, n), 0o644)
    port = free_port()
    conf = os.path.join(tmp, "nginx.conf")
    with open(conf, "w") as f:
        f.write("""daemon off;
master_process on;
worker_processes %s;
pid %s/nginx.pid;
error_log %s/nginx-error.log;
events { worker_connections 4096; }
http {
    access_log off;
    sendfile %s;
    tcp_nopush on;
    tcp_nodelay on;
    keepalive_requests 100000000;
    keepalive_timeout 65;
    open_file_cache max=64 inactive=60s;
    server_tokens off;
    %s
    server {
        listen 127.0.0.1:%d backlog=1024;
        root %s;
%s    }
}
""" % (workers, tmp, tmp, sendfile, nginx_temp_paths(tmp), port, www,
            "".join(nginx_location(p, h) for p, (h, _) in files.items())))
    log = os.path.join(tmp, "nginx-stderr.log")
    proc = children.start(["nginx", "-c", conf, "-p", tmp + "/", "-e", tmp + "/nginx-error.log"], log)
    wait_ready(port, proc, [log, os.path.join(tmp, "nginx-error.log")], "/", timeout=10)
    return port, proc


UNITS = {"us": 0.001, "ms": 1.0, "s": 1000.0}


def to_ms(text):
    m = re.match(r"([\d.]+)(us|ms|s)$", text)
    if not m:
        raise Failure("wrk printed an unexpected latency %r" % text)
    return float(m.group(1)) * UNITS[m.group(2)]


def wrk(port, path, duration, connections):
    """Runs wrk -t1 against path; returns {rps, p50, p99 (ms), errors}."""
    url = "http://127.0.0.1:%d%s" % (port, path)
    args = ["wrk", "-t1", "-c%d" % connections, "-d%ds" % duration, "--latency", url]
    out = subprocess.run(args, capture_output=True, text=True, timeout=duration + 30).stdout
    rps = re.search(r"Requests/sec:\s+([\d.]+)", out)
    p50 = re.search(r"^\s+50%\s+(\S+)", out, re.M)
    p99 = re.search(r"^\s+99%\s+(\S+)", out, re.M)
    if not (rps and p50 and p99):
        raise Failure("could not read wrk's output:\n" + out)
    errors = []
    sock = re.search(r"Socket errors: (.*)", out)
    if sock:
        errors.append("socket errors: " + sock.group(1))
    bad = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    if bad:
        errors.append(bad.group(1) + " non-2xx/3xx responses")
    return {"rps": float(rps.group(1)), "p50": to_ms(p50.group(1)),
            "p99": to_ms(p99.group(1)), "errors": errors}


# ---- the run ---------------------------------------------------------------------

def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bin", required=True, help="path to llm-speedd")
    ap.add_argument("--runs", type=int, default=3000, help="synthetic runs to upload (3000)")
    ap.add_argument("--duration", type=int, default=2, help="seconds per wrk run (2)")
    ap.add_argument("--rounds", type=int, default=3, help="wrk runs per server, path and thread count (3)")
    ap.add_argument("--connections", type=int, default=32, help="wrk connections (32)")
    ap.add_argument("--threads", default="1,2,4", help="daemon thread counts to try (1,2,4)")
    ap.add_argument("--nginx-workers", default="auto", help="nginx worker_processes (auto: one per core)")
    ap.add_argument("--nginx-sendfile", default="off", choices=("on", "off"),
                    help="nginx sendfile (off: faster for small files here)")
    ap.add_argument("--daemon-args", default="", help="more llm-speedd options, space-separated")
    ap.add_argument("--keep", action="store_true", help="keep the temporary folder")
    ap.add_argument("--ingest-only", action="store_true", help="only the two ingest scenarios")
    ap.add_argument("--old-data", action="store_true",
                    help="synthetic runs as before issue 22's fix (every key alike), to compare flags")
    ap.add_argument("--reads-only", action="store_true",
                    help="only the reads against nginx (badge, run page, tile), no ingest scenarios")
    ap.add_argument("--ingest-runs", type=int, default=40000,
                    help="distinct pre-signed uploads per ingest scenario (40000)")
    ap.add_argument("--ingest-seconds", type=int, default=5, help="seconds of wrk per ingest scenario (5)")
    ap.add_argument("--hot-runs", type=int, default=100000,
                    help="runs already in the hot cluster before it is measured (100000)")
    ap.add_argument("--spread-preload", type=int, default=0,
                    help="runs stored over the many clusters before they are measured (0: a fresh"
                         " database; --hot-runs compares like with like)")
    ap.add_argument("--limits", default="", help="path to the limits program (tests/bench/limits.c)")
    return ap.parse_args()


def prepare(children, a, tmp):
    """Fills the database; returns (target paths, {path: (headers, body)})."""
    t0 = time.time()
    d = Daemon(children, os.path.abspath(a.bin), tmp, 2)
    ids = fill(d.port, a.runs)
    took = time.time() - t0
    print("filled: %d runs uploaded in %.1f s" % (len(ids), took), flush=True)
    ingest_report(a, tmp, d.port)
    d.stop()
    m = re.findall(r"database writer: (\d+) writes in (\d+) commits", tail(d.log))
    if m:
        writes, commits = int(m[-1][0]), int(m[-1][1])
        print("  group commit: %d writes in %d commits, %.1f writes per fsync"
              % (writes, commits, writes / max(commits, 1)), flush=True)
    d = Daemon(children, os.path.abspath(a.bin), tmp, 2)
    run_id = ids[len(ids) // 2]
    paths = {"badge SVG": "/badge/%s.svg" % run_id, "run page HTML": "/r/%s" % run_id,
             # a full tile of the transparency log (8 KiB of leaf hashes), immutable
             "log tile": "/log/tile/0/000"}
    files = {}
    for name, path in paths.items():
        status, headers, body = fetch(d.port, path)
        if status != 200:
            raise Failure("%s: HTTP %d" % (path, status))
        files[path] = (headers, body)
        print("  %-14s %s  %d bytes  %s" % (name, path, len(body), headers["Content-Type"]), flush=True)
    d.stop()
    return paths, files


def check_nginx(port, files):
    """nginx must serve the daemon's bytes with its Content-Type, keep-alive."""
    for path, (headers, body) in files.items():
        status, h, got = fetch(port, path)
        if status != 200 or got != body or h.get("Content-Type") != headers["Content-Type"]:
            raise Failure("nginx does not serve the same bytes for " + path)
        check_keep_alive(port, path)


def median(xs):
    xs = sorted(xs)
    n = len(xs)
    return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2


def summarize(runs):
    """The median figures of several wrk runs, with every error kept."""
    return {"rps": median([r["rps"] for r in runs]), "p50": median([r["p50"] for r in runs]),
            "p99": median([r["p99"] for r in runs]), "errors": [e for r in runs for e in r["errors"]]}


def measure_pair(a, nginx_port, our_port, path):
    """Runs wrk on nginx and on the daemon in alternating short slices
    (--rounds of --duration seconds each), so that load from the rest of
    the machine falls on both alike.  Returns (nginx, ours, ratio): the
    median figures of each and the median of the per-round ratios."""
    theirs, ours, ratios = [], [], []
    for i in range(a.rounds):
        if i % 2 == 0:
            t = wrk(nginx_port, path, a.duration, a.connections)
            o = wrk(our_port, path, a.duration, a.connections)
        else:
            o = wrk(our_port, path, a.duration, a.connections)
            t = wrk(nginx_port, path, a.duration, a.connections)
        theirs.append(t)
        ours.append(o)
        ratios.append(o["rps"] / t["rps"])
    return summarize(theirs), summarize(ours), median(ratios)


def bench_daemon(children, a, tmp, paths, files, threads, nginx_port):
    """Starts the daemon with threads workers and measures each path on it
    and on nginx.  Returns {name: (nginx, ours, ratio)}."""
    d = Daemon(children, os.path.abspath(a.bin), tmp, threads, a.daemon_args.split())
    try:
        for path, (_, body) in files.items():
            # Same size, not same bytes: the run page holds a per-process
            # form token (the dispute form), so a restart changes it.
            status, _, got = fetch(d.port, path)
            if status != 200 or len(got) != len(body):
                raise Failure("llm-speedd changed its answer for %s (HTTP %d, %d bytes, was %d)"
                              % (path, status, len(got), len(body)))
            check_keep_alive(d.port, path)
        wrk(d.port, paths["badge SVG"], 1, a.connections)   # warm-up
        out = {}
        for name, path in paths.items():
            theirs, ours, ratio = measure_pair(a, nginx_port, d.port, path)
            out[name] = (theirs, ours, ratio)
            print("  --threads %d  %-14s %5.2fx nginx" % (threads, name, ratio), flush=True)
        return out
    finally:
        d.stop()


def fmt(name, r):
    line = "%-7s %7.0f req/s  p50 %6.3f ms  p99 %7.3f ms" % (name, r["rps"], r["p50"], r["p99"])
    if r["errors"]:
        line += "  ERRORS: " + "; ".join(sorted(set(r["errors"])))
    return line


def report(results):
    """Prints the figures and ratio of each thread count per path, and the
    best thread count; returns True when any wrk run saw errors."""
    errors = False
    names = list(next(iter(results.values())))
    print("\nratio = llm-speedd requests/s / nginx requests/s, the median of the rounds'"
          " ratios; figures are medians (target: 1.0x or better)")
    for name in names:
        print("\n%s" % name)
        for threads, res in results.items():
            theirs, ours, ratio = res[name]
            errors |= bool(theirs["errors"] or ours["errors"])
            print("  --threads %d: %5.2fx   %s   %s" % (threads, ratio, fmt("ours", ours), fmt("nginx", theirs)))
        best = max(results, key=lambda t: results[t][name][2])
        r = results[best][name][2]
        print("  best: --threads %d at %.2fx  %s" % (best, r, "ok" if r >= 1.0 else "BELOW TARGET"))
    return errors


INGEST_LUA = """
-- Posts each pre-signed JWS of LLMS_BODIES once, in order (wrk -t1).
local bodies = {}
for line in io.lines(os.getenv("LLMS_BODIES")) do bodies[#bodies + 1] = line end
local i = 0
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/jose"
request = function()
  i = i + 1
  if i > #bodies then i = 1 end
  return wrk.format(nil, "/api/v1/runs", nil, bodies[i])
end
"""


def ingest_rate(port, tmp, n=30000, seconds=3, connections=32):
    """Uploads pre-signed runs with wrk for a few seconds; returns
    (uploads/s, requests sent).  Signing happens before the clock starts,
    so the figure is the server's, not the client's."""
    signers = [Signer() for _ in range(32)]
    bodies = [signers[i % 32].sign(p) for i, p in enumerate(synthetic_payloads(n, seed=7))]
    path = os.path.join(tmp, "ingest-bodies.txt")
    with open(path, "wb") as f:
        f.write(b"\n".join(bodies) + b"\n")
    script = os.path.join(tmp, "ingest.lua")
    with open(script, "w") as f:
        f.write(INGEST_LUA)
    out = subprocess.run(["wrk", "-t1", "-c%d" % connections, "-d%ds" % seconds, "-s", script,
                          "http://127.0.0.1:%d/api/v1/runs" % port], capture_output=True,
                         text=True, timeout=seconds + 60, env=dict(os.environ, LLMS_BODIES=path)).stdout
    rps = re.search(r"Requests/sec:\s+([\d.]+)", out)
    sent = re.search(r"(\d+) requests in", out)
    if not rps or not sent or re.search(r"Non-2xx|Socket errors", out):
        raise Failure("ingest wrk run failed:\n" + out)
    if int(sent.group(1)) > n:
        raise Failure("ingest: wrk sent more uploads than were signed; raise n")
    return float(rps.group(1)), int(sent.group(1))


def ingest_report(a, tmp, port):
    """Prints the upload rate against the libsodium and SQLite limits."""
    if not a.limits:
        return
    rate, sent = ingest_rate(port, tmp)
    out = subprocess.run([a.limits, tmp], capture_output=True, text=True, timeout=60)
    if out.returncode != 0:
        print("  limits: failed: " + out.stderr.strip(), flush=True)
        return
    lim = json.loads(out.stdout)
    print("  ingest: %.0f uploads/s (wrk -t1 -c32, %d distinct pre-signed runs, each one Ed25519"
          " verification and a durable commit shared with its neighbours)" % (rate, sent))
    print("    vs libsodium Ed25519 verify on one core: %.0f/s  ratio %.3f"
          % (lim["ed25519_verify_per_s"], rate / lim["ed25519_verify_per_s"]))
    print("    vs SQLite one fsync'd commit per row (synchronous=FULL): %.0f rows/s  ratio %.2f"
          % (lim["sqlite_commits_per_s"], rate / lim["sqlite_commits_per_s"]))
    print("    vs SQLite 64 rows per fsync'd commit: %.0f rows/s  ratio %.3f"
          % (lim["sqlite_rows_per_s_64_per_commit"], rate / lim["sqlite_rows_per_s_64_per_commit"]),
          flush=True)


# ---- ingest scenarios: many clusters, and one hot cluster -------------------

INGEST_FROM_LUA = """
-- Posts the pre-signed JWS of LLMS_BODIES in order from line LLMS_START + 1
-- (wrk -t1), wrapping round to the first (a duplicate answers 200).
local bodies = {}
for line in io.lines(os.getenv("LLMS_BODIES")) do bodies[#bodies + 1] = line end
local i = tonumber(os.getenv("LLMS_START") or "0")
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/jose"
request = function()
  i = i + 1
  if i > #bodies then i = 1 end
  return wrk.format(nil, "/api/v1/runs", nil, bodies[i])
end
"""


def hot_payloads(n, seed=11, keys=512):
    """n full five-workload payloads of one cluster: one model digest, one
    fingerprint hash, one backend; decode figures around 100 tok/s, each
    key's (payload i is signed by key i % keys) a few per cent off that,
    2% noise per run; all honest."""
    rnd = random.Random(seed)
    off = key_offsets(rnd, keys)
    model, hw = MODELS[0], HARDWARE[0]
    return [make_payload(model__name=model, model__digest=digest_for(model),
                         hardware__accelerator_summary=hw,
                         hardware__fingerprint_hash="%016x" % zlib.crc32(hw.encode()),
                         backend__name="mlx",
                         workloads__chat_short__decode_tok_s=round(
                             100 * off[i % keys] * rnd.gauss(1.0, 0.03 if OLD_DATA else 0.02), 3)
                         + i * 1e-7)
            for i in range(n)]


def signed_bodies(payloads, path, keys=512):
    """Signs payloads with a pool of keys (distinct bytes: every payload
    differs) and writes them one per line to path."""
    signers = [Signer() for _ in range(keys)]
    with open(path, "wb") as f:
        for i, p in enumerate(payloads):
            f.write(signers[i % keys].sign(p) + b"\n")


def thread_cpu(pid):
    """CPU seconds (user + system) of each thread of pid, by name/tid."""
    out = {}
    tck = os.sysconf("SC_CLK_TCK")
    for tid in os.listdir("/proc/%d/task" % pid):
        try:
            with open("/proc/%d/task/%s/stat" % (pid, tid)) as f:
                stat = f.read()
        except OSError:
            continue
        name, rest = stat[stat.index("(") + 1:stat.rindex(")")], stat[stat.rindex(")") + 2:].split()
        out["%s/%s" % (name, tid)] = (int(rest[11]) + int(rest[12])) / tck
    return out


def process_cpu(pid):
    """CPU seconds (user + system) of process pid so far; 0 once it is gone."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            rest = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(rest[11]) + int(rest[12])) / os.sysconf("SC_CLK_TCK")


def wrk_ingest(port, tmp, bodies, seconds, connections, start=0, daemon_pid=None):
    """wrk -t1 -c<connections> posting bodies from line start; returns
    (uploads/s, requests sent, CPU): CPU holds wrk's CPU seconds and wall
    seconds and, with daemon_pid, the CPU seconds each daemon thread spent
    meanwhile."""
    script = os.path.join(tmp, "ingest-from.lua")
    with open(script, "w") as f:
        f.write(INGEST_FROM_LUA)
    before = thread_cpu(daemon_pid) if daemon_pid else {}
    w = subprocess.Popen(["wrk", "-t1", "-c%d" % connections, "-d%ds" % seconds, "-s", script,
                          "http://127.0.0.1:%d/api/v1/runs" % port], stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, text=True,
                         env=dict(os.environ, LLMS_BODIES=bodies, LLMS_START=str(start)))
    # wrk reads the bodies before its clock starts: its CPU share counts
    # from the first upload the daemon works on.
    wrk_start, deadline = 0.0, time.time() + seconds + 60
    while daemon_pid and time.time() < deadline:
        if sum(thread_cpu(daemon_pid).values()) > sum(before.values()):
            wrk_start = process_cpu(w.pid)
            break
        time.sleep(0.01)
    out = w.stdout.read()
    _, _, ru = os.wait4(w.pid, 0)
    w.returncode = 0
    after = thread_cpu(daemon_pid) if daemon_pid else {}
    cpu = {"wrk": ru.ru_utime + ru.ru_stime - wrk_start, "wall": seconds,
           "threads": {k: after[k] - before.get(k, 0.0) for k in after}}
    rps = re.search(r"Requests/sec:\s+([\d.]+)", out)
    sent = re.search(r"(\d+) requests in", out)
    if not rps or not sent or re.search(r"Non-2xx|Socket errors", out):
        raise Failure("ingest wrk run failed:\n" + out)
    return float(rps.group(1)), int(sent.group(1)), cpu


def stored_runs(db):
    import sqlite3
    con = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
    try:
        return con.execute("SELECT count(*) FROM runs").fetchone()[0]
    finally:
        con.close()


def flagged_share(db):
    """(flagged, counted) runs in db."""
    import sqlite3
    con = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
    try:
        n, f = con.execute("SELECT count(*), total(outlier) FROM runs WHERE status = 'ok'").fetchone()
        return int(f), n
    finally:
        con.close()


def commits_of(log):
    m = re.findall(r"database writer: (\d+) writes in (\d+) commits", tail(log))
    return (int(m[-1][0]), int(m[-1][1])) if m else (0, 0)


def ingest_scenario(children, a, tmp, name, payloads, preload):
    """Starts a daemon on a fresh database, stores the first preload
    payloads through the upload path, then measures wrk -c64 on the rest;
    returns uploads/s."""
    sub = os.path.join(tmp, name)
    os.makedirs(sub)
    bodies = os.path.join(sub, "bodies.txt")
    signed_bodies(payloads, bodies)
    d = Daemon(children, os.path.abspath(a.bin), sub, 2)
    db = os.path.join(sub, "bench.db")
    if preload:
        t0, rate = time.time(), 500.0
        while stored_runs(db) < preload:
            have = stored_runs(db)
            secs = max(1, min(10, int((preload - have) / rate)))
            rate, _, _ = wrk_ingest(d.port, sub, bodies, secs, 64, start=have)
        print("  %s: %d runs preloaded in %.0f s" % (name, stored_runs(db), time.time() - t0),
              flush=True)
    before = stored_runs(db)
    # The bodies not sent yet, in a file of their own: wrk reads the whole
    # file before it starts, and a short file keeps that quick.
    measured = os.path.join(sub, "measured.txt")
    with open(bodies, "rb") as f, open(measured, "wb") as out:
        for i, line in enumerate(f):
            if before <= i < before + a.ingest_runs:
                out.write(line)
    w0, c0 = commits_of(d.log)
    rate, sent, cpu = wrk_ingest(d.port, sub, measured, a.ingest_seconds, 64, daemon_pid=d.proc.pid)
    if sent > min(a.ingest_runs, len(payloads) - before):
        raise Failure("ingest %s: wrk sent more uploads than were signed; raise --ingest-runs" % name)
    stored = stored_runs(db) - before
    d.stop()
    flagged, counted = flagged_share(db)
    print("  %s: %d of %d runs flagged (%.2f%%)" % (name, flagged, counted, 100.0 * flagged / max(counted, 1)),
          flush=True)
    w1, c1 = commits_of(d.log)
    print("  %s: %.0f uploads/s (wrk -t1 -c64 %ds, %d sent, %d stored, %.1f writes per commit)"
          % (name, rate, a.ingest_seconds, sent, stored, (w1 - w0) / max(c1 - c0, 1)), flush=True)
    # CPU per upload transfers between machines; uploads/s on a shared one
    # is whatever share of the 2 cores the daemon got.
    daemon = sum(cpu["threads"].values())
    groups = {}
    for k, v in cpu["threads"].items():
        g = k.split("/")[0]
        g = "serving" if g.startswith("MHD") else g
        groups[g] = groups.get(g, 0.0) + v
    print("    daemon CPU %.0f us/upload (%.2f cores): %s; wrk %.2f cores; load average %s"
          % (daemon / sent * 1e6, daemon / cpu["wall"],
             ", ".join("%s %.0f" % (g, v / sent * 1e6) for g, v in sorted(groups.items())
                       if v / sent * 1e6 >= 1),
             cpu["wrk"] / cpu["wall"], open("/proc/loadavg").read().split()[0]), flush=True)
    return rate, daemon / sent * 1e6


def ingest_scenarios(children, a, tmp):
    """The two ingest scenarios of the write path's goal, as ratios against
    the limits measured in the same run."""
    n = a.ingest_runs
    print("ingest: full five-workload payloads, 512 signing keys, 64 connections,"
          " synchronous=FULL (machine shared: absolute figures are noisy)", flush=True)
    spread = synthetic_payloads(n + a.spread_preload, seed=5, keys=512)
    for i, p in enumerate(spread):
        p["workloads"]["chat-short"]["decode_tok_s"] += i * 1e-7     # every body distinct
    r_spread, us_spread = ingest_scenario(children, a, tmp, "many-clusters", spread, a.spread_preload)
    r_hot, us_hot = ingest_scenario(children, a, tmp, "hot-cluster",
                                    hot_payloads(a.hot_runs + n + n // 2), a.hot_runs)
    out = subprocess.run([a.limits, tmp], capture_output=True, text=True, timeout=60) if a.limits else None
    print("  hot cluster (%d runs) / many clusters: %.2f uploads/s, %.2f CPU per upload"
          % (a.hot_runs, r_hot / r_spread, us_hot / us_spread))
    if out is None or out.returncode != 0:
        print("  limits: not measured" + (": " + out.stderr.strip() if out else ""), flush=True)
        return
    lim = json.loads(out.stdout)
    verify_us = 1e6 / lim["ed25519_verify_per_s"]
    for name, r, us in (("many clusters", r_spread, us_spread), ("hot cluster", r_hot, us_hot)):
        print("  %s: %.3f x Ed25519 verify on one core (%.0f/s), %.3f x SQLite 64 rows per"
              " fsync'd commit (%.0f rows/s), %.2f x one fsync'd commit per row (%.0f/s);"
              " CPU per upload %.1f x one verify (%.0f us)"
              % (name, r / lim["ed25519_verify_per_s"], lim["ed25519_verify_per_s"],
                 r / lim["sqlite_rows_per_s_64_per_commit"], lim["sqlite_rows_per_s_64_per_commit"],
                 r / lim["sqlite_commits_per_s"], lim["sqlite_commits_per_s"],
                 us / verify_us, verify_us), flush=True)


def main():
    a = parse_args()
    global OLD_DATA
    OLD_DATA = a.old_data
    for tool in ("wrk", "nginx"):
        if not shutil.which(tool):
            print("bench: %s is not installed (make deps installs it)" % tool, file=sys.stderr)
            return 2
    threads = [int(t) for t in a.threads.split(",") if t.strip()]
    tmp = tempfile.mkdtemp(prefix="llms-bench-")
    children = Children()

    def on_term(sig, frame):
        raise KeyboardInterrupt
    signal.signal(signal.SIGTERM, on_term)
    signal.signal(signal.SIGINT, on_term)
    start = time.time()
    try:
        if a.ingest_only:
            ingest_scenarios(children, a, tmp)
            return 0
        print("bench: %d cores, %d x wrk -t1 -c%d -d%ds per server and path, nginx worker_processes %s"
              " sendfile %s, folder %s" % (os.cpu_count(), a.rounds, a.connections, a.duration,
                                           a.nginx_workers, a.nginx_sendfile, tmp),
              flush=True)
        paths, files = prepare(children, a, tmp)
        nginx_port, nginx = start_nginx(children, tmp, files, a.nginx_workers, a.nginx_sendfile)
        check_nginx(nginx_port, files)
        results = {}
        for t in threads:
            results[t] = bench_daemon(children, a, tmp, paths, files, t, nginx_port)
        children.stop(nginx, signal.SIGQUIT)
        errors = report(results)
        print()
        if not a.reads_only:
            ingest_scenarios(children, a, tmp)
        print("\nbench: done in %.0f s" % (time.time() - start))
        return 1 if errors else 0
    except Failure as e:
        print("bench: " + str(e), file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("bench: interrupted", file=sys.stderr)
        return 130
    finally:
        children.stop_all()
        if not a.keep:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
