"""Issue 12: "/", /m/<slug> and /hw/<slug> with a ?sort= other than decode
page backwards too.  Walking Next from page one and then Previous from the
last page gives the same pages in reverse (ties on the sort key included),
no row skipped or repeated; each page's JSON twin lists the rows its HTML
does and carries the same Previous link; the first page has none."""
from html import unescape

import pytest

from conftest import make_payload
from test_openapi import check as check_spec
import lxml.html

from test_pages import (board, combo_rows, next_href, page, payload, prev_href,  # noqa: F401
                        seen, upload_all)

SORTS = ("prefill", "ttft", "date", "best")


def combos_table(text):
    """The combinations list of a model or hardware page."""
    return combo_rows(lxml.html.fromstring(text).xpath("//table[contains(@class, 'combos')]")[0])


def rows_of(key):
    """The JSON twin's list at key, its rows named by their best runs."""
    def get(j):
        lst = j[key]
        return [r["best_run"] for r in lst["rows"]], lst
    return get


def tied(i, p):
    """Few distinct prefill and TTFT figures, so pages split inside ties."""
    p["workloads"]["chat-short"]["prefill_tok_s"] = 500.0 + (i % 3)
    p["workloads"]["chat-short"]["ttft_ms"] = 80.0 + (i % 4)
    return p


def json_twin(path):
    """The JSON twin of an HTML page path ("/" reads /index.json)."""
    base, _, query = unescape(path).partition("?")
    base = "/index.json" if base == "/" else base + ".json"
    return base + ("?" + query if query else "")


def walk(server, seen, start, table, runs_of, template):
    """Next from start to the last page, then Previous back to page one.
    Checks each page's JSON twin against its HTML and against openapi.json's
    description of template; returns the pages' ids forwards and backwards."""
    def visit(path):
        text = page(server, path, seen)
        got = [r["id"] for r in table(text)]
        j = server.get(json_twin(path))
        assert j.status_code == 200, j.text
        check_spec(j, "GET", template)
        ids, lst = runs_of(j.json())
        assert ids == got, path
        prev = prev_href(text)
        assert (lst.get("prev") is not None) == (prev is not None), path
        if prev:   # the same page (the home page's JSON links lead to "/")
            assert unescape(prev).partition("?")[2] == unescape(lst["prev"]).partition("?")[2], path
        return text, got, prev

    forward, path, prev = [], start, None
    while path:
        text, got, prev = visit(path)
        if not forward:
            assert prev is None, "page one has no Previous"
        forward.append(got)
        last, path = text, next_href(text)
        assert len(forward) < 20
    backward, path = [forward[-1]], prev
    while path:
        assert "sort=" in path
        text, got, path = visit(path)
        backward.append(got)
        assert len(backward) < 20
    return forward, backward


def check(forward, backward, want, size):
    assert len(forward) > 2, "the test must cross several pages"
    assert all(len(p) == size for p in forward[:-1])
    flat = [i for p in forward for i in p]
    assert len(flat) == len(set(flat)), "a row repeated"
    assert set(flat) == set(want), "a row skipped"
    assert backward[::-1] == forward


@pytest.mark.parametrize("sort", SORTS)
def test_home_sorted_pages_back(server, seen, sort):
    ids = upload_all(server, [tied(i, payload("Model %03d" % i, backend="mlx"))
                              for i in range(123)])
    fwd, back = walk(server, seen, "/?backend=mlx&sort=" + sort, board, rows_of("board"),
                     "/index.json")
    check(fwd, back, ids, 50)


@pytest.mark.parametrize("sort", SORTS)
def test_model_sorted_pages_back(server, seen, sort):
    ids = upload_all(server, [tied(i, payload("Many", accel="Accel %02d" % i))
                              for i in range(47)])
    fwd, back = walk(server, seen, "/m/many?sort=" + sort, combos_table, rows_of("combos"),
                     "/m/{slug}.json")
    check(fwd, back, ids, 20)


@pytest.mark.parametrize("sort", SORTS)
def test_hw_sorted_pages_back(server, seen, sort):
    # A hardware page lists its combinations 50 a page, as the board.
    ids = upload_all(server, [tied(i, payload("Model %03d" % i, accel="M3 Ultra"))
                              for i in range(123)])
    fwd, back = walk(server, seen, "/hw/m3-ultra?sort=" + sort, combos_table,
                     rows_of("combos"), "/hw/{slug}.json")
    check(fwd, back, ids, 50)
