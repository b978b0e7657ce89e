"""JSON numbers as written: every JSON answer and export line prints a real
in the shortest form that reads back as the same double (540.6, not
jansson's 540.60000000000002), while the signed bytes stay exactly as
uploaded."""
import json
import re

from conftest import make_payload, sign

# A number token of JSON text outside strings (strings are skipped whole).
TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|(-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)')


def shortest(x):
    """The text the server promises for the double x: the shortest of %.15g,
    %.16g and %.17g that reads back as x, exponent without '+' or leading
    zeros, and '.0' after a whole number."""
    for p in (15, 16, 17):
        s = "%.*g" % (p, x)
        if float(s) == x:
            break
    if "e" in s:
        mant, exp = s.split("e")
        sign_ = "-" if exp.startswith("-") else ""
        s = mant + "e" + sign_ + (exp.lstrip("+-").lstrip("0") or "0")
    if "." not in s and "e" not in s:
        s += ".0"
    return s


def reals_of(text):
    """Every real number token of a JSON text."""
    return [m.group(1) for m in TOKEN.finditer(text)
            if m.group(1) and ("." in m.group(1) or "e" in m.group(1).lower())]


def check_all_shortest(text, where):
    reals = reals_of(text)
    for tok in reals:
        assert tok == shortest(float(tok)), "%s: %s should be written %s" % (where, tok, shortest(float(tok)))
    return reals


RATES = dict(workloads__chat_short__decode_tok_s=540.6,
             workloads__chat_short__ttft_ms=85.2,
             workloads__chat_short__prefill_tok_s=1234.56,
             workloads__chat_short__p95_ms=10.3)


def test_run_json_prints_rates_as_uploaded(server):
    token, _ = sign(make_payload(**RATES))
    r = server.upload(token)
    assert r.status_code == 201, r.text
    rid = r.json()["id"]
    text = server.get("/r/%s.json" % rid).text
    assert '"decode_tok_s":540.6' in text
    assert "540.60000000000002" not in text and "1234.5599999999999" not in text
    assert '"ttft_ms":85.2' in text and '"prefill_tok_s":1234.56' in text
    reals = check_all_shortest(text, "/r/%s.json" % rid)
    assert len(reals) > 20         # the payload's figures are all there
    assert json.loads(text)["id"] == rid
    # The signed bytes are untouched.
    assert server.get("/r/%s.jws" % rid).content == token.encode()


def test_every_json_twin_and_export_line_is_shortest(server):
    ids = []
    for i, d in enumerate((540.6, 0.1 + 0.2, 1e-7 + 100, 123456789.125)):
        token, _ = sign(make_payload(workloads__chat_short__decode_tok_s=d,
                                     backend__name=("mlx", "llama.cpp", "vllm", "ollama")[i]))
        r = server.upload(token)
        assert r.status_code == 201, r.text
        ids.append((r.json()["id"], token))
    paths = ["/index.json", "/m/qwen3-coder-30b-a3b.json", "/hw/m3-ultra.json",
             "/models.json", "/hardware.json", "/cheatsheet.json", "/search.json?q=qwen",
             "/compare.json?r=%s,%s" % (ids[0][0], ids[1][0]), "/badge/%s.json" % ids[0][0],
             "/m/qwen3-coder-30b-a3b/hw/m3-ultra.json", "/outliers.json",
             "/disputes.json", "/fit.json"]
    checked = 0
    for p in paths:
        r = server.get(p)
        if r.status_code != 200 or "json" not in r.headers.get("Content-Type", ""):
            continue
        check_all_shortest(r.text, p)
        checked += 1
    assert checked >= 8
    export = server.get("/export")
    assert export.status_code == 200
    lines = [ln for ln in export.text.split("\n") if ln]
    assert len(lines) == 4
    by_id = dict(ids)
    for ln in lines:
        check_all_shortest(ln, "/export")
        row = json.loads(ln)
        assert row["jws"] == by_id[row["id"]]      # exact signed bytes
    assert any('"decode_tok_s":540.6,' in ln for ln in lines)
    assert any('"decode_tok_s":0.30000000000000004' in ln for ln in lines)
    assert any('"decode_tok_s":123456789.125' in ln for ln in lines)


def test_shortest_rule_itself():
    assert shortest(540.6) == "540.6"
    assert shortest(1e-7) == "1e-7"
    assert shortest(12.0) == "12.0"
    assert shortest(-0.0) == "-0.0"
    assert shortest(1.7976931348623157e308) == "1.7976931348623157e308"
