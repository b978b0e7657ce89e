"""`llm-speedd --demo`: an empty database gets the historical example runs
of the seed documents under their ids, plus synthetic runs across backends
and hardware, all marked demo; a database with runs is left alone."""
import sqlite3

import lxml.html

from conftest import make_payload, sign, validate_html

# id: (model slug, hardware slug, decode, prefill or None, TTFT or None)
HISTORICAL = {
    "r_y2_5y8oo97d": ("stable-code-instruct-3b", "m3-ultra", 192.5, None, None),
    "r_pqjsvd-cub4": ("stable-code-instruct-3b", "m3-pro", 19.4, None, None),
    "r_fpsca03u2o_": ("qwen3-coder-30b-a3b", "m3-ultra", 112.2, 204.0, 539.3),
    "r_3ijun8ltjnb": ("gpt-oss-20b", "m3-ultra", 152.7, 239.9, 692.1),
    "r_l_v1-zq_qaz": ("deepseek-coder-v2-lite-instruct", "m3-ultra", 168.3, 291.5, 449.5),
    "r_721b4bls_oq": ("qwen2-5-coder-32b", "m3-ultra", 34.5, 144.1, 909.4),
}


def count_runs(server):
    c = sqlite3.connect(server.db, timeout=10)
    try:
        return c.execute("SELECT count(*), sum(demo) FROM runs").fetchone()
    finally:
        c.close()


def test_demo_fills_an_empty_database(make_server, tmp_path):
    s = make_server(["--demo"])
    for rid, (model, hw, decode, prefill, ttft) in HISTORICAL.items():
        r = s.get("/r/%s.json" % rid)
        assert r.status_code == 200, rid
        run = r.json()
        assert run["decode_tok_s"] == decode
        assert run["model"]["slug"] == model and run["hardware"]["slug"] == hw
        assert run["backend"] == {"name": "mlx", "version": "0.31.3"}
        assert run["created_at"].startswith("2026-04-28")
        assert run["demo"] is True
        chat = run["payload"]["workloads"]["chat-short"]
        if prefill is not None:
            assert (chat["prefill_tok_s"], chat["ttft_ms"]) == (prefill, ttft)
        # The stored bytes verify like any upload: the JWS is there.
        assert s.get("/r/%s.jws" % rid).status_code == 200
    n, demo = count_runs(s)
    assert 200 <= n <= 1000 and demo == n


def test_demo_board_is_labelled_and_spans_backends_and_hardware(make_server, tmp_path):
    s = make_server(["--demo"])
    home = s.get("/")
    assert home.status_code == 200
    assert "This board holds demo data" in home.text
    ok, report = validate_html(home.text, tmp_path)
    assert ok, report
    d = lxml.html.fromstring(home.text)
    backends = {o.get("value") for o in d.xpath("//select[@name='backend']/option")} - {""}
    hardware = {o.get("value") for o in d.xpath("//select[@name='hw']/option")} - {""}
    assert backends == {"mlx", "llama.cpp", "vllm", "ollama", "exllamav2"}
    assert {"m3-ultra", "m3-pro", "rtx-4090", "rtx-5090"} <= hardware
    # Every run row on the board carries the demo mark.
    rows = d.xpath("//table[@class='runs']//tbody/tr")
    assert rows and all(r.xpath(".//span[@class='demo']") for r in rows)
    # The historical M3 Ultra run is on its model page, in the MLX digest.
    m = s.get("/m/stable-code-instruct-3b.json").json()
    mlx = [x for x in m["digests"] if x["format"] == "mlx"][0]
    runs = s.get(mlx["href"] + "&hw=m3-ultra").json()["list"]["runs"]
    assert "r_y2_5y8oo97d" in [r["id"] for r in runs]
    assert all(r["demo"] for r in runs)
    assert len(m["digests"]) >= 3     # MLX, GGUF, AWQ, EXL2 weights kept apart
    page = s.get("/m/stable-code-instruct-3b")
    ok, report = validate_html(page.text, tmp_path)
    assert ok, report
    assert "r_y2_5y8oo97d" in s.get("/m/stable-code-instruct-3b?digest=%s&hw=m3-ultra" % mlx["digest"]).text


def test_demo_shows_an_outlier_flag(make_server):
    s = make_server(["--demo"])
    c = sqlite3.connect(s.db, timeout=10)
    try:
        flagged = c.execute("SELECT id, model_slug, model_digest, hw_slug, backend_name FROM runs WHERE outlier = 1").fetchall()
    finally:
        c.close()
    assert flagged
    rid, model, digest, hw, backend = flagged[0]
    r = s.get("/m/%s?digest=%s&hw=%s&backend=%s" % (model, digest, hw, backend))
    row = [tr for tr in lxml.html.fromstring(r.text).xpath("//tbody/tr") if rid in tr.text_content()][0]
    assert row.xpath(".//span[@class='flag']")


def test_demo_leaves_a_database_with_runs_alone(server):
    token, _ = sign(make_payload())
    assert server.upload(token).status_code == 201
    server.stop()
    server.extra_args.append("--demo")
    server.start()
    assert count_runs(server) == (1, 0)
    assert server.get("/r/r_y2_5y8oo97d.json").status_code == 404
    assert "This board holds demo data" not in server.get("/").text


def test_demo_twice_adds_nothing(make_server):
    s = make_server(["--demo"])
    first = count_runs(s)
    s.restart()
    assert count_runs(s) == first
    assert "already holds runs" in s.read_log()
