#!/usr/bin/env bash
# The real fetch-corpus run (label 'full'): Debian archive -> train/dev/test, then run it again
# to check it is idempotent.
set -euo pipefail
# shellcheck source=SCRIPTDIR/../lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
rd="$1" repo="$2"
tmp="$(mktemp -d)"
remove_on_exit "$tmp"
"$repo/tools/fetch-corpus" --out "$tmp/corpus" --realmt-data "$rd" | tee "$tmp/log"
n="$(wc -l < "$tmp/corpus/train.en")"
[[ "$n" -ge 50000 ]] || fail "only $n training pairs"
[[ "$(wc -l < "$tmp/corpus/train.fr")" -eq "$n" ]] || fail "train sides differ"
[[ "$(wc -l < "$tmp/corpus/dev.en")" -eq 1000 && "$(wc -l < "$tmp/corpus/test.en")" -eq 2000 ]] || fail "dev/test sizes"
"$repo/tools/fetch-corpus" --out "$tmp/corpus" --realmt-data "$rd" > "$tmp/log2"
grep -q "complete already" "$tmp/log2" || fail "not idempotent"
echo "PASS: fetch-corpus wrote $n training pairs"
