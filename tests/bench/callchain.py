#!/usr/bin/python3
"""callchain.py: which source files and server/ folders one request runs
through, measured, not read off the code.

    tests/bench/callchain.py --tree . --build /tmp/cc-after

builds the tree's daemon with -O0 -finstrument-functions and
tests/bench/callchain_hook.c (into --build), starts it on a copy of
pages_digest.py's fixture, and for each request below records every
function entered while it is answered: on the thread that answers it
(from router_access on) and, for a write, on the writer and sync threads
that store it.  Prints, per request, the distinct source files and
server/ folders (a layer each; server/ itself, the router's, counts as
one), then the files.  For issue 34's closing note: a GET of /m/<slug>
through page_serve (built, and kept), an upload through upload_handle (on
main; the upload row run by defer_serve since issue 34).
"""
import argparse
import collections
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pages_digest as pd  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


def build(tree, out):
    """Builds tree's daemon with the hooks into out; returns the binary."""
    os.makedirs(out, exist_ok=True)
    hook = os.path.join(out, "callchain_hook.o")
    subprocess.run(["cc", "-O1", "-c", "-o", hook, os.path.join(HERE, "callchain_hook.c")], check=True)
    libs = subprocess.run(["pkg-config", "--libs", "libmicrohttpd", "jansson", "libsodium", "sqlite3", "zlib"],
                          capture_output=True, text=True, check=True).stdout.split()
    binary = os.path.join(out, "llm-speedd")
    subprocess.run(["make", "-C", tree, "-j2", "BUILD=" + os.path.join(out, "obj"), "BIN=" + binary,
                    "CFLAGS=-O0 -g -finstrument-functions",
                    "LIBS=" + " ".join(libs + ["-lmbedcrypto", "-lpthread", "-lm", hook])],
                   check=True, stdout=subprocess.DEVNULL)
    return binary


def base_of(pid, binary):
    """The load address of binary in process pid (a PIE)."""
    real = os.path.realpath(binary)
    with open("/proc/%d/maps" % pid) as f:
        for line in f:
            p = line.split()
            if len(p) >= 6 and os.path.realpath(p[5]) == real and p[2] == "00000000":
                return int(p[0].split("-")[0], 16)
    raise SystemExit("no mapping of %s" % binary)


def resolve(binary, base, addrs):
    """{address: (function, source path relative to the tree)}."""
    addrs = sorted(addrs)
    out = subprocess.run(["addr2line", "-f", "-e", binary] + ["%x" % (a - base) for a in addrs],
                         capture_output=True, text=True, check=True).stdout.splitlines()
    res = {}
    for i, a in enumerate(addrs):
        fn, loc = out[2 * i], out[2 * i + 1].split(":")[0]
        k = loc.find("/server/")
        res[a] = (fn, loc[k + 1:] if k >= 0 else loc)
    return res


def traced(d, binary, on, trace, ask):
    """Runs ask() with the trace on; returns {thread: set of (fn, file)}."""
    open(trace, "w").close()
    with open(on, "w"):
        pass
    time.sleep(0.05)
    ask()
    time.sleep(0.5)        # the writer, the sync thread and done()
    os.unlink(on)
    time.sleep(0.05)
    threads = collections.defaultdict(set)
    with open(trace) as f:
        for line in f:
            t, a = line.split()
            threads[t].add(int(a, 16))
    names = resolve(binary, base_of(d.proc.pid, binary), set().union(*threads.values()))
    return {t: {names[a] for a in s} for t, s in threads.items()}


def chain(threads, write):
    """The functions of the answering thread (the one in router_access),
    and with those, for a write, the writer's (the thread that ran
    run_store_run) and the sync thread's (the one in db_sync.c's sync_main).
    The threads a commit wakes (the log's signer, the refresh thread) are
    left out: they follow the write, they are not its path."""
    answer, store = set(), set()
    for s in threads.values():
        # .c files only: a header's inline function (buf_error) is
        # attributed to the header or to its caller as addr2line finds it.
        mine = {(fn, f) for fn, f in s if f.startswith("server/") and f.endswith(".c")}
        fns = {fn for fn, _ in s}
        if "router_access" in fns:
            answer |= mine
        elif write and fns & {"run_store_run", "sync_main"}:
            store |= mine
    return answer, answer | store


def report(label, fns):
    files = sorted({f for _, f in fns})
    layers = sorted({os.path.dirname(f) for f in files})
    print("%-34s %3d files  %d layers (%s)  %d functions" % (
        label, len(files), len(layers), ", ".join(l[len("server"):].lstrip("/") or "server/" for l in layers),
        len(fns)))
    return files


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tree", default=pd.ROOT, help="the source tree to measure")
    ap.add_argument("--build", required=True, help="where to build it")
    ap.add_argument("--fixture", default=os.path.join(pd.ROOT, "build", "pages-fixture"))
    ap.add_argument("--files", action="store_true", help="list each request's files")
    a = ap.parse_args()
    binary = build(os.path.abspath(a.tree), os.path.abspath(a.build))
    pd.ASSETS = os.path.abspath(a.tree)
    if not os.path.exists(os.path.join(a.fixture, "fixture.json")):
        raise SystemExit("no fixture: run tests/bench/pages_digest.py first")
    tmp = tempfile.mkdtemp(prefix="callchain-")
    for name in os.listdir(a.fixture):
        if name.startswith(pd.DB):
            shutil.copy2(os.path.join(a.fixture, name), tmp)
    on, trace = os.path.join(tmp, "trace.on"), os.path.join(tmp, "trace.out")
    os.environ.update(LLMSPEED_TRACE_ON=on, LLMSPEED_TRACE_OUT=trace)
    d = pd.Daemon(binary, tmp)
    row = (1, "Qwen3-8B", "M3 Ultra", "llama.cpp", 62.2)
    jws = pd.Signer(1).sign(pd.run_payload(20, *row[1:]))
    try:
        d.request("GET", "/")          # the templates and statements of a first page
        d.settle()
        cases = [
            ("GET /m/qwen3-8b (built)", False, lambda: d.request("GET", "/m/qwen3-8b")),
            ("GET /m/qwen3-8b (kept)", False, lambda: d.request("GET", "/m/qwen3-8b")),
            ("POST /api/v1/runs (201)", True,
             lambda: d.request("POST", "/api/v1/runs", jws, {"Content-Type": "application/jose"})),
        ]
        for label, write, ask in cases:
            answer, every = chain(traced(d, binary, on, trace, ask), write)
            for lab, fns in [(label, answer)] + ([(label + " + store", every)] if write else []):
                files = report(lab, fns)
                if a.files:
                    print("    " + "\n    ".join(files))
    finally:
        d.stop()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
