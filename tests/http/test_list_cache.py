"""The board, model and hardware pages, their JSON twins, /models,
/hardware, the cheatsheet, /outliers and /disputes are kept in the
response cache by their path and query until the next write of any kind: a kept page is
served again as it was (same body, same ETag, 304 on revalidation), a page
with another query is never served in its place, and every upload shows
within the bound (schema/API.md: the first request after a write is
answered from the stale copy while the page is rebuilt off its path)."""
import re
import sqlite3

import pytest

from conftest import make_payload, new_key, sign, wait_for


def upload(server, decode, **over):
    p = make_payload(**over)
    p["workloads"]["chat-short"]["decode_tok_s"] = decode
    r = server.upload(sign(p, new_key())[0])
    assert r.status_code == 201, r.text
    rid = r.json()["id"]
    server.wait_logged(rid)
    server.wait_refreshed()
    return rid


def slugs(server, rid):
    j = server.get("/r/%s.json" % rid).json()
    return j["model"]["slug"], j["hardware"]["slug"]


@pytest.mark.parametrize("query", ["", "?sort=date", "?backend=mlx&sort=prefill"])
def test_kept_pages_are_served_again_until_an_upload(server, query):
    first = upload(server, 100.0)
    model, hw = slugs(server, first)
    paths = [p + query for p in ("/", "/m/" + model, "/hw/" + hw)]
    for path in paths:
        a = server.get(path)
        b = server.get(path)
        assert a.status_code == b.status_code == 200, path
        assert a.text == b.text and a.headers["ETag"] == b.headers["ETag"], path
        r = server.get(path, headers={"If-None-Match": a.headers["ETag"]})
        assert r.status_code == 304, path
        assert first in a.text, path
    # A new best of the same model, hardware and backend: every kept page
    # lists it on the next request.
    second = upload(server, 250.0)
    for path in paths:
        wait_for(lambda: second in server.get(path).text, timeout=5, what=path)


def test_a_query_is_never_served_another_querys_page(server):
    mlx = upload(server, 120.0)
    cpp = upload(server, 130.0, backend__name="llama.cpp", backend__version="b4000")
    model, _ = slugs(server, mlx)
    for page in ("/m/" + model,):
        server.get(page)                              # kept with no filter
        only = server.get(page + "?backend=mlx").text
        assert mlx in only and cpp not in only, page
        other = server.get(page + "?backend=llama.cpp").text
        assert cpp in other and mlx not in other, page
        assert server.get(page + "?backend=mlx").text == only, page
        # Arguments in another order are another key, and the same rows.
        a = server.get(page + "?backend=mlx&sort=date").text
        b = server.get(page + "?sort=date&backend=mlx").text
        assert mlx in a and mlx in b and cpp not in a and cpp not in b, page


def edit_behind(server, rid, decode):
    """Changes a run's figure with the sqlite3 module, behind the daemon's
    back: what a kept page does not show until the next write."""
    c = sqlite3.connect(server.db, timeout=10)
    with c:
        c.execute("UPDATE runs SET decode_tok_s = ? WHERE id = ?", (decode, rid))
        # The run's combination too (the writer keeps it, migration 0020).
        c.execute("UPDATE combos SET med = ?1, p25 = ?1, p75 = ?1, best_decode = ?1 WHERE best_id = ?2",
                  (decode, rid))
    c.close()


def test_only_sort_suite_and_existing_filters_are_kept(server):
    """A page is kept only when its query holds nothing but ?sort=,
    ?suite=, ?backend= and ?hw= (once each), and a ?hw= names hardware with
    runs: a cursor, another filter, a repeated argument or a ?hw= of
    hardware without runs is built each time.  An argument no page reads
    (?x=1, ?x=2, ...) is left out of the key: it is served the page kept
    without it, so it can neither fill the cache with copies nor make the
    page be built each time (issue 37, H9)."""
    rid = upload(server, 111.0)
    model, hw = slugs(server, rid)
    kept = ["/m/%s?sort=date" % model, "/m/%s?backend=mlx" % model, "/?hw=%s" % hw,
            "/?backend=mlx&hw=%s" % hw, "/m/%s?x=1" % model, "/m/%s?sort=date&x=" % model]
    built = ["/m/%s?sort=date&sort=date" % model,
             "/?hw=no-such-gpu-%s" % re.sub(r"[^a-z0-9]+", "-", rid[2:].lower()).strip("-"),
             "/?backend=mlx&backend=mlx", "/hw/%s?model=%s" % (hw, model)]
    for path in kept + built:
        assert "111.0" in server.get(path).text, path
    edit_behind(server, rid, 222.0)
    for path in kept:
        assert "111.0" in server.get(path).text, path   # kept until a write
    for path in built:
        page = server.get(path).text
        assert "222.0" in page and "111.0" not in page, path


# The JSON twins and the other lists, kept like the pages (issue 22's
# cost: each of them under 10 ms p99 at 1,000,000 runs).
LISTS = ["/index.json", "/index.json?sort=best", "/m/{model}.json", "/hw/{hw}.json",
         "/models", "/models.json", "/hardware?sort=best", "/hardware.json", "/cheatsheet",
         "/cheatsheet.json", "/outliers", "/outliers.json", "/disputes"]


def test_twins_and_index_lists_are_kept_until_a_write(server):
    rid = upload(server, 133.0)
    model, hw = slugs(server, rid)
    paths = [p.format(model=model, hw=hw) for p in LISTS]
    first = {}
    for path in paths:
        a, b = server.get(path), server.get(path)
        assert a.status_code == b.status_code == 200, path
        assert a.text == b.text and a.headers["ETag"] == b.headers["ETag"], path
        assert server.get(path, headers={"If-None-Match": a.headers["ETag"]}).status_code == 304, path
        first[path] = a.text
    edit_behind(server, rid, 244.0)
    for path in paths:
        assert server.get(path).text == first[path], path   # kept: the edit is not seen
    # The CSV twins are built each time.
    assert "244" in server.get("/m/%s.csv" % model).text
    # Any write drops them all: a new run of the same combination.
    second = upload(server, 255.0)
    for path in [p for p in paths if not p.startswith(("/outliers", "/disputes"))]:
        wait_for(lambda: second in server.get(path).text or "255" in server.get(path).text,
                 timeout=5, what=path)
