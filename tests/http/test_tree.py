"""The source tree keeps its own rules (no daemon needed):

- every server/**/*.c has a unit test of its name (tests/check_<file>.c) or
  a line in tests/exceptions.txt saying where it is tested instead;
- every function a header declares returning json_t * says whether the
  reference is new (the caller's) or borrowed;
- the store layer logs through util/log.c (so --quiet silences it);
- UTF-8 continuation bytes are stepped over in util/utf8.c only;
- every date comes from util/timefmt.c's time_now() (so tests can set the
  clock), and only main.c turns the test clock on;
- no file under server/X includes a header of a folder above X in the
  README's "Who may call whom" diagram;
- at least 95% of the names the objects export carry their file's, their
  file's first word's or their folder's prefix (nm over build/server);
- no prefix names two folders: a name that carries only its file's first
  word carries no word another folder's files are named by;
- each page kind's name is spelled once in server/pages/kinds.c.

The few files named PENDING are other work in progress that fixes them;
each list must only shrink."""
import glob
import os
import re
import subprocess

import json

from conftest import BIN, ROOT

SERVER = os.path.join(ROOT, "server")
TESTS = os.path.join(ROOT, "tests")


def sources(ext):
    out = []
    for d, _, files in os.walk(SERVER):
        out += [os.path.relpath(os.path.join(d, f), ROOT) for f in files if f.endswith(ext)]
    return sorted(out)


def read(rel):
    with open(os.path.join(ROOT, rel), encoding="utf-8") as f:
        return f.read()


def exception_lines():
    """tests/exceptions.txt as {source: text after the colon}."""
    lines = {}
    for n, line in enumerate(read("tests/exceptions.txt").splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        src, sep, why = line.partition(": ")
        assert sep and src.startswith("server/") and src.endswith(".c"), \
            "tests/exceptions.txt:%d is not '<source>: covered by ...': %s" % (n, line)
        assert src not in lines, "tests/exceptions.txt:%d lists %s twice" % (n, src)
        assert why.startswith("covered by "), "tests/exceptions.txt:%d: say what covers %s" % (n, src)
        lines[src] = why
    return lines


def layer_of(src):
    """The tests/ folder of a source's unit test: its server/ folder's name,
    "daemon" for server/*.c itself."""
    d = os.path.basename(os.path.dirname(src))
    return "daemon" if d == "server" else d


def has_check_file(src):
    return os.path.exists(os.path.join(TESTS, layer_of(src), "check_%s.c" % os.path.basename(src)[:-2]))


def test_unit_tests_sit_in_their_sources_layer():
    """tests/<layer>/check_<file>.c mirrors server/<layer>/<file>.c (or its
    header, for a subsystem tested through it); none at the top of tests/."""
    top = glob.glob(os.path.join(TESTS, "check_*.c"))
    assert not top, "unit tests belong in tests/<layer>/: %s" % top
    for t in glob.glob(os.path.join(TESTS, "*", "check_*.c")):
        layer, name = os.path.basename(os.path.dirname(t)), os.path.basename(t)[len("check_"):-2]
        d = os.path.join(ROOT, "server") if layer == "daemon" else os.path.join(ROOT, "server", layer)
        assert os.path.exists(os.path.join(d, name + ".c")) or os.path.exists(os.path.join(d, name + ".h")), \
            "%s names no server/%s/%s.c or .h" % (t, layer, name)


def test_every_source_has_a_check_file_or_an_exceptions_line():
    srcs = sources(".c")
    lines = exception_lines()
    missing = [s for s in srcs if not has_check_file(s) and s not in lines]
    assert not missing, "no tests/<layer>/check_<file>.c and no line in tests/exceptions.txt: %s" % missing
    gone = [s for s in lines if s not in srcs]
    assert not gone, "tests/exceptions.txt names sources that do not exist: %s" % gone
    both = [s for s in lines if has_check_file(s)]
    assert not both, "these have a check file now; drop their lines from tests/exceptions.txt: %s" % both
    for src, why in lines.items():
        for path in re.findall(r"\btests/[\w./-]+\.(?:c|py|mjs|h)\b", why):
            assert os.path.exists(os.path.join(ROOT, path)), "%s: %s does not exist" % (src, path)
    with_check = sum(has_check_file(s) for s in srcs)
    # Figures for the record (pytest -s shows them).
    print("%d sources: %d with a check file, %d in tests/exceptions.txt"
          % (len(srcs), with_check, len(lines)))


def test_json_returning_functions_say_who_owns_the_reference():
    """A header's comment above each function returning json_t * says
    "new" (the caller's reference: json_decref it) or "borrowed"."""
    bad = []
    for h in sources(".h"):
        text = read(h)
        for m in re.finditer(r"^(?:const )?json_t \*\s*([a-z_0-9]+)\(", text, re.M):
            above = text[:m.start()].rstrip()
            comment = above[above.rfind("/*"):] if above.endswith("*/") else ""
            if not re.search(r"\bnew\b|\bborrow", comment):
                bad.append("%s: %s" % (h, m.group(1)))
    assert not bad, "say whether the json_t * is a new reference or borrowed: %s" % bad


# Other helpers are rewriting these files; each list must only shrink.
PENDING_STDERR = set()
PENDING_UTF8 = set()
PENDING_TIME = {"server/store/outlier_backfill.c"}   # a progress line's pace, not a date


def test_the_store_logs_through_log_c():
    bad = [s for s in sources(".c") if s.startswith("server/store/") and s not in PENDING_STDERR
           and re.search(r"\bstderr\b|\bperror\(", read(s))]
    assert not bad, "the store writes to stderr itself, past --quiet: %s" % bad


def test_utf8_continuation_bytes_are_utf8_c_s_business():
    bad = [s for s in sources(".c") if s != "server/util/utf8.c" and s not in PENDING_UTF8
           and re.search(r"0x[cC]0\)\s*[!=]=\s*0x80", read(s))]
    assert not bad, "step code points with util/utf8.c instead: %s" % bad


def test_dates_come_from_time_now_and_only_main_sets_the_test_clock():
    bad = [s for s in sources(".c") if s != "server/util/timefmt.c" and s not in PENDING_TIME
           and re.search(r"\btime\(NULL\)|\btime\(0\)|'now'\)", read(s))]
    # SQLite's 'now' in these two is a bookkeeping date no test looks at.
    bad = [s for s in bad if s not in ("server/ingest/account.c", "server/store/migrate.c")
           or re.search(r"\btime\(NULL\)", read(s))]
    assert not bad, "take the date from time_now() (util/timefmt.h): %s" % bad
    setters = [s for s in sources(".c") if "time_test_clock(" in read(s)]
    assert setters == ["server/main.c", "server/util/timefmt.c"], setters
    assert "test-clock" not in read("server/options.c").split("int parse_options")[0], \
        "--test-clock must stay out of the usage text"


def layers():
    """The README's "Who may call whom" diagram as {folder: depth}: the
    top-level files are 0, each "-> folder/" line one deeper (a line may
    name several folders, which then share a depth)."""
    text = read("README.md")
    start = text.index("**Who may call whom.**")
    block = text[start:text.index("\n\n", text.index("\n    ", start) + 1)]
    depth = {}
    for n, line in enumerate(l for l in block.splitlines() if "->" in l):
        for folder in re.findall(r"(\w+)/", line.split("->", 1)[1].split("(")[0]):
            depth[folder] = n + 1
    return depth


def includes_upward(depth):
    """Every '#include "Y/..."' in server/X/ whose Y is above X: a list of
    (file, header)."""
    bad = []
    for src in sources(".c") + sources(".h"):
        parts = src.split("/")
        if len(parts) < 3:
            continue                      # server/main.c and its peers: the top
        mine = depth[parts[1]]
        for inc in re.findall(r'^#include "([^"]+)"', read(src), re.M):
            folder = inc.split("/")[0] if "/" in inc else None
            if folder is None:
                # app.h: the process-wide handles, read by every layer.
                if inc != "app.h":
                    bad.append((src, inc))
            elif depth.get(folder, 0) < mine:
                bad.append((src, inc))
    return bad


def test_no_folder_includes_a_higher_one():
    depth = layers()
    folders = sorted(d for d in os.listdir(SERVER) if os.path.isdir(os.path.join(SERVER, d)))
    assert sorted(depth) == folders, "the README's diagram names %s; server/ holds %s" % (sorted(depth), folders)
    assert depth["util"] > depth["domain"] > depth["store"] > depth["http"] > depth["pages"]
    bad = includes_upward(depth)
    assert not bad, "includes of a higher layer (README \"Who may call whom\"): %s" % bad
    app = re.findall(r'^#include "([^"]+)"', read("server/app.h"), re.M)
    assert not app, "app.h must stay forward declarations only: %s" % app
    print("%d folders in %d layers, no include of a higher one" % (len(depth), len(set(depth.values()))))


def test_the_include_rule_sees_an_upward_include(monkeypatch):
    """The checker itself sees what the old store/defer.h did (http/http.h
    from store/)."""
    real = read

    def fake(rel):
        if rel == "server/store/db.h":
            return real(rel) + '\n#include "http/http.h"\n'
        return real(rel)
    monkeypatch.setattr("test_tree.read", fake)
    assert ("server/store/db.h", "http/http.h") in includes_upward(layers())


def exported_names():
    """(object, name, prefixed) for every name build/server/**/*.o
    defines globally; prefixed: it is, or starts with "<p>_" for, its
    file's name, that name's first word, its folder's name or that name
    without a final s ("pages/" -> page_)."""
    objs = sorted(glob.glob(os.path.join(ROOT, "build", "server", "**", "*.o"), recursive=True))
    assert objs, "build the daemon first (make): no build/server/**/*.o"
    rows = []
    for o in objs:
        rel = os.path.relpath(o, os.path.join(ROOT, "build", "server"))[:-2].split(os.sep)
        ok = {rel[-1], rel[-1].split("_")[0]}
        if len(rel) > 1:
            ok |= {rel[0], rel[0].rstrip("s")}
        out = subprocess.run(["nm", "-g", "--defined-only", o], capture_output=True,
                             text=True, check=True).stdout
        for line in out.splitlines():
            f = line.split()
            if len(f) == 3:
                rows.append(("/".join(rel), f[2], any(f[2] == p or f[2].startswith(p + "_") for p in ok)))
    return rows


def test_exported_names_carry_their_file_s_prefix():
    rows = exported_names()
    off = [(o, n) for o, n, ok in rows if not ok]
    share = 100.0 * (len(rows) - len(off)) / len(rows)
    print("%d exported names, %d without their file's or folder's prefix: %.1f%%"
          % (len(rows), len(off), share))
    for o, n in off:
        print("  %s: %s" % (o, n))
    assert share >= 95.0, "only %.1f%% of exported names carry a prefix: %s" % (share, off)


def test_no_prefix_names_two_folders():
    """A name's prefix says its layer.  An exported name that carries its
    whole file name (tlog_store_tile in store/tlog_store.c) or its folder's
    (page_ in pages/) is its own; one that carries only its file's first
    word must not carry a word that a file of another folder is named by
    (util/tlog.c's tlog_ in store/, domain/predict.c's predict_ in store/,
    render/badge_svg.c's badge_ in pages/)."""
    folders = {}
    for src in sources(".c"):
        parts = src.split("/")[1:]
        folder = parts[0] if len(parts) > 1 else ""
        base = parts[-1][:-2]
        for word in (base, base.split("_")[0]):
            folders.setdefault(word, set()).add(folder)
    bad = []
    for o, name, _ in exported_names():
        rel = o.split("/")
        folder, base = (rel[0] if len(rel) > 1 else ""), rel[-1]
        own = [base] + ([folder, folder.rstrip("s")] if folder else [])
        if any(name == p or name.startswith(p + "_") for p in own):
            continue
        others = folders.get(name.split("_")[0], set()) - {folder}
        if others:
            bad.append("%s: %s (the prefix of %s)" % (o, name, ", ".join(sorted(f or "server/" for f in others))))
    assert not bad, "names that borrow another layer's prefix: %s" % bad


def test_a_page_kind_is_named_once():
    """Each page kind (`llm-speedd kinds`) is one row of server/pages/kinds.c,
    KIND(name, ...), its name spelled there once, outside comments and
    strings: its builder (page_<name>_view), template, enum and nav key are
    made from it, not written again."""
    kinds = json.loads(subprocess.run([BIN, "kinds"], capture_output=True, text=True, check=True).stdout)
    code = re.sub(r'"(?:[^"\\\n]|\\.)*"|/\*.*?\*/', " ", read("server/pages/kinds.c"), flags=re.S)
    for k in kinds:
        found = re.findall(r"\b%s\b" % re.escape(k["name"]), code)
        assert len(found) == 1, "page kind %s is spelled %d times in kinds.c" % (k["name"], len(found))
        assert re.search(r"\bKIND\(%s," % re.escape(k["name"]), code), "no KIND(%s, ...) row" % k["name"]
