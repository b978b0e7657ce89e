#!/usr/bin/env python3
"""Offline auditor for llm-speed's transparency log (C2SP tlog-tiles,
tlog-checkpoint and signed-note; RFC 6962 hashing; tile height 8).

    tlog-verify.py SOURCE --key VKEY [--old CHECKPOINT] [--run RUN_ID] [--save DIR]

SOURCE is the log's URL prefix (https://host/log) or a folder holding the
same layout (checkpoint, tile/0/000, tile/entries/000, ...), e.g. one made
with --save.  VKEY is the verifier key shown on /log, which you pin once:
<origin>+<key id>+<base64 key>.

It checks, and exits 1 at the first failure:
  - the checkpoint's Ed25519 signature by VKEY, and that its origin is VKEY's name;
  - every entry bundle: each entry hashes to its leaf, and the tree rebuilt
    from all the leaves has the checkpoint's root hash;
  - every tile the checkpoint covers at every level equals the hashes
    recomputed from the leaves;
  - with --old, that an earlier checkpoint (saved from /log/checkpoint) is
    signed by VKEY and its tree is a prefix of this one (same root over its
    first entries): the log was not rolled back or forked;
  - with --run, that the run's entry "run <id> <sha256 of /r/<id>.jws>" is
    in the tree and, over HTTP, that /r/<id>.jws hashes to it and that the
    inclusion proof in /r/<id>.json checks against its checkpoint.
Needs Python 3 and python3-cryptography.
"""
import argparse
import base64
import hashlib
import json
import os
import struct
import sys
import urllib.request

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

HEIGHT = 8
WIDTH = 1 << HEIGHT


class Failed(Exception):
    pass


def leaf_hash(data):
    return hashlib.sha256(b"\x00" + data).digest()


def node_hash(left, right):
    return hashlib.sha256(b"\x01" + left + right).digest()


def mth(hashes):
    """RFC 6962 MTH over a list of leaf hashes."""
    if not hashes:
        return hashlib.sha256(b"").digest()
    if len(hashes) == 1:
        return hashes[0]
    k = 1
    while k << 1 < len(hashes):
        k <<= 1
    return node_hash(mth(hashes[:k]), mth(hashes[k:]))


def tile_path(level, n, width):
    """tlog-tiles path: N as x001/x234/067, .p/W for a partial tile."""
    digits = "%d" % n
    digits = "0" * (-len(digits) % 3) + digits
    groups = [digits[i:i + 3] for i in range(0, len(digits), 3)]
    path = "/".join(["x" + g for g in groups[:-1]] + [groups[-1]])
    name = "entries" if level < 0 else str(level)
    return "tile/%s/%s%s" % (name, path, "" if width == WIDTH else ".p/%d" % width)


class Source:
    def __init__(self, where, save=None):
        self.where = where.rstrip("/")
        self.http = where.startswith(("http://", "https://"))
        self.save = save

    def get(self, rel):
        if self.http:
            try:
                with urllib.request.urlopen(self.where + "/" + rel, timeout=30) as r:
                    data = r.read()
            except OSError as e:
                raise Failed("cannot fetch %s/%s: %s" % (self.where, rel, e))
        else:
            try:
                with open(os.path.join(self.where, rel), "rb") as f:
                    data = f.read()
            except OSError as e:
                raise Failed("cannot read %s: %s" % (os.path.join(self.where, rel), e))
        if self.save:
            path = os.path.join(self.save, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "wb") as f:
                f.write(data)
        return data


def parse_vkey(vkey):
    try:
        name, keyid, key = vkey.split("+", 2)
        raw = base64.b64decode(key, validate=True)
    except ValueError:
        raise Failed("the verifier key must be <name>+<key id>+<base64 key>")
    if len(raw) != 33 or raw[0] != 1:
        raise Failed("the verifier key is not an Ed25519 signed-note key")
    want = hashlib.sha256(name.encode() + b"\n" + raw).digest()[:4]
    if want.hex() != keyid:
        raise Failed("the verifier key's id does not match its name and key")
    return name, want, Ed25519PublicKey.from_public_bytes(raw[1:])


def open_checkpoint(text, vkey):
    """Checks the signed note; returns (size, root)."""
    name, keyid, pub = vkey
    if b"\n\n" not in text:
        raise Failed("the checkpoint is not a signed note (no blank line)")
    body, sigs = text.split(b"\n\n", 1)
    body += b"\n"
    good = False
    for line in sigs.decode("utf-8", "replace").splitlines():
        parts = line.split(" ")
        if len(parts) != 3 or parts[0] != "\u2014" or parts[1] != name:
            continue
        sig = base64.b64decode(parts[2])
        if sig[:4] != keyid:
            continue
        try:
            pub.verify(sig[4:], body)
            good = True
        except InvalidSignature:
            raise Failed("the checkpoint's signature by %s does not verify" % name)
    if not good:
        raise Failed("the checkpoint carries no signature by the pinned key %s" % name)
    lines = body.decode().split("\n")
    if lines[0] != name:
        raise Failed("the checkpoint's origin %r is not the key's name %r" % (lines[0], name))
    return int(lines[1]), base64.b64decode(lines[2])


def fetch_entries(src, size):
    entries = []
    for n in range((size + WIDTH - 1) // WIDTH):
        width = min(WIDTH, size - n * WIDTH)
        data = src.get(tile_path(-1, n, width))
        got = []
        while data:
            (length,) = struct.unpack(">H", data[:2])
            got.append(data[2:2 + length])
            data = data[2 + length:]
        if len(got) != width:
            raise Failed("entry bundle %s holds %d entries, not %d" % (tile_path(-1, n, width), len(got), width))
        entries.extend(got)
    return entries


def check_tiles(src, leaves, size):
    """Every tile covered by size, at every level, against the leaves."""
    level, hashes = 0, leaves
    while True:
        count = len(hashes)          # hashes at tree level 8 * level
        for n in range((count + WIDTH - 1) // WIDTH):
            width = min(WIDTH, count - n * WIDTH)
            want = b"".join(hashes[n * WIDTH:n * WIDTH + width])
            if src.get(tile_path(level, n, width)) != want:
                raise Failed("tile %s differs from the hashes of the entries" % tile_path(level, n, width))
        full = count // WIDTH
        if full == 0:
            return
        hashes = [mth(hashes[i * WIDTH:(i + 1) * WIDTH]) for i in range(full)]
        level += 1


def check_inclusion(leaf, index, size, proof, root):
    """RFC 9162 2.1.3.2."""
    if index >= size:
        return False
    fn, sn, r = index, size - 1, leaf
    for p in proof:
        if sn == 0:
            return False
        if fn & 1 or fn == sn:
            r = node_hash(p, r)
            while not fn & 1 and fn != 0:
                fn >>= 1
                sn >>= 1
        else:
            r = node_hash(r, p)
        fn >>= 1
        sn >>= 1
    return sn == 0 and r == root


def check_run(src, run_id, entries, vkey):
    prefix = "run %s " % run_id
    found = [i for i, e in enumerate(entries) if e.decode("utf-8", "replace").startswith(prefix)]
    if len(found) != 1:
        raise Failed("run %s is %s in the log" % (run_id, "not" if not found else "more than once"))
    index = found[0]
    sha = entries[index].decode().split(" ")[2].strip()
    print("ok run %s is entry %d" % (run_id, index))
    if not src.http:
        return
    site = src.where[:-len("/log")] if src.where.endswith("/log") else src.where
    with urllib.request.urlopen("%s/r/%s.jws" % (site, run_id), timeout=30) as r:
        if hashlib.sha256(r.read()).hexdigest() != sha:
            raise Failed("/r/%s.jws does not hash to its log entry" % run_id)
    with urllib.request.urlopen("%s/r/%s.json" % (site, run_id), timeout=30) as r:
        log = json.load(r)["log"]
    if log.get("index") != index:
        raise Failed("/r/%s.json names leaf %s, the log holds it at %d" % (run_id, log.get("index"), index))
    if "inclusion_proof" in log:
        size, root = open_checkpoint(log["checkpoint"].encode(), vkey)
        proof = [base64.b64decode(h) for h in log["inclusion_proof"]]
        if not check_inclusion(leaf_hash(entries[index]), index, size, proof, root):
            raise Failed("the inclusion proof in /r/%s.json does not check" % run_id)
        print("ok /r/%s.json proves entry %d in the checkpoint of %d entries" % (run_id, index, size))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("source", help="log URL prefix (https://host/log) or folder")
    ap.add_argument("--key", required=True, help="the pinned verifier key from /log")
    ap.add_argument("--old", help="a checkpoint saved earlier, to check consistency with")
    ap.add_argument("--run", help="a run id whose inclusion to check")
    ap.add_argument("--save", help="also write everything fetched under this folder")
    a = ap.parse_args()
    try:
        vkey = parse_vkey(a.key)
        src = Source(a.source, a.save)
        size, root = open_checkpoint(src.get("checkpoint"), vkey)
        entries = fetch_entries(src, size)
        leaves = [leaf_hash(e) for e in entries]
        if mth(leaves) != root:
            raise Failed("the entries do not hash to the checkpoint's root")
        check_tiles(src, leaves, size)
        print("ok checkpoint of %d entries: signature, entries and tiles" % size)
        if a.old:
            with open(a.old, "rb") as f:
                osize, oroot = open_checkpoint(f.read(), vkey)
            if osize > size or mth(leaves[:osize]) != oroot:
                raise Failed("the old checkpoint of %d entries is not a prefix of this log: "
                             "the log was rolled back or forked" % osize)
            print("ok consistent with the old checkpoint of %d entries" % osize)
        if a.run:
            check_run(src, a.run, entries, vkey)
    except Failed as e:
        print("FAILED: %s" % e, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
