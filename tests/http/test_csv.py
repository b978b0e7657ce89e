"""CSV twins of the table pages (/index.csv, /m/<slug>.csv, /hw/<slug>.csv,
/outliers.csv, /disputes.csv, /models.csv, /hardware.csv) and the JSON twins added beside them:
RFC 4180 records with a header row, the page's rows in the page's order,
and cells a spreadsheet cannot run as formulas."""

import pytest

from conftest import csv_table, make_payload, new_key, sign

# A formula with no address in it (a name with one is never shown, issue 37).
EVIL = '=HYPERLINK("evil"&A1, "click") -2'


def upload(server, decode, name="Qwen2.5-7B-Instruct", hw="M3 Ultra"):
    p = make_payload(model__name=name, hardware__accelerator_summary=hw)
    p["workloads"]["chat-short"]["decode_tok_s"] = decode
    r = server.upload(sign(p, new_key())[0])
    assert r.status_code == 201, r.text
    return r.json()["id"]


def records(resp):
    return csv_table(resp)[1]


def test_table_pages_have_csv_twins_in_page_order(server):
    ids = [upload(server, d) for d in (50.0, 70.5, 60.25)]
    board = records(server.get("/index.csv"))
    # The board has a row per combination: its typical figure over the
    # three keys and its best run (issue 22; it was the best run alone).
    assert [r["best_run"] for r in board] == [ids[1]]
    assert float(board[0]["best_decode_tok_s"]) == 70.5 and board[0]["keys"] == "3"
    assert abs(float(board[0]["median_decode_tok_s"]) - 60.25) <= 0.006 * 60.25
    assert board[0]["url"] == server.url + "/r/" + ids[1]
    model = records(server.get("/m/qwen2-5-7b.csv"))
    assert [r["id"] for r in model] == [ids[1], ids[2], ids[0]]
    assert [float(r["decode_tok_s"]) for r in model] == [70.5, 60.25, 50.0]
    assert model[0]["url"] == server.url + "/r/" + ids[1]
    assert model[0]["model"] == "Qwen2.5 7B Instruct" and model[0]["hw_slug"] == "m3-ultra"   # the reference's name
    assert model[0]["outlier"] == "false"
    hw = records(server.get("/hw/m3-ultra.csv"))
    assert [(r["model_slug"], r["best_run"], r["runs"]) for r in hw] == [("qwen2-5-7b", ids[1], "3")]
    hw_model = records(server.get("/hw/m3-ultra.csv?model=qwen2-5-7b"))
    assert [r["id"] for r in hw_model] == [ids[1], ids[2], ids[0]]
    # The same rows as the JSON twin, a page at a time with its cursor.
    j = server.get("/m/qwen2-5-7b.json").json()
    assert [r["id"] for r in j["list"]["runs"]] == [r["id"] for r in model]


def test_index_pages_have_csv_twins(server):
    ids = [upload(server, 50.0), upload(server, 70.5),
           upload(server, 90.0, name=EVIL, hw="RTX 4090")]
    models = records(server.get("/models.csv"))
    j = server.get("/models.json").json()
    assert [r["slug"] for r in models] == [r["slug"] for r in j["rows"]]
    qwen = next(r for r in models if r["slug"] == "qwen2-5-7b")
    assert qwen["runs"] == "2" and float(qwen["best_decode_tok_s"]) == 70.5
    assert qwen["best_id"] == ids[1] and qwen["url"] == server.url + "/r/" + ids[1]
    evil = next(r for r in models if r["best_id"] == ids[2])
    assert evil["name"].startswith("'=")   # a name is never a formula
    hw = records(server.get("/hardware.csv?sort=name"))
    assert [r["slug"] for r in hw] == ["m3-ultra", "rtx-4090"]
    assert hw[0]["runs"] == "2" and hw[1]["url"].endswith("/r/" + ids[2])
    # Paged like the page: one row after the first row's cursor.
    assert [r["slug"] for r in records(server.get("/hardware.csv?sort=name&cursor=m3-ultra"))] == ["rtx-4090"]
    assert server.get("/models.csv?sort=speed").status_code == 400
    page = server.get("/models").text
    assert 'href="/models.csv"' in page and 'href="/models.json"' in page
    assert 'href="/hardware.csv"' in server.get("/hardware").text


def test_json_twins_of_list_pages(server):
    rid = upload(server, 10.0)
    assert server.post("/api/v1/runs/%s/disputes" % rid, json={"body": "Hm."}).status_code == 201
    j = server.get("/disputes.json")
    assert j.status_code == 200 and j.headers["Content-Type"] == "application/json"
    assert [r["id"] for r in j.json()["rows"]] == [rid]
    assert [r["id"] for r in records(server.get("/disputes.csv"))] == [rid]
    assert server.get("/outliers.json").json()["rows"] == []
    assert records(server.get("/outliers.csv")) == []
    # Its only run is under an open dispute: the row stays, with no best run
    # (issue 35) and the dispute counted.
    (row,) = server.get("/index.json").json()["board"]["rows"]
    assert row["best_run"] is None and row["disputed_runs"] == 1


def test_cells_cannot_be_formulas(server):
    rid = upload(server, 10.0, name=EVIL, hw="@Evil Box 9000")     # names nothing the data knows
    rows = records(server.get("/index.csv"))
    assert len(rows) == 1
    assert rows[0]["model"] == "'" + EVIL
    assert rows[0]["hardware"] == "'@Evil Box 9000"
    for r in rows:
        for k, v in r.items():
            if k not in ("decode_tok_s", "prefill_tok_s", "ttft_ms", "sigma"):
                assert not v[:1] in ("=", "+", "-", "@"), (k, v)
    assert rows[0]["best_run"] == rid


def test_bad_arguments_answer_json_errors(server):
    upload(server, 10.0)
    r = server.get("/index.csv?after=bogus")
    assert r.status_code == 400 and r.json()["error"]["code"] == "invalid_query"
    r = server.get("/m/NOT_A_SLUG.csv")
    assert r.status_code == 404 and r.headers["Content-Type"] == "application/json"
    assert server.get("/outliers.csv?after=zz").status_code == 400
