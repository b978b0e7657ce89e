"""A page's twins are the page's data: the JSON and CSV links in its
<link rel="alternate"> carry its query (filters, sort, suite, cursor), so
each leads to the rows the page shows, and the links are escaped for the
attribute they sit in.  Also the CSV twins of /compare and /search."""
import calendar
import html
import re
import time

from conftest import csv_table, digest_for, make_payload, new_key, sign, validate_html

QWEN = "qwen3-coder-30b-a3b"
ALTERNATE = re.compile(r'<link rel="alternate" type="([^"]+)" href="([^"]*)" title="[^"]*">')
RUN_ROW = r'data-label="Run"><a href="/r/(r_[a-z0-9_-]{11})"'
COMBO_ROW = r'data-label="Best run"><a href="/r/(r_[a-z0-9_-]{11})"'
HOSTILE = '"><script>alert(1)</script>&x=1 \'a%20b+c=d'


def upload(server, decode, model="Qwen3-Coder-30B-A3B-Instruct", hw="M3 Ultra",
           backend="mlx", headers=None, prefill=204.0):
    p = make_payload(model__name=model, hardware__accelerator_summary=hw)
    p["model"]["digest"] = digest_for(model)
    p["backend"]["name"] = backend
    p["workloads"]["chat-short"]["decode_tok_s"] = decode
    p["workloads"]["chat-short"]["prefill_tok_s"] = prefill
    r = server.upload(sign(p, new_key())[0], headers)
    assert r.status_code == 201, r.text
    return r.json()["id"]


def alternates(page):
    """{type: href} of a page's <link rel="alternate">, as a browser reads
    the attribute (entities decoded); also the raw attribute text."""
    assert page.status_code == 200, page.text
    raw = ALTERNATE.findall(page.text)
    assert raw, "the page names no alternates"
    for _, href in raw:
        # The attribute escaper and the URL escaper both ran: nothing
        # raw that could end the attribute or start markup, and every
        # argument separator is an entity.
        assert not re.search(r'[<>"\' ]', href), href
        assert not re.search(r"&(?!amp;)", href), href
    return {t: html.unescape(h) for t, h in raw}, dict(raw)


def records(resp):
    return csv_table(resp)


def uniq(xs):
    seen, out = set(), []
    for x in xs:
        if x not in seen:
            seen.add(x)
            out.append(x)
    return out


def check_twins(server, path, html_re, json_ids, csv_col, unfiltered=None, upto=None):
    """The page at path, its JSON twin and its CSV twin (both reached by
    the page's own links) list the same rows in the same order; returns
    them.  With unfiltered, the rows differ from that page's, so the
    test would see a twin that dropped the filter.  upto: where the
    page's table ends (the board is followed by the recent runs)."""
    def rows_of(text):
        return uniq(re.findall(html_re, text.split(upto)[0] if upto else text))

    page = server.get(path)
    links, _ = alternates(page)
    shown = rows_of(page.text)
    assert shown, (path, "shows no rows")
    j = server.get(links["application/json"])
    assert j.status_code == 200 and j.headers["Content-Type"] == "application/json"
    assert json_ids(j.json()) == shown, (path, links["application/json"])
    _, rows = records(server.get(links["text/csv"]))
    assert uniq(r[csv_col] for r in rows) == shown, (path, links["text/csv"])
    if unfiltered is not None:
        assert rows_of(server.get(unfiltered).text) != shown, path
    return shown, links


def list_ids(key):
    return lambda j: [r["id"] for r in j[key]["runs"]]


def combo_ids(key):
    """A combinations list's rows, by their best runs."""
    return lambda j: [r["best_run"] for r in j[key]["rows"]]


def test_board_model_hw_account_and_index_twins_keep_the_query(server):
    auth = {"Authorization": "Bearer " + server.account("alice")}
    q100 = upload(server, 100.0, headers=auth)
    q95 = upload(server, 95.0, headers=auth, prefill=300.0)
    upload(server, 150.0, hw="NVIDIA GeForce RTX 4090", backend="llama.cpp", headers=auth)
    upload(server, 80.0, backend="llama.cpp", headers=auth)
    upload(server, 60.0, model="Llama-4-Scout", headers=auth)

    board, links = check_twins(server, "/?hw=m3-ultra&backend=mlx", COMBO_ROW, combo_ids("board"), "best_run",
                               unfiltered="/", upto="<h2>Most recent runs</h2>")
    assert links["application/json"] == "/index.json?hw=m3-ultra&backend=mlx"
    assert links["application/atom+xml"] == "/feed.atom"   # the feed reads no filter
    assert q100 in board and len(board) == 2

    model, links = check_twins(server, "/m/%s?hw=m3-ultra&backend=mlx&sort=prefill" % QWEN, COMBO_ROW,
                               combo_ids("combos"), "best_run", unfiltered="/m/" + QWEN)
    assert set(model) <= {q100, q95}
    assert links["application/atom+xml"] == "/m/%s.atom" % QWEN

    hw, _ = check_twins(server, "/hw/m3-ultra?model=%s" % QWEN, RUN_ROW, list_ids("list"), "id",
                        unfiltered="/hw/m3-ultra?model=llama-4-scout-17b-16e")
    assert hw[:2] == [q100, q95]

    # A page past the first: the twin of page 2 is page 2.
    first = server.get("/u/alice.json").json()["list"]["runs"][0]
    after = "%r:%s" % (first["decode_tok_s"], first["id"])
    acct, links = check_twins(server, "/u/alice?after=" + after, RUN_ROW, list_ids("list"), "id",
                              unfiltered="/u/alice")
    assert first["id"] not in acct and len(acct) == 4
    assert links["application/atom+xml"] == "/u/alice.atom"

    best = r'<td class="num"[^>]*><a href="/r/(r_[a-z0-9_-]{11})">'
    models, _ = check_twins(server, "/models?sort=name&cursor=llama-4-scout-17b-16e", best,
                            lambda j: [r["best_id"] for r in j["rows"]], "best_id",
                            unfiltered="/models?sort=name")
    assert len(models) == 1
    # The cursor is the row's rank: an unconfirmed row's figure less 1e13
    # (confirmed rows first, issue 35), as the page's own links carry it.
    check_twins(server, "/hardware?sort=decode&cursor=%r:rtx-4090" % (150.0 - 1e13), best,
                lambda j: [r["best_id"] for r in j["rows"]], "best_id", unfiltered="/hardware")

    cell = r'<a class="muted best" href="/r/(r_[a-z0-9_-]{11})" title="The best unflagged run">'
    sheet_ids = lambda j: [e["id"] for row in j["rows"] for c in row["cells"] for e in c["entries"]]
    sheet, links = check_twins(server, "/cheatsheet?backend=llama.cpp", cell, sheet_ids, "run_id",
                               unfiltered="/cheatsheet")
    assert len(sheet) == 2
    # The page's visible twin links are the same links.
    page = server.get("/cheatsheet?backend=llama.cpp").text
    assert 'Also as <a href="/cheatsheet.json?backend=llama.cpp">JSON</a>' in page


def test_outlier_and_dispute_twins_keep_the_cursor(server):
    ids = []
    for backend in ("mlx", "llama.cpp"):
        for _ in range(12):
            upload(server, 100.0, backend=backend)
        ids.append(upload(server, 500.0, backend=backend))
    rows = server.get("/outliers.json").json()["rows"]
    assert sorted(r["id"] for r in rows) == sorted(ids)
    t = calendar.timegm(time.strptime(rows[0]["received_at"], "%Y-%m-%dT%H:%M:%SZ"))
    out, _ = check_twins(server, "/outliers?after=%d:%s" % (t, rows[0]["id"]),
                         r'id="outlier-(r_[a-z0-9_-]{11})"', lambda j: [r["id"] for r in j["rows"]],
                         "id", unfiltered="/outliers")
    assert out == [rows[1]["id"]]

    for rid in ids:
        assert server.post("/api/v1/runs/%s/disputes" % rid, json={"body": "Too fast?"}).status_code == 201
    rows = server.get("/disputes.json").json()["rows"]
    disp, links = check_twins(server, "/disputes?after=%d:%s" % (rows[0]["last_post_id"], rows[0]["id"]),
                              r'href="/r/(r_[a-z0-9_-]{11})#dispute"><code>',
                              lambda j: [r["id"] for r in j["rows"]], "id", unfiltered="/disputes")
    assert disp == [rows[1]["id"]]
    assert links["application/atom+xml"] == "/disputes.atom"


# A formula with no address in it (a name with one is never shown, issue 37).
EVIL_MODEL = '=HYPERLINK("evil"&A1), -x'
EVIL_HW = '@Evil, "Box"'


def test_compare_csv_is_the_compared_figures(server):
    a = upload(server, 100.0, model=EVIL_MODEL, hw=EVIL_HW)
    b = upload(server, 50.0, model="+Sum", backend="llama.cpp")
    path = "/compare?r=%s,%s" % (a, b)
    page = server.get(path)
    links, raw = alternates(page)
    assert raw["text/csv"] == "/compare.csv?r=%s%%2C%s" % (a, b)   # the comma escaped
    shown = uniq(re.findall(r'<th scope="row">\d: <a href="/r/(r_[a-z0-9_-]{11})">', page.text))
    assert shown == [a, b]
    assert [r["id"] for r in server.get(links["application/json"]).json()["runs"]] == shown
    resp = server.get(links["text/csv"])
    header, rows = records(resp)
    assert header[:3] == ["run", "id", "url"] and "pct_from_run_1" in header
    assert uniq(r["id"] for r in rows) == shown
    assert [r["run"] for r in rows[:2]] == ["1", "2"]
    assert rows[0]["url"] == server.url + "/r/" + a
    # Names are text a spreadsheet will not run; quotes and commas quoted.
    assert rows[0]["model"] == "'" + EVIL_MODEL and rows[0]["hardware"] == "'" + EVIL_HW
    assert rows[1]["model"] == "'+Sum"
    assert '"\'=HYPERLINK(""evil""&A1), -x"' in resp.text
    decode = [r for r in rows if r["figure"] == "W1 decode"]
    assert [float(r["value"]) for r in decode] == [100.0, 50.0]
    assert decode[0]["pct_from_run_1"] == "" and float(decode[1]["pct_from_run_1"]) == -50.0
    assert rows[1]["pct_from_run_1"].startswith("-")          # a number stays a number
    # One run: its figures (the picker is for people).
    _, one = records(server.get("/compare.csv?r=" + a))
    assert one and {r["id"] for r in one} == {a}
    bad = server.get("/compare.csv?r=nope")
    assert bad.status_code == 400 and bad.headers["Content-Type"] == "application/json"


def test_search_csv_and_a_hostile_query_in_the_links(server, tmp_path):
    upload(server, 100.0, model=EVIL_MODEL, hw=EVIL_HW)
    upload(server, 70.0)
    page = server.get("/search", params={"q": "evil"})
    links, _ = alternates(page)
    assert links["text/csv"] == "/search.csv?q=evil"
    shown = re.findall(r'<tr><td><a href="/(?:m|hw)/([a-z0-9-]+)">', page.text)
    assert len(shown) == 2
    assert [r["slug"] for r in server.get(links["application/json"]).json()["results"]] == shown
    resp = server.get(links["text/csv"])
    header, rows = records(resp)
    assert header == ["kind", "name", "slug", "runs", "median_decode_tok_s", "keys", "best_decode_tok_s", "url"]
    assert [r["slug"] for r in rows] == shown
    by_kind = {r["kind"]: r for r in rows}
    assert by_kind["model"]["name"] == "'" + EVIL_MODEL
    assert by_kind["hw"]["name"] == "'" + EVIL_HW and by_kind["hw"]["runs"] == "1"
    assert by_kind["hw"]["url"] == server.url + "/hw/" + by_kind["hw"]["slug"]
    assert float(by_kind["model"]["best_decode_tok_s"]) == 100.0

    # A query no name holds, hostile to the attribute and to the URL.
    page = server.get("/search", params={"q": HOSTILE, "page": "1", "empty": ""})
    links, raw = alternates(page)
    assert "<script>" not in page.text
    assert raw["application/json"].startswith("/search.json?q=%22%3E%3Cscript%3E")
    assert raw["application/json"].endswith("&amp;page=1")    # the empty argument left out
    ok, report = validate_html(page.text, tmp_path)
    assert ok, report
    direct = server.get("/search.json", params={"q": HOSTILE, "page": "1"}).json()
    twin = server.get(links["application/json"]).json()
    assert twin["q"] == direct["q"] and twin["q"].startswith('"><script>')
    assert records(server.get(links["text/csv"]))[1] == []


def test_a_key_sent_twice_is_read_once(server):
    upload(server, 100.0)
    upload(server, 150.0, hw="NVIDIA GeForce RTX 4090")
    # The page reads the first value; so does its twin, which gets only it.
    links, _ = alternates(server.get("/?hw=rtx-4090&hw=m3-ultra"))
    assert links["application/json"] == "/index.json?hw=rtx-4090"
    # An empty first value is the filter's "All": the twin has no filter.
    links, _ = alternates(server.get("/?hw=&hw=m3-ultra&backend="))
    assert links["application/json"] == "/index.json"


def test_every_declared_twin_and_feed_is_an_alternate(server):
    """Each page kind names every twin and feed its row declares as a
    <link rel="alternate">, a CSV twin or not (`llm-speedd kinds`): /changes
    its JSON and Atom feed, a run's page and one model on one hardware their
    JSON at their own address; a twin carries the page's query, except a
    run's page kept under its id."""
    import json
    import subprocess
    from conftest import BIN
    rid, other = upload(server, 111.0), upload(server, 112.0)
    queries = {"search": "?q=qwen", "compare": "?r=%s,%s" % (rid, other)}
    fill = {"run": [rid], "model": ["qwen3-coder-30b-a3b"], "hw": ["m3-ultra"],
            "account": None, "model-hw": ["qwen3-coder-30b-a3b", "m3-ultra"]}
    kinds = json.loads(subprocess.run([BIN, "kinds"], capture_output=True, text=True, check=True).stdout)
    seen = 0
    for k in kinds:
        if not (k["json"] or k["csv"] or k["feed"]) or (k["arg"] and not fill[k["arg"]]):
            continue
        args = iter(fill[k["arg"]] or []) if k["arg"] else iter(())
        stars = [next(args) for _ in range(k["path"].count("*"))]

        def at(pattern):
            it = iter(stars)
            return re.sub(r"\*", lambda _: next(it), pattern)
        path = at(k["path"])
        links, _ = alternates(server.get(path + queries.get(k["name"], "")))
        if k["json"]:
            assert links["application/json"].split("?")[0] == at(k["json"]), (k["name"], links)
        if k["csv"]:
            assert links["text/csv"].split("?")[0] == at(k["csv"]), (k["name"], links)
        if k["feed"]:
            assert links["application/atom+xml"] == at(k["feed"]), (k["name"], links)
        seen += 1
    assert seen >= 14
    links, _ = alternates(server.get("/changes?backend=mlx"))
    assert links == {"application/json": "/changes.json?backend=mlx", "application/atom+xml": "/changes.atom"}
    links, _ = alternates(server.get("/r/%s?posted=1" % rid))
    assert links == {"application/json": "/r/%s.json" % rid}
