"""/metrics: the Prometheus text exposition, checked by Debian's promtool,
its counters moving with real traffic, its stored counts against the
database, and who may read it (loopback and --metrics-allow addresses;
under --trust-proxy the forwarded address decides)."""
import re
import shutil
import sqlite3
import subprocess

import pytest
import requests

from conftest import client_from, make_payload, sign, upload_payload
from test_openapi import check

PROMTOOL = shutil.which("promtool")
SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})? (\S+)$')


def scrape(server, **kw):
    r = server.get("/metrics", **kw)
    assert r.status_code == 200, r.text[:300]
    assert r.headers["Content-Type"] == "text/plain; version=0.0.4; charset=utf-8"
    assert r.headers["Cache-Control"] == "no-store"
    return r.text


def samples(text):
    """{(name, frozenset of label pairs): value} of every sample line."""
    out = {}
    for line in text.split("\n"):
        if not line or line.startswith("#"):
            continue
        m = SAMPLE.match(line)
        assert m, "not a sample line: %r" % line
        labels = frozenset(re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"', m.group(2) or ""))
        key = (m.group(1), labels)
        assert key not in out, "a series written twice: %r" % line
        out[key] = float(m.group(3))
    return out


def value(s, name, **labels):
    return s.get((name, frozenset(labels.items())), 0.0)


def promtool_check(text):
    assert PROMTOOL, "promtool is missing: deploy/deps.sh installs the prometheus package"
    r = subprocess.run([PROMTOOL, "check", "metrics"], input=text, capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 0, r.stdout + r.stderr
    return r.stdout + r.stderr


def db_count(server, sql):
    con = sqlite3.connect("file:%s?mode=ro" % server.db, uri=True)
    try:
        return con.execute(sql).fetchone()[0]
    finally:
        con.close()


def test_promtool_passes_and_counters_move_with_traffic(make_server):
    server = make_server(["--upload-rate", "3"])
    before = samples(scrape(server))
    token, _ = sign(make_payload())
    first = server.upload(token)
    assert first.status_code == 201
    rid = first.json()["id"]
    assert server.upload(token).status_code == 200                   # duplicate
    bad = server.upload(token[:-4] + ("AAAA" if not token.endswith("AAAA") else "BBBB"))
    assert bad.status_code in (400, 401)
    bad_code = bad.json()["error"]["code"]
    sent = 3
    while upload_payload(server).status_code != 429:   # the limit's burst runs out
        sent += 1
        assert sent < 8
    sent += 1
    for _ in range(3):
        assert server.get("/r/%s" % rid).status_code == 200        # a miss, then hits
    assert server.get("/no/such/page").status_code == 404
    assert server.get("/badge/%s.svg" % rid).status_code == 200
    text = scrape(server)
    report = promtool_check(text)
    after = samples(text)

    def moved(name, **labels):
        return value(after, name, **labels) - value(before, name, **labels)

    assert moved("llmspeed_http_requests_total", route="/r/*", code="2xx") == 3
    assert moved("llmspeed_http_requests_total", route="none", code="4xx") == 1
    accepted = sent - 3             # the first, and those before the 429
    assert moved("llmspeed_http_requests_total", route="/api/v1/runs", code="2xx") == accepted + 1
    assert moved("llmspeed_http_requests_total", route="/api/v1/runs", code="4xx") == 2
    assert moved("llmspeed_uploads_total", result="accepted") == accepted
    assert moved("llmspeed_uploads_total", result="duplicate") == 1
    assert moved("llmspeed_uploads_total", result=bad_code) == 1
    assert moved("llmspeed_uploads_total", result="rate_limited") == 1
    assert moved("llmspeed_rate_limited_total", route="/api/v1/runs") == 1
    assert moved("llmspeed_response_cache_hits_total", kind="run_html") >= 1
    assert moved("llmspeed_response_cache_misses_total", kind="run_html") >= 1
    assert moved("llmspeed_http_request_duration_seconds_count", kind="page") == 3
    assert moved("llmspeed_http_request_duration_seconds_count", kind="none") == 1
    assert moved("llmspeed_http_request_duration_seconds_count", kind="upload") == sent
    assert moved("llmspeed_http_request_duration_seconds_count", kind="badge") == 1
    # A histogram's +Inf bucket is its count, and the buckets only grow.
    for kind in ("page", "upload", "badge"):
        name = "llmspeed_http_request_duration_seconds"
        assert value(after, name + "_bucket", kind=kind, le="+Inf") == value(after, name + "_count", kind=kind)
        les = sorted(((float(dict(k[1])["le"]), v) for k, v in after.items()
                      if k[0] == name + "_bucket" and dict(k[1])["kind"] == kind))
        assert [v for _, v in les] == sorted(v for _, v in les)
    assert value(after, "llmspeed_db_group_commit_size_count") >= 1
    assert value(after, "llmspeed_db_group_commit_size_sum") == value(after, "llmspeed_db_writes_total")
    # Stored counts, read from rows kept on write, equal the tables'.
    assert value(after, "llmspeed_runs_stored") == db_count(server, "SELECT count(*) FROM runs") == accepted
    assert value(after, "llmspeed_signing_keys_stored") == db_count(server, "SELECT count(*) FROM signing_keys")
    assert value(after, "llmspeed_clusters_stored") == db_count(server, "SELECT count(*) FROM clusters")
    assert value(after, "llmspeed_runs_flagged") == 0
    assert value(after, "llmspeed_db_size_bytes") > 0
    assert value(after, "llmspeed_open_connections") >= 1
    server.wait_for_checkpoint(accepted)
    later = samples(scrape(server))
    assert value(later, "llmspeed_tlog_entries") == accepted
    assert value(later, "llmspeed_tlog_checkpoint_entries") == accepted
    assert 0 <= value(later, "llmspeed_tlog_checkpoint_age_seconds") < 3600
    assert value(later, "llmspeed_process_start_time_seconds") > 1.7e9
    info = [k for k in later if k[0] == "llmspeed_build_info"]
    assert len(info) == 1
    labels = dict(info[0][1])
    assert re.match(r"^3\.\d+\.\d+$", labels["sqlite"]) and re.match(r"^0\.9\.\d+$", labels["microhttpd"])
    assert labels["version"]
    assert "error" not in report.lower()


def test_every_name_follows_the_conventions(server):
    upload_payload(server)
    text = scrape(server)
    types = dict(re.findall(r"^# TYPE (\S+) (\S+)$", text, re.M))
    assert types, text[:300]
    for name, kind in types.items():
        assert name.startswith("llmspeed_"), name
        assert (kind == "counter") == name.endswith("_total"), name
        assert re.search(r"^# HELP %s \S" % re.escape(name), text, re.M), name
    for needed in ("llmspeed_http_requests_total", "llmspeed_uploads_total",
                   "llmspeed_http_request_duration_seconds", "llmspeed_rate_limited_total",
                   "llmspeed_runs_stored", "llmspeed_signing_keys_stored", "llmspeed_clusters_stored",
                   "llmspeed_runs_flagged", "llmspeed_db_size_bytes", "llmspeed_db_wal_size_bytes",
                   "llmspeed_db_checkpoint_lag_frames", "llmspeed_db_writer_queue_depth",
                   "llmspeed_db_group_commit_size", "llmspeed_tlog_entries",
                   "llmspeed_tlog_checkpoint_age_seconds", "llmspeed_response_cache_hits_total",
                   "llmspeed_response_cache_misses_total", "llmspeed_open_connections",
                   "llmspeed_process_start_time_seconds", "llmspeed_build_info"):
        assert needed in types, needed


def test_loopback_reads_and_the_openapi_description_holds(server):
    for source in ("127.0.0.1", "127.0.0.2"):
        r = client_from(source).get(server.url + "/metrics", timeout=10)
        assert r.status_code == 200, source
        check(r, "GET", "/metrics")


def test_forwarded_clients_get_the_404_of_an_unknown_address(make_server):
    server = make_server(["--trust-proxy=127.0.0.1"])
    unknown = server.get("/no/such/page", headers={"X-Forwarded-For": "203.0.113.9"})
    r = server.get("/metrics", headers={"X-Forwarded-For": "203.0.113.9"})
    assert r.status_code == 404 == unknown.status_code
    assert r.headers["Content-Type"] == unknown.headers["Content-Type"]
    assert "llmspeed_" not in r.text
    check(r, "GET", "/metrics")
    # The proxy's own requests carry their client's address; a scraper on
    # this host that talks to the daemon directly sends none.
    assert server.get("/metrics").status_code == 200
    assert server.get("/metrics", headers={"X-Forwarded-For": "127.0.0.1"}).status_code == 200


def test_metrics_allow_names_other_addresses(make_server):
    server = make_server(["--trust-proxy=127.0.0.1", "--metrics-allow", "203.0.113.9,2001:db8::7"])
    for addr, want in (("203.0.113.9", 200), ("2001:db8:0:0::7", 200), ("203.0.113.10", 404),
                       ("2001:db8::8", 404)):
        r = server.get("/metrics", headers={"X-Forwarded-For": addr})
        assert r.status_code == want, addr
    # Without --trust-proxy the header is not believed: the peer is loopback.
    plain = make_server(["--metrics-allow", "203.0.113.9"])
    assert plain.get("/metrics", headers={"X-Forwarded-For": "198.51.100.1"}).status_code == 200


@pytest.mark.parametrize("flag,value,words", [
    ("--metrics-allow", "10.0.0.1,nonsense", "is not an IP address"),
    ("--security-contact", "security@example.org", "mailto:"),
])
def test_bad_operations_flags_are_refused(tmp_path, flag, value, words):
    from conftest import BIN, ROOT
    r = subprocess.run([BIN, "--db", str(tmp_path / "x.db"), "--assets", ROOT, flag, value],
                       capture_output=True, text=True, timeout=30)
    assert r.returncode == 2 and words in r.stderr, r.stderr


def test_a_scrape_does_not_count_rows(server):
    """The stored counts come from rows kept on write (migration 0023):
    the query plan of a scrape reads no runs, keys or clusters table."""
    con = sqlite3.connect("file:%s?mode=ro" % server.db, uri=True)
    try:
        plan = " ".join(r[-1] for r in con.execute("EXPLAIN QUERY PLAN SELECT name, n FROM row_counts"))
        assert "row_counts" in plan and "runs" not in plan
        flagged = " ".join(r[-1] for r in con.execute(
            "EXPLAIN QUERY PLAN SELECT count(*) FROM runs WHERE outlier = 1"))
        assert "runs_outlier" in flagged, flagged
    finally:
        con.close()
    requests.get(server.url + "/metrics", timeout=10).raise_for_status()
