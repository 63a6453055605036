#!/usr/bin/env python3
"""rk_token() against Cassandra's token, as the DataStax driver computes it.

tests/harness/vectors/rk_token.jsonl.gz holds 100,000 partition keys and their
tokens, computed by Debian's python3-cassandra (cassandra.metadata.
Murmur3Token.hash_fn over the key's bytes, the driver's own Murmur3): one
value or a composite of 2 to 4, of every storage class, bytes of 0x80 and
above everywhere, empty values in composites, lengths around the 16-byte
blocks.  Each
line is {"a": [[type, value], ...], "t": token}, a value as the driver
serializes it from: "i" an integer, "r" a double (its 8 bytes in hex, so
it round-trips exactly), "t" a text, "b" a blob in hex.

Checks rk_token() on every vector; when the driver is installed, also
checks every vector's token against the driver again (the file cannot
drift from it).  --generate writes the file (needs the driver).

Usage: token_check.py [--extension ./widecol] [--generate]
"""
import argparse
import gzip
import json
import os
import random
import struct
import sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import wctest  # noqa: E402

VECTORS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "vectors", "rk_token.jsonl.gz")
COUNT = 100000


def value_of(arg):
    kind, v = arg
    if kind == "r":
        return struct.unpack(">d", bytes.fromhex(v))[0]
    if kind == "b":
        return bytes.fromhex(v)
    return v


def key_bytes(args):
    """The partition key's bytes as Cassandra serializes it."""
    parts = []
    for kind, v in args:
        if kind == "i":
            parts.append(struct.pack(">q", v))
        elif kind == "r":
            parts.append(bytes.fromhex(v))
        elif kind == "t":
            parts.append(v.encode("utf-8"))
        else:
            parts.append(bytes.fromhex(v))
    if len(parts) == 1:
        return parts[0]
    return b"".join(struct.pack(">H", len(p)) + p + b"\x00" for p in parts)


def random_arg(r):
    kind = r.choice("bbbbttir")
    if kind == "b":
        # Lengths around the 16-byte blocks and the 8-byte halves of the
        # tail, bytes of every value.
        n = r.choice([0, 1, 7, 8, 9, 15, 16, 17, 31, 32, 33, r.randint(0, 80)])
        return ["b", bytes(r.randrange(256) for _ in range(n)).hex()]
    if kind == "t":
        alphabet = "ab0_ é日\U0001F600\u00ff\u0100"
        return ["t", "".join(r.choice(alphabet) for _ in range(r.randint(0, 24)))]
    if kind == "i":
        return ["i", r.choice([0, 1, -1, 2**63 - 1, -2**63, r.randint(-1000, 1000),
                               r.randint(-2**63, 2**63 - 1)])]
    x = r.choice([0.0, -0.0, 1.5, -2.25, 1e300, r.uniform(-1e6, 1e6)])
    return ["r", struct.pack(">d", x).hex()]


def generate():
    from cassandra.metadata import Murmur3Token
    r = random.Random(20261123)
    os.makedirs(os.path.dirname(VECTORS), exist_ok=True)
    with gzip.open(VECTORS, "wt", encoding="utf-8") as f:
        for i in range(COUNT):
            n = 1 if r.random() < 0.7 else r.randint(2, 4)
            args = [random_arg(r) for _ in range(n)]
            while not key_bytes(args):
                # Cassandra refuses an empty key (rk_token too: its test is
                # in tests/logic/rk_token.test); an empty part of a composite is
                # a key.
                args = [random_arg(r)]
            f.write(json.dumps({"a": args, "t": Murmur3Token.hash_fn(key_bytes(args))},
                               ensure_ascii=False) + "\n")
    print("token check: wrote %d vectors to %s" % (COUNT, VECTORS))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--extension", default="./widecol")
    ap.add_argument("--generate", action="store_true")
    args = ap.parse_args()
    if args.generate:
        generate()
    with gzip.open(VECTORS, "rt", encoding="utf-8") as f:
        vectors = [json.loads(line) for line in f]
    db = wctest.connect(args.extension)
    failed, kinds = 0, {}
    for vec in vectors:
        vals = [value_of(a) for a in vec["a"]]
        sql = "SELECT rk_token(%s)" % ", ".join("?" * len(vals))
        got = db.execute(sql, vals).fetchone()[0]
        kind = "composite" if len(vals) > 1 else vec["a"][0][0]
        kinds[kind] = kinds.get(kind, 0) + 1
        high = any(b >= 0x80 for b in key_bytes(vec["a"]))
        kinds["with a byte >= 0x80"] = kinds.get("with a byte >= 0x80", 0) + high
        if got != vec["t"]:
            failed += 1
            if failed <= 5:
                print("token check: rk_token%r = %r, the driver's token is %r" % (
                    tuple(vals), got, vec["t"]))
    try:
        from cassandra.metadata import Murmur3Token
        drift = sum(Murmur3Token.hash_fn(key_bytes(v["a"])) != v["t"] for v in vectors)
        driver = "; the driver gives every stored token again" if drift == 0 else \
            "; the driver now gives %d stored tokens differently" % drift
        failed += drift
    except ImportError:
        driver = " (python3-cassandra not installed: the stored tokens were not recomputed)"
    print("token check: %d vectors (%s), %d differ from the driver's tokens%s" % (
        len(vectors), ", ".join("%d %s" % (n, k) for k, n in sorted(kinds.items())),
        failed, driver))
    return 1 if failed or len(vectors) < COUNT else 0


if __name__ == "__main__":
    sys.exit(main())
