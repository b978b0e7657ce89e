#!/usr/bin/python3
"""Writes the seed corpora of the fuzz targets into tests/fuzz/corpus/<name>/.

Seeds come from tests/vectors (the RFC 8037 and RFC 7515 JWS examples,
JSONTestSuite's json_parsing/, the mustache spec), from the HTTP tests'
payload (tests/http/conftest.py) and from the server's own templates and
route table.  Run it again after changing any of those; the corpora are
small and committed.  Usage: /usr/bin/python3 tests/fuzz/make_seeds.py [VECTORS_DIR]
"""
import base64
import copy
import glob
import hashlib
import json
import os
import re
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
VECTORS = (sys.argv[1] if len(sys.argv) > 1 else
           os.environ.get("LLMSPEED_VECTORS", os.path.join(ROOT, "tests", "vectors")))
CORPUS = os.path.join(HERE, "corpus")
MAX_SEED = 4096          # bytes; larger vectors are left out to keep runs quick
FUZZ_NOW = "2026-04-28T10:12:00Z"   # the clock fuzz_validate.c fixes

sys.path.insert(0, os.path.join(ROOT, "tests", "http"))
from conftest import BASE_PAYLOAD  # noqa: E402  (the HTTP tests' payload)


def b64u(b):
    return base64.urlsafe_b64encode(b).rstrip(b"=").decode()


def unb64u(s):
    return base64.urlsafe_b64decode(s + "=" * (-len(s) % 4))


def put(name, seed_name, data):
    if isinstance(data, str):
        data = data.encode()
    if len(data) > MAX_SEED:
        return
    with open(os.path.join(CORPUS, name, seed_name), "wb") as f:
        f.write(data)


def payload(**over):
    p = copy.deepcopy(BASE_PAYLOAD)
    p["created_at"] = FUZZ_NOW
    p["model"]["digest"] = "sha256:" + hashlib.sha256(p["model"]["name"].encode()).hexdigest()
    p.update(over)
    return p


# ---- keys from the vectors, so the signed seeds verify ----

def ed25519_key():
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    v = json.load(open(os.path.join(VECTORS, "rfc8037_a4.json")))
    jwk = v["A.1_private_key_jwk"]
    return Ed25519PrivateKey.from_private_bytes(unb64u(jwk["d"])), {
        "kty": "OKP", "crv": "Ed25519", "x": jwk["x"]}


def es256_key():
    from cryptography.hazmat.primitives.asymmetric import ec
    v = json.load(open(os.path.join(VECTORS, "rfc7515_a3_es256.json")))
    jwk = v["key_jwk"]
    d = int.from_bytes(unb64u(jwk["d"]), "big")
    return ec.derive_private_key(d, ec.SECP256R1()), {
        "kty": "EC", "crv": "P-256", "x": jwk["x"], "y": jwk["y"]}


def sign(header, body, kind):
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature
    h = b64u(json.dumps(header, separators=(",", ":")).encode())
    p = b64u(body)
    msg = ("%s.%s" % (h, p)).encode()
    if kind == "ed":
        sig = ed25519_key()[0].sign(msg)
    else:
        r, s = decode_dss_signature(es256_key()[0].sign(msg, ec.ECDSA(hashes.SHA256())))
        sig = r.to_bytes(32, "big") + s.to_bytes(32, "big")
    return "%s.%s.%s" % (h, p, b64u(sig))


def jws_seeds():
    _, ed_pub = ed25519_key()
    _, ec_pub = es256_key()
    body = json.dumps(payload()).encode()
    put("jws", "eddsa_payload", sign({"alg": "EdDSA", "jwk": ed_pub}, body, "ed"))
    put("jws", "es256_payload", sign({"alg": "ES256", "jwk": ec_pub}, body, "ec"))
    put("jws", "eddsa_small", sign({"alg": "EdDSA", "jwk": ed_pub, "typ": "JWT", "kid": "k"}, b"{}", "ed"))
    put("jws", "es256_crlf", sign({"alg": "ES256", "jwk": ec_pub}, b'{"iss":"joe",\r\n "x":1}', "ec"))
    # Everything the contract rejects, each once.
    put("jws", "alg_none", sign({"alg": "none", "jwk": ed_pub}, b"{}", "ed"))
    put("jws", "alg_hs256", sign({"alg": "HS256", "jwk": ed_pub}, b"{}", "ed"))
    put("jws", "crit", sign({"alg": "EdDSA", "jwk": ed_pub, "crit": ["b64"], "b64": False}, b"{}", "ed"))
    put("jws", "private_d", sign({"alg": "EdDSA", "jwk": dict(ed_pub, d="AAAA")}, b"{}", "ed"))
    put("jws", "short_key", sign({"alg": "EdDSA", "jwk": dict(ed_pub, x="AAAA")}, b"{}", "ed"))
    put("jws", "ec_as_eddsa", sign({"alg": "EdDSA", "jwk": ec_pub}, b"{}", "ed"))
    good = sign({"alg": "EdDSA", "jwk": ed_pub}, b"{}", "ed")
    put("jws", "padded", good + "==")
    put("jws", "two_parts", good.rsplit(".", 1)[0])
    put("jws", "four_parts", good + ".x")
    put("jws", "whitespace", good.replace(".", " .", 1))
    # The RFC examples themselves (no jwk in the header: refused, but the
    # parser walks all of it).
    for f, key in (("rfc8037_a4.json", "A.4_compact"), ("rfc7515_a3_es256.json", "compact")):
        put("jws", f.split(".")[0], json.load(open(os.path.join(VECTORS, f)))[key])
    cb = json.load(open(os.path.join(VECTORS, "jose_cookbook", "curve25519", "jws.json")))
    put("jws", "cookbook_compact", cb["output"]["compact"])


def jws_pack_seeds():
    """The upload seeds, and a packed value (the one tests/store/check_jws_pack.c
    pins: packing needs the daemon's dictionary, so it is read from there)."""
    for f in sorted(os.listdir(os.path.join(CORPUS, "jws"))):
        put("jws_pack", f, open(os.path.join(CORPUS, "jws", f), "rb").read())
    src = open(os.path.join(ROOT, "tests", "store", "check_jws_pack.c")).read()
    body = re.search(r"pinned_a4\[\] =\n((?:\t\"[^\n]*\"\n?)+);", src).group(1)
    hexes = "".join(re.findall(r'"([^"]*)"', body))
    put("jws_pack", "packed_a4", bytes(int(h, 16) for h in re.findall(r"\\x([0-9a-f]{2})", hexes)))


def validate_seeds():
    put("validate", "payload", json.dumps(payload()))
    anon = payload()
    del anon["hardware"]["fingerprint_hash"]
    put("validate", "strict_anon", json.dumps(anon))
    put("validate", "hosted_api", json.dumps(payload(backend={"name": "hosted-api", "version": "1"})))
    put("validate", "unknown_suite", json.dumps(payload(suite_version="suite-v9")))
    short = payload()
    short["workloads"] = {"chat-short": short["workloads"]["chat-short"]}
    put("validate", "chat_short_only", json.dumps(short, indent=1))
    put("validate", "future", json.dumps(payload(created_at="2026-04-28T11:12:00Z")))
    for path in sorted(glob.glob(os.path.join(VECTORS, "json_parsing", "*.json"))):
        with open(path, "rb") as f:
            put("validate", "jsonsuite_" + os.path.basename(path), f.read())


def tmpl_seeds():
    for path in sorted(glob.glob(os.path.join(VECTORS, "mustache", "*.json"))):
        spec = os.path.basename(path).split(".")[0]
        for i, t in enumerate(json.load(open(path))["tests"]):
            put("tmpl", "%s_%02d" % (spec, i), t["template"])
            for pname, ptext in sorted(t.get("partials", {}).items()):
                put("tmpl", "%s_%02d_partial_%s" % (spec, i, re.sub(r"\W", "_", pname)), ptext)
    for path in sorted(glob.glob(os.path.join(ROOT, "templates", "*.html"))):
        with open(path, "rb") as f:
            put("tmpl", "template_" + os.path.basename(path), f.read())


def router_seeds():
    # First byte: method in the top two bits (GET HEAD POST OTHER), capture
    # size in the rest; then "pattern\npath" or just a path.
    with open(os.path.join(ROOT, "server", "router.c")) as f:
        patterns = re.findall(r'\{\s*HTTP_(GET|POST),\s*"([^"]+)"', f.read())
    # The page kinds' rows, which the router makes from this table.
    with open(os.path.join(ROOT, "server", "pages", "kinds.c")) as f:
        table = f.read().split("page_kinds[PAGE_KIND__MAX] = {", 1)[1]
    for p in re.findall(r'TWINS\("([^"]+)"\)', table):
        patterns += [("GET", p), ("GET", p + ".json"), ("GET", p + ".csv")]
    patterns += [("GET", p) for p in re.findall(r'\.(?:path|json|csv) = "([^"]+)"', table)]
    method_bits = {"GET": 0x00, "HEAD": 0x40, "POST": 0x80, "OTHER": 0xC0}
    for i, (m, pat) in enumerate(patterns):
        path = pat.replace("*", "r_y2_5y8oo97d")
        put("router", "route_%02d" % i, bytes([method_bits[m] | 0x3F]) + path.encode())
        put("router", "pattern_%02d" % i, bytes([method_bits[m] | 0x20]) + ("%s\n%s" % (pat, path)).encode())
    for i, path in enumerate(["/r/.json", "/r/a/b.json", "/static/../etc", "//", "/r/*",
                              "/api/v1/runs/x/disputes/resolve", "/badge/" + "a" * 200 + ".svg",
                              "/m/%2e%2e", "/hw/a.json.json", ""]):
        put("router", "edge_%02d" % i, bytes([0x01 + i]) + path.encode())


def framing_seeds():
    # First byte: the version in the top two bits (1.1, 1.0, 2, none), the
    # size limit in the rest (16 + 64 * n bytes); then "TARGET\nName: value...".
    v11, v10 = 0x00, 0x40
    heads = [
        (v11 | 0x3F, "/healthz\nHost: x"),
        (v11 | 0x3F, "/api/v1/runs\nHost: x\nContent-Length: 5\nContent-Length: 6"),
        (v11 | 0x3F, "/api/v1/runs\nHost: x\nTransfer-Encoding: chunked\nContent-Length: 5"),
        (v11 | 0x3F, "/api/v1/runs\nHost: x\nTransfer-Encoding: gzip"),
        (v10 | 0x3F, "/api/v1/runs\nHost: x\nConnection: keep-alive\nTransfer-Encoding: chunked"),
        (v10 | 0x3F, "/api/v1/runs\nContent-Length: 12"),
        (v11 | 0x3F, "/healthz"),
        (v11 | 0x3F, "/healthz\nHost: a\nHost: b"),
        (v11 | 0x3F, "/healthz\nHost: a\nX-Thing : b"),
        (v11 | 0x3F, "/r/r_aaaaaaaaaaa%00.json\nHost: x"),
        (v11 | 0x3F, "/badge/r_aaaaaaaaaaa.svg%00.html\nHost: x"),
        (v11 | 0x3F, "/glossary%zz\nHost: x"),
        (v11 | 0x3F, "/glossary%4\nHost: x"),
        (v11 | 0x3F, "/r/r%5Faaaaaaaaaa?after=3&x=%00\nHost: x"),
        (v11 | 0x3F, "/search?q=" + "a" * 40 + "&suite=suite-v1&hw=m3-ultra\nHost: x"),
        (v11 | 0x3F, "/healthz?" + "&".join("a%d=1" % i for i in range(128)) + "\nHost: x"),
        (v11 | 0x3F, "/healthz?" + "&".join("a%d=1" % i for i in range(129)) + "\nHost: x"),
        (v11 | 0x3F, "/healthz?" + "&" * 200 + "\nHost: x"),
        (v11 | 0x01, "/healthz?" + "a" * 100 + "\nHost: x"),
        (v11 | 0x02, "/healthz\nHost: x\nX-Big: " + "v" * 200),
    ]
    for i, (first, head) in enumerate(heads):
        put("framing", "head_%02d" % i, bytes([first]) + head.encode())


def main():
    targets = {"jws": jws_seeds, "jws_pack": jws_pack_seeds, "validate": validate_seeds, "tmpl": tmpl_seeds, "router": router_seeds,
               "framing": framing_seeds}
    only = os.environ.get("SEEDS")         # e.g. SEEDS=jws_pack: that target alone
    for name, fn in targets.items():
        if only and name not in only.split(","):
            continue
        d = os.path.join(CORPUS, name)
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
        fn()
        print("%s: %d seeds" % (name, len(os.listdir(d))))


if __name__ == "__main__":
    main()
