#!/usr/bin/env python3
"""Re-verifies every signature of an llm-speed export, offline.

Usage: verify-export.py EXPORT   (the NDJSON of /export, plain or .gz; - reads stdin)

For each line (one run) it checks the run's JWS: compact serialization,
unpadded base64url, a protected header naming EdDSA (Ed25519) or ES256
(P-256, r || s) with the public key as "jwk", and a signature by that key
over ASCII(header "." payload).  For a withdrawn run it checks the
withdrawal's JWS the same way, that its key is the run's (RFC 7638
thumbprint) and that its payload is {"run_id": <this run>, "action":
"withdraw", ...}.  It needs python3 and python3-cryptography, not the server.

Prints one line per failure, with its line number, and goes on to the
next line whatever is wrong with one (bad JSON, JSON nested deeper than
the server accepts, a wrong signature); then a summary with the count of
failures.  Exits 0 when every signature verifies, 1 when any line failed,
2 when the file cannot be read.
"""
import base64
import gzip
import hashlib
import json
import sys

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec, ed25519
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature

# The server refuses a payload or protected header nested more than 32
# deep; Python's json recurses, so deeper text is refused before parsing.
MAX_DEPTH = 32
# An export line adds a few levels of its own around the texts it carries.
LINE_DEPTH = MAX_DEPTH + 8

B64URL = set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")


def b64u(s):
    if not s or set(s) - B64URL or len(s) % 4 == 1:
        raise ValueError("not unpadded base64url")
    return base64.urlsafe_b64decode(s + "=" * (-len(s) % 4))


def json_depth(text, limit):
    """The deepest nesting of arrays and objects in JSON text (str or
    bytes), brackets inside strings left out; stops counting past limit."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    depth = deepest = 0
    in_str = escaped = False
    for ch in text:
        if in_str:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_str = False
        elif ch == '"':
            in_str = True
        elif ch in "[{":
            depth += 1
            if depth > deepest:
                deepest = depth
                if deepest > limit:
                    break
        elif ch in "]}" and depth:
            depth -= 1
    return deepest


def loads(text, what, limit=MAX_DEPTH):
    """json.loads of text, refusing (ValueError) JSON nested deeper than limit."""
    if json_depth(text, limit) > limit:
        raise ValueError("%s nests arrays and objects more than %d deep" % (what, limit))
    return json.loads(text)


def thumbprint(jwk):
    """RFC 7638: SHA-256 of the required members in lexical order."""
    if jwk.get("kty") == "OKP":
        canon = {"crv": jwk["crv"], "kty": "OKP", "x": jwk["x"]}
    else:
        canon = {"crv": jwk["crv"], "kty": "EC", "x": jwk["x"], "y": jwk["y"]}
    data = json.dumps(canon, separators=(",", ":"), sort_keys=True).encode()
    return base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def verify_jws(compact):
    """Returns (payload bytes, thumbprint) of a JWS whose signature verifies;
    raises ValueError saying why not."""
    parts = compact.split(".")
    if len(parts) != 3:
        raise ValueError("not three dot-separated parts")
    header = loads(b64u(parts[0]), "the protected header")
    if not isinstance(header, dict):
        raise ValueError("the protected header is not a JSON object")
    payload, sig = b64u(parts[1]), b64u(parts[2])
    signed = (parts[0] + "." + parts[1]).encode("ascii")
    jwk = header.get("jwk") or {}
    if "d" in jwk or "crit" in header:
        raise ValueError("header carries a private key or crit")
    try:
        if header.get("alg") == "EdDSA" and jwk.get("kty") == "OKP" and jwk.get("crv") == "Ed25519":
            x = b64u(jwk["x"])
            if len(x) != 32:
                raise ValueError("Ed25519 key is not 32 bytes")
            ed25519.Ed25519PublicKey.from_public_bytes(x).verify(sig, signed)
        elif header.get("alg") == "ES256" and jwk.get("kty") == "EC" and jwk.get("crv") == "P-256":
            x, y = b64u(jwk["x"]), b64u(jwk["y"])
            if len(x) != 32 or len(y) != 32 or len(sig) != 64:
                raise ValueError("P-256 key or signature of the wrong size")
            key = ec.EllipticCurvePublicNumbers(int.from_bytes(x, "big"), int.from_bytes(y, "big"),
                                                ec.SECP256R1()).public_key()
            der = encode_dss_signature(int.from_bytes(sig[:32], "big"), int.from_bytes(sig[32:], "big"))
            key.verify(der, signed, ec.ECDSA(hashes.SHA256()))
        else:
            raise ValueError("alg must be EdDSA (Ed25519) or ES256 (P-256) with its jwk")
    except InvalidSignature:
        raise ValueError("the signature does not verify") from None
    return payload, thumbprint(jwk)


def check_line(line):
    """Verifies one export line; returns (run id, None) or (id, reason).
    Raises ValueError when the line itself is not a JSON object."""
    run = loads(line, "the line", LINE_DEPTH)
    if not isinstance(run, dict):
        raise ValueError("the line is not a JSON object")
    rid = run.get("id", "?")
    try:
        payload, thumb = verify_jws(run["jws"])
        loads(payload, "the payload")
        w = run.get("withdrawal")
        if run.get("withdrawn") or w:
            if not w or not w.get("jws"):
                raise ValueError("withdrawn without its signed withdrawal")
            wpayload, wthumb = verify_jws(w["jws"])
            if wthumb != thumb:
                raise ValueError("withdrawal signed by another key than the run's")
            body = loads(wpayload, "the withdrawal's payload")
            if not isinstance(body, dict) or body.get("run_id") != rid or body.get("action") != "withdraw":
                raise ValueError("withdrawal payload does not name this run and action")
    except (ValueError, KeyError, TypeError, AttributeError, RecursionError) as e:
        return rid, str(e) or type(e).__name__
    return rid, None


def open_export(path):
    if path == "-":
        raw = sys.stdin.buffer.read()
    else:
        with open(path, "rb") as f:
            raw = f.read()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    return raw.decode("utf-8").splitlines()


def main(argv):
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    try:
        lines = open_export(argv[1])
    except (OSError, UnicodeDecodeError, EOFError) as e:
        print("cannot read %s: %s" % (argv[1], e), file=sys.stderr)
        return 2
    bad = n = 0
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        n += 1
        try:
            rid, why = check_line(line)
            where = "%s (line %d)" % (rid, number)
        except (ValueError, RecursionError) as e:
            where, why = "line %d" % number, "not an export line: %s" % (str(e) or type(e).__name__)
        if why:
            bad += 1
            print("FAIL %s: %s" % (where, why))
    print("%d runs, %d verified, %d failed" % (n, n - bad, bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
