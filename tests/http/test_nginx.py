"""The daemon behind a real nginx (nginx-light, /usr/sbin/nginx).

Proves that the Cache-Control and ETag headers the server sends are ones a
shared cache honours, and that the reverse-proxy set-up of deploy/nginx.conf
works.  nginx runs with `proxy_cache` but NO `proxy_cache_valid`, so it
stores exactly what the server's Cache-Control allows and nothing else; the
X-Cache-Status header (nginx's $upstream_cache_status) shows MISS or HIT.

What a CDN needs, and what these tests pin:
- badges: public, max-age=14400, stale-while-revalidate=86400, strong ETag;
  a badge of an unknown id: public, max-age=300 (cached, but briefly);
- run pages: public, max-age=60, stale-while-revalidate=300, so a shared
  copy is at most 60 s old, or up to 300 s more while it is being refreshed
  in the background.  A dispute post shows on the daemon at once (its render
  cache is invalidated); a proxy in front keeps its copy until max-age runs
  out.  Nobody purges it: that bounded staleness is the design, and the test
  checks the bound instead of waiting it out.  It looks at nginx's copy
  straight after the post, a few loopback requests (10 s timeout each) after
  storing it, so it asserts the same things however long the test took;
- errors and POST answers: no-store, never served from a cache.

Each test starts its own daemon and nginx; both are stopped by fixture
finalisers, also when a test fails.
"""
import gzip
import os
import re
import socket
import subprocess

import pytest
import requests

from conftest import ROOT, check_xml, free_port, make_payload, sign, wait_for

NGINX = "/usr/sbin/nginx"
DEPLOY_CONF = os.path.join(ROOT, "deploy", "nginx.conf")
UNKNOWN = "r_aaaaaaaaaaa"
CC_BADGE = "public, max-age=14400, stale-while-revalidate=86400"
CC_MISSING = "public, max-age=300"
CC_PAGE = "public, max-age=60, stale-while-revalidate=300"

pytestmark = pytest.mark.skipif(not os.access(NGINX, os.X_OK),
                                reason="nginx-light is not installed (deploy/deps.sh)")

# The top of every generated configuration: one process in the foreground,
# every file nginx writes inside the test's folder.
MAIN_CONF = """
daemon off;
master_process off;
worker_processes 1;
error_log {tmp}/error.log;
pid {tmp}/nginx.pid;
events {{ worker_connections {conns}; }}
"""

HTTP_COMMON = """
    access_log off;
    client_body_temp_path {tmp}/body;
    proxy_temp_path {tmp}/proxy;
    fastcgi_temp_path {tmp}/fastcgi;
    uwsgi_temp_path {tmp}/uwsgi;
    scgi_temp_path {tmp}/scgi;
"""

# The test front: the deploy/nginx.conf way of proxying, plus a shared
# cache that knows no lifetimes of its own, plus gzip.  The second server
# takes the client address from an X-Test-Client request header, so one
# test can act as several clients behind the proxy.
TEST_HTTP = """
    proxy_cache_path {tmp}/cache keys_zone=llms:1m;
    gzip on;
    gzip_types text/css image/svg+xml application/json;
    gzip_vary on;

    upstream llm_speed {{
        server 127.0.0.1:{upstream};
        keepalive 8;
    }}

    server {{
        listen 127.0.0.1:{port};
        client_max_body_size 64k;
        location / {{
            proxy_pass http://llm_speed;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_set_header Host $host;
            proxy_set_header X-Forwarded-For $remote_addr;
            proxy_cache llms;
            add_header X-Cache-Status $upstream_cache_status always;
        }}
    }}

    server {{
        listen 127.0.0.1:{port2};
        client_max_body_size 64k;
        location / {{
            proxy_pass http://llm_speed;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_set_header Host $host;
            proxy_set_header X-Forwarded-For $http_x_test_client;
        }}
    }}
"""


class Nginx:
    """nginx in the foreground with the configuration http_body (the inside
    of the http block) in its own folder under tmp."""

    def __init__(self, tmp, http_body, ports, conns=64):
        self.tmp = tmp
        os.makedirs(tmp, exist_ok=True)
        self.conf = os.path.join(tmp, "nginx.conf")
        with open(self.conf, "w") as f:
            f.write(MAIN_CONF.format(tmp=tmp, conns=conns))
            f.write("http {\n" + HTTP_COMMON.format(tmp=tmp) + http_body + "}\n")
        self.ports = ports
        self.proc = None

    def args(self, *extra):
        return [NGINX, "-p", self.tmp + "/", "-c", self.conf] + list(extra)

    def check(self):
        """Runs nginx -t on the configuration; returns (ok, output)."""
        out = subprocess.run(self.args("-t"), capture_output=True, text=True, timeout=30)
        return out.returncode == 0, out.stdout + out.stderr

    def start(self):
        self.proc = subprocess.Popen(self.args(), stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)
        waiting = list(self.ports)

        def listening():
            if self.proc.poll() is not None:
                raise RuntimeError("nginx exited: " + self.error_log())
            try:
                while waiting:
                    socket.create_connection(("127.0.0.1", waiting[0]), timeout=1).close()
                    waiting.pop(0)
            except OSError:
                return False
            return True
        try:
            wait_for(listening, interval=0.02, what="nginx to listen")
        except AssertionError:
            raise RuntimeError("nginx did not start listening: " + self.error_log())

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def error_log(self):
        try:
            with open(os.path.join(self.tmp, "error.log"), errors="replace") as f:
                return f.read()
        except OSError:
            return "(no error.log)"


class Front:
    """A daemon with nginx in front: url is the caching proxy, url_xff the
    proxy that forwards X-Test-Client as X-Forwarded-For, server the daemon
    itself (to compare with, bypassing nginx)."""

    def __init__(self, server, nginx):
        self.server = server
        self.nginx = nginx
        self.url = "http://127.0.0.1:%d" % nginx.ports[0]
        self.url_xff = "http://127.0.0.1:%d" % nginx.ports[1]

    def get(self, path, headers=None, **kw):
        """GET through the caching proxy; uncompressed unless headers ask."""
        h = {"Accept-Encoding": "identity"}
        h.update(headers or {})
        return check_xml(requests.get(self.url + path, timeout=10, headers=h, **kw), path)

    def head(self, path, **kw):
        return requests.head(self.url + path, timeout=10, **kw)

    def post(self, path, **kw):
        return requests.post(self.url + path, timeout=10, **kw)

    def upload(self, base=None, headers=None, payload=None):
        token, _ = sign(payload or make_payload())
        h = {"Content-Type": "application/jose"}
        h.update(headers or {})
        return requests.post((base or self.url) + "/api/v1/runs", data=token.encode(),
                             headers=h, timeout=10)


@pytest.fixture
def nginx_factory(tmp_path):
    """Starts nginx processes and stops every one of them at the end."""
    started = []

    def make(tmp, http_body, ports, conns=64):
        n = Nginx(tmp, http_body, ports, conns)
        started.append(n)
        n.start()
        return n

    yield make
    for n in started:
        n.stop()


@pytest.fixture
def make_front(make_server, nginx_factory):
    """Factory: a daemon (with extra arguments) behind the test front."""
    def make(extra_args=()):
        port, port2 = free_port(), free_port()
        server = make_server(["--trust-proxy=127.0.0.1",
                              "--base-url", "http://127.0.0.1:%d" % port] + list(extra_args))
        tmp = os.path.join(server.tmpdir, "nginx")
        body = TEST_HTTP.format(tmp=tmp, upstream=server.port, port=port, port2=port2)
        nginx = nginx_factory(tmp, body, [port, port2])
        return Front(server, nginx)
    return make


@pytest.fixture
def front(make_front):
    return make_front()


def cache_control(resp):
    """The Cache-Control directives as a dict (a bare directive maps to
    True), lower-cased as caches read them."""
    out = {}
    for part in resp.headers.get("Cache-Control", "").split(","):
        part = part.strip().lower()
        if not part:
            continue
        k, _, v = part.partition("=")
        out[k] = int(v) if v.isdigit() else (v or True)
    return out


def cache_status(resp):
    return resp.headers.get("X-Cache-Status", "")


def upload_run(front):
    """Uploads a run and waits until the log covers it: its JSON carries
    the inclusion proof from then on, so every copy compared is the same."""
    r = front.upload()
    assert r.status_code == 201, r.text
    front.server.wait_logged(r.json()["id"])
    return r.json()["id"]


# 1. Badges: cached for max-age, byte-identical, revalidated with 304.

def test_badge_cached_by_proxy_and_revalidates(front):
    rid = upload_run(front)
    direct = front.server.get("/badge/%s.svg" % rid, headers={"Accept-Encoding": "identity"})
    assert direct.status_code == 200

    first = front.get("/badge/%s.svg" % rid)
    second = front.get("/badge/%s.svg" % rid)
    assert first.status_code == second.status_code == 200
    assert cache_status(first) == "MISS"
    assert cache_status(second) == "HIT"
    assert first.content == second.content == direct.content
    for r in (first, second):
        assert r.headers["Content-Type"] == "image/svg+xml"
        assert r.headers["Cache-Control"] == CC_BADGE
        assert r.headers["ETag"] == direct.headers["ETag"]
        assert r.headers["X-Content-Type-Options"] == "nosniff"
        assert "Set-Cookie" not in r.headers

    # Revalidation: nginx answers from its copy, with the validators.
    etag = direct.headers["ETag"]
    nm = front.get("/badge/%s.svg" % rid, headers={"If-None-Match": etag})
    assert nm.status_code == 304
    assert nm.content == b""
    assert nm.headers["ETag"] == etag
    assert nm.headers["Cache-Control"] == CC_BADGE
    other = front.get("/badge/%s.svg" % rid, headers={"If-None-Match": '"0000"'})
    assert other.status_code == 200 and other.content == direct.content

    # A CDN revalidating with the daemon gets a 304 that keeps the
    # freshness lifetime and the tag (RFC 9111 4.3.4 updates the stored
    # headers from it).
    up = front.server.get("/badge/%s.svg" % rid, headers={"If-None-Match": etag,
                                                         "Accept-Encoding": "identity"})
    assert up.status_code == 304 and up.content == b""
    assert up.headers["ETag"] == etag
    assert up.headers["Cache-Control"] == CC_BADGE


# 2. The badge of an unknown id is cacheable, but only briefly.

def test_missing_badge_cached_briefly(front):
    first = front.get("/badge/%s.svg" % UNKNOWN)
    second = front.get("/badge/%s.svg" % UNKNOWN)
    assert first.status_code == second.status_code == 404
    assert first.headers["Content-Type"] == "image/svg+xml"
    assert first.headers["Cache-Control"] == CC_MISSING
    cc = cache_control(first)
    assert cc["public"] is True and cc["max-age"] == 300
    assert "stale-while-revalidate" not in cc
    assert cache_status(first) == "MISS"
    assert cache_status(second) == "HIT"
    assert first.content == second.content
    assert first.content.lstrip().startswith(b"<svg")


# 3. Uploads and errors are never cached.

def test_uploads_and_errors_not_cached(front):
    up = front.upload()
    assert up.status_code == 201, up.text
    body = up.json()
    rid = body["id"]
    assert up.headers["Location"] == front.url + "/r/" + rid
    assert body["url"] == front.url + "/r/" + rid
    assert body["badge_url"] == front.url + "/badge/%s.svg" % rid
    assert cache_status(up) != "HIT"
    assert "no-store" in cache_control(up)

    for path in ("/r/%s.json" % UNKNOWN, "/api/v1/nothing", "/r/%s" % UNKNOWN):
        seen = [front.get(path) for _ in range(3)]
        for r in seen:
            assert r.status_code == 404, path
            assert cache_status(r) != "HIT", path
            assert "no-store" in cache_control(r), path
            assert "public" not in cache_control(r), path
    e = front.get("/r/%s.json" % UNKNOWN)
    assert e.json()["error"]["code"]

    # A repeated POST is never answered from the cache either.
    again = front.upload()
    assert again.status_code == 201 and again.json()["id"] != rid
    assert cache_status(again) != "HIT"

    # A 405 for GET on the upload path is an error too: not stored.
    for _ in range(2):
        r = front.get("/api/v1/runs")
        assert r.status_code == 405 and cache_status(r) != "HIT"


# 4. Run pages: cached for max-age, bounded staleness after a change.

def test_run_page_cache_and_staleness_bound(front):
    rid = upload_run(front)
    first = front.get("/r/" + rid)
    second = front.get("/r/" + rid)
    # A post changes the page on the daemon...
    note = "nginx-staleness-probe-%d" % os.getpid()
    posted = front.post("/api/v1/runs/%s/disputes" % rid,
                        json={"author": "proxy test", "body": note})
    # ...and nginx keeps its copy until max-age (60 s) runs out: three
    # requests after storing it, each under its 10 s timeout.
    proxied = front.get("/r/" + rid)
    assert cache_status(proxied) == "HIT"
    assert note not in proxied.text
    assert proxied.content == first.content

    assert first.status_code == second.status_code == 200
    assert cache_status(first) == "MISS" and cache_status(second) == "HIT"
    assert first.content == second.content
    assert first.headers["Content-Type"].startswith("text/html")
    assert first.headers["Cache-Control"] == CC_PAGE
    assert first.headers.get("ETag")
    # What a CDN needs: public, a short max-age that bounds how stale a
    # shared copy may be, and stale-while-revalidate so visitors do not
    # wait on a refresh.  Worst case a post appears 60 + 300 s late.
    cc = cache_control(first)
    assert cc["public"] is True
    assert 0 < cc["max-age"] <= 60
    assert cc["max-age"] < cc["stale-while-revalidate"] <= 600
    assert "private" not in cc and "no-cache" not in cc

    # The JSON of the run page carries the same lifetime.
    js = front.get("/r/%s.json" % rid)
    assert js.status_code == 200 and js.headers["Cache-Control"] == CC_PAGE

    assert posted.status_code == 201, posted.text
    assert cache_status(posted) != "HIT"
    # The daemon shows the post at once (its own render cache was dropped).
    direct = front.server.get("/r/" + rid)
    assert direct.status_code == 200 and note in direct.text
    assert note in front.server.get("/r/%s.json" % rid).text


def test_form_post_redirect_passes_proxy_cache(front):
    """The browser form's 303 points at a new URL (?posted=<id>), so the
    poster sees the post at once even while the proxy still serves the
    older copy of /r/<id> to everybody else."""
    rid = upload_run(front)
    cached = front.get("/r/" + rid)
    again = front.get("/r/" + rid)
    assert cache_status(again) == "HIT"
    m = re.search(r'<input type="hidden" name="token" value="([^"]+)">', again.text)
    assert m, "the run page has no form token"

    note = "posted-through-nginx-%d" % os.getpid()
    r = front.post("/r/%s/disputes" % rid, allow_redirects=False,
                   data={"author": "browser", "body": note, "token": m.group(1)},
                   headers={"Origin": front.url})
    assert r.status_code == 303, r.text
    loc = r.headers["Location"]
    assert loc.startswith("/r/%s?posted=" % rid)
    assert cache_status(r) != "HIT" and "no-store" in cache_control(r)

    after = front.get(loc)
    # Everybody else still gets nginx's copy: four requests after storing
    # it, each under its 10 s timeout, so well inside its 60 s.
    old = front.get("/r/" + rid)
    assert after.status_code == 200
    assert cache_status(after) == "MISS"
    assert note in after.text
    assert cache_status(old) == "HIT" and old.content == cached.content


# 5. X-Forwarded-For from a trusted proxy: rate limits count each client.

def test_upload_rate_counts_forwarded_client(make_front):
    front = make_front(["--upload-rate", "1"])

    def from_client(addr):
        return front.upload(base=front.url_xff, headers={"X-Test-Client": addr})

    a1 = from_client("198.51.100.7")
    assert a1.status_code == 201, a1.text
    a2 = from_client("198.51.100.7")
    assert a2.status_code == 429, a2.text
    assert a2.json()["error"]["code"] == "rate_limited"
    assert int(a2.headers["Retry-After"]) > 0
    assert "no-store" in cache_control(a2)
    b1 = from_client("203.0.113.9")
    assert b1.status_code == 201, b1.text
    # The caching front forwards $remote_addr (127.0.0.1): a client of
    # its own, with its own allowance.
    c1 = front.upload()
    assert c1.status_code == 201, c1.text
    c2 = front.upload()
    assert c2.status_code == 429, c2.text


# 6. HEAD and gzip through nginx.

def test_head_through_proxy(front):
    rid = upload_run(front)
    for path in ("/badge/%s.svg" % rid, "/r/" + rid, "/r/%s.json" % rid, "/static/style.css", "/"):
        get = front.server.get(path, headers={"Accept-Encoding": "identity"})
        assert get.status_code == 200, path
        for base in (front.url, front.url_xff):
            h = requests.head(base + path, timeout=10, headers={"Accept-Encoding": "identity"})
            assert h.status_code == 200, (base, path)
            assert h.content == b""
            assert h.headers["Content-Type"] == get.headers["Content-Type"]
            assert h.headers.get("Cache-Control") == get.headers.get("Cache-Control")
            assert h.headers.get("ETag") == get.headers.get("ETag")
            if "Content-Length" in h.headers:
                assert int(h.headers["Content-Length"]) == len(get.content)
        # After the HEAD filled the cache, a GET is served from it in full.
        g = front.get(path)
        assert g.content == get.content, path
    missing = front.head("/r/%s.json" % UNKNOWN)
    assert missing.status_code == 404 and missing.content == b""


def test_gzip_through_proxy_same_bytes(front):
    rid = upload_run(front)
    for path in ("/badge/%s.svg" % rid, "/r/" + rid, "/r/%s.json" % rid,
                 "/static/style.css", "/badge/%s.svg" % UNKNOWN):
        direct = front.server.get(path, headers={"Accept-Encoding": "identity"})
        for _ in range(2):  # a MISS, then a HIT compressed from the cache
            r = requests.get(front.url + path, timeout=10, stream=True,
                             headers={"Accept-Encoding": "gzip"})
            raw = r.raw.read(decode_content=False)
            assert r.status_code == direct.status_code, path
            assert r.headers.get("Content-Encoding") == "gzip", path
            assert "Accept-Encoding" in r.headers.get("Vary", ""), path
            assert gzip.decompress(raw) == direct.content, path
            assert r.headers["Cache-Control"] == direct.headers["Cache-Control"]
        plain = front.get(path)
        assert "Content-Encoding" not in plain.headers
        assert plain.content == direct.content, path
    # A body under 4 KB (the badge) is gzipped by nginx, which weakens the
    # tag; one the daemon keeps gzipped (a run page) comes with a strong
    # tag of that copy's own, which nginx passes on.  Each revalidates at
    # nginx and at the daemon.
    for path, gz_tag in (("/badge/%s.svg" % rid, lambda t: "W/" + t),
                         ("/r/" + rid, lambda t: t[:-1] + '-gz"')):
        plain_tag = front.server.get(path, headers={"Accept-Encoding": "identity"}).headers["ETag"]
        tag = front.get(path, headers={"Accept-Encoding": "gzip"}).headers["ETag"]
        assert tag == gz_tag(plain_tag), (path, tag, plain_tag)
        nm = front.get(path, headers={"Accept-Encoding": "gzip", "If-None-Match": tag})
        assert nm.status_code == 304, path
        up = front.server.get(path, headers={"If-None-Match": tag})
        assert up.status_code == 304, path


# deploy/nginx.conf itself.

def deploy_http_body(tmp, upstream, port):
    """deploy/nginx.conf with the test's ports and folders put in: the
    upstream address, the listen address and the cache folder."""
    with open(DEPLOY_CONF) as f:
        text = f.read()
    text, n = re.subn(r"server 127\.0\.0\.1:8080;", "server 127.0.0.1:%d;" % upstream, text)
    assert n == 1, "deploy/nginx.conf: the upstream is no longer 127.0.0.1:8080"
    text, n = re.subn(r"listen 80;", "listen 127.0.0.1:%d;" % port, text)
    assert n == 1, "deploy/nginx.conf: the server no longer listens on port 80"
    text = text.replace("/var/cache/nginx/llm-speed", os.path.join(tmp, "cache"))
    return text


def test_deploy_conf_is_valid_nginx(tmp_path):
    tmp = str(tmp_path / "check")
    n = Nginx(tmp, deploy_http_body(tmp, 8080, free_port()), [])
    ok, out = n.check()
    assert ok, out
    assert "syntax is ok" in out and "test is successful" in out


def test_deploy_conf_proxies(make_server, nginx_factory, tmp_path):
    port = free_port()
    server = make_server(["--trust-proxy=127.0.0.1", "--base-url", "http://127.0.0.1:%d" % port,
                          "--upload-rate", "1"])
    tmp = str(tmp_path / "deploy")
    nginx_factory(tmp, deploy_http_body(tmp, server.port, port), [port])
    url = "http://127.0.0.1:%d" % port

    token, _ = sign(make_payload())
    up = requests.post(url + "/api/v1/runs", data=token.encode(), timeout=10,
                       headers={"Content-Type": "application/jose"})
    assert up.status_code == 201, up.text
    rid = up.json()["id"]
    assert up.headers["Location"] == url + "/r/" + rid
    # nginx overwrites X-Forwarded-For with the peer, so a client cannot
    # claim another address to dodge the rate limit.
    token, _ = sign(make_payload())
    spoof = requests.post(url + "/api/v1/runs", data=token.encode(), timeout=10,
                          headers={"Content-Type": "application/jose",
                                   "X-Forwarded-For": "192.0.2.55"})
    assert spoof.status_code == 429, spoof.text

    page = requests.get(url + "/r/" + rid, timeout=10)
    assert page.status_code == 200 and page.headers["Cache-Control"] == CC_PAGE
    direct = server.get("/badge/%s.svg" % rid)
    b1 = check_xml(requests.get(url + "/badge/%s.svg" % rid, timeout=10))
    b2 = check_xml(requests.get(url + "/badge/%s.svg" % rid, timeout=10))
    assert b1.content == b2.content == direct.content
    assert cache_status(b1) == "MISS" and cache_status(b2) == "HIT"
    big = requests.post(url + "/api/v1/runs", data=b"x" * (65 * 1024), timeout=10,
                        headers={"Content-Type": "application/jose"})
    assert big.status_code == 413


def test_deploy_conf_keeps_metrics_off_the_public_side(make_server, nginx_factory, tmp_path):
    """/metrics through deploy/nginx.conf is 404 twice over: nginx denies the
    path, and the daemon judges a forwarded request by X-Forwarded-For; the
    operator's scraper on the host reads the daemon directly."""
    port = free_port()
    server = make_server(["--trust-proxy=127.0.0.1", "--base-url", "http://127.0.0.1:%d" % port])
    tmp = str(tmp_path / "deploy")
    nginx_factory(tmp, deploy_http_body(tmp, server.port, port), [port])
    front = requests.get("http://127.0.0.1:%d/metrics" % port, timeout=10)
    assert front.status_code == 404 and "llmspeed_" not in front.text
    assert server.get("/metrics", headers={"X-Forwarded-For": "192.0.2.1"}).status_code == 404
    assert server.get("/metrics").status_code == 200


# Counts the answers by status class across wrk's threads.
WRK_COUNT = """
local threads = {}
function setup(thread) table.insert(threads, thread) end
function init(args) ok = 0; c4 = 0; c5 = 0 end
function response(status, headers, body)
  if status >= 500 then c5 = c5 + 1 elseif status >= 400 then c4 = c4 + 1 else ok = ok + 1 end
end
function done(summary, latency, requests)
  local a, b, c = 0, 0, 0
  for _, t in ipairs(threads) do a = a + t:get("ok"); b = b + t:get("c4"); c = c + t:get("c5") end
  io.write(string.format("COUNTS ok=%d c4=%d c5=%d errors=%d\\n", a, b, c,
    summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.status))
end
"""


def test_deploy_conf_under_300_connections_answers_no_5xx(make_server, nginx_factory, tmp_path):
    """The daemon with the flags of deploy/llm-speedd.service and its
    default per-address limit, behind deploy/nginx.conf: 300 concurrent
    connections through the proxy get no 502 (nginx's own address is not
    held to the daemon's per-address limit)."""
    port = free_port()
    server = make_server(["--trust-proxy=127.0.0.1", "--base-url", "http://127.0.0.1:%d" % port,
                          "--max-per-ip", "32"])   # the default; conftest raises it
    tmp = str(tmp_path / "deploy")
    nginx_factory(tmp, deploy_http_body(tmp, server.port, port), [port], conns=2048)
    token, _ = sign(make_payload())
    up = requests.post("http://127.0.0.1:%d/api/v1/runs" % port, data=token.encode(), timeout=10,
                       headers={"Content-Type": "application/jose"})
    assert up.status_code == 201, up.text
    script = os.path.join(tmp, "count.lua")
    with open(script, "w") as f:
        f.write(WRK_COUNT)
    out = subprocess.run(["wrk", "-t2", "-c300", "-d4s", "-s", script,
                          "http://127.0.0.1:%d/r/%s.json" % (port, up.json()["id"])],
                         capture_output=True, text=True, timeout=120)
    m = re.search(r"COUNTS ok=(\d+) c4=(\d+) c5=(\d+)", out.stdout)
    assert m, out.stdout + out.stderr
    ok, c4, c5 = map(int, m.groups())
    assert c5 == 0, out.stdout
    assert ok > 0, out.stdout
