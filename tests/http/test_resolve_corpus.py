"""The resolver against real names (tests/vectors/names/corpus.json, issue 32):
model names as Hugging Face, GGUF files, Ollama, MLX, LM Studio and
llama-bench write them, and hardware strings as nvidia-smi, system_profiler,
/proc/cpuinfo, ROCm, Vulkan and reviewers print them.

Each grouped string is one machine or model a person would name the same;
the resolver must put a group on one id (no split), never two groups on one
id (no merge), and leave an unknown or ambiguous name unresolved rather than
guess.  Runs through `llm-speedd resolve`, the command operators use to see
where an upload would land."""
import collections
import json
import os
import subprocess

import pytest

from conftest import ROOT, BIN

CORPUS = os.path.join(ROOT, "tests", "vectors", "names", "corpus.json")
with open(CORPUS, encoding="utf-8") as _f:
    C = json.load(_f)


def resolve(payloads):
    inp = "".join(json.dumps(p) + "\n" for p in payloads)
    out = subprocess.run([BIN, "resolve", "--assets", ROOT], input=inp, capture_output=True,
                         text=True, check=True, timeout=120).stdout.splitlines()
    assert len(out) == len(payloads)
    return [json.loads(line) for line in out]


def model_payload(x):
    return {"model": {"name": x["s"]}, "hardware": {"accelerator_summary": "x"}}


def hw_payload(x):
    hw = {"accelerator_summary": x["s"]}
    if "vram_gb" in x:
        hw["vram_gb"] = x["vram_gb"]
    return {"model": {"name": "x"}, "hardware": hw}


def tally(items, results, key):
    """(share resolved of the grouped strings, splits, merges, the
    ungrouped strings that resolved)."""
    g2ids, id2g = collections.defaultdict(set), collections.defaultdict(set)
    n = ok = 0
    guessed = []
    for x, r in zip(items, results):
        ref = r and r[key]
        if x.get("group") is None:
            if ref:
                guessed.append((x["s"], ref))
            continue
        n += 1
        if ref:
            ok += 1
            g2ids[x["group"]].add(ref)
            id2g[ref].add(x["group"])
    splits = {g: ids for g, ids in g2ids.items() if len(ids) > 1}
    merges = {i: gs for i, gs in id2g.items() if len(gs) > 1}
    return ok / n, splits, merges, guessed


@pytest.fixture(scope="module")
def models():
    items = C["models"]
    return items, resolve([model_payload(x) for x in items])


@pytest.fixture(scope="module")
def hardware():
    items = C["hardware"]
    return items, resolve([hw_payload(x) for x in items])


def test_corpus_is_large_and_sourced():
    assert len(C["models"]) >= 150 and len({x["group"] for x in C["models"]}) >= 25
    assert len(C["hardware"]) >= 80
    for x in C["models"] + C["hardware"]:
        assert x["src"] in C["sources"], x


def test_model_names_resolve_without_split_or_merge(models):
    share, splits, merges, _ = tally(*models, "model_ref")
    assert not splits, splits
    assert not merges, merges
    assert share >= 0.90, share


def test_hardware_strings_resolve_without_split_or_merge(hardware):
    share, splits, merges, _ = tally(*hardware, "hardware_ref")
    assert not splits, splits
    assert not merges, merges
    assert share >= 0.90, share


def test_names_that_look_alike_never_share_an_id(models, hardware):
    by = {}
    for items, results, key in ((*models, "model_ref"), (*hardware, "hardware_ref")):
        for x, r in zip(items, results):
            by[x["s"]] = r and r[key]
    for pair in C["distinct"]:
        a, b = by.get(pair["a"]), by.get(pair["b"])
        assert not (a and b and a == b), pair


def test_quantization_from_the_name_in_canonical_spelling(models):
    items, results = models
    checked = 0
    for x, r in zip(items, results):
        if x.get("quant") and r["quantization"]:
            checked += 1
            # the corpus writes unsloth's dynamic quants as UD-Q4_K_XL, the
            # data as Q4_K_XL: the same format
            assert r["quantization"].upper() == x["quant"].upper().replace("UD-", ""), (x, r)
    assert checked >= 100


def test_shown_names_are_the_references_or_the_upload_without_its_file_tokens(models):
    items, results = models
    for x, r in zip(items, results):
        if r["model_ref"]:
            continue
        for tok in ("Q4_K_M", ".gguf", "GGUF", "4bit"):
            assert not r["model_name"].endswith(tok), (x["s"], r["model_name"])
