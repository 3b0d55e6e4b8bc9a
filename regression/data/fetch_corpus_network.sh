#!/usr/bin/env bash
# The real fetch-corpus run (label 'full'): Debian archive -> train/dev/test, then run it again
# to check it is idempotent.
set -euo pipefail
rd="$1" repo="$2"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
"$repo/tools/fetch-corpus" --out "$tmp/corpus" --realmt-data "$rd" | tee "$tmp/log"
n="$(wc -l < "$tmp/corpus/train.en")"
[[ "$n" -ge 50000 ]] || { echo "FAIL: only $n training pairs"; exit 1; }
[[ "$(wc -l < "$tmp/corpus/train.fr")" -eq "$n" ]] || { echo "FAIL: train sides differ"; exit 1; }
[[ "$(wc -l < "$tmp/corpus/dev.en")" -eq 1000 && "$(wc -l < "$tmp/corpus/test.en")" -eq 2000 ]] || { echo "FAIL: dev/test sizes"; exit 1; }
"$repo/tools/fetch-corpus" --out "$tmp/corpus" --realmt-data "$rd" > "$tmp/log2"
grep -q "complete already" "$tmp/log2" || { echo "FAIL: not idempotent"; exit 1; }
echo "PASS: fetch-corpus wrote $n training pairs"
