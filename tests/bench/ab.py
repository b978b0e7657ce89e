#!/usr/bin/env python3
"""ab.py: the cost of a change on reads: two daemons (two builds, or one
build with two sets of flags) on copies of one database, measured against
each other with wrk in alternating short slices, so that load from the rest
of a shared machine falls on both alike.

A benchmark, not a test: it prints figures and asserts nothing.

  /usr/bin/python3 tests/bench/ab.py --a OLD/llm-speedd --b ./llm-speedd
  /usr/bin/python3 tests/bench/ab.py --a ./llm-speedd --b ./llm-speedd \\
      --b-args "--access-log /tmp/ab-access.log"

Prints, for the badge and the run page, the median over --rounds of
B's requests/s divided by A's (1.00: no difference), and each daemon's CPU
time per request (from /proc), which the rest of the machine's load moves
far less than requests/s."""
import argparse
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench import Children, Daemon, Failure, fill, median, process_cpu, wrk  # noqa: E402


def slice_of(d, path, a):
    """One wrk slice on daemon d: (requests/s, daemon CPU microseconds per
    request, errors)."""
    cpu = process_cpu(d.proc.pid)
    r = wrk(d.port, path, a.duration, a.connections)
    used = process_cpu(d.proc.pid) - cpu
    return r["rps"], used * 1e6 / max(r["rps"] * a.duration, 1), r["errors"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--a", required=True, help="the reference llm-speedd")
    ap.add_argument("--b", required=True, help="the llm-speedd measured against it")
    ap.add_argument("--a-args", default="", help="more options for A, space-separated")
    ap.add_argument("--b-args", default="", help="more options for B, space-separated")
    ap.add_argument("--runs", type=int, default=1000, help="synthetic runs uploaded first (1000)")
    ap.add_argument("--rounds", type=int, default=9, help="alternating slices per path (9)")
    ap.add_argument("--duration", type=int, default=2, help="seconds per slice (2)")
    ap.add_argument("--threads", type=int, default=2, help="daemon threads (2)")
    ap.add_argument("--connections", type=int, default=32, help="wrk connections (32)")
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="llms-ab-")
    children = Children()
    try:
        da, db = os.path.join(tmp, "a"), os.path.join(tmp, "b")
        os.makedirs(da)
        d = Daemon(children, os.path.abspath(a.a), da, 2, a.a_args.split())
        ids = fill(d.port, a.runs)
        d.stop()
        shutil.copytree(da, db)
        A = Daemon(children, os.path.abspath(a.a), da, a.threads, a.a_args.split())
        B = Daemon(children, os.path.abspath(a.b), db, a.threads, a.b_args.split())
        rid = ids[len(ids) // 2]
        print("ab: %d runs; A %s %s; B %s %s; %d x %d s slices, wrk -t1 -c%d, --threads %d"
              % (len(ids), a.a, a.a_args, a.b, a.b_args, a.rounds, a.duration, a.connections,
                 a.threads), flush=True)
        for name, path in (("badge SVG", "/badge/%s.svg" % rid), ("run page HTML", "/r/%s" % rid)):
            wrk(A.port, path, 1, a.connections)
            wrk(B.port, path, 1, a.connections)
            ratios, ra, rb, ca, cb = [], [], [], [], []
            for i in range(a.rounds):
                first, second = (A, B) if i % 2 == 0 else (B, A)
                x = slice_of(first, path, a)
                y = slice_of(second, path, a)
                oa, ob = (x, y) if first is A else (y, x)
                if oa[2] or ob[2]:
                    raise Failure("wrk errors: %s %s" % (oa[2], ob[2]))
                ra.append(oa[0])
                rb.append(ob[0])
                ca.append(oa[1])
                cb.append(ob[1])
                ratios.append(ob[0] / oa[0])
            print("  %-14s B/A %.3f requests/s (rounds %s); A %.0f req/s, B %.0f req/s;"
                  " CPU per request A %.1f us, B %.1f us: B/A %.3f (medians)"
                  % (name, median(ratios), " ".join("%.2f" % r for r in ratios), median(ra),
                     median(rb), median(ca), median(cb), median(cb) / median(ca)), flush=True)
        return 0
    except Failure as e:
        print("ab: " + str(e), file=sys.stderr)
        return 1
    finally:
        children.stop_all()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
