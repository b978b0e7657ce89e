"""?sort= on /outliers and /disputes through the real daemon: every order
lists the rows the test expects, computed here from what it uploaded and
posted; paging with a sort neither skips nor repeats a row (ties on the
sort key included), "Previous page" leads back to the rows before; the
HTML, JSON and CSV forms of a page list the same rows; the links carry
the sort; an unknown sort is a 400 naming sort= and the allowed values."""
import calendar
import re
import sqlite3
import time
from html import unescape
from urllib.parse import quote

import pytest

from conftest import MODERATOR_TOKEN, csv_table, make_payload, new_key, sign, validate_html

PER_PAGE = 50


def upload(server, decode, prefill, ttft):
    p = make_payload()
    cs = p["workloads"]["chat-short"]
    cs["decode_tok_s"], cs["prefill_tok_s"], cs["ttft_ms"] = decode, prefill, ttft
    r = server.upload(sign(p, new_key())[0])
    assert r.status_code == 201, r.text
    return r.json()["id"]


def as_json(path, link):
    """The JSON twin of a page link (/outliers?... -> /outliers.json?...)."""
    link = unescape(link)
    assert link.startswith(path)
    return path + ".json" + link[len(path):]


def walk(server, path, sort):
    """Every page of path in order sort, by the next links; returns the
    pages' JSON bodies."""
    pages = []
    url = path + ".json" + ("?sort=" + sort if sort else "")
    while url:
        r = server.get(url)
        assert r.status_code == 200, r.text
        j = r.json()
        pages.append(j)
        if j["next"] and sort not in ("date", "activity"):     # a default is not named
            assert ("sort=" + sort in j["next"]) if sort else "sort=" not in j["next"]
        url = as_json(path, j["next"]) if j["next"] else None
        assert len(pages) < 10
    return pages


def ids(rows):
    return [r["id"] for r in rows]


def seconds(t):
    return calendar.timegm(time.strptime(t, "%Y-%m-%dT%H:%M:%SZ"))


def cursor(key, rid):
    return "%r:%s" % (float(key), rid) if not isinstance(key, int) else "%d:%s" % (key, rid)


def csv_ids(resp):
    _, rows = csv_table(resp)
    return [r["id"] for r in rows], rows


def check_order(server, path, sort, want, key_of, tmp_path=None):
    """Walks path sorted by sort and checks it lists want (ids, in order),
    each page the same in HTML, JSON and CSV, and that Previous page from a
    cursor deep in the list leads to the PER_PAGE rows ending at it."""
    pages = walk(server, path, sort)
    rows = [r for p in pages for r in p["rows"]]
    assert ids(rows) == want
    assert len(set(ids(rows))) == len(rows)           # nothing repeated
    assert len(pages) == -(-len(want) // PER_PAGE)
    q = "?sort=" + sort if sort else ""
    for i, p in enumerate(pages):
        after = "" if i == 0 else "after=" + re.search(r"after=([^&]+)", unescape(pages[i - 1]["next"])).group(1)
        sep = "&" if q else "?"
        suffix = q + (sep + after if after else "")
        html = server.get(path + suffix)
        assert html.status_code == 200
        row_re = r'id="(?:outlier|thread)-(r_[a-z0-9_-]{11})"'
        assert re.findall(row_re, html.text) == ids(p["rows"])
        assert csv_ids(server.get(path + ".csv" + suffix))[0] == ids(p["rows"])
        # The twins in the head are this page's: same sort, same cursor.
        for ext in (".json", ".csv"):
            twin = re.search(r'<link rel="alternate" type="[^"]+" href="(%s%s[^"]*)"' % (re.escape(path), re.escape(ext)), html.text)
            assert twin, ext
            t = unescape(twin.group(1))
            assert ("sort=%s" % sort in t) if sort else "sort=" not in t
            assert ("after=" in t) == bool(after)
        if tmp_path is not None and i == 0:
            ok, report = validate_html(html.text, tmp_path)
            assert ok, report
    # Previous page, from the cursor of row c: the rows c-49..c.
    c = len(rows) - 3
    back = server.get(path + ".json?" + (q[1:] + "&" if q else "") + "after=" + quote(cursor(key_of(rows[c]), rows[c]["id"]))).json()
    assert ids(back["rows"]) == ids(rows[c + 1:c + 1 + PER_PAGE])
    assert back["prev"] and (("sort=%s" % sort in back["prev"]) if sort else "sort=" not in back["prev"])
    before = server.get(as_json(path, back["prev"])).json()
    assert ids(before["rows"]) == ids(rows[max(0, c - PER_PAGE + 1):c + 1])
    return rows


@pytest.fixture
def flagged(server):
    """62 runs of one cluster with chosen figures (ties on every key, 13
    without prefill and TTFT), all flagged: too many for one page.  A real
    cluster cannot flag most of its runs, so the flag is set in the
    database; the flagging itself is test_outliers.py's."""
    figs = {}
    for i in range(62):
        f = (100.0 + i % 20, 200.0 + i % 7, 500.0 + i % 11)
        figs[upload(server, *f)] = f
    con = sqlite3.connect(server.db, timeout=10)
    con.execute("UPDATE runs SET outlier = 1")
    nulls = sorted(figs)[:13]      # the last 13 of prefill and TTFT: across a page break
    con.executemany("UPDATE runs SET prefill_tok_s = NULL, ttft_ms = NULL WHERE id = ?", [(n,) for n in nulls])
    got = dict(con.execute("SELECT id, received_at FROM runs"))
    con.commit()
    con.close()
    for n in nulls:
        figs[n] = (figs[n][0], None, None)
    return {rid: (d, p, t, got[rid]) for rid, (d, p, t) in figs.items()}


def test_outliers_every_sort_pages_in_order_and_agrees_across_forms(server, flagged, tmp_path):
    runs = flagged
    desc = lambda k: sorted(runs, key=lambda r: (k(r), r), reverse=True)
    want = {
        None: desc(lambda r: runs[r][3]),
        "date": desc(lambda r: runs[r][3]),
        "decode": desc(lambda r: runs[r][0]),
        "prefill": desc(lambda r: runs[r][1] if runs[r][1] is not None else 0.0),
        "ttft": sorted(runs, key=lambda r: (runs[r][2] if runs[r][2] is not None else 1e300, r)),
    }
    keys = {
        None: lambda o: seconds(o["received_at"]),
        "date": lambda o: seconds(o["received_at"]),
        "decode": lambda o: o["decode_tok_s"],
        "prefill": lambda o: o["prefill_tok_s"] if o["prefill_tok_s"] is not None else 0.0,
        "ttft": lambda o: o["ttft_ms"] if o["ttft_ms"] is not None else 1e300,
    }
    # Not vacuous: the orders differ from each other.
    assert len({tuple(v) for v in want.values()}) == 4
    for sort in (None, "decode", "prefill", "ttft"):
        rows = check_order(server, "/outliers", sort, want[sort], keys[sort],
                           tmp_path if sort == "ttft" else None)
        for o in rows:
            d, p, t, _ = runs[o["id"]]
            assert (o["decode_tok_s"], o["prefill_tok_s"], o["ttft_ms"]) == (d, p, t)
    # ?sort=date is the default order, named.
    assert ids(walk(server, "/outliers", "date")[0]["rows"]) == want[None][:PER_PAGE]


def test_outliers_headers_are_sort_links_with_the_glossary_beside(server, flagged):
    page = server.get("/outliers?sort=ttft").text
    j = server.get("/outliers.json?sort=ttft").json()
    assert j["sort"] == "ttft" and j["sort_param"] == "ttft"
    assert [s["key"] for s in j["sorts"]] == ["date", "decode", "prefill", "ttft"]
    assert [s["key"] for s in j["sorts"] if s["selected"]] == ["ttft"]
    # The sorted column says so (aria-sort), and only it.
    assert page.count("aria-sort=") == 1
    th = re.search(r'<th scope="col" class="num" aria-sort="ascending">(.*?)</th>', page).group(1)
    assert '<a class="sort" href="/outliers?sort=ttft">TTFT ms</a>' in th
    assert '<a class="gl" href="/glossary#ttft"' in th
    # Each other sortable header links to its order; the default has no sort=.
    assert '<a class="sort" href="/outliers?sort=decode">Decode tok/s</a> <a class="gl" href="/glossary#decode-tok-s"' in page
    assert '<a class="sort" href="/outliers">Received</a>' in page
    assert "quickest first token first" in page
    assert server.get("/outliers").text.count('aria-sort="descending"') == 1


@pytest.mark.parametrize("path,allowed", [
    ("/outliers", "date, decode, prefill or ttft"),
    ("/disputes", "activity, opened, posts or decode"),
])
def test_unknown_sort_is_refused_naming_the_allowed_values(server, path, allowed):
    for ext in (".json", ".csv"):
        r = server.get(path + ext + "?sort=sigma")
        assert r.status_code == 400, r.text
        e = r.json()["error"]
        assert e["code"] == "invalid_query"
        assert "sort=" in e["message"] and allowed in e["message"]
    r = server.get(path + "?sort=DECODE")
    assert r.status_code == 400 and allowed in unescape(r.text)
    assert server.get(path + "?sort=").status_code == 200   # empty: the default


def test_disputes_every_sort_pages_in_order_and_agrees_across_forms(server, tmp_path):
    runs = {}
    for i in range(55):
        runs[upload(server, 100.0 + i % 13, 200.0, 500.0)] = {"decode": 100.0 + i % 13, "posts": 0}
    order = list(runs)
    last = {}
    seq = 0
    # Every thread gets 1 to 3 posts, interleaved so the latest post's
    # order is neither the opening order nor the count's.
    for rnd in range(3):
        for n, rid in enumerate(order[::-1] if rnd == 1 else order):
            if rnd and (n + rnd) % 3 == 0:
                continue
            r = server.post("/api/v1/runs/%s/disputes" % rid, json={"body": "Post %d" % seq})
            assert r.status_code == 201, r.text
            runs[rid]["posts"] += 1
            last[rid] = seq
            seq += 1
    desc = lambda k: sorted(runs, key=lambda r: (k(r), r), reverse=True)
    first = walk(server, "/disputes", None)
    opened = {o["id"]: seconds(o["opened_at"]) for p in first for o in p["rows"]}
    want = {
        None: sorted(runs, key=lambda r: last[r], reverse=True),
        "opened": desc(lambda r: opened[r]),
        "posts": desc(lambda r: runs[r]["posts"]),
        "decode": desc(lambda r: runs[r]["decode"]),
    }
    assert len({tuple(v) for v in want.values()}) == 4
    keys = {
        None: lambda o: o["last_post_id"],
        "opened": lambda o: seconds(o["opened_at"]),
        "posts": lambda o: o["posts"],
        "decode": lambda o: o["decode_tok_s"],
    }
    for sort in (None, "opened", "posts", "decode"):
        rows = check_order(server, "/disputes", sort, want[sort], keys[sort],
                           tmp_path if sort == "posts" else None)
        for o in rows:
            assert o["posts"] == runs[o["id"]]["posts"]
            assert o["decode_tok_s"] == runs[o["id"]]["decode"]
    # A thread a moderator closes leaves every order.
    top = want["decode"][0]
    r = server.post("/api/v1/runs/%s/disputes/resolve" % top, json={"resolution": "dismissed"},
                    headers={"Authorization": "Bearer " + MODERATOR_TOKEN})
    assert r.status_code == 200, r.text
    for sort in ("activity", "opened", "posts", "decode"):
        listed = [o["id"] for p in walk(server, "/disputes", sort) for o in p["rows"]]
        assert top not in listed and len(listed) == len(runs) - 1
    page = server.get("/disputes?sort=posts").text
    assert re.search(r'<th scope="col" class="num" aria-sort="descending"><a class="sort" href="/disputes\?sort=posts">Posts</a>', page)
    assert '<a class="sort" href="/disputes">Latest post</a>' in page


def test_run_lists_headers_sort_the_board_model_and_hardware_pages(server):
    """/, /m/<slug> and /hw/<slug>: the median decode, best run, median
    prefill and median TTFT headers of the combinations list link to those
    orders (issue 22: the lists rank typical figures), the sorted one with
    aria-sort; the front page's recent runs, which the sort does not order,
    keep plain headers."""
    for i in range(3):
        upload(server, 100.0 + i, 300.0 - i, 500.0 + i)
    page = server.get("/?sort=ttft").text
    board, recent = page.split("Most recent runs", 1)
    assert board.count('aria-sort="ascending"') == 1 and "aria-sort" not in recent
    assert re.search(r'<th scope="col" class="num" aria-sort="ascending"><a class="sort" href="/\?sort=ttft">Median TTFT ms</a>', board)
    assert '<a class="sort" href="/">Median decode tok/s</a> <a class="gl" href="/glossary#typical-figure"' in board
    assert '<a class="sort" href="/?sort=prefill">Median prefill tok/s</a>' in board
    assert '<a class="sort" href="/?sort=best">Best run</a>' in board
    assert 'class="sort"' not in recent and "Decode tok/s <a class=\"gl\"" in recent
    assert server.get("/").text.split("Most recent runs")[0].count('aria-sort="descending"') == 1
    for path in ("/m/qwen3-coder-30b-a3b", "/hw/m3-ultra"):
        page = server.get(path + "?sort=prefill").text
        assert page.count('aria-sort="descending"') == 1, path
        assert re.search(r'aria-sort="descending"><a class="sort" href="%s\?[^"]*sort=prefill">Median prefill tok/s</a>' % re.escape(path), page), path
        assert re.search(r'<a class="sort" href="%s\?[^"]*sort=ttft">Median TTFT ms</a>' % re.escape(path), page), path


def test_a_time_cursor_past_year_9999_reads_as_the_end_of_time(server, flagged):
    """A date cursor far past any time_t (edited by hand) lists from the
    newest row, as the year 9999 would, instead of nothing."""
    first = server.get("/outliers.json?sort=date").json()
    some = next(iter(flagged))
    for huge in ("1e17", "1e300", "253402300800"):
        got = server.get("/outliers.json?sort=date&after=%s:%s" % (huge, some))
        assert got.status_code == 200, (huge, got.text)
        assert ids(got.json()["rows"]) == ids(first["rows"]) and first["rows"], huge

