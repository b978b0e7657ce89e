"""The board, model and hardware pages, their JSON twins, /models,
/hardware, the cheatsheet, /outliers and /disputes are kept in the
response cache by their path and query until the next write that touches
them (a model's and a hardware's page: a write of that model or hardware;
the others: any write): a kept page is
served again as it was (same body, same ETag, 304 on revalidation), a page
with another query is never served in its place, and every upload shows
within the bound (schema/API.md: the first request after a write is
answered from the stale copy while the page is rebuilt off its path)."""
import hashlib
import re
import sqlite3

import pytest

from conftest import digest_for, make_payload, new_key, sign, wait_for


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


def list_hits(server):
    m = re.search(r'^llmspeed_response_cache_hits_total\{kind="list_html"\} (\S+)$',
                  server.get("/metrics").text, re.M)
    assert m
    return float(m.group(1))


def wait_kept(server, path):
    """Until path is answered from the kept copy (a page is kept a moment
    after it is sent)."""
    def served_kept():
        before = list_hits(server)
        assert server.get(path).status_code == 200, path
        return list_hits(server) > before
    wait_for(served_kept, what=path + " kept")


def scoped_upload(server, decode, model, accel, digest=None):
    """A run of model (a name the reference data does not know, so its
    page shows no predictions) on hardware accel."""
    return upload(server, decode, model__name=model, model__digest=digest or digest_for(model),
                  hardware__accelerator_summary=accel, hardware__gpu_name=accel,
                  hardware__fingerprint_hash=hashlib.sha256(accel.encode()).hexdigest()[:16])


def rename_behind(server, kind, slug, name):
    """Changes the shown name of a model or hardware behind the daemon's
    back (no trigger marks anything for the refresh round)."""
    c = sqlite3.connect(server.db, timeout=10)
    with c:
        assert c.execute("UPDATE search_names SET name = ? WHERE kind = ? AND slug = ?",
                         (name, kind, slug)).rowcount == 1
    c.close()


def test_a_write_leaves_other_models_and_hardware_kept(server):
    """A model's and a hardware's page are kept in their scope: a write of
    another model on other hardware leaves them fresh (a name changed
    behind the daemon's back stays unseen), while the board, which lists
    everything, follows it; a write of the model (on other hardware) makes
    the model's page, not the hardware's, follow; a write of every list
    makes them all follow."""
    a = scoped_upload(server, 101.0, "Frobnicator-7B-Chat", "Obscure X1")
    b = scoped_upload(server, 111.0, "Quuxinator-3B-Base", "Obscure Y2")
    (ma, ha), (mb, hb) = slugs(server, a), slugs(server, b)
    assert ma != mb and ha != hb
    model_pages = ["/m/" + mb, "/m/%s.json" % mb]
    hw_pages = ["/hw/" + hb, "/hw/%s?sort=date" % hb]
    for path in model_pages + hw_pages + ["/"]:
        assert "Obscure Y2" in server.get(path).text, path
        wait_kept(server, path)
    rename_behind(server, "hw", hb, "Renamed Behind")
    scoped_upload(server, 102.0, "Frobnicator-7B-Chat", "Obscure X1")
    for path in model_pages + hw_pages:
        assert "Renamed Behind" not in server.get(path).text, path
    assert "Renamed Behind" in server.get("/").text          # unscoped: rebuilt
    # The model of b on a's hardware: b's model page follows, its
    # hardware's page stays kept.
    scoped_upload(server, 103.0, "Quuxinator-3B-Base", "Obscure X1")
    for path in model_pages:
        page = server.get(path).text
        assert "103.0" in page and "Renamed Behind" in page, path
    for path in hw_pages:
        assert "Renamed Behind" not in server.get(path).text, path
    # A write of every list (a post on an open dispute thread: /outliers
    # and /disputes count the posts; the first post, which opens the
    # thread, drops the whole cache) makes them all follow.
    r = server.post("/api/v1/runs/%s/disputes" % a, json={"body": "Too fast for this card."})
    assert r.status_code == 201, r.text
    for path in hw_pages:
        wait_kept(server, path)
    r = server.post("/api/v1/runs/%s/disputes" % a, json={"body": "Same card here, half of it."})
    assert r.status_code == 201, r.text
    rename_behind(server, "hw", hb, "Renamed Again")
    for path in hw_pages:
        assert "Renamed Again" in server.get(path).text, path


def test_a_model_with_predictions_follows_the_snapshot(server):
    """The page of a model the reference data knows shows predictions, so
    the snapshot's rebuild after a write of any model makes it follow."""
    rid = upload(server, 121.0)
    model, hw = slugs(server, rid)
    path = "/m/" + model
    # The reference data knows it (its ceiling is reckoned on any hardware).
    fit = server.get("/fit.json?model=%s&hw=%s" % (model, hw))
    assert fit.status_code == 200 and fit.json()["result"]["ceiling_tok_s"], fit.text
    wait_kept(server, path)
    rename_behind(server, "hw", hw, "Renamed Behind")
    scoped_upload(server, 104.0, "Frobnicator-7B-Chat", "Obscure X1")
    assert "Renamed Behind" in server.get(path).text


def test_a_write_that_renames_a_model_reaches_every_page(server):
    """When most keys come to spell a model another way its shown name
    changes, and other hardware's pages print that name: such a write
    makes every kept list page follow, not just its scopes."""
    scoped_upload(server, 105.0, "Frobnicator-7B-Chat", "Obscure Y2")
    rid = scoped_upload(server, 106.0, "Quuxinator-3B-Base", "Obscure Y2")
    _, hw = slugs(server, rid)
    path = "/hw/" + hw
    assert "Frobnicator-7B-Chat" in server.get(path).text
    wait_kept(server, path)
    # Two more keys spell it another way, on other hardware.
    for decode in (107.0, 108.0):
        scoped_upload(server, decode, "Frobnicator 7B Chat", "Obscure X1")
    page = server.get(path).text
    assert "Frobnicator 7B Chat" in page and "Frobnicator-7B-Chat" not in page


def test_a_digest_that_reads_as_another_reaches_its_pages(server):
    """A digest that shares its first 12 hex digits with another model's
    is shown in full on that other model's pages too (issue 37, H2): the
    write that brings it marks every kept list page, not just its own
    model's and hardware's."""
    honest = "sha256:" + "ab12" * 16
    rid = scoped_upload(server, 109.0, "Quuxinator-3B-Base", "Obscure Y2", digest=honest)
    model, _ = slugs(server, rid)
    path = "/m/%s.json" % model
    assert server.get(path).json()["digest"]["digest_short"] == "ab12" * 3
    wait_kept(server, path)
    scoped_upload(server, 110.0, "Frobnicator-7B-Chat", "Obscure X1", digest=honest[:-1] + "0")
    assert server.get(path).json()["digest"]["digest_short"] == honest[7:]


def test_one_digest_under_two_models_follows_both(server):
    """Runs of one weights file under two model names share its outlier
    clusters, whose figures the model pages' run lists show: a run of the
    digest under one name reaches the kept page of the other."""
    digest = digest_for("shared weights file")
    rid = scoped_upload(server, 112.0, "Quuxinator-3B-Base", "Obscure Y2", digest=digest)
    model, hw = slugs(server, rid)
    path = "/m/" + model
    wait_kept(server, path)
    rename_behind(server, "hw", hw, "Renamed Behind")
    scoped_upload(server, 113.0, "Frobnicator-7B-Chat", "Obscure X1", digest=digest_for("its own"))
    assert "Renamed Behind" not in server.get(path).text     # another digest: kept
    scoped_upload(server, 114.0, "Frobnicator-7B-Chat", "Obscure X1", digest=digest)
    assert "Renamed Behind" in server.get(path).text


def test_flags_moved_in_a_models_own_cluster_leave_other_models_kept(server):
    """An upload that flags (or clears) an earlier run of its own model's
    cluster changes what that model's, hardware's and digest's pages show,
    which it marks, and not another model's page on other hardware: that
    one stays kept through every upload, the one that moves the flag
    included (tests/http/test_outliers.py's growing cluster), while the
    model's own page shows the flag at once."""
    from test_outliers import Clusters, outlier_ids
    other = scoped_upload(server, 111.0, "Quuxinator-3B-Base", "Obscure Y2")
    mo, _ = slugs(server, other)
    c = Clusters(server)
    first, _ = c.upload(200.0)
    c.upload(100.0)
    wait_kept(server, "/m/" + mo)
    flagged = []
    for v in [100.0 + ((i * 37) % 11 - 5) * 0.3 for i in range(11)] + [199.0, 201.0, 198.0]:
        c.upload(v)
        now = c.expected(first)[0]
        flagged.append(now)
        assert (first in outlier_ids(server)) is now     # the lists follow the flag
        before = list_hits(server)
        assert server.get("/m/" + mo).status_code == 200
        assert list_hits(server) == before + 1, "the other model's page was rebuilt"
    assert True in flagged and flagged[-1] is False      # moved both ways
    assert server.get("/r/%s.json" % first).json()["outlier"]["flagged"] is False


def keyed_upload(server, decode, model, accel, key):
    p = make_payload(model__name=model, model__digest=digest_for(model),
                     hardware__accelerator_summary=accel, hardware__gpu_name=accel,
                     hardware__fingerprint_hash=hashlib.sha256(accel.encode()).hexdigest()[:16])
    p["workloads"]["chat-short"]["decode_tok_s"] = decode
    r = server.upload(sign(p, key)[0])
    assert r.status_code == 201, r.text
    server.wait_logged(r.json()["id"])
    server.wait_refreshed()
    return r.json()["id"]


def test_a_keys_second_run_marks_its_first_runs_pages_only(server):
    """A key is new while it has one run; its second run, of another model
    on other hardware, changes the count of new keys of its first run's
    combination: that model's and hardware's pages follow, a third
    model's page on other hardware stays kept."""
    key = new_key()
    a = keyed_upload(server, 101.0, "Frobnicator-7B-Chat", "Obscure X1", key)
    c = scoped_upload(server, 121.0, "Wibbler-2B-Base", "Obscure Z3")
    (ma, ha), (mc, _) = slugs(server, a), slugs(server, c)
    keyed_upload(server, 111.0, "Quuxinator-3B-Base", "Obscure Y2", new_key())  # its names first
    for path in ("/m/" + ma, "/hw/" + ha, "/m/" + mc):
        wait_kept(server, path)
    keyed_upload(server, 112.0, "Quuxinator-3B-Base", "Obscure Y2", key)
    for path, kept in (("/m/" + mc, True), ("/m/" + ma, False), ("/hw/" + ha, False)):
        before = list_hits(server)
        assert server.get(path).status_code == 200
        assert (list_hits(server) == before + 1) is kept, path
