#!/usr/bin/env bash
# The quickstart recipe chosen by measurement: trains each configuration of a sweep for the same
# budget and scores its translation of the dev set (BLEU and chrF, sacreBLEU-compatible).
#
#   bench/quickstart/sweep.sh --data DIR [--minutes 10] [--configs FILE] [--out DIR] [--build DIR]
#                             [--only NAME...] [--calibrate-updates 60] [--calibrate-prefix CMD]
#
# Budget: `--minutes` of this machine's training throughput for each configuration. A short
# calibration run measures the configuration's target tokens/s (after `--calibrate-updates`
# updates, ignoring the first 20); the real run then trains for minutes x 60 x tokens/s target
# tokens (realmt-train --after Nt). On an idle machine that is the same as --time-limit; on a
# shared one it keeps the comparison fair, as long as the calibration runs alone
# (--calibrate-prefix wraps only the calibration command, e.g. a script that pauses other jobs).
# Each run: realmt-train on DIR/train.{en,fr} with marian-style-configs/cpu-small.yml plus the
# line's options, validation on the first 500 lines of dev; then realmt-translate (beam 4) of
# the whole dev set (normalize 0.6, as the quickstart) and realmt-bleu. The table (markdown) goes to stdout and OUT/results.md.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
data="" minutes=10 configs="$root/bench/quickstart/configs.txt" out="$root/out/sweep" build="$root/build"
calib_updates=60 calib_prefix="" only=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --data) data="$2"; shift 2 ;;
    --minutes) minutes="$2"; shift 2 ;;
    --configs) configs="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --build) build="$2"; shift 2 ;;
    --calibrate-updates) calib_updates="$2"; shift 2 ;;
    --calibrate-prefix) calib_prefix="$2"; shift 2 ;;
    --only) shift; while [[ $# -gt 0 && $1 != --* ]]; do only+=("$1"); shift; done ;;
    -h|--help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "sweep.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
done
[[ -n "$data" ]] || { echo "sweep.sh: --data DIR is required (train/dev .en/.fr)" >&2; exit 2; }
for f in train.en train.fr dev.en dev.fr; do [[ -s "$data/$f" ]] || { echo "sweep.sh: $data/$f missing" >&2; exit 1; }; done
bin="$build/apps"
for p in realmt-data realmt-train realmt-translate realmt-bleu; do
  [[ -x "$bin/$p" ]] || { echo "sweep.sh: $bin/$p not built" >&2; exit 1; }
done
mkdir -p "$out"
head -n 500 "$data/dev.en" > "$out/valid.en"
head -n 500 "$data/dev.fr" > "$out/valid.fr"
results="$out/results.md"
[[ -s "$results" ]] || {
  echo "| run | options | vocab | params | tgt tok/s | budget (tgt tokens) | updates | epochs | valid ppl | dev BLEU | dev chrF2 |"
  echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
} > "$results"

vocab_for() {  # joint SentencePiece model of the given size, made once
  local v="$out/vocab$1.spm"
  [[ -s "$v" ]] || "$bin/realmt-data" vocab -i "$data/train.en" "$data/train.fr" -o "$v" --vocab-size "$1" \
    --sampled-lines 400000 >&2
  echo "$v"
}
last_metric() {  # last value of a field in a metrics JSONL file
  python3 -c "import json,sys
v=None
for l in open(sys.argv[1]):
    d=json.loads(l)
    if sys.argv[2] in d: v=d[sys.argv[2]]
print(v if v is not None else '')" "$1" "$2"
}

while read -r name vocab opts; do
  [[ -z "$name" || "$name" == \#* ]] && continue
  if [[ ${#only[@]} -gt 0 && ! " ${only[*]} " =~ " $name " ]]; then continue; fi
  if grep -q "^| $name |" "$results"; then echo "== $name: done already" >&2; continue; fi
  run="$out/$name"
  rm -rf "$run"
  mkdir -p "$run/calib"
  spm="$(vocab_for "$vocab")"
  # shellcheck disable=SC2206
  extra=($opts)
  common=(-c "$root/marian-style-configs/cpu-small.yml" --train-sets "$data/train.en" "$data/train.fr"
          --vocabs "$spm" --valid-sets "$out/valid.en" "$out/valid.fr" --quiet-progress --time-limit 0 "${extra[@]}")
  echo "== $name: calibrating ($calib_updates updates)" >&2
  $calib_prefix "$bin/realmt-train" "${common[@]}" --model "$run/calib/model.safetensors" --after "${calib_updates}u" \
    --disp-freq 10u --valid-freq 100000u --save-freq 100000u >"$run/calib.log" 2>&1
  rate="$(python3 - "$run/calib/model.metrics.jsonl" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
rows = [r for r in rows if "tgt_tokens_per_s" in r or "tokens_per_s" in r]
key = "tgt_tokens_per_s" if rows and "tgt_tokens_per_s" in rows[0] else "tokens_per_s"
vals = [r[key] for r in rows[2:]] or [r[key] for r in rows]
vals.sort()
print(vals[len(vals) // 2])
PY
)"
  budget="$(python3 -c "print(int(float('$rate') * 60 * $minutes))")"
  echo "== $name: $rate target tokens/s -> budget $budget target tokens" >&2
  start=$(date +%s)
  "$bin/realmt-train" "${common[@]}" --model "$run/model.safetensors" --after "${budget}t" >"$run/train.log" 2>&1
  echo "== $name: trained in $(( $(date +%s) - start )) s" >&2
  "$bin/realmt-translate" --models "$run/model.safetensors" --vocabs "$spm" --input "$data/dev.en" \
    --output "$run/dev.hyp" --beam-size 4 --normalize 0.6 --mini-batch 32 >"$run/translate.log" 2>&1
  scores=($("$bin/realmt-bleu" "$data/dev.fr" -i "$run/dev.hyp" -m bleu chrf -b | tr -d '[],'))
  bleu="${scores[0]}" chrf="${scores[1]}"
  m="$run/model.metrics.jsonl"
  params="$(grep -o '[0-9]* parameters' "$run/train.log" | head -1 | cut -d' ' -f1)"
  updates="$(last_metric "$m" updates)" epochs="$(last_metric "$m" epoch)" ppl="$(last_metric "$m" perplexity)"
  echo "| $name | ${opts:-} | $vocab | $params | $rate | $budget | $updates | $epochs | $ppl | $bleu | $chrf |" >> "$results"
  tail -n 1 "$results" >&2
done < "$configs"
echo "# sweep: $minutes minutes of each configuration's throughput; data $data; $(nproc) cores"
cat "$results"
