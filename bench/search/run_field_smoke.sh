#!/usr/bin/env bash
# Smoke test of run_field.sh at small scale: a vocabulary and a Marian model made in a few
# seconds from 20,000 pairs of the l10n en-fr corpus, 40 test lines, one run of beam 4 f32,
# greedy f32 and greedy int8 with the three engines. It checks the table (every engine in every
# mode) and that CTranslate2 and Marian, decoding the converted weights with the same search,
# give realmt's greedy f32 translation on at least 80% of the lines where no output reaches the
# length limit (the limits differ by batch, see run_field.sh); a broken conversion or search
# setting makes them differ. Skips without the corpus or network (pip).
# Usage: run_field_smoke.sh BUILD_DIR VENV_DIR [DATA_DIR]
set -euo pipefail
build="$(cd "$1" && pwd)"
venv="$2"
here="$(cd "$(dirname "$0")" && pwd)"
data="${3:-$here/../../../shared/data/l10n-enfr}"
[[ -f "$data/train.en" ]] || { echo "SKIP: no corpus at $data"; exit 77; }
bash "$here/../../regression/pinned_venv.sh" "$venv" pymarian==1.12.42 ctranslate2==4.8.5 sentencepiece==0.2.0 \
  > /dev/null || { echo "SKIP: cannot make the venv (network)"; exit 77; }
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/data"
for s in en fr; do
  head -n 20000 "$data/train.$s" > "$tmp/data/train.$s"
  head -n 40 "$data/test.$s" > "$tmp/data/test.$s"
done
"$build/apps/realmt-data" vocab -i "$tmp/data/train.en" "$tmp/data/train.fr" -o "$tmp/vocab.spm" --vocab-size 2000 \
  > "$tmp/vocab.log" 2>&1 || { cat "$tmp/vocab.log"; exit 1; }
bash "$here/run_field.sh" --build "$build" --venv "$venv" --out "$tmp/out" --data "$tmp/data" --vocab "$tmp/vocab.spm" \
  --train-minutes 0.5 --runs 1 --modes "beam4-f32 greedy-f32 greedy-int8" | tee "$tmp/table.txt"
python3 - "$tmp/table.txt" <<'PY'
import sys
rows = {}
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) == 11 and f[0] in ("realmt", "ctranslate2", "marian"):
        rows[(f[0], f[1])] = f
want = {(e, m) for e in ("realmt", "ctranslate2", "marian") for m in ("beam4-f32", "greedy-f32", "greedy-int8")}
missing = want - set(rows)
assert not missing, f"rows missing from the table: {sorted(missing)}"
for e in ("ctranslate2", "marian"):
    free = rows[(e, "greedy-f32")][9]
    assert free != "-", f"{e}: every greedy f32 line reaches the length limit: nothing to compare"
    share = float(free.rstrip("%"))
    print(f"{e} greedy f32: {share}% of the lines under the length limit identical to realmt's")
    assert share >= 80, f"{e}: only {share}% of the greedy f32 lines under the limit equal realmt's"
PY
