"""The API description, schema/openapi.json, against what the server does:
every route the daemon serves (server/router.c's fixed rows and the page
kinds' rows it makes from server/pages/kinds.c) is described and nothing else
is, and real responses of a running daemon (statuses, content types,
required headers, JSON bodies) are the ones described for their route."""
import json
import os
import re
import subprocess
import warnings

import jsonschema
import pytest

from conftest import BIN, MODERATOR_TOKEN, ROOT, make_payload, new_key, sign, upload_payload

SPEC_PATH = os.path.join(ROOT, "schema", "openapi.json")
PAYLOAD_SCHEMA_PATH = os.path.join(ROOT, "schema", "payload.schema.json")
# Where openapi.json sits beside payload.schema.json (whose $id is in the
# same folder), so its relative "payload.schema.json" resolves to that $id.
BASE = "https://llm-speed.example/schema/openapi.json"
METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
UNKNOWN = "r_zzzzzzzzzzz"

with open(SPEC_PATH, encoding="utf-8") as _f:
    SPEC = json.load(_f)
with open(PAYLOAD_SCHEMA_PATH, encoding="utf-8") as _f:
    PAYLOAD_SCHEMA = json.load(_f)


def route_table():
    """The (method, pattern) rows of the daemon's route table: the fixed
    rows of server/router.c and the rows it makes from the page kinds of
    server/pages/kinds.c, as `llm-speedd routes` prints them."""
    out = subprocess.run([BIN, "routes"], capture_output=True, text=True, check=True).stdout
    rows = [line.split(" ", 1) for line in out.splitlines()]
    assert rows and all(len(r) == 2 and r[0] in ("GET", "POST") for r in rows), out
    return {(method, pattern) for method, pattern in rows}


def spec_routes():
    """The (METHOD, pattern) pairs openapi.json describes, each path
    template written as the router writes it ({id} -> *, and a trailing
    parameter named *_path, which spans segments, -> **)."""
    out = set()
    for path, item in SPEC["paths"].items():
        for method in item:
            if method in METHODS:
                pattern = re.sub(r"\{[^{}/]+_path\}$", "**", path)
                out.add((method.upper(), re.sub(r"\{[^{}/]+\}", "*", pattern)))
    return out


def deref(node):
    """node with a local $ref (#/components/...) followed."""
    while isinstance(node, dict) and "$ref" in node and node["$ref"].startswith("#/"):
        target = SPEC
        for part in node["$ref"][2:].split("/"):
            target = target[part.replace("~1", "/").replace("~0", "~")]
        node = target
    return node


def validator(schema):
    """A JSON Schema 2020-12 validator for schema, resolving #/components
    refs in openapi.json and payload.schema.json beside it."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        resolver = jsonschema.RefResolver(BASE, SPEC, store={PAYLOAD_SCHEMA["$id"]: PAYLOAD_SCHEMA})
        return jsonschema.Draft202012Validator(schema, resolver=resolver)


def validate(instance, schema, what):
    errors = sorted(validator(schema).iter_errors(instance), key=lambda e: list(e.path))
    assert not errors, "%s does not match openapi.json:\n%s" % (what, "\n".join(
        "  at %s: %s" % ("/".join(map(str, e.absolute_path)) or "(top)", e.message[:300])
        for e in errors[:10]))


def header_value(value, schema):
    """A header's text as the type its schema names."""
    schema = deref(schema)
    return int(value) if schema.get("type") == "integer" else value


def check(resp, method, template):
    """Asserts resp is a response openapi.json describes for method on the
    path template: its status is listed, its content type is one of the
    status's, its required headers are there and match, and its body
    validates.  Returns the decoded JSON body, or the text."""
    op = SPEC["paths"][template][method.lower()]
    what = "%s %s -> %d" % (method, template, resp.status_code)
    doc = op["responses"].get(str(resp.status_code))
    assert doc is not None, "%s: status not described (%s)" % (what, resp.text[:300])
    doc = deref(doc)
    for name, h in doc.get("headers", {}).items():
        h = deref(h)
        if h.get("required"):
            assert name in resp.headers, "%s: no %s header" % (what, name)
            validate(header_value(resp.headers[name], h["schema"]), h["schema"], what + " header " + name)
    content = doc.get("content")
    if not content:
        assert resp.content == b"", what + ": a body where none is described"
        return None
    ctype = resp.headers.get("Content-Type")
    assert ctype in content, "%s: Content-Type %s, described: %s" % (what, ctype, sorted(content))
    schema = content[ctype]["schema"]
    body = resp.json() if ctype == "application/json" else resp.text
    validate(body, schema, what)
    return body


def schema_of(name):
    return {"$ref": "#/components/schemas/" + name}


def upload_ok(server, payload=None, key=None, headers=None):
    r = upload_payload(server, payload, key, headers)
    body = check(r, "POST", "/api/v1/runs")
    assert r.status_code == 201, r.text
    assert r.headers["Location"] == body["url"]
    return body


# ---- the document itself ----

def test_every_route_is_described_and_nothing_else():
    table, described = route_table(), spec_routes()
    assert table - described == set(), "routes the daemon serves missing from openapi.json"
    assert described - table == set(), "paths in openapi.json that the daemon does not serve"


def test_page_paths_are_the_kinds_table():
    """The page paths openapi.json describes are held equal to the table of
    page kinds (server/pages/kinds.c, as `llm-speedd kinds` prints it):
    each kind's page, its JSON and CSV twins and its feed are described as
    GETs, and every described GET of a page (HTML) or a twin is one of
    theirs or a fixed row of server/router.c."""
    kinds = json.loads(subprocess.run([BIN, "kinds"], capture_output=True, text=True, check=True).stdout)
    paths = {(p, k["name"]) for k in kinds for p in (k["path"], k["json"], k["csv"], k["feed"]) if p}
    described = {pattern for method, pattern in spec_routes() if method == "GET"}
    missing = sorted("%s (%s)" % (p, name) for p, name in paths if p not in described)
    assert not missing, "page kinds' paths missing from openapi.json: %s" % missing
    fixed = {pattern for method, pattern in route_table() if method == "GET"} - {p for p, _ in paths}
    html = {path for path, item in SPEC["paths"].items() if "get" in item and any(
        "text/html" in deref(r).get("content", {}) for r in item["get"].get("responses", {}).values())}
    stray = sorted(p for p in html if re.sub(r"\{[^{}/]+\}", "*", p) not in {q for q, _ in paths} | fixed)
    assert not stray, "pages in openapi.json that are no page kind's and no fixed route: %s" % stray


def test_every_path_parameter_is_declared():
    for path, item in SPEC["paths"].items():
        names = set(re.findall(r"\{([^{}/]+)\}", path))
        for method, op in item.items():
            if method not in METHODS:
                continue
            declared = {deref(p)["name"] for p in op.get("parameters", []) + item.get("parameters", [])
                        if deref(p)["in"] == "path"}
            assert declared == names, "%s %s declares %s" % (method, path, declared)
            assert all(deref(p).get("required") for p in op.get("parameters", [])
                       if deref(p)["in"] == "path")


def test_every_ref_resolves_and_every_schema_is_valid():
    def walk(node):
        if isinstance(node, dict):
            if isinstance(node.get("$ref"), str) and node["$ref"].startswith("#/"):
                deref(node)     # KeyError when it points nowhere
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)
    walk(SPEC)
    assert SPEC["openapi"].startswith("3.1.")
    for name, schema in SPEC["components"]["schemas"].items():
        jsonschema.Draft202012Validator.check_schema(schema)
    upload = SPEC["paths"]["/api/v1/runs"]["post"]["requestBody"]["content"]["application/jose"]
    assert upload["x-jws-payload"] == {"$ref": "payload.schema.json"}
    # The upload's error codes are the contract's.
    codes = deref(schema_of("Error"))["properties"]["error"]["properties"]["code"]["enum"]
    for code in ("malformed_jws", "unsupported_alg", "invalid_signature", "invalid_token",
                 "invalid_json", "schema_violation", "unknown_suite", "hosted_api_rejected",
                 "payload_too_large", "unsupported_media_type", "rate_limited"):
        assert code in codes


def test_the_payload_ref_is_the_payload_schema():
    """A payload the server accepts validates against the Payload component,
    and one it refuses does not: the $ref reaches payload.schema.json."""
    validate(make_payload(), schema_of("Payload"), "a valid payload")
    bad = make_payload()
    bad["workloads"]["chat-short"]["decode_tok_s"] = "fast"
    assert list(validator(schema_of("Payload")).iter_errors(bad))


# ---- real responses ----

def test_upload_and_read_routes_answer_as_described(server):
    first = upload_ok(server)
    again = upload_payload(server)             # a new JWS (new key): stored again
    assert check(again, "POST", "/api/v1/runs")["id"] != first["id"]
    token, _ = sign(make_payload(backend={"name": "llama.cpp", "version": "b6123"},
                                 hardware__accelerator_summary="NVIDIA GeForce RTX 4090",
                                 hardware__fingerprint_hash=None))
    other = check(server.upload(token), "POST", "/api/v1/runs")
    same = server.upload(token)                # byte-identical: 200, same id
    assert same.status_code == 200
    assert check(same, "POST", "/api/v1/runs")["id"] == other["id"]

    rid = first["id"]
    run = check(server.get("/r/%s.json" % rid), "GET", "/r/{id}.json")
    assert run["id"] == rid and run["payload"]["suite_version"] == "suite-v1"
    check(server.get("/r/%s.json" % other["id"]), "GET", "/r/{id}.json")
    jws = server.get("/r/%s.jws" % rid)
    assert check(jws, "GET", "/r/{id}.jws") and jws.status_code == 200
    etag = jws.headers["ETag"]
    check(server.get("/r/%s.jws" % rid, headers={"If-None-Match": etag}), "GET", "/r/{id}.jws")
    check(server.get("/r/" + rid), "GET", "/r/{id}")

    mslug, hslug = run["model"]["slug"], run["hardware"]["slug"]
    model = check(server.get("/m/%s.json" % mslug), "GET", "/m/{slug}.json")
    assert model["list"]["count"] >= 2
    narrowed = server.get("/m/%s.json" % mslug, params={
        "digest": run["model"]["digest"], "hw": hslug, "backend": "mlx", "suite": "suite-v1"})
    assert check(narrowed, "GET", "/m/{slug}.json")["filters"]["backend"] == "mlx"
    page = server.get("/m/%s.json" % mslug)
    check(server.get("/m/%s.json" % mslug, headers={"If-None-Match": page.headers["ETag"]}),
          "GET", "/m/{slug}.json")
    check(server.get("/m/" + mslug), "GET", "/m/{slug}")
    for sort in ("prefill", "ttft", "date", "best", "x"):
        check(server.get("/m/%s.json" % mslug, params={"sort": sort}), "GET", "/m/{slug}.json")
    check(server.get("/m/%s.csv" % mslug, params={"sort": "ttft"}), "GET", "/m/{slug}.csv")

    hw = check(server.get("/hw/%s.json" % hslug), "GET", "/hw/{slug}.json")
    assert hw["model"] is None and hw["combos"]["count"] == 1
    one = check(server.get("/hw/%s.json" % hslug, params={"model": mslug}), "GET", "/hw/{slug}.json")
    assert one["list"]["count"] == 2 and one["combos"] is None
    check(server.get("/hw/rtx-4090.json"), "GET", "/hw/{slug}.json")
    for params in ({"sort": "ttft"}, {"sort": "best"}, {"sort": "date", "model": mslug}, {"sort": "x"}):
        check(server.get("/hw/%s.json" % hslug, params=params), "GET", "/hw/{slug}.json")
    check(server.get("/hw/%s.csv" % hslug, params={"sort": "prefill"}), "GET", "/hw/{slug}.csv")
    check(server.get("/hw/" + hslug), "GET", "/hw/{slug}")

    badge = check(server.get("/badge/%s.json" % rid), "GET", "/badge/{id}.json")
    assert "isError" not in badge
    check(server.get("/badge/%s.svg" % rid), "GET", "/badge/{id}.svg")
    assert check(server.get("/badge/%s.json" % UNKNOWN), "GET", "/badge/{id}.json")["isError"] is True
    check(server.get("/badge/%s.svg" % UNKNOWN), "GET", "/badge/{id}.svg")
    for ext in ("png", "svg"):
        card = server.get("/card/%s.%s" % (rid, ext))
        check(card, "GET", "/card/{id}.%s" % ext)
        check(server.get("/card/%s.%s" % (rid, ext), headers={"If-None-Match": card.headers["ETag"]}),
              "GET", "/card/{id}.%s" % ext)
        check(server.get("/card/%s.%s" % (UNKNOWN, ext)), "GET", "/card/{id}.%s" % ext)

    for path in ("/", "/outliers", "/disputes", "/glossary", "/methodology", "/privacy", "/api", "/healthz"):
        check(server.get(path), "GET", path)
    check(server.get("/static/style.css"), "GET", "/static/{name}")
    check(server.get("/static/nope.css"), "GET", "/static/{name}")


def test_log_routes_answer_as_described(server):
    rid = upload_ok(server)["id"]
    server.wait_for_checkpoint(1)
    check(server.get("/log"), "GET", "/log")
    check(server.get("/log/checkpoint"), "GET", "/log/checkpoint")
    check(server.get("/log/tile/0/000.p/1"), "GET", "/log/tile/{tile_path}")
    check(server.get("/log/tile/entries/000.p/1"), "GET", "/log/tile/{tile_path}")
    check(server.get("/log/tile/0/000"), "GET", "/log/tile/{tile_path}")          # not covered: 404
    check(server.get("/log/tile/0/0"), "GET", "/log/tile/{tile_path}")            # not a tile path
    run = check(server.get("/r/%s.json" % rid), "GET", "/r/{id}.json")
    assert run["log"]["index"] == 0 and run["log"]["tree_size"] >= 1


def test_error_bodies_are_the_described_ones(server):
    rid = upload_ok(server)["id"]
    check(server.get("/r/%s.json" % UNKNOWN), "GET", "/r/{id}.json")
    check(server.get("/r/%s.jws" % UNKNOWN), "GET", "/r/{id}.jws")
    check(server.get("/m/no-such-model.json"), "GET", "/m/{slug}.json")
    bad = check(server.get("/m/x.json", params={"digest": "md5:1"}), "GET", "/m/{slug}.json")
    assert bad["error"]["code"] == "invalid_query"
    check(server.get("/hw/no-such-hw.json"), "GET", "/hw/{slug}.json")
    check(server.get("/hw/m3-ultra.json", params={"after": "x"}), "GET", "/hw/{slug}.json")
    check(server.get("/", params={"backend": "hosted-api"}), "GET", "/")
    check(server.get("/outliers", params={"after": "0"}), "GET", "/outliers")

    token, _ = sign(make_payload())
    assert check(server.upload(token, content_type="text/plain"), "POST", "/api/v1/runs")[
        "error"]["code"] == "unsupported_media_type"
    assert check(server.upload("a.b"), "POST", "/api/v1/runs")["error"]["code"] == "malformed_jws"
    head, payload, sig = token.split(".")
    forged = ".".join((head, payload, sig[:10] + ("A" if sig[10] != "A" else "B") + sig[11:]))
    assert check(server.upload(forged), "POST", "/api/v1/runs")["error"]["code"] == "invalid_signature"
    p = make_payload()
    p["workloads"]["chat-short"]["decode_tok_s"] = -1
    err = check(upload_payload(server, p), "POST", "/api/v1/runs")["error"]
    assert err["code"] == "schema_violation" and err["field"] == "workloads.chat-short.decode_tok_s"
    err = check(upload_payload(server, make_payload(suite_version="suite-v9")), "POST", "/api/v1/runs")
    assert err["error"]["code"] == "unknown_suite"
    err = check(upload_payload(server, headers={"Authorization": "Bearer nope"}), "POST", "/api/v1/runs")
    assert err["error"]["code"] == "invalid_token"
    big = server.upload("x" * (65 * 1024))
    assert check(big, "POST", "/api/v1/runs")["error"]["code"] == "payload_too_large"

    # 405 belongs to no operation (the method is not described for the path):
    # the body is still the contract's error, with Allow.
    r = server.post("/r/%s.json" % rid)
    assert r.status_code == 405 and r.headers["Allow"] == "GET, HEAD"
    validate(r.json(), schema_of("Error"), "405 body")


def test_card_without_rasterizer_is_described(make_server):
    s = make_server(env={"PATH": "/nonexistent"})
    rid = upload_ok(s)["id"]
    r = s.get("/card/%s.png" % rid)
    assert r.status_code == 503
    check(r, "GET", "/card/{id}.png")


def test_rate_limit_answer_is_described(make_server):
    s = make_server(["--upload-rate", "1"])
    upload_ok(s)
    r = upload_payload(s)
    assert r.status_code == 429
    check(r, "POST", "/api/v1/runs")


def test_dispute_routes_answer_as_described(server):
    key = new_key()
    rid = upload_ok(server, key=key)["id"]
    base = "/api/v1/runs/{id}/disputes"
    url = "/api/v1/runs/%s/disputes" % rid

    post = check(server.post(url, json={"author": "ana", "body": "Looks\nhigh."}), "POST", base)
    assert post["by_submitter"] is False
    signed, _ = sign({"run_id": rid, "body": "Measured twice."}, key)
    post = check(server.post(url, data=signed, headers={"Content-Type": "application/jose"}), "POST", base)
    assert post["by_submitter"] is True and post["author"] is None
    stranger, _ = sign({"run_id": rid, "body": "Me too."}, new_key())
    r = server.post(url, data=stranger, headers={"Content-Type": "application/jose"})
    assert check(r, "POST", base)["error"]["code"] == "forbidden_key"
    check(server.post(url, json={"body": ""}), "POST", base)
    check(server.post(url, data="{", headers={"Content-Type": "application/json"}), "POST", base)
    check(server.post(url, data="hi", headers={"Content-Type": "text/plain"}), "POST", base)
    check(server.post("/api/v1/runs/%s/disputes" % UNKNOWN, json={"body": "x"}), "POST", base)

    run = check(server.get("/r/%s.json" % rid), "GET", "/r/{id}.json")
    assert run["dispute"]["count"] == 2
    form = server.post("/r/%s/disputes" % rid, allow_redirects=False,
                       headers={"Origin": server.url},
                       data={"author": "", "body": "From the page.", "token": run["dispute"]["form_token"]})
    check(form, "POST", "/r/{id}/disputes")
    assert form.status_code == 303
    check(server.post("/r/%s/disputes" % rid, data={"body": "x", "token": "t"}), "POST", "/r/{id}/disputes")

    resolve = "/api/v1/runs/{id}/disputes/resolve"
    rurl = "/api/v1/runs/%s/disputes/resolve" % rid
    mod = {"Authorization": "Bearer " + MODERATOR_TOKEN}
    check(server.post(rurl, json={"resolution": "upheld"}), "POST", resolve)
    check(server.post(rurl, json={"resolution": "maybe"}, headers=mod), "POST", resolve)
    ruling = check(server.post(rurl, json={"resolution": "upheld", "note": "Not reproducible."},
                               headers=mod), "POST", resolve)
    assert ruling["run_status"] == "upheld"

    # The upheld run is the model's only one: its pages show no digest and
    # no sections, which the schemas describe as well.
    run = check(server.get("/r/%s.json" % rid), "GET", "/r/{id}.json")
    assert run["status"] == "upheld" and run["dispute"]["resolution"] == "upheld"
    assert len(run["dispute"]["posts"]) == 3
    model = check(server.get("/m/%s.json" % run["model"]["slug"]), "GET", "/m/{slug}.json")
    assert model["digest"] is None
    hw = check(server.get("/hw/%s.json" % run["hardware"]["slug"]), "GET", "/hw/{slug}.json")
    assert hw["combos"]["rows"] == []
    check(server.get("/badge/%s.json" % rid), "GET", "/badge/{id}.json")


def test_withdrawal_matches_spec(server):
    key = new_key()
    rid = upload_ok(server, key=key)["id"]
    base = "/api/v1/runs/{id}/withdraw"
    url = "/api/v1/runs/%s/withdraw" % rid
    jose = {"Content-Type": "application/jose"}

    def signed(body, k=key):
        return sign(body, k)[0]

    body = {"run_id": rid, "action": "withdraw", "reason": "Wrong model file."}
    check(server.post(url, json=body), "POST", base)
    check(server.post(url, data="x.y", headers=jose), "POST", base)
    check(server.post(url, data=signed(body, new_key()), headers=jose), "POST", base)
    check(server.post(url, data=signed(dict(body, action="x")), headers=jose), "POST", base)
    check(server.post("/api/v1/runs/%s/withdraw" % UNKNOWN, data=signed(body), headers=jose), "POST", base)
    done = check(server.post(url, data=signed(body), headers=jose), "POST", base)
    assert done["status"] == "withdrawn"
    again = server.post(url, data=signed(body), headers=jose)
    assert check(again, "POST", base)["error"]["code"] == "already_withdrawn"
    run = check(server.get("/r/%s.json" % rid), "GET", "/r/{id}.json")
    assert run["status"] == "withdrawn" and run["withdrawal"]["reason"] == "Wrong model file."


def test_twins_match_spec(server):
    rid = upload_ok(server)["id"]
    server.post("/api/v1/runs/%s/disputes" % rid, json={"body": "Odd."})
    run = server.get("/r/%s.json" % rid).json()
    slug, hw = run["model"]["slug"], run["hardware"]["slug"]
    for path, template in (("/index.json", "/index.json"), ("/index.csv", "/index.csv"),
                           ("/index.csv?after=x", "/index.csv"),
                           ("/m/%s.csv" % slug, "/m/{slug}.csv"), ("/m/nope.csv", "/m/{slug}.csv"),
                           ("/hw/%s.csv" % hw, "/hw/{slug}.csv"),
                           ("/outliers.json", "/outliers.json"), ("/outliers.csv", "/outliers.csv"),
                           ("/disputes.json", "/disputes.json"), ("/disputes.csv", "/disputes.csv"),
                           ("/disputes.csv?page=0", "/disputes.csv"),
                           ("/models.csv", "/models.csv"), ("/models.csv?cursor=x", "/models.csv"),
                           ("/hardware.csv?sort=name", "/hardware.csv"),
                           ("/search.csv?q=" + slug[:4], "/search.csv"),
                           ("/compare.csv?r=%s,%s" % (rid, rid), "/compare.csv"),
                           ("/compare.csv?r=bad", "/compare.csv")):
        check(server.get(path), "GET", template)


def test_feeds_match_spec(server):
    token = server.account("carol")
    rid = upload_ok(server, headers={"Authorization": "Bearer " + token})["id"]
    run = server.get("/r/%s.json" % rid).json()
    for path, template in (("/feed.atom", "/feed.atom"),
                           ("/m/%s.atom" % run["model"]["slug"], "/m/{slug}.atom"),
                           ("/m/No_Slug.atom", "/m/{slug}.atom"),
                           ("/hw/%s.atom" % run["hardware"]["slug"], "/hw/{slug}.atom"),
                           ("/disputes.atom", "/disputes.atom"),
                           ("/u/carol.atom", "/u/{name}.atom"), ("/u/nobody.atom", "/u/{name}.atom")):
        check(server.get(path), "GET", template)


def test_sitemap_matches_spec(make_server):
    s = make_server(["--sitemap-page-urls", "3"])
    upload_ok(s)
    check(s.get("/sitemap.xml"), "GET", "/sitemap.xml")
    for n in ("1", "2", "999", "0"):
        check(s.get("/sitemap-%s.xml" % n), "GET", "/sitemap-{n}.xml")
    one = make_server()
    r = one.get("/sitemap.xml")
    check(r, "GET", "/sitemap.xml")
    check(one.get("/sitemap.xml", headers={"If-None-Match": r.headers["ETag"]}), "GET", "/sitemap.xml")
    check(one.get("/sitemap-1.xml"), "GET", "/sitemap-{n}.xml")


def test_account_pages_match_spec(server):
    token = server.account("dave")
    upload_ok(server, headers={"Authorization": "Bearer " + token})
    for path, template in (("/u/dave", "/u/{name}"), ("/u/dave.json", "/u/{name}.json"),
                           ("/u/dave.csv", "/u/{name}.csv"), ("/u/nobody.json", "/u/{name}.json"),
                           ("/u/dave.json?after=x", "/u/{name}.json"), ("/u/nobody", "/u/{name}")):
        check(server.get(path), "GET", template)


def test_export_matches_spec(server):
    upload_ok(server)
    check(server.get("/export", headers={"Accept-Encoding": "identity"}), "GET", "/export")
    check(server.get("/export", headers={"Accept-Encoding": "identity"}), "GET", "/export")
    check(server.get("/export"), "GET", "/export")   # the third in a minute: 429


def test_model_on_hardware_and_picker_match_spec(server):
    """The model-on-hardware page and its twin (measured, empty, a model
    known only to the reference data, unknown), and the picker's answers."""
    run = server.get("/r/%s.json" % upload_ok(server)["id"]).json()
    slug, hw = run["model"]["slug"], run["hardware"]["slug"]
    for path in ("/m/%s/hw/%s" % (slug, hw), "/m/%s/hw/rtx-4090" % slug, "/m/llama-3-1-8b-instruct/hw/%s" % hw,
                 "/m/nope/hw/%s" % hw, "/m/%s/hw/nope" % slug, "/m/%s/hw/%s?suite=Bad!" % (slug, hw)):
        check(server.get(path), "GET", "/m/{slug}/hw/{hw_slug}")
        body = check(server.get(path.replace("?", ".json?") if "?" in path else path + ".json"), "GET",
                     "/m/{slug}/hw/{hw_slug}.json")
    assert body["error"]["code"] == "invalid_query"
    for q in ("model=%s&hw=%s" % (slug, hw), "model=&hw=%s" % hw, "model=nope&hw=nope"):
        check(server.get("/?" + q, allow_redirects=False), "GET", "/")
    check(server.get("/search.json?q=%s+on+%s" % (slug, hw)), "GET", "/search.json")
    check(server.get("/index.json"), "GET", "/index.json")
