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


# ---- issue 37, M1: asks per visitor (/64) and per network ----

ROOT = __import__("os").path.join(__import__("os").path.dirname(__file__), "..", "..")


def reference_ids(kind):
    import json
    import os
    f = {"models": "models.json", "hardware": "hardware.json"}[kind]
    with open(os.path.join(ROOT, "static", "reference", f)) as fh:
        return list(json.load(fh)[kind])


def ask(server, via, addr, model="qwen2-5-7b", hw="m3-ultra"):
    """One visit of the unmeasured model-on-hardware page, sent by proxy
    session via for the client addr (X-Forwarded-For)."""
    r = via.get(server.url + "/m/%s/hw/%s.json" % (model, hw),
                headers={"X-Forwarded-For": addr}, timeout=10)
    assert r.status_code == 200, r.text


def the_asks(server, model="qwen2-5-7b", hw="m3-ultra"):
    got = [w for w in rows(server) if (w["model_slug"], w["hw_slug"]) == (model, hw)]
    return (got[0]["asks"], got[0]["networks"]) if got else (0, 0)


def settled(server):
    """The list once the refresh thread has flushed what was asked (two
    refresh passes: the asks are flushed in one, the kept list rebuilt)."""
    server.wait_refreshed()
    server.wait_refreshed()
    return rows(server)


def test_one_ipv6_slash_64_asks_once_and_a_network_counts_three_visitors(make_server):
    """The probe counted 60 asks from one /64.  A visitor is an IPv4
    address or an IPv6 /64; while the network cap is on, a network (IPv6
    /48, IPv4 /24) counts at most three visitors a row, and the row keeps
    how many networks asked."""
    server = make_server(["--keys-per-network", "3", "--trust-proxy=127.0.0.1"])
    proxy = client_from("127.0.0.1")
    for i in range(60):                                # one /64, 60 addresses
        ask(server, proxy, "2001:db8:1:1::%x" % (i + 1))
    wait_for(lambda: the_asks(server) == (1, 1), what="one ask from one /64")
    for i in range(2, 12):                             # ten /64s of that /48
        ask(server, proxy, "2001:db8:1:%x::1" % i)
    for net in ("2001:db8:2::1", "2001:db8:3::1", "198.51.100.7", "198.51.100.8",
                "198.51.100.9", "198.51.100.10", "203.0.113.5"):
        ask(server, proxy, net)
    # The first /48: 3 visitors; 2001:db8:2::/48 and :3::/48: one each;
    # 198.51.100.0/24: three of its four; 203.0.113.0/24: one.
    wait_for(lambda: the_asks(server) == (3 + 2 + 3 + 1, 5), what="9 asks from 5 networks")
    settled(server)
    wait_for(lambda: the_asks(server) == (9, 5), what="no more asks")
    (row,) = [w for w in rows(server) if w["model_slug"] == "qwen2-5-7b"]
    assert row["model_name"] != "qwen2-5-7b" and row["hw_name"] != "m3-ultra", row
    page = server.get("/wanted").text
    assert ">%s on %s</a>" % (row["model_name"], row["hw_name"]) in page   # names, not slugs


def test_a_network_counts_its_allowance_of_asks_a_day(make_server):
    """One address froze /wanted for the day: its 32,942 GETs filled the
    day's table, so later visits counted 0.  A network's asks count up to
    its daily allowance (50); past it, nothing it asks takes a slot, and
    another network's visit still counts."""
    server = make_server(["--keys-per-network", "3", "--trust-proxy=127.0.0.1"])
    proxy = client_from("127.0.0.1")
    models = [m for m in reference_ids("models")][:12]
    hws = ["rtx-4090", "rtx-3090", "m3-ultra", "m4-max", "radeon-rx-7900-xtx"]
    assert set(hws) <= set(reference_ids("hardware"))   # page slugs, not aliases
    combos = [(m, h) for m in models for h in hws][:60]
    for m, h in combos:
        ask(server, proxy, "192.0.2.1", m, h)
    wait_for(lambda: sum(w["asks"] for w in rows(server)) == 50, what="50 asks")
    settled(server)
    got = wait_for(lambda: rows(server) if sum(w["asks"] for w in rows(server)) == 50 else None,
                   what="still 50")
    assert len(got) == 50 and all(w["networks"] == 1 for w in got)
    m, h = combos[-1]                                  # past the allowance
    assert the_asks(server, m, h) == (0, 0)
    ask(server, proxy, "192.0.3.1", m, h)              # another network
    wait_for(lambda: the_asks(server, m, h) == (1, 1), what="the other network's ask")


def test_only_pages_that_exist_are_wanted_with_their_names(server):
    """Issue 38, 16: /fit?hw=visit-spam-example-com put a public row on
    /wanted linking to a 404.  Only a model and a hardware with pages are
    counted, and rows show their names."""
    server.wait_refreshed()
    assert server.get("/fit?model=qwen2-5-7b&hw=visit-spam-example-com").status_code == 200
    assert server.get("/fit?model=qwen2-5-7b&hw=m3-ultra").status_code == 200
    (row,) = wait_for(lambda: rows(server), what="the wanted row")
    assert row["hw_slug"] == "m3-ultra"
    assert row["hw_name"] != "m3-ultra" and "M3" in row["hw_name"], row
    assert row["model_name"] != "qwen2-5-7b", row
    assert server.get(row["href"]).status_code == 200
    settled(server)
    wait_for(lambda: [w["hw_slug"] for w in rows(server)] == ["m3-ultra"], what="one row")
