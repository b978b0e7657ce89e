"""Issue 23, findings 3 to 7: what one upload may not decide for everyone.

A model's or hardware's page shows the name most signing keys used for its
slug (ties to the earliest), never the fastest run's, and search shows the
same one; a run keeps its own name on its own page.  A name that only looks
like an existing one (a Cyrillic letter, mixed scripts in a word) is
refused with 422 confusable_name naming the look-alike.  User text that no
output format can carry (noncharacters, control characters) is refused at
upload with the field's path, and every feed and badge stays well-formed
XML.  A protected header is bounded like the payload; a withdrawal's
reason must have something visible in it."""
import base64
import json
import os
import sqlite3

import lxml.html
import pytest

from conftest import ROOT, assert_xml, digest_for, make_payload, new_key, sign

# Names the reference data does not know: their pages are named by votes.
# (A name that resolves shows its reference's name: test_resolved_names_...)
MODEL = "Acme-Coder-30B-A3B-Instruct"
SLUG = "acme-coder-30b-a3b-instruct"
GPU = "Acme Tensor NPU 4090"
GPU_SLUG = "acme-tensor-npu-4090"
ATTACK_NAMES = [
    "FAKE WEIGHTS - download at evil.example/" + MODEL,
    MODEL + " \u2014 \u041f\u041e\u0414\u0414\u0415\u041b\u041a\u0410",   # ... — ПОДДЕЛКА
]
ATTACK_GPU = GPU + " \u2014 \u0423\u0421\u0422\u0410\u0420\u0415\u041b\u041e"   # ... — УСТАРЕЛО


def payload(model=MODEL, accel=GPU, decode=100.0, digest=None):
    p = make_payload()
    p["model"]["name"] = model
    p["model"]["digest"] = digest or digest_for(MODEL)
    p["hardware"]["accelerator_summary"] = accel
    del p["hardware"]["fingerprint_hash"]
    p["workloads"]["chat-short"]["decode_tok_s"] = decode
    return p


def upload(server, p, key=None):
    r = server.upload(sign(p, key or new_key())[0])
    assert r.status_code == 201, r.text
    return r.json()["id"]


def refused(server, p, status, code, field):
    r = server.upload(sign(p, new_key())[0])
    assert r.status_code == status, r.text
    e = r.json()["error"]
    assert e["code"] == code and e.get("field") == field, e
    assert e["message"].endswith("."), e
    return e["message"]


def page_names(server, path):
    """The <h1> and <title> of an HTML page, and the JSON twin's name."""
    r = server.get(path)
    assert r.status_code == 200, r.text
    doc = lxml.html.fromstring(r.text)
    return doc.findtext(".//h1").strip(), doc.findtext(".//title")


def search_name(server, q, kind, slug):
    r = server.get("/search.json", params={"q": q})
    assert r.status_code == 200, r.text
    hits = [h for h in r.json()["results"] if h["kind"] == kind and h.get("slug") == slug]
    assert hits, r.json()
    return hits[0]["name"]


def test_one_upload_does_not_rename_a_model_or_hardware_page(server):
    # Two honest submitters, then one attacker with names a little faster.
    honest = [upload(server, payload(decode=100.0 + i)) for i in range(2)]
    evil = new_key()
    bad = [upload(server, payload(model=n, decode=110.0 + i), evil)
           for i, n in enumerate(ATTACK_NAMES)]
    bad.append(upload(server, payload(accel=ATTACK_GPU, decode=120.0), evil))
    # The attacker's second key agrees with the first: still fewer keys than
    # the established name, which two keys used.
    bad.append(upload(server, payload(model=ATTACK_NAMES[0], accel=ATTACK_GPU, decode=121.0)))

    h1, title = page_names(server, "/m/" + SLUG)
    assert h1 == MODEL and title.startswith(MODEL), (h1, title)
    assert server.get("/m/%s.json" % SLUG).json()["model"]["name"] == MODEL
    h1, title = page_names(server, "/hw/" + GPU_SLUG)
    assert h1 == GPU and title.startswith(GPU), (h1, title)
    assert server.get("/hw/%s.json" % GPU_SLUG).json()["hardware"]["name"] == GPU

    # Search and the index pages show the same names as the pages.
    assert search_name(server, "acme coder", "model", SLUG) == MODEL
    assert search_name(server, "npu 4090", "hw", GPU_SLUG) == GPU
    models = server.get("/models.json").json()
    assert [m["name"] for m in models["rows"] if m["slug"] == SLUG] == [MODEL]

    # The board, the hardware page's model sections, the model page's
    # hardware bars and every feed entry name them the same way.
    home = server.get("/").text
    assert "evil.example" not in home and "\u041f\u041e\u0414" not in home
    for path in ("/m/" + SLUG, "/hw/" + GPU_SLUG):
        text = server.get(path).text
        assert "evil.example" not in text and "\u0423\u0421\u0422" not in text, path
    for path in ("/feed.atom", "/m/%s.atom" % SLUG, "/hw/%s.atom" % GPU_SLUG):
        r = server.get(path)
        assert "evil.example" not in r.text and "\u0423\u0421\u0422" not in r.text, path
        assert_xml(r.content)

    # A run keeps its own name on its own page.
    own = server.get("/r/%s.json" % bad[0]).json()
    assert own["model"]["name"] == ATTACK_NAMES[0]
    assert server.get("/r/%s.json" % bad[2]).json()["hardware"]["accelerator_summary"] == ATTACK_GPU
    assert server.get("/r/%s.json" % honest[0]).json()["model"]["name"] == MODEL


def test_the_name_most_keys_use_wins_ties_to_the_earliest(server):
    first = MODEL
    later = "AcmeLabs/" + MODEL
    upload(server, payload(model=first))
    one = new_key()
    for i in range(3):                      # one key, many runs: one voice
        upload(server, payload(model=later, decode=200.0 + i), one)
    assert server.get("/m/%s.json" % SLUG).json()["model"]["name"] == first
    upload(server, payload(model=later))    # a second key: now the most keys
    assert server.get("/m/%s.json" % SLUG).json()["model"]["name"] == later
    h1, _ = page_names(server, "/m/" + SLUG)
    assert h1 == later
    assert search_name(server, "acme coder", "model", SLUG) == later


def test_look_alike_names_are_refused_and_name_the_original(server):
    upload(server, payload())
    spoof = "Acme-C\u043eder-30B-A3B-Instruct"             # Cyrillic о
    msg = refused(server, payload(model=spoof), 422, "confusable_name", "model.name")
    assert MODEL in msg, msg
    # A word wholly of look-alike letters, and an invisible character.
    msg = refused(server, payload(model="Acme-Coder-30B-\u04103\u0412-Instruct"),   # А3В
                  422, "confusable_name", "model.name")
    assert MODEL in msg and "/m/" + SLUG in msg, msg
    msg = refused(server, payload(model="Acme-Co\u200bder-30B-A3B-Instruct"),
                  422, "confusable_name", "model.name")
    assert MODEL in msg, msg
    msg = refused(server, payload(accel="Acme Tensor NPU 4\u041e90"),    # Cyrillic О
                  422, "confusable_name", "hardware.accelerator_summary")
    assert GPU in msg, msg
    # Nothing was stored: no look-alike model or hardware exists.
    slugs = [m["slug"] for m in server.get("/models.json").json()["rows"]]
    assert slugs == [SLUG], slugs
    assert [h["slug"] for h in server.get("/hardware.json").json()["rows"]] == [GPU_SLUG]
    r = server.get("/search.json", params={"q": "acme"})
    assert [h["slug"] for h in r.json()["results"] if h["kind"] == "model"] == [SLUG]


def test_mixed_script_words_are_refused_even_with_no_original_yet(server):
    msg = refused(server, payload(model="Llama-4-Sc\u043eut"), 422, "confusable_name", "model.name")
    assert "Llama-4-Scout" in msg and "Cyrillic" in msg, msg
    # A word wholly in another script is a name like any other.
    upload(server, payload(model=MODEL + " \u041f\u041e\u0414\u0414\u0415\u041b\u041a\u0410",
                           digest=digest_for("other")))


@pytest.mark.parametrize("field,value,shown", [
    ("model.name", MODEL + "\uffff", "U+FFFF"),
    ("hardware.accelerator_summary", "RTX 4090\ufffe", "U+FFFE"),
    ("model.name", MODEL + "\U0001fffe", "U+1FFFE"),
    ("model.name", MODEL + "\U0010ffff", "U+10FFFF"),
    ("model.name", MODEL + "\ufdd0", "U+FDD0"),
    ("backend.version", "0.31\ufdef", "U+FDEF"),
    ("hardware.os", "macOS\u0085", "U+0085"),
    ("model.name", MODEL + "\x07", "U+0007"),
    ("client.version", "1.4\x7f", "U+007F"),
])
def test_text_no_format_can_carry_is_refused_naming_the_field(server, field, value, shown):
    p = payload()
    obj, member = field.split(".")
    p[obj][member] = value
    msg = refused(server, p, 422, "schema_violation", field)
    assert shown in msg and field in msg, msg
    assert server.get("/feed.atom").text.count("<entry>") == 0
    assert_xml(server.get("/feed.atom").content)


@pytest.mark.parametrize("field,value,shown,words", [
    ("model.quantization", "Q4_K_M\u200b", "U+200B", "invisible"),
    ("model.quantization", "\u2060Q4_K_M", "U+2060", "invisible"),
    ("model.format", "gguf\u00ad", "U+00AD", "invisible"),
    ("model.format", "ggu\u200df", "U+200D", "invisible"),
    ("model.quantization", "Q4_K_M\u00a0", "U+00A0", "space"),
    ("model.quantization", "Q4_K_M\x07", "U+0007", "control"),
    ("model.format", "gguf\x85", "U+0085", "control"),
    ("model.quantization", "\u2014", "", "ASCII letter or digit"),
])
def test_quantization_and_format_keep_the_text_rules_of_names(server, field, value, shown, words):
    """Issue 37, H3: a label such as "Q4_K_M" plus a zero-width space shows
    as Q4_K_M but is no label the site knows, which dodged the ceiling;
    the labels get the rules names have, and the error names the field."""
    p = payload()
    p["model"][field.split(".")[1]] = value
    msg = refused(server, p, 422, "schema_violation", field)
    assert field in msg and shown in msg and words in msg, msg


def test_look_alike_letters_in_a_label_are_refused(server):
    p = payload()
    p["model"]["quantization"] = "Q4_\u041a_M"           # Cyrillic К among Latin letters
    assert refused(server, p, 422, "confusable_name", "model.quantization")
    p = payload()
    p["model"]["quantization"], p["model"]["format"] = "Q4_K_M", "gguf"
    rid = upload(server, p)
    assert server.get("/r/%s.json" % rid).json()["model"]["quantization"] == "Q4_K_M"


@pytest.mark.parametrize("field,value,shown,words", [
    ("model.name", MODEL + "\u2028", "U+2028", "line separator"),
    ("model.name", MODEL + "\u2029x", "U+2029", "paragraph separator"),
    ("hardware.accelerator_summary", GPU + " \u2028", "U+2028", "line separator"),
    ("hardware.gpu_name", "RTX\u20294090", "U+2029", "paragraph separator"),
    ("model.name", MODEL + " \u2066evil", "U+2066", "does not close it"),
    ("hardware.accelerator_summary", "\u2068" + GPU, "U+2068", "does not close it"),
    ("hardware.cpu_model", "\u2067x\u2069\u2067y", "U+2067", "does not close it"),
    ("model.name", MODEL + "\u2069", "U+2069", "never opened"),
    ("model.quantization", "Q4_K_M", None, None),
])
def test_names_are_one_line_with_their_isolates_closed(server, field, value, shown, words):
    """Issue 37, L5: a line or paragraph separator breaks a name's line,
    and an isolate initiator (U+2066..U+2068) left open took over the
    page's own isolate around the name."""
    p = payload()
    obj, member = field.split(".")
    p[obj][member] = value
    if shown is None:
        upload(server, p)
        return
    msg = refused(server, p, 422, "schema_violation", field)
    assert field in msg and shown in msg and words in msg, msg


def test_an_isolate_left_open_in_a_post_is_closed_on_the_page(server):
    """Text that is not a name (a dispute post) may hold an open isolate:
    the page closes it before its own, so the page's isolate ends there."""
    rid = upload(server, payload(model=MODEL + " \u2066ok\u2069"))
    r = server.post("/api/v1/runs/%s/disputes" % rid, json={"body": "see \u2067here"})
    assert r.status_code == 201, r.text
    page = server.get("/r/" + rid).text
    assert "\u2068see \u2067here\u2069\u2069" in page
    assert "\u2068" + MODEL + " \u2066ok\u2069\u2069" in page


def test_feeds_and_badges_stay_well_formed(server):
    rid = upload(server, payload(model=MODEL + " \u00e9\U0001f600", accel="M3 Ultra \u00a0\u2003"))
    for path in ("/feed.atom", "/m/%s.atom" % SLUG, "/hw/m3-ultra.atom", "/badge/%s.svg" % rid):
        r = server.get(path)
        assert r.status_code == 200, path
        assert_xml(r.content)


def b64u(b):
    return base64.urlsafe_b64encode(b).rstrip(b"=").decode()


def signed_with_header(header_json, key):
    """A compact JWS of a valid payload under the raw protected header bytes."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    d = key["d"]
    sk = Ed25519PrivateKey.from_private_bytes(base64.urlsafe_b64decode(d + "=" * (-len(d) % 4)))
    h = b64u(header_json)
    p = b64u(json.dumps(payload()).encode())
    return h + "." + p + "." + b64u(sk.sign((h + "." + p).encode()))


def test_protected_header_is_bounded_like_the_payload(server):
    key = json.loads(new_key().export_private())
    pub = {"kty": "OKP", "crv": "Ed25519", "x": key["x"]}
    base = {"alg": "EdDSA", "jwk": pub}
    ok = signed_with_header(json.dumps(base).encode(), key)
    assert server.upload(ok).status_code == 201
    deep = json.dumps(base)[:-1] + ', "x": ' + "[" * 1500 + "]" * 1500 + "}"
    big = json.dumps(dict(base, kid="k" * 5000))
    for header, word in ((deep, "deep"), (big, "bytes")):
        r = server.upload(signed_with_header(header.encode(), key))
        assert r.status_code == 400, r.text
        e = r.json()["error"]
        assert e["code"] == "malformed_jws" and word in e["message"], e
    # 32 levels in all, as the payload allows, is still a header (the
    # same payload under the same key: the run stored above).
    fine = json.dumps(base)[:-1] + ', "x": ' + "[" * 31 + "]" * 31 + "}"
    assert server.upload(signed_with_header(fine.encode(), key)).status_code in (200, 201)


def withdraw(server, rid, key, reason):
    tok = sign({"run_id": rid, "action": "withdraw", "reason": reason}, key)[0]
    return server.post("/api/v1/runs/%s/withdraw" % rid, data=tok.encode(),
                       headers={"Content-Type": "application/jose"})


def test_a_withdrawal_reason_must_have_something_visible(server):
    key = new_key()
    rid = upload(server, payload(), key)
    for reason in ("\u202e\u2066 \u2069\u200f", "\u200b\u00a0\u3000\u2060", "\ufe0f\u00ad",
                   "Wrong\uffff file", "Wrong\x1b file"):
        r = withdraw(server, rid, key, reason)
        assert r.status_code == 422, (reason, r.text)
        e = r.json()["error"]
        assert e["code"] == "schema_violation" and e["field"] == "reason", e
    assert server.get("/r/%s.json" % rid).json()["status"] == "ok"
    r = withdraw(server, rid, key, "\u202eWrong file.\u202c")
    assert r.status_code == 200, r.text


def test_dispute_text_refuses_noncharacters(server):
    rid = upload(server, payload())
    r = server.post("/api/v1/runs/%s/disputes" % rid, json={"body": "Too fast\uffff"})
    assert r.status_code == 422 and r.json()["error"]["field"] == "body", r.text
    r = server.post("/api/v1/runs/%s/disputes" % rid, json={"author": "x\x01", "body": "Too fast"})
    assert r.status_code == 422 and r.json()["error"]["field"] == "author", r.text
    r = server.post("/api/v1/runs/%s/disputes" % rid, json={"body": "\u200b\u2066\u2069"})
    assert r.status_code == 422 and r.json()["error"]["field"] == "body", r.text
    r = server.post("/api/v1/runs/%s/disputes" % rid, json={"body": "Too fast\n\tfor this card."})
    assert r.status_code == 201, r.text


def test_names_survive_a_restart_and_the_migration_backfill(server):
    """The bookkeeping of migration 0021 as stored equals a recount from
    the runs, after uploads, a withdrawal and a restart."""
    keys = [new_key() for _ in range(3)]
    ids = [upload(server, payload(model=n, decode=100.0 + i), keys[i % 3])
           for i, n in enumerate([MODEL, MODEL, "Qwen/" + MODEL, "Qwen/" + MODEL, MODEL])]
    r = withdraw(server, ids[0], keys[0], "Wrong file.")
    assert r.status_code == 200, r.text
    server.restart()
    c = sqlite3.connect(server.db)
    try:
        stored = sorted(c.execute("SELECT kind, slug, name, keys FROM name_votes"))
        fresh = sorted(c.execute(
            "SELECT 'model', model_slug, model_name, count(DISTINCT CASE WHEN status = 'ok' "
            "THEN key_thumbprint END) FROM runs GROUP BY 2, 3 UNION ALL "
            "SELECT 'hw', hw_slug, accelerator, count(DISTINCT CASE WHEN status = 'ok' "
            "THEN key_thumbprint END) FROM runs GROUP BY 2, 3"))
        shown = c.execute("SELECT name FROM search_names WHERE kind = 'model' AND slug = ?",
                          (SLUG,)).fetchone()[0]
    finally:
        c.close()
    assert stored == fresh
    # keys[0] withdrew its only MODEL run... but also uploaded ids[3]
    # ("Qwen/..."); MODEL keeps keys[1] and keys[1] again (ids[4]): 1 key,
    # "Qwen/..." has keys[2] and keys[0]: 2 keys.
    assert shown == "Qwen/" + MODEL
    assert server.get("/m/%s.json" % SLUG).json()["model"]["name"] == shown


def test_resolved_names_show_the_reference_name_whatever_they_were_sent_as(server):
    """A name that resolves (issue 32) shows its reference's display name
    on its pages, search and lists, whoever sends what: a swarm's
    "FAKE WEIGHTS - .../Qwen3-Coder-30B-A3B-Instruct" and "RTX 4090 —
    УСТАРЕЛО" land on the same pages and cannot rename them."""
    ref = json.load(open(os.path.join(ROOT, "static", "reference", "models.json")))["models"]
    name = ref["qwen3-coder-30b-a3b"]["name"]
    evil = new_key()
    for n in ["FAKE WEIGHTS - download at evil.example/Qwen3-Coder-30B-A3B-Instruct",
              "Qwen3-Coder-30B-A3B-Instruct \u2014 \u041f\u041e\u0414\u0414\u0415\u041b\u041a\u0410"]:
        upload(server, payload(model=n, accel="NVIDIA GeForce RTX 4090 \u2014 \u0423\u0421\u0422",
                               digest=digest_for("q")), evil)
    upload(server, payload(model="Qwen3-Coder-30B-A3B-Instruct", accel="NVIDIA GeForce RTX 4090",
                           digest=digest_for("q")))
    h1, title = page_names(server, "/m/qwen3-coder-30b-a3b")
    assert h1 == name and title.startswith(name), (h1, title)
    h1, _ = page_names(server, "/hw/rtx-4090")
    assert h1 == "NVIDIA GeForce RTX 4090"
    assert search_name(server, "qwen3 coder", "model", "qwen3-coder-30b-a3b") == name
    assert "FAKE" not in server.get("/feed.atom").text


# ---- issue 37: names no swarm sets, look-alikes by UTS #39 ----

def test_a_name_with_an_address_is_never_shown_however_many_keys(server):
    """H5: 4 keys against 3 made a model page "FAKE WEIGHTS - download at
    evil.example/...".  A name with a URL, a domain or an address is never
    a page's shown name; the runs are stored and counted as ever."""
    for i in range(3):
        upload(server, payload(decode=100.0 + i))
    evil = [upload(server, payload(model=ATTACK_NAMES[0], decode=110.0 + i)) for i in range(4)]
    for n in ("Acme-Coder-30B-A3B-Instruct (mirror: dl.evil.rocks)",
              "https://evil.example/Acme-Coder-30B-A3B-Instruct"):
        for i in range(4):
            upload(server, payload(model=n, decode=120.0 + i))
    h1, title = page_names(server, "/m/" + SLUG)
    assert h1 == MODEL and title.startswith(MODEL), (h1, title)
    assert server.get("/m/%s.json" % SLUG).json()["model"]["name"] == MODEL
    assert search_name(server, "acme coder", "model", SLUG) == MODEL
    for path in ("/", "/m/" + SLUG, "/models", "/feed.atom", "/m/%s.atom" % SLUG):
        text = server.get(path).text
        assert "evil." not in text, path
    # Counted as ever (the "mirror" name makes a page of its own: 3 + 4 +
    # 4 runs here), and the run keeps its own name.
    assert server.get("/m/%s.json" % SLUG).json()["list"]["count"] == 11
    assert server.get("/r/%s.json" % evil[0]).json()["model"]["name"] == ATTACK_NAMES[0]
    # A page whose only name holds an address shows its slug.
    upload(server, payload(model="get weights at x.ninja/Widget-7B", accel=GPU,
                           digest=digest_for("widget")))
    rows = {m["slug"]: m["name"] for m in server.get("/models.json").json()["rows"]}
    others = [s for s in rows if s != SLUG]
    assert len(others) == 2 and all(rows[s] == s for s in others), rows
    assert any("widget" in s for s in others) and any("mirror" in s for s in others), rows
    # A hardware name too.
    for i in range(3):
        upload(server, payload(accel=GPU + " evil.example", decode=90.0 + i))
    assert server.get("/hw/%s.json" % GPU_SLUG).json()["hardware"]["name"] == GPU


SPOOF_BASE = "Llama-3.1-8B"
SPOOF_SLUG = "llama-3-1-8b"


@pytest.mark.parametrize("name", [
    "LIama-3.1-8B",                       # capital I for l
    "Llarna-3.1-8B",                      # rn for m
    "L1ama-3.1-8B",                       # digit one
    "Ll\u0251ma-3.1-8B",                  # Latin alpha
    "\U0001d40b\U0001d425ama-3.1-8B",     # mathematical bold
    "Lla\u030bma-3.1-8B",                 # a combining mark
    "\u216c\u216cama-3.1-8B",             # Roman numeral fifty
    "\uff2c\uff4cama-3.1-8B",             # fullwidth
    "Lla\u200bma-3.1-8B",                 # zero-width space
    "\u13deLama-3.1-8B",                  # Cherokee
    "Ll\u0561ma-3.1-8B",                  # Armenian
])
def test_names_that_read_as_an_existing_page_are_refused(server, name):
    """H6 (and the issue's "done when"): once "Llama-3.1-8B" exists, a name
    that reads the same by ICU's UTS #39 skeletons or mixes scripts in a
    word is refused, 422 confusable_name on model.name; nothing is stored."""
    upload(server, payload(model=SPOOF_BASE, digest=digest_for(SPOOF_BASE)))
    r = server.upload(sign(payload(model=name, digest=digest_for(SPOOF_BASE)), new_key())[0])
    assert r.status_code == 422, (name, r.text)
    e = r.json()["error"]
    assert e["code"] == "confusable_name" and e["field"] == "model.name", e
    assert e["message"].endswith("."), e
    assert [m["slug"] for m in server.get("/models.json").json()["rows"]] == [SPOOF_SLUG]


def test_look_alike_digits_letters_and_ligatures_are_refused(server):
    """H6: "3OB" for "30B", "4O90" with a Latin O for "4090", the "st"
    ligature: each reads as an existing page and is refused."""
    upload(server, payload(model="Acme-Coder-30B-Instruct", accel="Acme NPU 4090"))
    refused(server, payload(model="Acme-Coder-3OB-Instruct"), 422, "confusable_name", "model.name")
    refused(server, payload(model="Acme-Coder-30B-In\ufb06ruct"), 422, "confusable_name", "model.name")
    refused(server, payload(accel="Acme NPU 4O90"), 422, "confusable_name",
            "hardware.accelerator_summary")
    assert len(server.get("/models.json").json()["rows"]) == 1
    assert len(server.get("/hardware.json").json()["rows"]) == 1


def test_names_of_the_same_page_or_another_real_one_are_accepted(server):
    """H6: a name that lands on the page it reads as (a non-breaking
    hyphen, an "hf.co/" prefix, other case) is no spoof; names that differ
    (70B, 3.2) make their own pages."""
    upload(server, payload(model=SPOOF_BASE, digest=digest_for(SPOOF_BASE)))
    shown = server.get("/m/%s.json" % SPOOF_SLUG).json()["model"]["name"]   # the reference's
    for n in ("Llama\u20113.1\u20118B", "hf.co/meta-llama/Llama-3.1-8B", "llama 3.1 8b"):
        rid = upload(server, payload(model=n, digest=digest_for(SPOOF_BASE)))
        assert server.get("/r/%s.json" % rid).json()["model"]["slug"] == SPOOF_SLUG, n
    for n in ("Llama-3.1-70B", "Llama-3.2-1B"):
        upload(server, payload(model=n, digest=digest_for(n)))
    slugs = sorted(m["slug"] for m in server.get("/models.json").json()["rows"])
    assert slugs == sorted([SPOOF_SLUG, "llama-3-1-70b", "llama-3-2-1b"]), slugs
    assert server.get("/m/%s.json" % SPOOF_SLUG).json()["model"]["name"] == shown
