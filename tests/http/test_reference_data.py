"""static/reference/*.json against schema/reference.schema.json, and the
cross-file facts the schema cannot state."""
import json
import os

import jsonschema
import pytest

from conftest import ROOT

REF = os.path.join(ROOT, "static", "reference")
with open(os.path.join(ROOT, "schema", "reference.schema.json"), encoding="utf-8") as _f:
    SCHEMA = json.load(_f)


def load(name):
    with open(os.path.join(REF, name), encoding="utf-8") as f:
        return json.load(f)


@pytest.mark.parametrize("name", ["hardware.json", "models.json", "formats.json", "names.json"])
def test_file_matches_the_schema(name):
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    errors = list(jsonschema.Draft202012Validator(SCHEMA).iter_errors(load(name)))
    assert not errors, [e.message[:200] for e in errors[:5]]


def test_schema_refuses_a_figure_without_source():
    hw = load("hardware.json")
    del hw["hardware"]["m2"]["source"]
    assert list(jsonschema.Draft202012Validator(SCHEMA).iter_errors(hw))


def test_layers_add_up_and_aliases_are_unique():
    seen = set()
    for mid, m in load("models.json")["models"].items():
        a = m["attention"]
        total = a["full_layers"] + a.get("sliding_layers", 0) + a.get("fixed_state_layers", 0)
        assert total == m["layers"], mid
        assert m["active_params"] <= m["total_params"], mid
        aliases = {x.lower() for x in m["aliases"]}
        assert not seen & aliases, (mid, seen & aliases)
        seen |= aliases


def test_generic_labels_are_no_format_aliases():
    f = load("formats.json")
    aliases = {a for v in f["formats"].values() for a in v.get("aliases", [])}
    assert not aliases & set(f["generic"]), aliases & set(f["generic"])
    for label, by_family in f["generic"].items():
        for fam, fid in by_family.items():
            assert fid in f["formats"], (label, fam, fid)


def test_backends_name_known_vendors_and_families():
    """Each backend runs on every family of its vendors or on the families
    it lists, and those are families the entries have: MLX on Apple
    silicon alone; vLLM, ExLlamaV2 and TensorRT-LLM on GPUs, never on Apple
    silicon or a processor; llama.cpp and Ollama everywhere."""
    hw = load("hardware.json")
    vendors = {h["vendor"] for h in hw["hardware"].values()}
    families = {h["family"] for h in hw["hardware"].values()}
    assert vendors <= {"nvidia", "amd", "intel", "apple"}
    be = hw["backends"]
    for name, b in be.items():
        assert set(b.get("families", [])) <= families, (name, set(b["families"]) - families)
        assert ("vendors" in b) != ("families" in b), name
    for name in ("llama.cpp", "ollama"):
        assert set(be[name]["vendors"]) == {"nvidia", "amd", "intel", "apple"}
    apple = {h["family"] for h in hw["hardware"].values() if h["vendor"] == "apple"}
    cpus = {h["family"] for h in hw["hardware"].values() if h.get("cpu")}
    assert set(be["mlx"]["families"]) == apple
    for name in ("vllm", "exllamav2", "tensorrt-llm"):
        assert not set(be[name]["families"]) & (apple | cpus), name
    assert all(f.startswith("nvidia-") for f in be["tensorrt-llm"]["families"])
    assert "nvidia-gtx-10" not in be["vllm"]["families"]       # compute capability 6.1
    assert "amd-rdna3" in be["vllm"]["families"] and "intel-arc-b" in be["vllm"]["families"]


def test_schema_refuses_a_backend_with_vendors_and_families():
    hw = load("hardware.json")
    hw["backends"]["mlx"]["vendors"] = ["apple"]
    assert list(jsonschema.Draft202012Validator(SCHEMA).iter_errors(hw))


def test_explainer_formats_are_there():
    bits = {k: v["bits"] for k, v in load("formats.json")["formats"].items()}
    assert bits == {**bits, "fp16": 16, "q8_0": 8.5, "q6_k": 6.56, "q5_k_m": 5.67,
                    "q4_k_m": 4.85, "mlx-4bit": 4.5, "q3_k_m": 3.91, "q4_0": 4.5}
