"""The list of query arguments pages read (query_known in
server/pages/page.c, behind page_query_known) is checked against the code
that reads them: an argument no page reads is left out of cache keys and
of carried queries, so a page that reads one not in the list would be
served another query's copy.  Every name a getter is called with in
server/ must be in the list, and every name in the list must be read
somewhere.

Getters are found, not listed: http_query itself, and every function in
server/ that passes one of its parameters on as http_query's name (arg,
arg_or, page_fit_number, ...), to any depth; a name read through a
struct member (http_query(r, f->name)) is taken from that file's
`.name = "..."` initializers."""
import glob
import os
import re

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
SOURCES = sorted(glob.glob(os.path.join(ROOT, "server", "**", "*.c"), recursive=True))


def read(path):
    with open(path) as f:
        text = f.read()
    # Comments out, strings kept.
    return re.sub(r"/\*.*?\*/", " ", text, flags=re.S)


def listed():
    text = read(os.path.join(ROOT, "server", "pages", "page.c"))
    m = re.search(r"query_known\[\]\s*=\s*\{(.*?)\};", text, re.S)
    assert m, "query_known[] in server/pages/page.c"
    return set(re.findall(r'"([^"]+)"', m.group(1)))


FUNC = re.compile(r"^[A-Za-z_][\w \*]*?\b(\w+)\s*\(([^;{)]*)\)\s*\{", re.M)


def functions(text):
    """(name, parameter names, body) of each function defined in text."""
    out = []
    for m in FUNC.finditer(text):
        params = [re.findall(r"\w+", re.sub(r"\[.*?\]", "", p))[-1:]
                  for p in m.group(2).split(",")]
        params = [p[0] if p else None for p in params]
        depth, i = 1, m.end()
        while depth and i < len(text):
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            i += 1
        out.append((m.group(1), params, text[m.end():i]))
    return out


def getters(texts):
    """{function: index of its argument that names the query argument}."""
    found = {"http_query": 1}
    changed = True
    while changed:
        changed = False
        for text in texts:
            for name, params, body in functions(text):
                if name in found:
                    continue
                for g, at in list(found.items()):
                    for call in re.finditer(r"\b%s\s*\(([^;]*?)\)" % g, body):
                        args = [a.strip() for a in call.group(1).split(",")]
                        if len(args) > at and args[at] in params:
                            found[name] = params.index(args[at])
                            changed = True
                            break
                    if name in found:
                        break
    return found


def read_names():
    texts = {p: read(p) for p in SOURCES}
    g = getters(texts.values())
    names, where = set(), {}
    for path, text in texts.items():
        for fn, at in g.items():
            for call in re.finditer(r"\b%s\s*\(([^;]*?)\)" % fn, text):
                args = [a.strip() for a in call.group(1).split(",")]
                if len(args) <= at:
                    continue
                lit = re.fullmatch(r'"([^"]+)"', args[at])
                if lit:
                    names.add(lit.group(1))
                    where.setdefault(lit.group(1), os.path.relpath(path, ROOT))
                elif re.fullmatch(r"\w+->name", args[at]):
                    for n in re.findall(r'\.name\s*=\s*"([^"]+)"', text):
                        names.add(n)
                        where.setdefault(n, os.path.relpath(path, ROOT))
    return names, where, g


def test_the_getters_are_found():
    _, _, g = read_names()
    # The wrappers the pages read their arguments through today: if the
    # search stops finding them, the check below checks nothing.
    for fn in ("http_query", "arg", "arg_or", "page_fit_number"):
        assert fn in g, fn


def test_every_argument_a_page_reads_is_listed():
    names, where, _ = read_names()
    missing = sorted(n for n in names if n not in listed())
    assert not missing, "read but not in query_known (server/pages/page.c): %s" % [
        "%s (%s)" % (n, where[n]) for n in missing]


def test_every_listed_argument_is_read():
    names, _, _ = read_names()
    unread = sorted(listed() - names)
    assert not unread, "in query_known but read by no page: %s" % unread
