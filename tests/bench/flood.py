#!/usr/bin/env python3
"""flood.py: a flood of ES256 uploads with a bad signature from one address,
and what it costs everyone else.

A benchmark, not a test: it prints figures and exits non-zero only when
something is broken (the daemon did not start, an honest upload was not
stored).

  /usr/bin/python3 tests/bench/flood.py --bin ./llm-speedd [--seconds 10] [--connections 30]

The daemon runs with its default upload limits (--upload-rate 30, so the
refusal allowance is on).  wrk -t1 -c<connections> posts one well-formed
ES256 JWS whose signature does not verify, from 127.0.0.1, for --seconds;
meanwhile honest uploads (each a fresh Ed25519 run) from 127.0.0.2 and
GET / from 127.0.0.3, one after another, are timed.  Reports the flood's
answers (401: verified and refused; 429: refused before verifying), and the
median and largest latency of the honest uploads and of GET /, against the
same measured before the flood starts.
"""
import argparse
import base64
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "tests", "http"))
from bench import Children, Daemon, Failure  # noqa: E402
from conftest import client_from, make_payload, new_key, sign  # noqa: E402

FLOOD_LUA = """
-- Posts the one body in LLMS_BODY; counts the answers by status.
local f = io.open(os.getenv("LLMS_BODY"), "rb")
local body = f:read("*a")
f:close()
local threads = {}
function setup(thread) table.insert(threads, thread) end
function init(args) n401 = 0; n429 = 0; nother = 0 end
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/jose"
wrk.body = body
function response(status, headers, b)
  if status == 401 then n401 = n401 + 1
  elseif status == 429 then n429 = n429 + 1
  else nother = nother + 1 end
end
function done(summary, latency, requests)
  for _, t in ipairs(threads) do
    io.write(string.format("answers 401=%d 429=%d other=%d\\n", t:get("n401"), t:get("n429"), t:get("nother")))
  end
end
"""


def bad_es256():
    token, _ = sign(make_payload(), new_key("ES256"))
    head, payload, sig = token.split(".")
    raw = bytearray(base64.urlsafe_b64decode(sig + "=" * (-len(sig) % 4)))
    raw[-1] ^= 1
    return "%s.%s.%s" % (head, payload, base64.urlsafe_b64encode(bytes(raw)).rstrip(b"=").decode())


def timed(fn, stop, out, pause=0.05):
    while not stop.is_set():
        t0 = time.perf_counter()
        fn()
        out.append((time.perf_counter() - t0) * 1000)
        time.sleep(pause)


def summary(ms):
    return "median %.1f ms, max %.1f ms (%d)" % (statistics.median(ms), max(ms), len(ms)) if ms else "none"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin", required=True)
    ap.add_argument("--seconds", type=int, default=10)
    ap.add_argument("--connections", type=int, default=30)
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="llms-flood-")
    children = Children()
    try:
        d = Daemon(children, os.path.abspath(a.bin), tmp, 2, ["--upload-rate", "30"])
        body = os.path.join(tmp, "bad.jws")
        with open(body, "w") as f:
            f.write(bad_es256())
        script = os.path.join(tmp, "flood.lua")
        with open(script, "w") as f:
            f.write(FLOOD_LUA)
        honest_s, home_s = client_from("127.0.0.2"), client_from("127.0.0.3")
        url = "http://127.0.0.1:%d" % d.port

        def honest():
            r = honest_s.post(url + "/api/v1/runs", data=sign(make_payload())[0].encode(),
                              headers={"Content-Type": "application/jose"}, timeout=30)
            if r.status_code not in (201, 429):
                raise Failure("honest upload: %d %s" % (r.status_code, r.text[:200]))

        def home():
            home_s.get(url + "/", timeout=30).raise_for_status()

        # Before the flood: the same clients alone, for reference.
        quiet = {"honest": [], "home": []}
        for _ in range(10):
            for name, fn in (("honest", honest), ("home", home)):
                t0 = time.perf_counter()
                fn()
                quiet[name].append((time.perf_counter() - t0) * 1000)
        stop, during = threading.Event(), {"honest": [], "home": []}
        threads = [threading.Thread(target=timed, args=(honest, stop, during["honest"], 0.3)),
                   threading.Thread(target=timed, args=(home, stop, during["home"]))]
        w = subprocess.Popen(["wrk", "-t1", "-c%d" % a.connections, "-d%ds" % a.seconds, "-s", script,
                              url + "/api/v1/runs"], stdout=subprocess.PIPE, text=True,
                             env=dict(os.environ, LLMS_BODY=body))
        time.sleep(0.5)                 # the flood under way
        for t in threads:
            t.start()
        out = w.communicate(timeout=a.seconds + 60)[0]
        stop.set()
        for t in threads:
            t.join()
        answers = [line for line in out.splitlines() if line.startswith("answers")]
        rps = [line for line in out.splitlines() if "Requests/sec" in line]
        print("flood: bad ES256 signatures, wrk -t1 -c%d %ds from 127.0.0.1: %s, %s; load average %.1f"
              % (a.connections, a.seconds, rps[0].split()[-1] + " requests/s" if rps else "?",
                 answers[0] if answers else out[-300:], os.getloadavg()[0]))
        print("  honest uploads from 127.0.0.2: alone %s; during the flood %s"
              % (summary(quiet["honest"]), summary(during["honest"])))
        print("  GET / from 127.0.0.3:          alone %s; during the flood %s"
              % (summary(quiet["home"]), summary(during["home"])))
        d.stop()
        return 0
    except Failure as e:
        print("flood: " + str(e), file=sys.stderr)
        return 1
    finally:
        children.stop_all()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
