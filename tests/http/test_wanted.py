"""/wanted and /wanted.json (issue 26), through the real daemon: a visit
that ends on a combination without runs (/fit, a search) puts it on the
list with the command that would measure it, counted once per address and
day; it leaves once runs from 3 keys are in."""
from conftest import client_from, make_payload, new_key, sign, wait_for


def rows(server):
    r = server.get("/wanted.json")
    assert r.status_code == 200, r.text
    return r.json()["rows"]


def test_a_visit_without_runs_is_wanted_once_per_address(server):
    server.wait_refreshed()          # predictions read the reference data the refresh hands them
    for _ in range(3):
        assert server.get("/fit?model=qwen2-5-7b&hw=m3-ultra").status_code == 200
    (row,) = wait_for(lambda: rows(server), what="the wanted row")
    assert row["model_slug"] == "qwen2-5-7b" and row["hw_slug"] == "m3-ultra"
    assert row["asks"] == 1          # three visits from one address
    assert row["command"] == "llm-speed bench --models 'Qwen2.5-7B' --backends 'llama.cpp'"
    assert row["href"] == "/m/qwen2-5-7b/hw/m3-ultra"
    for k in ("predicted_decode_tok_s", "predicted_low", "predicted_high", "predicted_width",
              "too_uncertain", "predicted_from", "predicted_step", "predicted_class",
              "predicted_refusal"):
        assert k in row
    assert row["predicted_decode_tok_s"] is None and row["too_uncertain"] is None
    assert row["predicted_class"] == "dense-4bit" and row["predicted_refusal"] is None
    page = server.get("/wanted").text
    assert "llm-speed bench --models &#39;Qwen2.5-7B&#39; --backends &#39;llama.cpp&#39;" in page
    # Another address counts again.
    other = client_from("127.0.0.2")
    assert other.get(server.url + "/fit?model=qwen2-5-7b&hw=m3-ultra").status_code == 200
    wait_for(lambda: rows(server)[0]["asks"] == 2, what="the second address's ask")


def test_it_leaves_with_runs_from_three_keys(server):
    server.get("/fit?model=qwen2-5-7b&hw=rtx-4090")
    wait_for(lambda: rows(server), what="the wanted row")
    for i in range(3):
        p = make_payload()
        p["backend"] = {"name": "llama.cpp", "version": "b6100", "runner": None}
        p["model"].update({"name": "qwen2-5-7b", "quantization": "Q4_K_M", "format": "gguf"})
        p["hardware"].update({"accelerator_summary": "RTX 4090", "gpu_name": "RTX 4090",
                              "fingerprint_hash": None})
        p["workloads"]["chat-short"]["decode_tok_s"] = 100.0 + i
        assert server.upload(sign(p, new_key())[0]).status_code == 201
    wait_for(lambda: rows(server) == [], what="the row to leave")


def test_a_search_for_a_model_on_hardware_without_runs_is_wanted(server):
    r = server.get("/search.json", params={"q": "Qwen2.5 7B on M3 Max"})
    assert r.status_code == 200, r.text
    c = r.json()["combination"]
    assert c == {"model_slug": "qwen2-5-7b", "hw_slug": "m3-max",
                 "href": "/m/qwen2-5-7b/hw/m3-max", "runs": 0}
    (row,) = wait_for(lambda: rows(server), what="the wanted row")
    assert (row["model_slug"], row["hw_slug"], row["asks"]) == ("qwen2-5-7b", "m3-max", 1)
    assert "wanted list" in server.get("/search", params={"q": "Qwen2.5 7B on M3 Max"}).text


def test_the_command_quotes_every_argument_and_none_is_an_option(server):
    """Issue 37, M2: 3 keys against 2 named an unresolved model
    "--server=..." on its page, and /wanted's copy-paste command then read
    `llm-speed bench --models --server=... --backends llama.cpp`.  Each
    argument is one single-quoted word, and a name that begins with "-"
    gives way to the page's slug."""
    slug = "acme-coder-30b-a3b"
    names = ["--server=ftp:/tmp/x/Acme-Coder-30B-A3B"] * 3 + ["Acme-Coder-30B-A3B"] * 2
    for i, name in enumerate(names):
        p = make_payload()
        p["model"]["name"] = name
        p["workloads"]["chat-short"]["decode_tok_s"] = 100.0 + i
        assert server.upload(sign(p, new_key())[0]).status_code == 201
    page = server.get("/m/%s.json" % slug).json()
    assert page["model"]["name"].startswith("--server="), page["model"]   # the swarm's name
    r = server.get("/m/%s/hw/rtx-4090.json" % slug)
    assert r.status_code == 200, r.text
    assert r.json()["command"] == "llm-speed bench --models 'acme-coder-30b-a3b' --backends 'llama.cpp'"
    (row,) = wait_for(lambda: rows(server), what="the wanted row")
    assert row["model_slug"] == slug
    assert row["command"] == "llm-speed bench --models 'acme-coder-30b-a3b' --backends 'llama.cpp'"
    # A name with shell syntax in it is one word, not code.
    for i in range(4):
        p = make_payload()
        p["model"]["name"] = "Acme $(id) `id` it's/Acme-Coder-30B-A3B"
        p["workloads"]["chat-short"]["decode_tok_s"] = 90.0 + i
        assert server.upload(sign(p, new_key())[0]).status_code == 201
    r = server.get("/m/%s/hw/rtx-4090.json" % slug).json()
    assert r["command"] == ("llm-speed bench --models 'Acme $(id) `id` it'\\''s/Acme-Coder-30B-A3B' "
                            "--backends 'llama.cpp'"), r["command"]


def test_alias_slugs_and_spellings_count_one_ask(server):
    """Issue 37, L3: an alias slug counted one visitor's ask a second time.
    Every spelling of a model and of a hardware (an alias slug, an Ollama
    tag, a search) asks for the one canonical pair, once per address."""
    visits = ["/fit?model=qwen2-5-7b&hw=m3-ultra", "/fit?model=qwen2.5:7b&hw=m3-ultra",
              "/fit?model=Qwen2.5-7B-Instruct&hw=m3-ultra", "/m/qwen2-5-7b-instruct/hw/m3-ultra",
              "/m/qwen2-5-7b/hw/m3-ultra"]
    for v in visits:
        assert server.get(v).status_code == 200, v
    r = server.get("/search.json", params={"q": "qwen2.5:7b on M3 Ultra"})
    assert r.json()["combination"]["model_slug"] == "qwen2-5-7b", r.text
    (row,) = wait_for(lambda: rows(server), what="the wanted row")
    assert (row["model_slug"], row["hw_slug"], row["asks"]) == ("qwen2-5-7b", "m3-ultra", 1), row
    other = client_from("127.0.0.2")
    assert other.get(server.url + "/m/qwen2-5-7b-instruct/hw/m3-ultra").status_code == 200
    wait_for(lambda: rows(server)[0]["asks"] == 2, what="the second address's ask")
    assert len(rows(server)) == 1
