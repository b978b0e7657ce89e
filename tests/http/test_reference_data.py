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


@pytest.mark.parametrize("name", ["hardware.json", "models.json", "formats.json"])
def test_file_matches_the_schema(name):
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    errors = list(jsonschema.Draft202012Validator(SCHEMA).iter_errors(load(name)))
    assert not errors, [e.message[:200] for e in errors[:5]]


def test_schema_refuses_a_figure_without_source():
    hw = load("hardware.json")
    del hw["hardware"]["m2"]["source"]
    assert list(jsonschema.Draft202012Validator(SCHEMA).iter_errors(hw))


def test_layers_add_up_and_slugs_are_unique():
    seen = set()
    for mid, m in load("models.json")["models"].items():
        a = m["attention"]
        total = a["full_layers"] + a.get("sliding_layers", 0) + a.get("fixed_state_layers", 0)
        assert total == m["layers"], mid
        assert m["active_params"] <= m["total_params"], mid
        assert not seen & set(m["slugs"]), mid
        seen |= set(m["slugs"])


def test_explainer_formats_are_there():
    bits = {k: v["bits"] for k, v in load("formats.json")["formats"].items()}
    assert bits == {**bits, "fp16": 16, "q8_0": 8.5, "q6_k": 6.56, "q5_k_m": 5.67,
                    "q4_k_m": 4.85, "mlx-4bit": 4.5, "q3_k_m": 3.91}
