"""Predicted decode where nothing was measured (issues 26 and 36), through
the real daemon: learned within a class of model and weights from three
other models at least, on the same hardware first; its 80% interval from
the backtest's residuals, too uncertain to rely on while there are too few;
no prediction for a backend that cannot run on the hardware, nor for a
model that does not fit; a figure above the fastest measured backend says
so; /methodology's backtest beside the two rules of thumb.  Every JSON
answer is checked against schema/openapi.json."""
import random

import lxml.html

from conftest import digest_for, make_payload, new_key, sign, validate_html, wait_for
from test_openapi import check

# Dense models that fit a 24 GB card with Q4_K_M weights: (reference id,
# a name it is uploaded under).
DENSE = [
    ("llama-3-1-8b", "Llama-3.1-8B-Instruct"), ("llama-3-2-3b", "Llama-3.2-3B-Instruct"),
    ("mistral-7b", "Mistral-7B-v0.1"), ("qwen3-8b", "Qwen3-8B"), ("qwen3-4b", "Qwen3-4B"),
    ("qwen2-5-3b", "Qwen2.5-3B-Instruct"), ("gemma-2-9b", "gemma-2-9b-it"),
    ("phi-3-mini", "Phi-3-mini-4k-instruct"), ("qwen2-7b", "Qwen2-7B-Instruct"),
    ("qwen2-5-14b", "Qwen2.5-14B-Instruct"), ("gemma-3-4b", "gemma-3-4b-it"),
    ("deepseek-r1-distill-llama-8b", "DeepSeek-R1-Distill-Llama-8B"),
]
TARGET = "qwen2-5-7b"      # never measured unless a test says so

HW = {  # slug: (accelerator string, memory field, GB)
    "rtx-4090": ("NVIDIA GeForce RTX 4090", "vram_gb", 24),
    "m4-max": ("Apple M4 Max", "ram_gb", 128),
    "m3-ultra": ("Apple M3 Ultra", "ram_gb", 512),
}


def ceiling(server, model, hw, fmt="q4_k_m"):
    r = server.get("/fit.json?model=%s&hw=%s&format=%s&context=384" % (model, hw, fmt))
    assert r.status_code == 200, r.text
    return r.json()["result"]["ceiling_tok_s"]


def upload(server, name, hw, backend, decode, quant="Q4_K_M", fmt="gguf"):
    accel, field, gb = HW[hw]
    p = make_payload()
    p["backend"] = {"name": backend, "version": "0.9.0" if backend != "llama.cpp" else "b6100",
                    "runner": None}
    p["model"].update({"name": name, "quantization": quant, "format": fmt,
                       "digest": digest_for(name + quant + fmt)})
    p["hardware"] = {"cpu_model": accel, "accelerator_summary": accel, "gpu_name": accel, field: gb}
    p["workloads"]["chat-short"]["decode_tok_s"] = decode
    r = server.upload(sign(p, new_key())[0])
    assert r.status_code == 201, r.text
    return r.json()["id"]


def measure(server, ref_id, name, hw="rtx-4090", backend="llama.cpp", share=0.70, keys=8, seed=1,
            spread=0.01):
    """keys runs (one key each) of name at share of its ceiling, each
    within spread of it."""
    rnd = random.Random(seed)
    c = ceiling(server, ref_id, hw)
    for _ in range(keys):
        upload(server, name, hw, backend, round(c * share * rnd.uniform(1 - spread, 1 + spread), 2))


def fit_prediction(server, model=TARGET, hw="rtx-4090"):
    m = check(server.get("/fit.json?model=%s&hw=%s" % (model, hw)), "GET", "/fit.json")
    assert m["runs"] == []              # never in the measured rows
    return m["prediction"], m["result"]["ceiling_tok_s"]


def test_three_other_models_predict_a_fourth_two_do_not(server):
    for i, (ref, name) in enumerate(DENSE[:2]):
        measure(server, ref, name, seed=i)
    server.wait_refreshed()
    p, _ = fit_prediction(server)
    assert p["predicted_decode_tok_s"] is None and p["predicted_step"] == "none"
    assert p["too_uncertain"] is None and p["predicted_method"] is None
    assert "needs 3 other dense 4-bit models" in p["predicted_from"]
    measure(server, *DENSE[2], seed=2)

    def predicted():
        q, c = fit_prediction(server)
        return (q, c) if q["predicted_decode_tok_s"] is not None else None
    p, c = wait_for(predicted, what="a prediction")
    assert abs(p["predicted_decode_tok_s"] / c - 0.70) <= 0.05 * 0.70, (p, c)
    assert p["label"] == "predicted" and p["predicted_step"] == "same_hardware"
    assert p["predicted_class"] == "dense-4bit" and p["predicted_models"] == 3
    assert p["predicted_backend"] == "llama.cpp" and p["predicted_refusal"] is None
    assert p["predicted_from"].startswith("from 24 runs of 3 other dense 4-bit models on RTX 4090 "
                                          "with llama.cpp; ")
    # Three backtest points are too few for an interval: too uncertain.
    assert p["predicted_low"] is None and p["predicted_width"] is None
    assert p["too_uncertain"] is True
    page = lxml.html.fromstring(server.get("/fit?model=%s&hw=rtx-4090" % TARGET).text)
    text = page.xpath('//div[@id="predicted"]')[0].text_content()
    assert "too uncertain to rely on" in text and "no interval yet" in text
    # A measured model is not predicted: its own rows show instead.
    m = server.get("/fit.json?model=llama-3-1-8b&hw=rtx-4090").json()
    assert len(m["runs"]) == 1 and m["prediction"] is None
    # A class nobody measured has nothing to learn from.
    f16 = server.get("/fit.json?model=%s&hw=rtx-4090&format=f16" % TARGET).json()["prediction"]
    assert f16["predicted_decode_tok_s"] is None and f16["predicted_class"] == "dense-16bit"


def test_intervals_come_from_the_backtest_and_methodology_shows_it(server, tmp_path):
    """Four models measured by 8 keys and eight more by 3 (tested, not
    evidence), at 60% of their ceilings give or take 10%: twelve backtest
    points give the interval, printed with its width, and /methodology's
    table puts the site beside both rules."""
    for i, (ref, name) in enumerate(DENSE[:12]):
        measure(server, ref, name, share=0.60, keys=8 if i < 4 else 3, seed=10 + i, spread=0.10)

    def with_interval():
        q, c = fit_prediction(server)
        return (q, c) if q["predicted_low"] is not None else None
    p, c = wait_for(with_interval, what="a prediction with its interval")
    assert p["predicted_low"] < p["predicted_decode_tok_s"] < p["predicted_high"]
    assert p["predicted_width"] == round(p["predicted_high"] / p["predicted_low"], 2)
    assert 1 < p["predicted_width"] < 3 and p["too_uncertain"] is False
    assert abs(p["predicted_decode_tok_s"] / c - 0.60) <= 0.15 * 0.60
    html = server.get("/fit?model=%s&hw=rtx-4090" % TARGET).text
    ok, report = validate_html(html, tmp_path)
    assert ok, report
    text = lxml.html.fromstring(html).xpath('//div[@id="predicted"]')[0].text_content()
    assert "%s\u00d7 wide" % ("%.3g" % p["predicted_width"]) in text.replace(",", "")
    assert "too uncertain" not in text

    def tested():
        page = server.get("/methodology").text
        return page if "12 combinations predicted" in page else None
    html = wait_for(tested, what="the backtest of twelve combinations")
    ok, report = validate_html(html, tmp_path)
    assert ok, report
    page = lxml.html.fromstring(html)
    rows = page.xpath('//section[.//h3[@id="backtest"]]//table//tbody/tr')
    assert [r.xpath("./th")[0].text_content() for r in rows] == [
        "The site's predictions", "0.7 \u00d7 ceiling",
        "The hardware's median efficiency \u00d7 ceiling"]
    cells = [[td.text_content() for td in r.xpath("./td")] for r in rows]
    for row in cells:                      # mean, median, p90, worst
        mean, median, p90, worst = (float(x) for x in row[:4])
        assert 0 <= median <= p90 <= worst and mean <= worst
    assert 0 < float(cells[0][4]) <= 100 and cells[1][4] == cells[2][4] == "\u2013"
    # at 60% of the ceiling, 0.7 x ceiling is about 17% off everywhere
    assert 10 < float(cells[1][0]) < 25
    assert float(cells[0][0]) < float(cells[1][0])
    assert "the same hardware, 12 predicted with the" in page.text_content()


def test_backends_are_predicted_only_where_they_run(server, tmp_path):
    """Evidence for llama.cpp and vLLM on an RTX 4090 and for MLX on an M4
    Max, and runs claiming MLX on the RTX 4090: no MLX prediction on the
    RTX 4090 (nor on any NVIDIA or AMD hardware), no vLLM nor ExLlamaV2 on
    the M4 Max (nor any Apple silicon)."""
    for i, (ref, name) in enumerate(DENSE[:3]):
        measure(server, ref, name, seed=20 + i)
        measure(server, ref, name, backend="vllm", share=0.5, seed=30 + i)
        measure(server, ref, name, hw="m4-max", backend="mlx", share=0.8, seed=40 + i)
    for i, (ref, name) in enumerate(DENSE[3:6]):
        measure(server, ref, name, backend="mlx", share=0.9, seed=50 + i)   # impossible

    def predicted(hw, backend):
        page = check(server.get("/m/%s/hw/%s.json" % (TARGET, hw)), "GET", "/m/{slug}/hw/{hw_slug}.json")
        return {p["backend"]: p for p in page["predicted"]}
    wait_for(lambda: "vllm" in predicted("rtx-4090", "vllm"), what="the vLLM prediction")
    on_4090 = predicted("rtx-4090", None)
    assert "llama.cpp" in on_4090 and "vllm" in on_4090 and "mlx" not in on_4090
    assert on_4090["vllm"]["predicted_step"] == "same_hardware"
    on_m4 = predicted("m4-max", None)
    assert on_m4["mlx"]["predicted_step"] == "same_hardware"
    assert "vllm" not in on_m4 and "exllamav2" not in on_m4
    # llama.cpp has no Apple evidence: from all hardware, and it says so
    assert on_m4["llama.cpp"]["predicted_step"] == "all_hardware"
    assert "on all hardware, as fewer than 3 were measured on Apple silicon" in \
        on_m4["llama.cpp"]["predicted_from"]
    # The model page (a model has one once a run names it), over every
    # reference hardware.
    upload(server, "Qwen2.5-7B-Instruct", "m3-ultra", "llama.cpp", 50.0)
    rows = check(server.get("/m/%s.json" % TARGET), "GET", "/m/{slug}.json")["predicted"]["rows"]
    ref = {h["hw"]: h for h in rows}
    assert "rtx-4090" in ref and "m4-max" in ref
    apple = {r["hw"] for r in rows if r["hw"].startswith("m") and r["hw"][1:2].isdigit()}
    html = server.get("/m/%s" % TARGET).text
    ok, report = validate_html(html, tmp_path)
    assert ok, report
    assert "too uncertain to rely on" in lxml.html.fromstring(html).xpath(
        '//table[@class="predicted-table"]')[0].text_content()
    for r in rows:
        if r["hw"] in apple:
            assert r["predicted_backend"] not in ("vllm", "exllamav2", "tensorrt-llm"), r
        else:
            assert r["predicted_backend"] != "mlx", r
    # A page asked for an impossible pair says why, with no figure.
    server.get("/m/%s/hw/rtx-4090" % TARGET)        # counted on /wanted

    def wanted():
        rows = check(server.get("/wanted.json"), "GET", "/wanted.json")["rows"]
        return [w for w in rows if (w["model_slug"], w["hw_slug"]) == (TARGET, "rtx-4090")] or None
    (w,) = wait_for(wanted, what="the wanted row")
    assert w["predicted_backend"] in ("llama.cpp", "vllm") and w["predicted_models"] == 3


def test_no_speed_where_the_model_does_not_fit(server, tmp_path):
    """Llama 3.3 70B with Q4_K_M weights needs over 40 GB: on an RTX 4090
    there is no predicted speed anywhere, however much evidence there is;
    on hardware where it fits there is."""
    for i, (ref, name) in enumerate(DENSE[:3]):
        measure(server, ref, name, seed=60 + i)
    upload(server, "Llama-3.3-70B-Instruct", "m3-ultra", "llama.cpp", 12.0)
    server.get("/m/llama-3-3-70b/hw/rtx-4090")           # counted on /wanted

    def model_rows():
        rows = server.get("/m/llama-3-3-70b.json").json()["predicted"]["rows"]
        return rows or None
    rows = wait_for(model_rows, what="predictions of Llama 3.3 70B elsewhere")
    assert "rtx-4090" not in [r["hw"] for r in rows]
    assert any(r["hw"] == "a100-80gb" for r in rows)
    page = server.get("/m/llama-3-3-70b/hw/rtx-4090.json").json()
    assert page["fits"] is False and page["predicted"] == []
    assert server.get("/fit.json?model=llama-3-3-70b&hw=rtx-4090").json()["prediction"] is None

    def wanted():
        got = [w for w in server.get("/wanted.json").json()["rows"] if w["model_slug"] == "llama-3-3-70b"]
        return got or None
    (w,) = wait_for(wanted, what="the wanted row")
    check(server.get("/wanted.json"), "GET", "/wanted.json")
    assert w["predicted_decode_tok_s"] is None and w["predicted_refusal"] == "does_not_fit"
    assert w["predicted_from"].startswith("does not fit: Llama 3.3 70B")
    html = server.get("/wanted").text
    ok, report = validate_html(html, tmp_path)
    assert ok, report
    assert "tok/s" not in lxml.html.fromstring(html).xpath(
        '//td[contains(., "does not fit")]')[0].text_content()


def test_a_figure_above_the_fastest_measured_backend_says_so(server, tmp_path):
    """Three models with Ollama at 80% of their ceilings on an M4 Max; the
    target measured there with llama.cpp at 40%: the predicted Ollama
    figure is above it, and the page says so."""
    for i, (ref, name) in enumerate(DENSE[:3]):
        measure(server, ref, name, hw="m4-max", backend="ollama", share=0.8, seed=70 + i)
    c = ceiling(server, TARGET, "m4-max")
    upload(server, "Qwen2.5-7B-Instruct", "m4-max", "llama.cpp", round(0.4 * c, 2))

    def above():
        page = server.get("/m/%s/hw/m4-max.json" % TARGET).json()
        got = [p for p in page["predicted"] if p["backend"] == "ollama"]
        return got[0] if got else None
    p = wait_for(above, what="the Ollama prediction")
    assert p["predicted_decode_tok_s"] > 0.7 * c
    assert p["above_measured"]["backend"] == "llama.cpp"
    assert p["above_measured"]["median_decode_tok_s"] == round(0.4 * c, 2)
    check(server.get("/m/%s/hw/m4-max.json" % TARGET), "GET", "/m/{slug}/hw/{hw_slug}.json")
    html = server.get("/m/%s/hw/m4-max" % TARGET).text
    ok, report = validate_html(html, tmp_path)
    assert ok, report
    sec = lxml.html.fromstring(html).xpath('//section[@class="predicted"]')[0].text_content()
    assert "Above the fastest backend measured here (llama.cpp at" in sec
