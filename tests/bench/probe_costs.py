#!/usr/bin/env python3
"""probe_costs.py: the daemon's CPU for each request kind the swarm probe
(issue 37, C3 and H9) used to take the site down, on a copy of a filled
database.

A benchmark, not a test: it prints figures and exits non-zero only when
something is broken (the daemon did not start, a page did not answer).

  /usr/bin/python3 tests/bench/probe_costs.py --bin ./llm-speedd --db build/bench/fill-200000.db [--n 200]

For each kind, --n requests one after another on one connection, each a
different address (a random model, pair, card, or an unknown query
argument); the figures are the daemon's CPU time (utime + stime from
/proc/PID/stat) and its rasterizer's (cutime + cstime: rsvg-convert for a
card's PNG) over those requests divided by --n, taken once the
start-up passes have settled (CPU under 30 ms a second).  "first" kinds
ask for things never asked before, so each is a build; "again" kinds ask
for the same set a second time, so each is the kept copy.  /wanted is
measured with 100 rows (asks from 100 visits to unmeasured pages of the
reference data, as wanted_flood.py gives it).
"""
import argparse
import json
import os
import random
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))


def start(binary, db, tmp):
    port = 20000 + random.randint(0, 9999)
    log = open(os.path.join(tmp, "llm-speedd.log"), "w")
    p = subprocess.Popen([binary, "--listen", "127.0.0.1:%d" % port, "--db", db, "--assets", ROOT,
                          "--base-url", "https://llm-speed.example", "--max-per-ip", "100000",
                          "--search-rate", "1000000", "--upload-rate", "0", "--keys-per-network", "0"],
                         stdout=subprocess.DEVNULL, stderr=log)
    for _ in range(600):
        try:
            urllib.request.urlopen("http://127.0.0.1:%d/healthz" % port, timeout=5).read()
            return p, port
        except Exception:
            if p.poll() is not None:
                raise SystemExit("llm-speedd exited: see %s" % log.name)
            time.sleep(0.1)
    raise SystemExit("llm-speedd did not start")


def cpu_ms(pid, children=False):
    """The daemon's CPU time so far, or with children that of the programs
    it ran and waited for (rsvg-convert drawing a card's PNG)."""
    f = open("/proc/%d/stat" % pid).read().rsplit(")", 1)[1].split()
    i = 13 if children else 11
    return (int(f[i]) + int(f[i + 1])) * 1000.0 / os.sysconf("SC_CLK_TCK")


def settle(pid):
    for _ in range(300):
        a = cpu_ms(pid)
        time.sleep(1.0)
        if cpu_ms(pid) - a < 30:
            return


def get(port, path):
    try:
        with urllib.request.urlopen("http://127.0.0.1:%d%s" % (port, path), timeout=60) as r:
            r.read()
            return r.status
    except urllib.error.HTTPError as e:
        e.read()
        return e.code


def measure(pid, port, paths):
    c0, k0, t0 = cpu_ms(pid), cpu_ms(pid, True), time.perf_counter()
    bad = 0
    for u in paths:
        code = get(port, u)
        # A page without runs or a card may be a 404; a sitemap file is there.
        bad += code not in (200, 404) or (u.startswith("/sitemap") and code != 200)
    if bad:
        raise SystemExit("%d of %d requests failed (%s ...)" % (bad, len(paths), paths[0]))
    return ((cpu_ms(pid) - c0) / len(paths), (cpu_ms(pid, True) - k0) / len(paths),
            (time.perf_counter() - t0) * 1000 / len(paths))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin", required=True)
    ap.add_argument("--db", required=True, help="a filled database (copied, never changed)")
    ap.add_argument("--n", type=int, default=200, help="requests a kind (200)")
    ap.add_argument("--only", help="only the kinds whose name holds this")
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="llms-probe-")
    work = os.path.join(tmp, "probe.db")
    shutil.copy(a.db, work)
    con = sqlite3.connect(work)
    models = [r[0] for r in con.execute("SELECT model_slug FROM model_index WHERE runs > 0")]
    hws = [r[0] for r in con.execute("SELECT hw_slug FROM hw_index WHERE runs > 0")]
    pairs = set(con.execute("SELECT model_slug, hw_slug FROM pair_index"))
    nruns = con.execute("SELECT count(*) FROM runs").fetchone()[0]
    con.close()
    rnd = random.Random(39)
    n = a.n
    empty = []
    while len(empty) < n:
        m, h = rnd.choice(models), rnd.choice(hws)
        if (m, h) not in pairs:
            empty.append("/m/%s/hw/%s" % (m, h))
    mpages = ["/m/%s" % m for m in rnd.sample(models, min(n, len(models)))]
    hpages = ["/hw/%s" % h for h in rnd.sample(hws, min(n, len(hws)))]
    mcards = ["/card/m/%s.png" % m for m in rnd.sample(models, min(n, len(models)))]
    hcards = ["/card/hw/%s.png" % h for h in rnd.sample(hws, min(n, len(hws)))]
    p, port = start(os.path.abspath(a.bin), work, tmp)
    try:
        with open(os.path.join(ROOT, "static", "reference", "models.json")) as f:
            ref = list(json.load(f)["models"])
        asks = 0
        for m in ref:
            for h in ("rtx-4090", "rtx-3090", "m3-ultra", "m4-max", "radeon-rx-7900-xtx"):
                if asks < 100 and get(port, "/m/%s/hw/%s.json" % (m, h)) == 200:
                    asks += 1
        time.sleep(2.5)                      # asks are flushed each second
        get(port, "/wanted")
        get(port, "/")
        get(port, "/sitemap-2.xml")
        settle(p.pid)
        kinds = [
            ("/wanted (100 rows), again", ["/wanted"] * n),
            ("/m/<m>/hw/<h> without runs, first", empty),
            ("/m/<m>/hw/<h> without runs, again", empty),
            ("/m/<m>, first", mpages),
            ("/m/<m>, again", mpages),
            ("/hw/<h>, first", hpages),
            ("/card/m/<m>.png, first", mcards),
            ("/card/m/<m>.png, again", mcards),
            ("/card/hw/<h>.png, first", hcards),
            ("/card/hw/<h>.png, again", hcards),
            ("/sitemap-2.xml?x=<random> (runs)", ["/sitemap-2.xml?x=%d" % i for i in range(n)]),
            ("/?x=<random>", ["/?x=%d" % i for i in range(n)]),
            ("/m/<m>?x=<random> (one m)", ["/m/%s?x=%d" % (models[0], i) for i in range(n)]),
        ]
        print("binary %s, %d runs (%s), %d requests a kind; a request's CPU (the daemon's, "
              "the rasterizer's) and wall time" % (a.bin, nruns, a.db, n))
        for name, paths in kinds:
            if a.only and a.only not in name:
                continue
            c, k, w = measure(p.pid, port, paths)
            print("  %-40s %8.2f ms daemon  %8.2f ms rasterizer  %8.2f ms wall" % (name, c, k, w))
    finally:
        p.terminate()
        p.wait()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
