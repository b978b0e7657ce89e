"""One model, one machine, whatever they are called (issue 32, contract
section 9): uploads named as Hugging Face, Ollama and GGUF files name them
land on their reference's page; every other spelling of it redirects there;
the picker, search, /fit and /wanted use the one identity; a run's JSON
gives the reference ids and the canonical quantization beside the names as
uploaded."""
import json
import os
from urllib.parse import quote

from conftest import ROOT, digest_for, make_payload, new_key, sign, wait_for

REF = {n: json.load(open(os.path.join(ROOT, "static", "reference", n + ".json")))
       for n in ("models", "hardware")}
LLAMA = REF["models"]["models"]["llama-3-1-8b"]["name"]

SPELLINGS = ["Meta-Llama-3.1-8B-Instruct", "llama3.1:8b-instruct-q4_K_M",
             "Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf"]


def upload(server, name, accel="NVIDIA GeForce RTX 4090", decode=100.0, quant=None,
           fmt=None, backend="llama.cpp", digest=None, key=None, **hw):
    p = make_payload()
    p["model"] = {"name": name, "digest": digest or digest_for("llama-3.1-8b-q4km")}
    if quant:
        p["model"]["quantization"] = quant
    if fmt:
        p["model"]["format"] = fmt
    p["backend"] = {"name": backend, "version": "b6100", "runner": None}
    p["hardware"] = {"cpu_model": "AMD Ryzen 9 7950X", "accelerator_summary": accel, **hw}
    p["workloads"]["chat-short"]["decode_tok_s"] = decode
    r = server.upload(sign(p, key or new_key())[0])
    assert r.status_code == 201, r.text
    return r.json()["id"]


def test_the_pickers_example_finds_the_runs_uploaded_under_real_names(server):
    ids = [upload(server, SPELLINGS[i % 3], decode=120.0 + i) for i in range(6)]
    # The picker's own example, as a person types it.
    r = server.get("/?model=%s&hw=%s" % (quote("Llama 3.1 8B"), quote("RTX 4090")), allow_redirects=False)
    assert r.status_code == 303 and r.headers["Location"] == "/m/llama-3-1-8b/hw/rtx-4090"
    page = server.get("/m/llama-3-1-8b/hw/rtx-4090.json").json()
    assert page["empty"] is False
    shown = {row["best_run"] for w in page["weights"] for row in w["rows"]}
    assert shown and shown <= set(ids)
    assert sum(row["runs"] for w in page["weights"] for row in w["rows"]) == 6
    assert page["model"]["name"] == LLAMA and page["hardware"]["name"] == "NVIDIA GeForce RTX 4090"
    # Visited, it is not wanted: it was measured.
    server.get("/m/llama-3-1-8b/hw/rtx-4090")
    wanted = server.get("/wanted.json").json()["rows"]
    assert not [w for w in wanted if w["model_slug"] == "llama-3-1-8b" and w["hw_slug"] == "rtx-4090"]
    # Every spelling of it reaches the same page.
    for typed in ("Meta-Llama-3.1-8B-Instruct", "llama3.1:8b", "meta-llama-3-1-8b-instruct"):
        r = server.get("/m/" + quote(typed), allow_redirects=False)
        assert r.status_code == 301 and r.headers["Location"] == "/m/llama-3-1-8b", typed
    r = server.get("/m/meta-llama-3-1-8b-instruct.json?sort=best", allow_redirects=False)
    assert r.status_code == 301 and r.headers["Location"] == "/m/llama-3-1-8b.json?sort=best"
    r = server.get("/m/meta-llama-3-1-8b-instruct.atom", allow_redirects=False)
    assert r.status_code == 301 and r.headers["Location"] == "/m/llama-3-1-8b.atom"
    r = server.get("/hw/" + quote("NVIDIA GeForce RTX 4090") + ".atom", allow_redirects=False)
    assert r.status_code == 301 and r.headers["Location"] == "/hw/rtx-4090.atom"
    r = server.get("/m/%s/hw/%s" % (quote("llama3.1:8b"), quote("NVIDIA GeForce RTX 4090")),
                   allow_redirects=False)
    assert r.status_code == 301 and r.headers["Location"] == "/m/llama-3-1-8b/hw/rtx-4090"
    # /models lists the model once, by its reference's name.
    rows = [m for m in server.get("/models.json").json()["rows"] if "llama" in m["slug"]]
    assert [(m["slug"], m["name"]) for m in rows] == [("llama-3-1-8b", LLAMA)]


def test_run_json_gives_reference_ids_and_the_canonical_quantization(server):
    rid = upload(server, "llama3.1:8b-instruct-q4_K_M")
    run = server.get("/r/%s.json" % rid).json()
    assert run["model"]["name"] == "llama3.1:8b-instruct-q4_K_M"        # as uploaded
    assert run["model"]["ref"] == "llama-3-1-8b" and run["model"]["slug"] == "llama-3-1-8b"
    assert run["model"]["quantization"] == "Q4_K_M" and run["model"]["format"] == "gguf"
    assert run["hardware"]["ref"] == "rtx-4090"
    assert run["hardware"]["accelerator_summary"] == "NVIDIA GeForce RTX 4090"
    # A width-only label is read from the name: AWQ, not MLX, not FP16.
    rid = upload(server, "Qwen/Qwen2.5-7B-Instruct-AWQ", quant="4bit", backend="vllm")
    run = server.get("/r/%s.json" % rid).json()
    assert (run["model"]["ref"], run["model"]["quantization"], run["model"]["quantization_uploaded"]) == \
        ("qwen2-5-7b", "AWQ-4bit", "4bit")
    # A name nobody knows keeps its own page, and the name pages show is
    # the upload's without its file's tokens.
    rid = upload(server, "Acme/Frobnicator-13B-Chat-Q5_K_M.gguf")
    run = server.get("/r/%s.json" % rid).json()
    assert run["model"]["ref"] is None and run["model"]["slug"] == "frobnicator-13b-chat"
    assert run["model"]["shown_name"] == "Acme/Frobnicator-13B-Chat"
    assert run["model"]["quantization"] == "Q5_K_M"


def test_one_machine_whatever_linux_calls_it_and_notes_are_notes(server):
    a = upload(server, "Qwen2.5-7B-Instruct", accel="AMD Ryzen AI Max+ 395 w/ Radeon 8060S")
    b = upload(server, "Qwen2.5-7B-Instruct", accel="AMD Ryzen AI Max+ 395")
    c = upload(server, "Qwen2.5-7B-Instruct", accel="NVIDIA GeForce RTX 4090 Laptop GPU (175W TGP, MUX switch enabled)")
    d = upload(server, "Qwen2.5-7B-Instruct", accel="NVIDIA GeForce RTX 4090 Laptop GPU")
    e = upload(server, "Qwen2.5-7B-Instruct", accel="NVIDIA GeForce RTX 4090")
    slug = {x: server.get("/r/%s.json" % x).json()["hardware"]["slug"] for x in (a, b, c, d, e)}
    assert slug[a] == slug[b] == "ryzen-ai-max-395"
    assert slug[c] == slug[d] == "rtx-4090-laptop-gpu"
    assert slug[e] == "rtx-4090"
    hw = server.get("/hw/ryzen-ai-max-395.json").json()
    assert hw["hardware"]["name"] == "AMD Ryzen AI Max+ 395"       # a product name, not a code name
    assert sum(r["runs"] for r in hw["combos"]["rows"]) == 2
    slugs = [h["slug"] for h in server.get("/hardware.json").json()["rows"]]
    assert sorted(slugs) == ["rtx-4090", "rtx-4090-laptop-gpu", "ryzen-ai-max-395"]
    r = server.get("/hw/" + quote("AMD Ryzen AI Max+ 395"), allow_redirects=False)
    assert r.status_code == 301 and r.headers["Location"] == "/hw/ryzen-ai-max-395"


def test_fit_and_search_take_any_spelling(server):
    upload(server, "Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf", decode=130.0)
    fit = server.get("/fit.json", params={"model": "llama3.1:8b", "hw": "NVIDIA GeForce RTX 4090",
                                          "format": "q4_0"}).json()
    assert fit["result"]["ceiling_tok_s"] > 0
    assert [r["best_decode_tok_s"] for r in fit["runs"]] == [130.0]
    r = server.get("/search", params={"q": "Meta-Llama-3.1-8B-Instruct on NVIDIA GeForce RTX 4090"},
                   allow_redirects=False)
    assert r.status_code == 303 and r.headers["Location"] == "/m/llama-3-1-8b/hw/rtx-4090"
    found = server.get("/search.json", params={"q": "llama 3.1 8b"}).json()["results"]
    assert [(h["kind"], h["slug"]) for h in found if h["kind"] == "model"] == [("model", "llama-3-1-8b")]


def test_a_name_that_resolves_to_nothing_is_kept_never_refused(server):
    for name in ("my-private-finetune-v7", "Llama-3.1-8B-Instruct-abliterated-Q4_K_M", "llama 8B Q4_K - Medium"):
        rid = upload(server, name)
        run = server.get("/r/%s.json" % rid).json()
        assert run["model"]["ref"] is None and run["model"]["name"] == name
    # llama-bench's "llama 8B" is Llama 3 or 3.1 8B: a page of its own, not
    # the reference's.
    assert server.get("/r/%s.json" % rid).json()["model"]["slug"] == "llama-8b"
