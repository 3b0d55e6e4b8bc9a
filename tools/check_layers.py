#!/usr/bin/env python3
"""Includes point down the layers only: the layering gate (ctest `layering`, run by tools/test).

Each folder of src/ is a layer; a file may include its own layer's headers and those of the layers
below it, as ARCHITECTURE.md's "Layers" diagram and library table give them (below: each layer and
the layers it builds on directly; the check follows them down transitively). core/error.h,
core/error_message.h and core/log.h are the bottom layer `base` with common/ (they are compiled
into realmt_base, which has no tensors, so metrics/ and data/ may include them). apps/, python/,
tests/, bench/ and fuzz/ are above every layer. An include of realmt's own headers that points
upward, or sideways into a layer not below (e.g. search/ from server/ is fine, server/ from
training/ is not), is listed as "path:line: LAYER includes HEADER (layer OTHER, not below it)"
and the exit status is 1.
Usage: check_layers.py [REPO]"""
import os
import re
import sys

# Layer -> the layers it builds on directly (ARCHITECTURE.md's library table).
BELOW = {
    "base": [],
    "metrics": ["base"],
    "data": ["base", "metrics"],
    "core": ["base"],
    "backend": ["core"],
    "ops": ["backend"],
    "graph": ["ops"],
    "layers": ["graph"],
    "models": ["layers"],
    "distributed": ["backend"],
    "search": ["models", "data"],
    "convert": ["models", "data"],
    "training": ["search", "metrics", "distributed"],
    "analysis": ["search"],
    "server": ["search"],
}
BASE_HEADERS = {"core/error.h", "core/error_message.h", "core/log.h"}
INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')
SUFFIXES = (".cc", ".h", ".cu", ".cuh", ".cpp", ".hpp")


def reachable(layer):
    seen, todo = set(), [layer]
    while todo:
        for d in BELOW[todo.pop()]:
            if d not in seen:
                seen.add(d)
                todo.append(d)
    return seen


def layer_of(rel):
    """The layer of a path relative to src/ ('core/tensor.h' -> 'core'), None when not a layer."""
    if rel in BASE_HEADERS or rel.startswith("common/"):
        return "base"
    top = rel.split("/", 1)[0]
    return top if top in BELOW and "/" in rel else None


def main():
    repo = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".")
    src = os.path.join(repo, "src")
    unknown = sorted(d for d in os.listdir(src) if os.path.isdir(os.path.join(src, d)) and d not in BELOW
                     and d != "common")
    if unknown:
        print(f"check_layers: src/{unknown[0]}/ is not in the layer table: add it to BELOW (and to "
              "ARCHITECTURE.md's layers) with the layers it builds on")
        return 1
    allowed = {layer: reachable(layer) | {layer} for layer in BELOW}
    bad, files = [], 0
    for d, dirs, names in os.walk(src):
        dirs.sort()
        for n in sorted(names):
            if not n.endswith(SUFFIXES):
                continue
            path = os.path.join(d, n)
            rel = os.path.relpath(path, src)
            layer = layer_of(rel)
            if layer is None:
                continue
            files += 1
            with open(path, encoding="utf-8", errors="replace") as f:
                for line_no, line in enumerate(f, 1):
                    m = INCLUDE.match(line)
                    if not m:
                        continue
                    target = layer_of(m.group(1))
                    if target is not None and target not in allowed[layer]:
                        bad.append(f"src/{rel}:{line_no}: {layer} includes {m.group(1)} "
                                   f"(layer {target}, not below it)")
    for b in bad:
        print(b)
    print(f"layers: {files} files of src/, {len(bad)} includes pointing up or sideways")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
