#!/usr/bin/env python3
"""Compares the tensors of two safetensors files (f32/f64), for the data-parallel test.

usage: compare_safetensors.py A B [--max-abs X] [--skip SUBSTRING ...] [--skip-range SUBSTRING:BEGIN:END ...]

Prints max |a - b| over the checked tensors (and, for information, over the skipped ones). Exits 1
when it exceeds --max-abs, when names, shapes or dtypes differ, or when a file is truncated.
Only the standard library: the header is JSON after an 8-byte little-endian length."""
import argparse
import json
import math
import struct
import sys
from array import array


def load(path):
    with open(path, "rb") as f:
        data = f.read()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + n])
    header.pop("__metadata__", None)
    base = 8 + n
    ends = [t["data_offsets"][1] for t in header.values()]
    if base + max(ends, default=0) != len(data):
        sys.exit(f"{path}: {len(data)} bytes, the header describes {base + max(ends, default=0)}: truncated or foreign")
    out = {}
    for name, t in header.items():
        code = {"F32": "f", "F64": "d"}.get(t["dtype"])
        if code is None:
            sys.exit(f"{path}: {name} has dtype {t['dtype']}; only F32/F64 are compared")
        begin, end = t["data_offsets"]
        a = array(code)
        a.frombytes(data[base + begin:base + end])
        if sys.byteorder != "little":
            a.byteswap()
        out[name] = (t["shape"], t["dtype"], a)
    return out


def main():
    p = argparse.ArgumentParser()
    p.add_argument("a")
    p.add_argument("b")
    p.add_argument("--max-abs", type=float, default=0.0, help="limit on max |a-b| (default 0: bit-identical)")
    p.add_argument("--skip", nargs="*", default=[],
                   help="tensors whose name contains one of these are reported, not checked")
    p.add_argument("--skip-range", nargs="*", default=[],
                   help="SUBSTRING:BEGIN:END: elements [BEGIN, END) of tensors whose name contains SUBSTRING are "
                        "reported, not checked")
    args = p.parse_args()
    ranges = []
    for spec in args.skip_range:
        key, begin, end = spec.rsplit(":", 2)
        ranges.append((key, int(begin), int(end)))
    a, b = load(args.a), load(args.b)
    if sorted(a) != sorted(b):
        sys.exit(f"tensor names differ: {sorted(set(a) ^ set(b))[:5]}")
    checked = {"max": 0.0, "at": "", "n": 0, "same": 0}
    skipped = {"max": 0.0, "at": "", "n": 0, "same": 0}
    for name in sorted(a):
        sa, da, va = a[name]
        sb, db, vb = b[name]
        if sa != sb or da != db:
            sys.exit(f"{name}: {da}{sa} vs {db}{sb}")
        whole = skipped if any(k in name for k in args.skip) else checked
        for i, (x, y) in enumerate(zip(va, vb)):
            r = skipped if any(k in name and lo <= i < hi for k, lo, hi in ranges) else whole
            d = abs(x - y)
            if not math.isfinite(d):
                sys.exit(f"{name}[{i}]: {x} vs {y}")
            if d > r["max"]:
                r["max"], r["at"] = d, f"{name}[{i}] {x!r} vs {y!r}"
            r["n"] += 1
            r["same"] += d == 0
    for label, r in (("checked", checked), ("skipped", skipped)):
        if r["n"]:
            print(f"{label}: {r['n']} values, {r['same']} identical; max |a-b| = {r['max']:.3e} {r['at']}")
    if checked["max"] > args.max_abs:
        print(f"FAIL: max |a-b| = {checked['max']:.3e} > {args.max_abs:.3e}")
        sys.exit(1)


if __name__ == "__main__":
    main()
