#!/usr/bin/env bash
# realmt.Translator.translate_batch against realmt-translate on the same model, input file,
# threads, beam and batch: target tokens a second of each (the best translations' subwords, eos
# included, over the decoding time, model loading excluded: realmt-translate's "Total time" line),
# the median of --runs runs of each (alternating), and their ratio. Prints figures, asserts nothing; run it on an idle
# machine (the issue's goal: the Python figure at least 95% of realmt-translate's).
#
#   bench/python/run_bench.sh --input test.en [--model out/quickstart/model.safetensors]
#       [--vocab out/quickstart/vocab.spm] [--threads N] [--beam 4] [--mini-batch 32]
#       [--normalize 0.6] [--runs 3] [--lines N] [--build build] [--python python3]
#
# Defaults: the model of tools/quickstart (out/quickstart), all cores, the quickstart's decoding
# (beam 4, mini-batch 32, normalize 0.6). --lines N: the first N lines only (a smoke run).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
input="" model="$root/out/quickstart/model.safetensors" vocab="$root/out/quickstart/vocab.spm"
threads="$(nproc)" beam=4 batch=32 normalize=0.6 runs=3 lines=0 build="$root/build" python=python3
while [[ $# -gt 0 ]]; do
  case "$1" in
    --input) input="$2"; shift 2 ;;
    --model) model="$2"; shift 2 ;;
    --vocab) vocab="$2"; shift 2 ;;
    --threads) threads="$2"; shift 2 ;;
    --beam) beam="$2"; shift 2 ;;
    --mini-batch) batch="$2"; shift 2 ;;
    --normalize) normalize="$2"; shift 2 ;;
    --runs) runs="$2"; shift 2 ;;
    --lines) lines="$2"; shift 2 ;;
    --build) build="$2"; shift 2 ;;
    --python) python="$2"; shift 2 ;;
    -h|--help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "run_bench.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
done
[[ -n "$input" ]] || { echo "run_bench.sh: --input FILE is required (the quickstart's test.en)" >&2; exit 2; }
for f in "$input" "$model" "$vocab" "$build/apps/realmt-translate" "$build/python/realmt/__init__.py"; do
  [[ -e "$f" ]] || { echo "run_bench.sh: $f not found" >&2; exit 1; }
done
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
if [[ "$lines" -gt 0 ]]; then head -n "$lines" "$input" > "$tmp/input.txt"; else cp "$input" "$tmp/input.txt"; fi

median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

# The two alternate run by run (realmt-translate, then Python, each in a fresh process), so that
# a change in the machine's speed during the benchmark falls on both alike.
cat > "$tmp/py_run.py" <<'PY'
import sys, time
import realmt
model, vocab, path, threads, beam, batch, normalize, out = sys.argv[1:]
with open(path, encoding="utf-8") as f:
    src = [line.rstrip("\r\n") for line in f]
t = realmt.Translator(model, vocabs=vocab, threads=int(threads))
t0 = time.perf_counter()
res = t.translate_batch(src, beam_size=int(beam), max_batch_size=int(batch), normalize=float(normalize))
seconds = time.perf_counter() - t0
with open(out, "w", encoding="utf-8") as f:
    f.write("".join(r.text + "\n" for r in res))
print(sum(len(r.tokens) + 1 for r in res if not r.error) / seconds)
PY
cli_rates=() py_rates=()
for ((r = 0; r < runs; r++)); do
  "$build/apps/realmt-translate" -m "$model" -v "$vocab" -i "$tmp/input.txt" -o "$tmp/cli.txt" --cpu-threads "$threads" \
    --beam-size "$beam" --mini-batch "$batch" --normalize "$normalize" --quiet-translation 2> "$tmp/cli.log"
  cli_rates+=("$(sed -n 's/.*: \([0-9.]*\) target tokens\/s.*/\1/p' "$tmp/cli.log" | tail -1)")
  py_rates+=("$(PYTHONPATH="$build/python" "$python" "$tmp/py_run.py" "$model" "$vocab" "$tmp/input.txt" "$threads" \
    "$beam" "$batch" "$normalize" "$tmp/py.txt")")
  echo "  run $((r + 1)): realmt-translate ${cli_rates[-1]}, Python ${py_rates[-1]} target tokens/s" >&2
done
cli="$(printf '%s\n' "${cli_rates[@]}" | median)"
py="$(printf '%s\n' "${py_rates[@]}" | median)"
same="yes"
cmp -s "$tmp/cli.txt" "$tmp/py.txt" || same="NO"
echo "bench/python: $(wc -l < "$tmp/input.txt") sentences, $threads threads, beam $beam, mini-batch $batch, normalize $normalize; median of $runs runs"
echo "  CPU: $(PYTHONPATH="$build/python" "$python" -c 'import realmt; print(realmt.cpu_isa())')"
printf '  realmt-translate:                %10.1f target tokens/s\n' "$cli"
printf '  Translator.translate_batch:      %10.1f target tokens/s\n' "$py"
awk -v a="$py" -v b="$cli" 'BEGIN {printf "  ratio (Python / realmt-translate): %.3f\n", a / b}'
pair="$(for ((r = 0; r < runs; r++)); do awk -v a="${py_rates[r]}" -v b="${cli_rates[r]}" 'BEGIN {print a / b}'; done | median)"
printf '  median of the runs'"'"' own ratios:    %.3f\n' "$pair"
echo "  identical translations: $same"
