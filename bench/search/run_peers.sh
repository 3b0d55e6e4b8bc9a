#!/usr/bin/env bash
# realmt vs CTranslate2 decoding on the CPU in one run: a transformer-base-shaped model (6+6
# layers, D 512, 8 heads, F 2048, V 32000, random weights; CTranslate2's is a random Hugging Face
# MarianMT converted by its own converter), beam 4, batch 32, 16-token sources, outputs fixed to
# 16 tokens + eos, 2 threads, f32 and int8. Alternates realmt-bench-decode and
# bench/search/peer_decode.py `--runs` times (each prints the median of 3 timed searches after a
# warm-up) and prints target tokens/s (best hypotheses, eos included), the ratio, and peak RSS
# (whole process, and during decoding only: VmHWM reset after the model is loaded). Both load
# their model from a file: realmt's is the same Hugging Face model converted by realmt-convert
# (identical weights; realmt-bench-decode --write-model's random model when realmt-convert is not
# built), loaded as realmt-translate loads a model (int8: quantized while read). --hf adds
# PyTorch eager (Hugging Face generate), which is slow. With --model and --vocab it also times
# realmt-translate on --test (default: the 2,000 l10n test sentences) at beam 4, mini-batch 32,
# f32 and --quantize int8, and scores both against --ref with realmt-bleu.
#
#   bench/search/run_peers.sh [--build DIR] [--venv DIR] [--threads 2] [--runs 3] [--hf]
#                             [--model M.safetensors --vocab V.spm [--test F --ref F]]
#
# Installs the peers with bench/peers_venv.sh into --venv (default BUILD/venv-peers) on first use
# and keeps the peer models (and realmt's, realmt.safetensors) in BUILD/peer-model.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
build="$root/build" venv="" threads=2 runs=3 hf=0 model="" vocab=""
test_src="$root/../shared/data/l10n-enfr/test.en" test_ref="$root/../shared/data/l10n-enfr/test.fr"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --build) build="$2"; shift 2 ;;
    --venv) venv="$2"; shift 2 ;;
    --threads) threads="$2"; shift 2 ;;
    --runs) runs="$2"; shift 2 ;;
    --hf) hf=1; shift ;;
    --model) model="$2"; shift 2 ;;
    --vocab) vocab="$2"; shift 2 ;;
    --test) test_src="$2"; shift 2 ;;
    --ref) test_ref="$2"; shift 2 ;;
    -h|--help) sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "run_peers.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
done
venv="${venv:-$build/venv-peers}"
bench="$build/bench/search/realmt-bench-decode"
[[ -x "$bench" ]] || { echo "run_peers.sh: $bench not built (cmake --build $build --target realmt-bench-decode)" >&2; exit 1; }
python="$("$root/bench/peers_venv.sh" "$venv")"
peer_dir="$build/peer-model"
if [[ ! -f "$peer_dir/ct2/model.bin" ]]; then
  echo "# making the peer model in $peer_dir" >&2
  mkdir -p "$peer_dir"
  OMP_NUM_THREADS="$threads" "$python" "$here/peer_decode.py" make --dir "$peer_dir" >&2
fi
if [[ ! -f "$peer_dir/realmt.safetensors" ]]; then
  mkdir -p "$peer_dir"
  if [[ -x "$build/apps/realmt-convert" && -f "$peer_dir/hf/vocab.json" ]]; then
    # The very weights CTranslate2 runs (its converter's input), converted by realmt-convert.
    "$build/apps/realmt-convert" --from hf "$peer_dir/hf" -o "$peer_dir/realmt.safetensors" >&2
  else
    "$bench" --write-model "$peer_dir/realmt.safetensors" >&2
  fi
fi
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
shape=(--threads "$threads" --beam 4 --batch 32 --src-len 16 --out-len 16)
echo "# CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs); $(nproc) cores; threads $threads;" \
     "OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-unset}"
for r in $(seq 1 "$runs"); do
  for mode in f32 int8; do
    q=none ct=float32
    [[ $mode == int8 ]] && q=int8 ct=int8
    echo "## run $r $mode: load $(cut -d' ' -f1-3 /proc/loadavg)"
    OMP_NUM_THREADS="$threads" "$bench" "${shape[@]}" --quantize "$q" --model "$peer_dir/realmt.safetensors" \
      | tee "$out/realmt.$mode.$r"
    OMP_NUM_THREADS="$threads" "$python" "$here/peer_decode.py" ct2 --dir "$peer_dir" --compute-type "$ct" \
      --threads "$threads" | tee "$out/ct2.$mode.$r"
  done
  if [[ $hf == 1 ]]; then
    OMP_NUM_THREADS="$threads" "$python" "$here/peer_decode.py" hf --dir "$peer_dir" --threads "$threads" --runs 1 \
      | tee "$out/hf.f32.$r"
  fi
done
"$python" - "$out" "$runs" <<'PY'
import json, pathlib, re, statistics, sys
out, runs = pathlib.Path(sys.argv[1]), int(sys.argv[2])
def realmt(mode):
    rows = []
    for r in range(1, runs + 1):
        m = re.search(r"^RESULT (.*)$", (out / f"realmt.{mode}.{r}").read_text(), re.M)
        rows.append({k: float(v) if re.fullmatch(r"[-0-9.]+", v) else v for k, v in (f.split("=") for f in m[1].split())})
    return rows
def peer(name, mode):
    files = [out / f"{name}.{mode}.{r}" for r in range(1, runs + 1)]
    return [json.loads(f.read_text().strip().splitlines()[-1]) for f in files if f.exists()]
med = lambda rows, k: statistics.median(x[k] for x in rows)
print(f"# medians of {runs} runs; target tokens/s (best hypotheses, eos included); peak RSS in MB (process / decoding)")
print(f"{'mode':<6} {'realmt':>9} {'CT2':>9} {'ratio':>6} {'goal':>5}   {'realmt RSS':>13} {'CT2 RSS':>13} {'ratio':>6}")
for mode, goal in (("f32", 1.2), ("int8", 1.0)):
    a, b = realmt(mode), peer("ct2", mode)
    ra, rb = med(a, "tokens_per_s"), med(b, "tokens_per_s")
    pa, pb = med(a, "peak_rss_mb"), med(b, "peak_rss_mb")
    da, db = med(a, "decode_peak_rss_mb"), med(b, "decode_peak_rss_mb")
    print(f"{mode:<6} {ra:9.1f} {rb:9.1f} {ra / rb:6.2f} {goal:5.1f}   {pa:6.0f} / {da:4.0f} {pb:6.0f} / {db:4.0f} {pa / pb:6.2f}")
hf = peer("hf", "f32")
if hf:
    print(f"PyTorch eager (HF generate, f32): {med(hf, 'tokens_per_s'):.1f} target tokens/s")
PY
if [[ -n "$model" ]]; then
  [[ -n "$vocab" ]] || { echo "run_peers.sh: --model needs --vocab" >&2; exit 2; }
  translate="$build/apps/realmt-translate" bleu="$build/apps/realmt-bleu"
  [[ -x "$translate" && -x "$bleu" ]] || { echo "run_peers.sh: build realmt-translate and realmt-bleu" >&2; exit 1; }
  echo "## $model on $(wc -l < "$test_src") sentences of $test_src (beam 4, mini-batch 32, $threads threads)"
  for q in none int8; do
    "$translate" -m "$model" -v "$vocab" -i "$test_src" -o "$out/hyp.$q" -b 4 --mini-batch 32 \
      --cpu-threads "$threads" --quantize "$q" 2> "$out/translate.$q.log"
    speed="$(grep -o '[0-9.]* target tokens/s' "$out/translate.$q.log" | tail -1)"
    score="$("$bleu" "$test_ref" -i "$out/hyp.$q" -m bleu -b 2> /dev/null)"
    echo "quantize $q: $speed; BLEU $score"
  done
  echo "int8 vs f32: $(paste -d '\t' "$out/hyp.none" "$out/hyp.int8" | awk -F '\t' '$1 == $2 {s++} END {printf "%.1f%% of %d translations identical", 100 * s / NR, NR}')"
fi
