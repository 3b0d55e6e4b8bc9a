#!/usr/bin/env bash
# The RealFormer study of issue 22 (RESEARCH.md): on 2 CPU cores in under 2 hours, the same
# small model (marian-style-configs/cpu-small.yml: Post-LN, ADMIN profiling, 3+3 layers of
# width 256) with residual attention none, sum and mean in all three chains, and a deep narrow
# Post-LN model (12+12 layers of width 128: the same compute per token) without and with ADMIN,
# each with 3 seeds at an equal update budget on l10n-enfr (../shared/data). Per run: BLEU and
# chrF (realmt-bleu) on 500 dev and 1000 test lines (beam 4, output length at most twice the
# source's), attention entropy and cross-layer JSD (realmt-analyze on 300 dev pairs); per
# seed, paired bootstrap (realmt-bleu --paired-bs, 1000 samples) of sum and mean against none,
# and of ADMIN against plain Post-LN. bench/research/aggregate.py writes <out>/results.md (means,
# standard deviations, p-values, per-layer medians) and bench/research/plot_summary.py
# <out>/summary-{quality,entropy,jsd}.png.
#
#   bench/research/run.sh [--smoke] [--out DIR] [--updates N] [--seeds "1 2 3"] [--threads N]
#     --smoke     5 updates per run on 2000 training pairs, 20 dev/test lines, greedy search:
#                 checks the pipeline end to end (the numbers mean nothing)
#     --updates   update budget of every run (default 500: ~4.5 min each with translation and
#                 analysis on 2 idle cores; the 15 runs took 1 h 10 min end to end on
#                 2026-12-02, see RESEARCH.md)
# Environment: BUILD_DIR (default build). Runs already finished in DIR are kept (delete a
# run's folder to redo it).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
smoke=0 out="$root/out/research" updates=500 seeds="1 2 3" threads=2
while [[ $# -gt 0 ]]; do
  case "$1" in
    --smoke) smoke=1; shift ;;
    --out) out="$2"; shift 2 ;;
    --updates) updates="$2"; shift 2 ;;
    --seeds) seeds="$2"; shift 2 ;;
    --threads) threads="$2"; shift 2 ;;
    -h|--help) sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "research: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
done
data="$root/../shared/data/l10n-enfr"
[[ -s "$data/train.en" ]] || { echo "research: $data not found (the shared data folder)" >&2; exit 1; }
build="${BUILD_DIR:-$root/build}"
bin="$build/apps"
cmake --build "$build" -j "$threads" --target realmt-data realmt-train realmt-translate realmt-bleu realmt-analyze \
  > /dev/null
export SACREBLEU_SEED=12345  # the bootstrap's resampling, reproducible
t0=$(date +%s)
step() { echo "== $* ($(( $(date +%s) - t0 )) s)"; }

mkdir -p "$out/data"
d="$out/data"
if [[ $smoke == 1 ]]; then  # greedy search: an untrained model's outputs run to the length limit
  updates=5 n_train=2000 n_dev=20 n_test=20 n_analyze=10 vocab_size=600 beam=1
else
  n_train=0 n_dev=500 n_test=1000 n_analyze=300 vocab_size=8000 beam=4
fi
if [[ ! -s "$d/test.fr" ]]; then
  step "data: l10n-enfr (train ${n_train/#0/all} pairs, dev $n_dev and test $n_test lines)"
  for l in en fr; do
    if [[ $n_train -gt 0 ]]; then head -n "$n_train" "$data/train.$l" > "$d/train.$l"; else cp "$data/train.$l" "$d/train.$l"; fi
    head -n "$n_dev" "$data/dev.$l" > "$d/dev.$l"
    head -n "$n_test" "$data/test.$l" > "$d/test.$l"
  done
fi
if [[ ! -s "$out/vocab.spm" ]]; then
  step "vocabulary ($vocab_size pieces)"
  "$bin/realmt-data" vocab -i "$d/train.en" "$d/train.fr" -o "$out/vocab.spm" --vocab-size "$vocab_size" \
    --sampled-lines 200000 > /dev/null
fi

config="$root/marian-style-configs/cpu-small.yml"
residual() { echo --residual-attention-encoder "$1" --residual-attention-decoder "$1" --residual-attention-cross "$1"; }
deep="--enc-depth 12 --dec-depth 12 --dim-emb 128 --transformer-dim-ffn 512 $(residual none)"
declare -A variant=(
  [none]="$(residual none)"
  [sum]="$(residual sum)"
  [mean]="$(residual mean)"
  [deep-postln]="$deep --admin-init none"
  [deep-admin]="$deep --admin-init profile"
)
order=(none sum mean deep-postln deep-admin)

for name in "${order[@]}"; do
  for seed in $seeds; do
    run="$out/runs/$name-s$seed"
    [[ -s "$run/done" ]] && continue
    rm -rf "$run" && mkdir -p "$run"
    step "train $name seed $seed ($updates updates)"
    status=ok
    # shellcheck disable=SC2086
    "$bin/realmt-train" -c "$config" ${variant[$name]} --seed "$seed" --after "${updates}u" --time-limit 0 \
      --train-sets "$d/train.en" "$d/train.fr" --vocabs "$out/vocab.spm" --model "$run/model.safetensors" \
      --valid-freq 0 --save-freq 0 --disp-freq 50u --cpu-threads "$threads" --quiet --log "$run/train.log" ||
      status=failed
    if [[ $status == ok ]]; then
      for set in dev test; do
        "$bin/realmt-translate" -m "$run/model.safetensors" -v "$out/vocab.spm" -i "$d/$set.en" -o "$run/$set.hyp" \
          --beam-size "$beam" --normalize 1.0 --max-length-factor 2 --cpu-threads "$threads" --quiet || status=failed
        "$bin/realmt-bleu" "$d/$set.fr" -i "$run/$set.hyp" -m bleu chrf -w 2 > "$run/$set.scores.json" || status=failed
      done
      "$bin/realmt-analyze" -m "$run/model.safetensors" -v "$out/vocab.spm" -t "$d/dev.en" "$d/dev.fr" \
        -o "$run/analysis" --max-sentences "$n_analyze" --heatmap-sentence 1 --cpu-threads "$threads" --quiet ||
        status=failed
    fi
    echo "$status" > "$run/done"
    echo "   $name seed $seed: $status"
  done
done

step "paired bootstrap (realmt-bleu --paired-bs, test set)"
for seed in $seeds; do
  for pair in "none sum mean" "deep-postln deep-admin"; do
    set -- $pair
    hyps=()
    for name in "$@"; do
      [[ $(cat "$out/runs/$name-s$seed/done") == ok ]] && hyps+=("$out/runs/$name-s$seed/test.hyp")
    done
    [[ ${#hyps[@]} -ge 2 ]] || continue
    "$bin/realmt-bleu" "$d/test.fr" -i "${hyps[@]}" -m bleu chrf --paired-bs --paired-bs-n 1000 -q \
      > "$out/runs/paired-$1-s$seed.json"
  done
done

step "plots (tools/plot-attention, first seed of each variant)"
first_seed="${seeds%% *}"
for name in "${order[@]}"; do
  a="$out/runs/$name-s$first_seed/analysis"
  [[ -s "$a/attention.json" ]] && "$root/tools/plot-attention" "$a" > /dev/null
done
step "summary plots (bench/research/plot_summary.py)"
MPLBACKEND=Agg "${VENV:-$root/build/venv-plot}/bin/python" "$root/bench/research/plot_summary.py" "$out" "$seeds" \
  "${order[@]}" > /dev/null

step "results"
python3 "$root/bench/research/aggregate.py" "$out" "$seeds" "${order[@]}" > "$out/results.md"
cat "$out/results.md"
step "done"
