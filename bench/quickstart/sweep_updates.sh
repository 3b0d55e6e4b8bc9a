#!/usr/bin/env bash
# The quickstart recipe chosen on the honest dev split (issue 36), with budgets that the load of
# the machine cannot change: every run trains a fixed number of updates.
#
#   bench/quickstart/sweep_updates.sh --data DIR [--updates 2100] [--configs FILE] [--out DIR]
#                                     [--build DIR] [--only NAME...] [--threads 2] [--devices 0]
#                                     [--parallel N] [--calibrate-updates 20,120]
#
# --updates: the base recipe's updates in 10 minutes on an idle machine (the quickstart's own
# training log says how many it reached). A line that changes the work of an update (width, depth,
# FFN, batch size, vocabulary) gets that budget scaled by its measured cost: two short runs (20
# and 120 updates) of the line and of the base measure CPU seconds (user + system, from
# getrusage: unlike wall time, this does not change with other load, to first order) per update as
# the difference of the two, and the line trains updates x base / line cost. Lines that only change
# the optimisation (learning rate, smoothing, label smoothing) cost the same per update: no
# calibration. A line may also give its own `--after Nu`.
# Each run: realmt-train on DIR/train.{en,fr} with marian-style-configs/cpu-small.yml plus the
# line's options (validation on the first 500 dev lines every 100 updates, as the quickstart),
# then realmt-translate of the whole dev set at beam 4 with normalize 0.6, 1.0 and 1.5, and with
# the average of the last four checkpoints at the recipe's normalize, each scored by realmt-bleu.
# The table (markdown) goes to stdout and OUT/results.md; a finished line is not run again.
# --devices 0 trains and translates on that GPU (the update counts still come from the CPU-time
# calibration, on this machine's CPU with --threads threads), and --parallel N runs N lines at
# once (each calibration and run still has its own threads: use it where there are cores to spare).
# Training is deterministic, so a line gives the same model on any load; on a GPU it follows a
# trajectory within rounding of the CPU's (the device check compares them).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
data="" updates=2100 configs="$root/bench/quickstart/configs-honest.txt" out="$root/out/sweep-honest"
build="$root/build" threads=2 devices="" parallel=1 cal_a=20 cal_b=120 only=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --data) data="$2"; shift 2 ;;
    --updates) updates="$2"; shift 2 ;;
    --configs) configs="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --build) build="$2"; shift 2 ;;
    --threads) threads="$2"; shift 2 ;;
    --devices) devices="$2"; shift 2 ;;
    --parallel) parallel="$2"; shift 2 ;;
    --calibrate-updates) IFS=, read -r cal_a cal_b <<< "$2"; shift 2 ;;
    --only) shift; while [[ $# -gt 0 && $1 != --* ]]; do only+=("$1"); shift; done ;;
    -h|--help) sed -n '2,27p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "sweep_updates.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
done
[[ -n "$data" ]] || { echo "sweep_updates.sh: --data DIR is required (train/dev .en/.fr)" >&2; exit 2; }
for f in train.en train.fr dev.en dev.fr; do
  [[ -s "$data/$f" ]] || { echo "sweep_updates.sh: $data/$f missing" >&2; exit 1; }
done
bin="$build/apps"
for p in realmt-data realmt-train realmt-translate realmt-bleu realmt-average; do
  [[ -x "$bin/$p" ]] || { echo "sweep_updates.sh: $bin/$p not built" >&2; exit 1; }
done
mkdir -p "$out"
head -n 500 "$data/dev.en" > "$out/valid.en"
head -n 500 "$data/dev.fr" > "$out/valid.fr"
results="$out/results.md"
[[ -s "$results" ]] || {
  echo "| run | options | vocab | params | CPU s / update | updates | epochs | valid ppl | dev BLEU n0.6 | n1.0 | n1.5 | dev chrF2 n1.0 | avg of last 4, BLEU n1.0 |"
  echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
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
cpu_seconds() {  # runs a command; prints the user + system CPU seconds it used
  python3 -c "import resource, subprocess, sys
rc = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
r = resource.getrusage(resource.RUSAGE_CHILDREN)
print(r.ru_utime + r.ru_stime)
sys.exit(rc)" "$@"
}
train_common() {  # NAME VOCAB OPTIONS...: the realmt-train command line of a sweep line, without --model
  local spm; spm="$(vocab_for "$2")"
  shift 2
  echo -c "$root/marian-style-configs/cpu-small.yml" --train-sets "$data/train.en" "$data/train.fr" \
    --vocabs "$spm" --valid-sets "$out/valid.en" "$out/valid.fr" --quiet-progress --time-limit 0 \
    --cpu-threads "$threads" "$@"
}
cost_per_update() {  # VOCAB OPTIONS...: CPU seconds per update (cal_b minus cal_a updates, over the difference)
  local dir; dir="$(mktemp -d "$out/calib.XXXX")"
  # shellcheck disable=SC2046
  local a b; a=$(cpu_seconds "$bin/realmt-train" $(train_common x "$@") --model "$dir/a.safetensors" \
    --after "${cal_a}u" --valid-freq 100000u --save-freq 100000u)
  # shellcheck disable=SC2046
  b=$(cpu_seconds "$bin/realmt-train" $(train_common x "$@") --model "$dir/b.safetensors" \
    --after "${cal_b}u" --valid-freq 100000u --save-freq 100000u)
  rm -rf "$dir"
  python3 -c "print(round(($b - $a) / ($cal_b - $cal_a), 4))"
}
costly() {  # VOCAB OPTIONS...: does the line change the work of an update?
  [[ "$1" != 8000 ]] && return 0
  shift
  [[ " $* " =~ \ --(dim-emb|enc-depth|dec-depth|transformer-dim-ffn|mini-batch-words|max-length)\  ]]
}
on_device=()
[[ -z "$devices" ]] || on_device=(--devices "$devices")
translate_dev() {  # MODEL SPM NORMALIZE HYP: prints "BLEU chrF2"
  "$bin/realmt-translate" "${on_device[@]}" --models "$1" --vocabs "$2" --input "$data/dev.en" --output "$4" --beam-size 4 \
    --normalize "$3" --mini-batch 32 --cpu-threads "$threads" > "$4.log" 2>&1
  "$bin/realmt-bleu" "$data/dev.fr" -i "$4" -m bleu chrf -b | tr -d '[],' | xargs
}

run_line() {  # NAME VOCAB N COST OPTIONS...: trains, translates and scores one line; writes RUN/row.md
  local name="$1" vocab="$2" n="$3" cost="$4"
  shift 4
  local run="$out/$name" spm start
  rm -rf "$run"
  mkdir -p "$run"
  spm="$(vocab_for "$vocab")"
  start=$(date +%s)
  # shellcheck disable=SC2046
  "$bin/realmt-train" $(train_common "$name" "$vocab") "${on_device[@]}" --after "${n}u" "$@" \
    --model "$run/model.safetensors" > "$run/train.log" 2>&1 || { echo "== $name: training failed" >&2; return 1; }
  echo "== $name: trained $n updates in $(( $(date +%s) - start )) s" >&2
  local -A b=()
  local norm bl ch chrf=""
  for norm in 0.6 1.0 1.5; do
    read -r bl ch < <(translate_dev "$run/model.safetensors" "$spm" "$norm" "$run/dev.n$norm.hyp")
    b[$norm]="$bl"; [[ $norm == 1.0 ]] && chrf="$ch"
  done
  local -a last4
  mapfile -t last4 < <(ls "$run"/model.iter*.safetensors 2> /dev/null | sed 's/.*iter\([0-9]*\)\..*/\1 &/' | sort -n | tail -4 | cut -d' ' -f2)
  local avg=""
  if [[ ${#last4[@]} -eq 4 ]]; then
    "$bin/realmt-average" -m "${last4[@]}" -o "$run/avg4.safetensors" > "$run/avg.log" 2>&1
    read -r avg _ < <(translate_dev "$run/avg4.safetensors" "$spm" 1.0 "$run/dev.avg4.hyp")
  fi
  local m="$run/model.metrics.jsonl" params ups epochs ppl
  params="$(grep -o '[0-9]* parameters' "$run/train.log" | head -1 | cut -d' ' -f1)"
  ups="$(last_metric "$m" updates)" epochs="$(last_metric "$m" epoch)" ppl="$(last_metric "$m" perplexity)"
  echo "| $name | $* | $vocab | $params | $cost | $ups | $epochs | $ppl | ${b[0.6]} | ${b[1.0]} | ${b[1.5]} | $chrf | $avg |" > "$run/row.md"
  cat "$run/row.md" >&2
}

# The lines to run, and each one's updates. Calibrations measure CPU time, so they may run at once.
names=()
declare -A line_vocab=() line_opts=() line_n=() line_cost=()
mkdir -p "$out/costs"
while read -r name vocab opts; do
  [[ -z "$name" || "$name" == \#* ]] && continue
  if [[ ${#only[@]} -gt 0 && ! " ${only[*]} " =~ " $name " ]]; then continue; fi
  if grep -q "^| $name |" "$results"; then echo "== $name: done already" >&2; continue; fi
  names+=("$name") line_vocab[$name]="$vocab" line_opts[$name]="$opts"
done < "$configs"
calibrate() {  # NAME VOCAB OPTIONS...: writes OUT/costs/NAME
  local name="$1"
  shift
  vocab_for "$1" > /dev/null
  [[ -s "$out/costs/$name" ]] || cost_per_update "$@" > "$out/costs/$name"
}
need_base=0
for name in "${names[@]}"; do
  # shellcheck disable=SC2206
  extra=(${line_opts[$name]})
  if [[ ! " ${line_opts[$name]} " =~ \ --after\  ]] && costly "${line_vocab[$name]}" "${extra[@]}"; then
    need_base=1
    while (( $(jobs -rp | wc -l) >= parallel )); do wait -n || true; done
    calibrate "$name" "${line_vocab[$name]}" "${extra[@]}" &
  fi
done
if [[ $need_base == 1 ]]; then calibrate base-cost 8000 & fi
wait
for name in "${names[@]}"; do
  line_n[$name]="$updates" line_cost[$name]="same as base"
  if [[ -s "$out/costs/$name" ]]; then
    base_cost="$(cat "$out/costs/base-cost")" cost="$(cat "$out/costs/$name")"
    line_n[$name]=$(python3 -c "print(int($updates * $base_cost / $cost))")
    line_cost[$name]="$cost (base $base_cost)"
    echo "== $name: $cost CPU s per update against $base_cost for the base: ${line_n[$name]} updates" >&2
  fi
done
for name in "${names[@]}"; do
  while (( $(jobs -rp | wc -l) >= parallel )); do wait -n || true; done
  vocab_for "${line_vocab[$name]}" > /dev/null  # made once, before lines that share it run at once
  # shellcheck disable=SC2086
  run_line "$name" "${line_vocab[$name]}" "${line_n[$name]}" "${line_cost[$name]}" ${line_opts[$name]} &
done
wait
for name in "${names[@]}"; do
  [[ -s "$out/$name/row.md" ]] && cat "$out/$name/row.md" >> "$results"
done
echo "# sweep: $updates updates for the base (10 minutes on an idle machine), each line at equal CPU time; data $data; $(nproc) cores"
cat "$results"
