"""Shared fixtures for the tests that drive the real daemon over HTTP.

Each test gets a daemon on a free loopback port with its own database.
Uploads are signed with jwcrypto, an independent JOSE implementation, so
these tests check the server against the contract, not against itself.
"""
import copy
import csv
import datetime
import io
import json
import os
import re
import socket
import subprocess
import tempfile
import time

import pytest
import requests
from jwcrypto import jwk, jws
from jwcrypto.common import json_encode

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BIN = os.environ.get("LLMSPEED_BIN", os.path.join(ROOT, "llm-speedd"))
HTML_VALIDATE = os.path.join(ROOT, "tests", "node_modules", ".bin", "html-validate")
MODERATOR_TOKEN = "test-moderator-secret-1234567890"


XML_TYPES = ("application/atom+xml", "image/svg+xml")


def assert_xml(data, what="document"):
    """Parses data (bytes) with xmllint --noout, a strict XML 1.0 parser
    (Debian's libxml2-utils, installed by deploy/deps.sh): any character
    outside XML's Char production, bad UTF-8 or broken markup fails."""
    out = subprocess.run(["xmllint", "--noout", "--nonet", "-"], input=data,
                         capture_output=True, timeout=60)
    assert out.returncode == 0, "%s is not well-formed XML: %s" % (
        what, out.stderr.decode("utf-8", "replace"))


def check_xml(resp, what="response"):
    """Runs assert_xml on a response that carries an Atom feed or an SVG
    (by its Content-Type, whatever its status; a 304 has no body) and
    returns it.  Server.get calls it on every answer, so every feed and
    badge the suite fetches is parsed strictly."""
    ctype = resp.headers.get("Content-Type", "").split(";")[0].strip()
    if ctype in XML_TYPES and resp.content:
        assert_xml(resp.content, what)
    return resp
def wait_for(cond, timeout=10, interval=0.05, what=None):
    """The one way these tests wait: calls cond() every interval seconds
    until it returns something true, and returns that; fails the test,
    saying what it waited for, when timeout seconds pass first.  cond may
    act as well as look (send a byte, retry a request)."""
    deadline = time.monotonic() + timeout
    while True:
        got = cond()
        if got:
            return got
        if time.monotonic() >= deadline:
            raise AssertionError("waited %g s for %s" % (timeout, what or getattr(cond, "__name__", "a condition")))
        time.sleep(interval)


def built_once(server, path, hold):
    """Six concurrent requests for path, while the build pool is held (the
    server runs with --test-hold-builds hold): asserts one build runs, the
    other five wait on it (suspended, holding no thread, nothing queued),
    and once released all six get 200 with the same bytes and ETag."""
    import threading

    def sample(name):
        m = re.search(r"^%s (\S+)$" % name, server.get("/metrics").text, re.M)
        assert m, name
        return float(m.group(1))

    got, threads = [], []
    open(hold, "w").close()
    try:
        for _ in range(6):
            threads.append(threading.Thread(
                target=lambda: got.append(requests.get(server.url + path, timeout=60))))
            threads[-1].start()
        wait_for(lambda: sample("llmspeed_page_builds_running") == 1 and
                 sample("llmspeed_response_cache_waiting") == 5,
                 what="one build of %s, five requests waiting on it" % path)
        assert sample("llmspeed_response_cache_builds") == 1, path
        assert sample("llmspeed_page_builds_queued") == 0, path
    finally:
        os.unlink(hold)
    for t in threads:
        t.join(60)
    assert [g.status_code for g in got] == [200] * 6, path
    assert len({g.content for g in got}) == 1, path
    assert len({g.headers["ETag"] for g in got}) == 1, path
    wait_for(lambda: sample("llmspeed_response_cache_builds") == 0, what="the build of %s to land" % path)


class TestClock:
    """The daemon's clock under test (the hidden --test-clock FILE, read by
    util/timefmt.c at every time_now()): the real clock moved by offset
    seconds.  advance() moves it on at once, so a test needs no sleep to
    get a later received date (dates are kept to the second)."""

    __test__ = False    # not a pytest test class

    def __init__(self, path):
        self.path = path
        self.offset = 0
        self._write()

    def args(self):
        return ["--test-clock", self.path]

    def advance(self, seconds=1):
        self.offset += seconds
        self._write()

    def freeze(self, unix):
        """Stops the clock at unix (seconds since the epoch) until the next
        advance(), which moves on from the real clock again."""
        self._write("%d\n" % unix)

    def _write(self, text=None):
        tmp = self.path + ".tmp"
        with open(tmp, "w") as f:
            f.write(text or "%+d\n" % self.offset)
        os.replace(tmp, self.path)   # the daemon never reads half a file


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """A running llm-speedd with its own database in a temporary folder."""

    def __init__(self, tmpdir, extra_args=(), env=None, clock=False):
        self.tmpdir = tmpdir
        self.db = os.path.join(tmpdir, "llm-speed.db")
        # clock=True: a TestClock the test moves (server.clock.advance()).
        self.clock = TestClock(os.path.join(tmpdir, "clock")) if clock else None
        self.extra_args = list(extra_args) + (self.clock.args() if self.clock else [])
        self.env = dict(os.environ)
        self.env["LLMSPEED_MODERATOR_TOKEN"] = MODERATOR_TOKEN
        self.env.update(env or {})
        self.proc = None
        self.log_path = os.path.join(tmpdir, "server.log")
        self.start()

    def start(self):
        self.port = free_port()
        self.url = "http://127.0.0.1:%d" % self.port
        args = [BIN, "--listen", "127.0.0.1:%d" % self.port, "--db", self.db,
                "--assets", ROOT, "--upload-rate", "0", "--dispute-rate", "0",
                "--max-per-ip", "512", "--keys-per-network", "0"] + self.extra_args
        # A kept page shows a write on the next request (which waits for
        # its rebuild) unless the test asks for the stale copies a
        # server serves by default (about 1 s of them: test_cache_stale.py).
        if "--test-stale-ms" not in self.extra_args:
            args += ["--test-stale-ms", "0"]
        # Nothing is built ahead after a start (test_warm.py asks for it),
        # so that a test's first request for a page builds it.
        if "--test-warm" not in self.extra_args:
            args += ["--test-warm", "0"]
        self.log = open(self.log_path, "ab")
        self.proc = subprocess.Popen(args, stdout=self.log, stderr=self.log, env=self.env)

        def ready():
            if self.proc.poll() is not None:
                raise RuntimeError("llm-speedd exited: " + self.read_log())
            try:
                return requests.get(self.url + "/healthz", timeout=1).status_code == 200
            except requests.ConnectionError:
                return False
        wait_for(ready, what="llm-speedd to answer /healthz")

    def stop(self, sig=15):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()
        return self.proc.returncode

    def restart(self):
        self.stop()
        self.start()

    def read_log(self):
        with open(self.log_path, "rb") as f:
            return f.read().decode("utf-8", "replace")

    def get(self, path, **kw):
        """GETs path; an Atom feed or an SVG badge is checked by a strict
        XML parser on the way (check_xml), whichever test fetched it."""
        return check_xml(requests.get(self.url + path, timeout=10, **kw), path)

    def post(self, path, **kw):
        return requests.post(self.url + path, timeout=10, **kw)

    def upload(self, token, headers=None, content_type="application/jose"):
        h = {"Content-Type": content_type}
        h.update(headers or {})
        data = token.encode() if isinstance(token, str) else token
        return self.post("/api/v1/runs", data=data, headers=h)

    def checkpoint_size(self):
        r = self.get("/log/checkpoint")
        return int(r.text.split("\n")[1]) if r.status_code == 200 else -1

    def wait_for_checkpoint(self, size):
        """Waits (up to 10 s) until a signed checkpoint covers size entries;
        returns its text.  The daemon signs within a second of a commit."""
        wait_for(lambda: self.checkpoint_size() >= size,
                 what="a signed checkpoint of %d entries" % size)
        return self.get("/log/checkpoint").text

    def wait_logged(self, rid):
        """Waits (up to 10 s) until a signed checkpoint covers run rid, so
        its page and JSON (which carry the inclusion proof) stop changing."""
        wait_for(lambda: self.get("/r/%s.json" % rid).json()["log"].get("inclusion_proof") is not None,
                 what="run %s to be logged" % rid)

    def wait_refreshed(self):
        """Waits (up to 10 s) until the refresh thread owes nothing after the
        writes so far (/metrics' llmspeed_refresh_owed is 0), so the pages it
        drops from the cache when figures change stay kept until the next
        write."""
        def idle():
            m = re.search(r"^llmspeed_refresh_owed (\S+)$", self.get("/metrics").text, re.M)
            return m is not None and float(m.group(1)) == 0
        wait_for(idle, what="the refresh thread to catch up")

    def command(self):
        """The start of a sub-command's arguments against this server's
        database (and clock): [BIN, "--db", ..., "--assets", ...]."""
        return [BIN, "--db", self.db, "--assets", ROOT] + (self.clock.args() if self.clock else [])

    def account(self, name):
        """Creates an account with the CLI; returns its token."""
        out = subprocess.run(self.command() + ["account", "add", name],
                             capture_output=True, text=True, timeout=30)
        assert out.returncode == 0, out.stderr
        return out.stdout.strip()


@pytest.fixture
def server(tmp_path):
    s = Server(str(tmp_path))
    yield s
    s.stop()


@pytest.fixture
def make_server(tmp_path):
    """Factory for a server with extra arguments or environment."""
    made = []

    def make(extra_args=(), env=None, clock=False):
        d = tempfile.mkdtemp(dir=str(tmp_path))
        s = Server(d, extra_args, env, clock)
        made.append(s)
        return s

    yield make
    for s in made:
        s.stop()


def now_rfc3339(offset_s=0):
    t = datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(seconds=offset_s)
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def digest_for(name):
    import hashlib
    return "sha256:" + hashlib.sha256(name.encode()).hexdigest()


BASE_PAYLOAD = {
    "suite_version": "suite-v1",
    "created_at": None,
    "client": {"name": "llm-speed", "version": "1.4.0"},
    "backend": {"name": "mlx", "version": "0.31.3", "runner": None},
    "model": {
        "name": "Qwen3-Coder-30B-A3B-Instruct",
        "digest": None,
        "quantization": "4bit",
        "format": "mlx",
        "weights_bytes": 17200000000,
    },
    "hardware": {
        "cpu_model": "Apple M3 Ultra", "cpu_cores": 32, "ram_gb": 512,
        "gpu_name": "Apple M3 Ultra", "vram_gb": 512, "os": "macOS 15",
        "accelerator_summary": "M3 Ultra", "fingerprint_hash": "3f9a0c11d2e4b5a6",
    },
    "workloads": {
        "chat-short": {"prompt_tokens": 128, "output_tokens": 256, "batch_size": 1,
                       "ttft_ms": 539.3, "prefill_tok_s": 204.0, "decode_tok_s": 112.2,
                       "p50_ms": 8.9, "p95_ms": 10.4, "wall_ms": 2821.0},
        "chat-long": {"prompt_tokens": 4096, "output_tokens": 1024, "batch_size": 1,
                      "ttft_ms": 9800.0, "prefill_tok_s": 418.0, "decode_tok_s": 98.5,
                      "p50_ms": 10.1, "p95_ms": 12.0, "wall_ms": 20200.0,
                      "prefix_cache_hit_rate": 0.0},
        "long-context-decay": {"points": [
            {"context_tokens": 32768, "output_tokens": 256, "ttft_ms": 60000.0,
             "prefill_tok_s": 546.0, "decode_tok_s": 80.1},
            {"context_tokens": 65536, "output_tokens": 256, "ttft_ms": 150000.0,
             "prefill_tok_s": 437.0, "decode_tok_s": 64.0},
            {"context_tokens": 131072, "output_tokens": 256, "ttft_ms": 400000.0,
             "prefill_tok_s": 327.0, "decode_tok_s": 45.2}]},
        "concurrent-decode": {"serial": True, "points": [
            {"batch_size": 1, "aggregate_tok_s": 112.0, "per_stream_tok_s": 112.0, "p50_ms": 8.9, "p95_ms": 10.2},
            {"batch_size": 4, "aggregate_tok_s": 113.0, "per_stream_tok_s": 28.2, "p50_ms": 35.0, "p95_ms": 40.0},
            {"batch_size": 8, "aggregate_tok_s": 112.5, "per_stream_tok_s": 14.1, "p50_ms": 71.0, "p95_ms": 80.0},
            {"batch_size": 16, "aggregate_tok_s": 111.0, "per_stream_tok_s": 6.9, "p50_ms": 144.0, "p95_ms": 160.0}]},
        "agent-trace": {"turns": [
            {"turn": 1, "context_tokens": 2100, "ttft_ms": 610.0, "decode_tok_s": 110.0},
            {"turn": 2, "context_tokens": 6400, "ttft_ms": 420.0, "decode_tok_s": 104.0},
            {"turn": 3, "context_tokens": 11000, "ttft_ms": 450.0, "decode_tok_s": 99.0},
            {"turn": 4, "context_tokens": 16000, "ttft_ms": 480.0, "decode_tok_s": 95.0}],
            "wall_ms": 48000.0, "prefix_cache_hit_rate": 0.83},
    },
}


def make_payload(**over):
    """A valid suite-v1 payload; keyword arguments replace top-level
    members, and dotted keys like model__name replace nested ones."""
    p = copy.deepcopy(BASE_PAYLOAD)
    p["created_at"] = now_rfc3339()
    p["model"]["digest"] = digest_for(p["model"]["name"])
    for k, v in over.items():
        path = k.split("__")
        o = p
        for part in path[:-1]:
            o = o[part.replace("_", "-") if part.replace("_", "-") in o else part]
        last = path[-1]
        if last not in o and last.replace("_", "-") in o:
            last = last.replace("_", "-")
        o[last] = v
    return p


def new_key(kind="Ed25519"):
    if kind == "ES256":
        return jwk.JWK.generate(kty="EC", crv="P-256")
    return jwk.JWK.generate(kty="OKP", crv="Ed25519")


def sign(payload, key=None, header_extra=None, raw_payload=None):
    """Compact JWS over payload (dict, dumped as JSON) with the public key in
    the protected header; returns (token, key)."""
    key = key or new_key()
    alg = "ES256" if key.get("kty") == "EC" else "EdDSA"
    header = {"alg": alg, "jwk": json.loads(key.export_public())}
    header.update(header_extra or {})
    body = raw_payload if raw_payload is not None else json.dumps(payload).encode()
    s = jws.JWS(body)
    s.add_signature(key, None, json_encode(header))
    return s.serialize(compact=True), key


def upload_payload(server, payload=None, key=None, headers=None):
    """Signs and uploads; returns the response."""
    token, _ = sign(payload or make_payload(), key)
    return server.upload(token, headers)


def validate_html(text, tmpdir):
    """Runs html-validate on a page; returns (ok, report)."""
    path = os.path.join(str(tmpdir), "page-%d.html" % time.monotonic_ns())
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    out = subprocess.run([HTML_VALIDATE, "--config", os.path.join(ROOT, "tests", ".htmlvalidate.json"), path],
                         capture_output=True, text=True, timeout=120)
    return out.returncode == 0, out.stdout + out.stderr


class _SourceAdapter(requests.adapters.HTTPAdapter):
    """Sends from a chosen local address (any 127.0.0.x works on Linux)."""

    def __init__(self, source_ip, **kw):
        self.source_ip = source_ip
        super().__init__(**kw)

    def init_poolmanager(self, *args, **kw):
        kw["source_address"] = (self.source_ip, 0)
        super().init_poolmanager(*args, **kw)


def client_from(source_ip):
    """A requests.Session whose connections come from source_ip, e.g.
    "127.0.0.2", so tests can act as several client addresses."""
    s = requests.Session()
    s.mount("http://", _SourceAdapter(source_ip))
    return s


def tcp_sockets():
    """This machine's IPv4 TCP sockets (/proc/net/tcp) as tuples (local
    port, remote port, state, tx_queue, rx_queue), so a test can wait for
    what the kernel knows instead of sleeping: state is the kernel's code
    ("01" established, "02" SYN sent, "0A" listening); tx_queue is bytes
    sent and not yet acknowledged, rx_queue bytes received and not yet read
    by the program (for a listening socket: connections not yet accepted)."""
    out = []
    with open("/proc/net/tcp") as f:
        next(f)
        for line in f:
            p = line.split()
            tx, rx = p[4].split(":")
            out.append((int(p[1].split(":")[1], 16), int(p[2].split(":")[1], 16), p[3],
                        int(tx, 16), int(rx, 16)))
    return out


def raw_connect(server, source_ip="127.0.0.1", timeout=10):
    """A plain TCP socket to the server from source_ip."""
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.settimeout(timeout)
    s.bind((source_ip, 0))
    s.connect(("127.0.0.1", server.port))
    return s


def csv_table(resp):
    """A CSV twin's (header, records as dicts), after checking its type, its
    CRLF record ends (a bare LF only inside quotes) and equal field counts."""
    assert resp.status_code == 200, resp.text
    assert resp.headers["Content-Type"] == "text/csv; charset=utf-8; header=present"
    text = resp.content.decode("utf-8")
    assert text.endswith("\r\n")
    rows = list(csv.reader(io.StringIO(text, newline=""), strict=True))
    # Every bare LF of the text stands inside a quoted field.
    bare = lambda t: t.count("\n") - t.count("\r\n")  # noqa: E731
    assert bare(text) == sum(bare(f) for r in rows for f in r), "a record ends in a bare LF"
    header, body = rows[0], rows[1:]
    assert all(len(r) == len(header) for r in body)
    return header, [dict(zip(header, r)) for r in body]
