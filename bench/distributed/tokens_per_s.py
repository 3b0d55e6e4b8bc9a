#!/usr/bin/env python3
"""Target tokens/s of a realmt-train metrics file over the updates after the first SKIP:
sum of (each display's tgt_tokens_per_s x its interval) / their wall time. disp-freq must be 1u."""
import json
import sys

path, skip = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 5
rows = [json.loads(line) for line in open(path)]
rows = [r for r in rows if r["type"] == "train"]
timed = rows[skip:]
tokens = sum(r["tgt_tokens_per_s"] * (r["seconds"] - p["seconds"]) for p, r in zip(rows[skip - 1:], timed))
seconds = timed[-1]["seconds"] - rows[skip - 1]["seconds"]
print(f"{tokens / seconds:.0f} tgt tokens/s, {seconds / len(timed):.2f} s/update")
