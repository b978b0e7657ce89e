"""Predicted decode where nothing was measured (issue 26), through the real
daemon: counted runs of Llama 3.1 8B and Llama 3.2 3B on an RTX 4090 with
llama.cpp at about 70% of their ceilings, from 8 keys each, predict about
70% of a third model's ceiling on /fit.json, labelled predicted, with its
basis, outside the measured rows; with one model only, no figure."""
import random

from conftest import make_payload, new_key, sign, wait_for

HW = "rtx-4090"


def ceiling(server, model, context=384):
    r = server.get("/fit.json?model=%s&hw=%s&format=q4_k_m&context=%d" % (model, HW, context))
    assert r.status_code == 200, r.text
    return r.json()["result"]["ceiling_tok_s"]


def upload(server, name, decode):
    p = make_payload()
    p["backend"] = {"name": "llama.cpp", "version": "b6100", "runner": None}
    p["model"].update({"name": name, "quantization": "Q4_K_M", "format": "gguf"})
    p["model"]["digest"] = "sha256:" + ("%064x" % abs(hash(name)))[:64]
    p["hardware"].update({"accelerator_summary": "RTX 4090", "gpu_name": "RTX 4090",
                          "cpu_model": "AMD Ryzen 9", "vram_gb": 24, "ram_gb": 64, "os": "Linux",
                          "fingerprint_hash": None})
    p["workloads"]["chat-short"]["decode_tok_s"] = decode
    r = server.upload(sign(p, new_key())[0])
    assert r.status_code == 201, r.text


def measure(server, ref_id, name, share=0.70, keys=8, seed=1):
    rnd = random.Random(seed)
    c = ceiling(server, ref_id)
    for _ in range(keys):
        upload(server, name, round(c * share * rnd.uniform(0.98, 1.02), 2))


def prediction(server, model="qwen2-5-7b"):
    m = server.get("/fit.json?model=%s&hw=%s" % (model, HW)).json()
    assert m["runs"] == []            # never in the measured rows
    return m["prediction"], m["result"]["ceiling_tok_s"]


def test_two_models_at_70_percent_predict_70_percent(server):
    measure(server, "llama-3-1-8b", "Llama-3.1-8B-Instruct")
    p, _ = prediction(server)
    assert p["predicted_decode_tok_s"] is None and p["predicted_step"] == "none"
    assert "needs 2 other models measured by 8 submitters each" in p["predicted_from"]
    measure(server, "llama-3-2-3b", "Llama-3.2-3B-Instruct", seed=2)

    def predicted():
        q, c = prediction(server)
        return (q, c) if q["predicted_decode_tok_s"] is not None else None
    p, c = wait_for(predicted, what="a prediction")
    assert abs(p["predicted_decode_tok_s"] / c - 0.70) <= 0.15 * 0.70, (p, c)
    assert p["predicted_low"] < p["predicted_decode_tok_s"] < p["predicted_high"]
    assert p["label"] == "predicted" and p["predicted_step"] == "backend_on_hardware"
    assert p["predicted_backend"] == "llama.cpp"
    assert p["predicted_from"] == "from 16 runs of 2 other models on RTX 4090 with llama.cpp"
    page = server.get("/fit?model=qwen2-5-7b&hw=%s" % HW).text
    assert "Predicted</span> decode, not measured" in page
    assert "from 16 runs of 2 other models on RTX 4090 with llama.cpp" in page
    # A measured model is not predicted: its own rows show instead.
    m = server.get("/fit.json?model=llama-3-1-8b&hw=%s" % HW).json()
    assert len(m["runs"]) == 1 and m["prediction"] is None


def test_methodology_shows_the_backtest_recomputed(server):
    measure(server, "llama-3-1-8b", "Llama-3.1-8B-Instruct")
    measure(server, "llama-3-2-3b", "Llama-3.2-3B-Instruct", seed=2)
    measure(server, "qwen2-5-7b", "Qwen2.5-7B-Instruct", share=0.60, seed=3)

    def tested():
        page = server.get("/methodology").text
        return page if "over <strong>3</strong> combinations tested" in page else None
    page = wait_for(tested, what="the backtest of three combinations")
    assert "Mann-Whitney U" in page and "p &lt; 0.01" in page
    import re
    err = float(re.search(r"median absolute error is <strong>([0-9.]+)%", page).group(1))
    # Leaving one model out: 70, 70 and 60% efficiencies predict each
    # other within about 10-17%.
    assert 0 < err < 25


def test_the_model_page_predicts_hardware_without_runs(server):
    measure(server, "llama-3-1-8b", "Llama-3.1-8B-Instruct")
    measure(server, "llama-3-2-3b", "Llama-3.2-3B-Instruct", seed=2)
    p = make_payload()
    p["model"].update({"name": "Qwen2.5-7B-Instruct", "quantization": "Q4_K_M", "format": "gguf"})
    p["backend"] = {"name": "llama.cpp", "version": "b6100", "runner": None}
    assert server.upload(sign(p, new_key())[0]).status_code == 201     # on an M3 Ultra

    def predicted():
        m = server.get("/m/qwen2-5-7b-instruct.json").json()
        return [r for r in m["predicted"]["rows"] if r["hw"] == HW] or None
    (row,) = wait_for(predicted, what="the model page's prediction")
    c = ceiling(server, "qwen2-5-7b")
    assert abs(row["predicted_decode_tok_s"] / c - 0.70) <= 0.15 * 0.70
    assert row["label"] == "predicted" and row["predicted_backend"] == "llama.cpp"
    m = server.get("/m/qwen2-5-7b-instruct.json").json()
    assert all(b["hw"] != HW for b in m["chart"]["bars"])      # never a measured bar
    assert "m3-ultra" not in [r["hw"] for r in m["predicted"]["rows"]]
    page = server.get("/m/qwen2-5-7b-instruct").text
    assert "Predicted</span>, not measured" in page
