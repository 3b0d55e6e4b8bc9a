#!/usr/bin/env bash
# Decoding on real text by three engines running the same weights: realmt-translate, CTranslate2
# (its Python API) and real Marian (pymarian.Translator). The model is a Transformer without
# residual attention trained by real Marian (pymarian 1.12.42) on the quickstart corpus in the
# quickstart's shape (3+3 layers, D 256, F 1024, 4 heads, relu, tied embeddings, Post-LN; no
# dropout, Adam 0.002 with 100 warm-up updates, 800-word batches), converted by
# `realmt-convert --from marian` (realmt) and `--from realmt --to ctranslate2` (CTranslate2), and
# by `pymarian convert --gemm-type packed8avx512` (or packed8avx2) for Marian's int8.
#
#   bench/search/run_field.sh [--build DIR] [--venv DIR] [--out DIR] [--model DIR | --model-dir DIR]
#       [--data DIR] [--vocab SPM] [--train-minutes 10] [--test F --ref F] [--lines N]
#       [--runs 3] [--threads 2] [--max-length-factor 3] [--modes "beam4-f32 ..."]
#       [--shortlist "FILE FIRST BEST THRESHOLD" [--vmap FILE]] [--prepare-only]
#
# --data: the corpus (tools/fetch-corpus's train/test .en/.fr; default out/quickstart/data, as
# tools/quickstart makes it), --vocab: its joint SentencePiece model (default
# out/quickstart/vocab.spm). The model is trained once into --model-dir (default OUT/model, OUT
# default BUILD/field) and reused; --model DIR takes such a folder (model.npz and vocab.spm; the
# conversions are made when missing) and trains nothing. --train-minutes M stops Marian when it
# has used M x 60 x threads CPU seconds (M minutes of the machine on an idle one), so the model
# does not depend on the load; a training cut short by its wall-time cap (3 x M minutes) is
# resumed by the next run with --model-dir. --test/--ref: default the
# corpus' own test split (held out from its training set), --lines its first N lines.
# --prepare-only: train and convert, then stop.
#
# Modes: beam4-f32, beam4-int8, greedy-f32, greedy-int8 (greedy: beam 1); every engine runs
# with --threads threads (realmt: --cpu-threads, intra-operator; CTranslate2: intra_threads,
# inter_threads 1; Marian: --cpu-threads, its worker threads each decoding its own batches),
# mini-batches of 32 sentences sorted by length within 10 batches, normalize 1 at beam 4
# (CTranslate2's length_penalty 1: score / length), no unknown word, no loop guard (realmt's
# --repeat-guard 0: the others have none), empty outputs allowed (CTranslate2's
# min_decoding_length 0; its default 1 forbids eos at the first step). int8: realmt --quantize int8, CTranslate2
# compute_type int8, Marian's FBGEMM packed8 model (the PyPI wheel of pymarian has no intgemm:
# its --gemm-type intgemm8 stops with "Unknown GEMM type").
#
# The length limit is kept equal: CTranslate2 has only an absolute max_decoding_length, so the
# script batches for it as realmt and Marian do (same batch size and sort) and gives each batch
# Marian's limit, ceil(factor x (widest source of the batch + eos)) steps, the last one any
# token. Marian applies that rule itself; realmt runs --length-rule marian, the same rule per
# sentence (its limit for a short sentence in a batch of longer ones is the tighter one). With
# length-sorted batches the widths within a batch are close; the "at limit" column counts the
# outputs that reach the limit. Speeds are target tokens per second of decoding (model load
# excluded; each engine's own timer around its translate calls), the tokens being the
# SentencePiece pieces of the output text counted the same way for all (no eos): an engine that
# produces longer outputs is not favoured by a per-sentence rate.
#
# Each run: every mode, the engines in an order rotated run by run; the table gives medians over
# --runs of the decoding and total seconds and of the peak RSS (the process's VmHWM: the
# Python interpreter counts for CTranslate2 and Marian), BLEU (realmt-bleu) and the share of
# lines identical to realmt's output in the same mode.
#
# --shortlist (pass-through for realmt-translate's --shortlist FILE FIRST BEST THRESHOLD) and
# --vmap FILE (CTranslate2's use_vmap, the file placed as vmap.txt beside a linked copy of the
# model); Marian runs without a shortlist.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
build="$root/build" venv="" out="" model="" model_dir="" data="$root/out/quickstart/data" vocab="$root/out/quickstart/vocab.spm"
minutes=10 prepare_only=0 test_src="" test_ref="" lines=0 runs=3 threads=2 factor=3 shortlist="" vmap=""
modes="beam4-f32 beam4-int8 greedy-f32 greedy-int8"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --build) build="$2"; shift 2 ;;
    --venv) venv="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --model) model="$2"; shift 2 ;;
    --model-dir) model_dir="$2"; shift 2 ;;
    --data) data="$2"; shift 2 ;;
    --vocab) vocab="$2"; shift 2 ;;
    --train-minutes) minutes="$2"; shift 2 ;;
    --test) test_src="$2"; shift 2 ;;
    --ref) test_ref="$2"; shift 2 ;;
    --lines) lines="$2"; shift 2 ;;
    --runs) runs="$2"; shift 2 ;;
    --threads) threads="$2"; shift 2 ;;
    --max-length-factor) factor="$2"; shift 2 ;;
    --modes) modes="$2"; shift 2 ;;
    --shortlist) shortlist="$2"; shift 2 ;;
    --vmap) vmap="$2"; shift 2 ;;
    --prepare-only) prepare_only=1; shift ;;
    -h|--help) sed -n '2,53p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "run_field.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
done
fail() { echo "run_field.sh: $*" >&2; exit 1; }
build="$(cd "$build" && pwd)"
out="${out:-$build/field}"
venv="${venv:-$build/venv-field}"
bin="$build/apps"
for p in realmt-translate realmt-convert realmt-bleu; do
  [[ -x "$bin/$p" ]] || fail "$bin/$p not built (cmake --build $build --target realmt-translate realmt-convert realmt-bleu)"
done
py="$(bash "$root/regression/pinned_venv.sh" "$venv" pymarian==1.12.42 ctranslate2==4.8.5 sentencepiece==0.2.0)" ||
  fail "cannot make the venv $venv (pip needs the network once)"
decode_py="$here/field_decode.py"
mkdir -p "$out"
out="$(cd "$out" && pwd)"

# The model: trained once (or taken from --model), then converted for each engine.
if [[ -n "$model" ]]; then
  [[ -f "$model/model.npz" && -f "$model/vocab.spm" ]] || fail "--model $model: no model.npz and vocab.spm there"
  model="$(cd "$model" && pwd)"
else
  model="${model_dir:-$out/model}"
  mkdir -p "$model"
  model="$(cd "$model" && pwd)"
  if [[ ! -f "$model/model.npz" ]] || grep -q '"complete": false' "$model/train.json" 2> /dev/null; then
    [[ -f "$data/train.en" && -f "$data/train.fr" ]] || fail "no corpus at $data (--data; tools/fetch-corpus makes one)"
    [[ -f "$vocab" ]] || fail "no vocabulary $vocab (--vocab)"
    [[ -f "$model/vocab.spm" ]] || cp "$vocab" "$model/vocab.spm"
    echo "# training with Marian for $minutes minutes of $threads cores into $model" >&2
    "$py" "$decode_py" train --venv-bin "$(dirname "$py")" --dir "$model" --train "$data/train.en" "$data/train.fr" \
      --vocab "$model/vocab.spm" --minutes "$minutes" --threads "$threads" >&2
    rm -rf "$model/realmt.safetensors" "$model/ct2" "$model"/model.packed8*.bin  # converted again below
  fi
fi
spm="$model/vocab.spm"
if [[ ! -f "$model/realmt.safetensors" ]]; then
  "$bin/realmt-convert" --from marian "$model/model.npz" -v "$spm" -o "$model/realmt.safetensors" > "$model/convert.log" 2>&1 ||
    { cat "$model/convert.log" >&2; fail "realmt-convert --from marian"; }
fi
if [[ ! -f "$model/ct2/model.bin" ]]; then
  "$bin/realmt-convert" --from realmt "$model/realmt.safetensors" -v "$spm" --to ctranslate2 -o "$model/ct2" \
    >> "$model/convert.log" 2>&1 || { cat "$model/convert.log" >&2; fail "realmt-convert --to ctranslate2"; }
fi
packed=packed8avx2
grep -q avx512bw /proc/cpuinfo && packed=packed8avx512
if [[ ! -f "$model/model.$packed.bin" ]]; then
  "$(dirname "$py")/pymarian" convert -f "$model/model.npz" -t "$model/model.$packed.bin" --gemm-type "$packed" \
    > "$model/marian-convert.log" 2>&1 || { rm -f "$model/model.$packed.bin"; echo "# no Marian int8: pymarian convert failed" >&2; }
fi
ct2_dir="$model/ct2" vmap_flag=()
if [[ -n "$vmap" ]]; then  # PASS-THROUGH (shortlists are another change's): CTranslate2 reads DIR/vmap.txt
  ct2_dir="$out/ct2-vmap"
  mkdir -p "$ct2_dir"
  for f in "$model"/ct2/*; do ln -sf "$f" "$ct2_dir/"; done
  cp "$vmap" "$ct2_dir/vmap.txt"
  vmap_flag=(--vmap)
fi
(( prepare_only )) && { echo "# model ready in $model" >&2; exit 0; }

test_src="${test_src:-$data/test.en}" test_ref="${test_ref:-$data/test.fr}"
[[ -f "$test_src" && -f "$test_ref" ]] || fail "no test set $test_src / $test_ref (--test, --ref)"
runs_dir="$out/runs"
rm -rf "$runs_dir"
mkdir -p "$runs_dir"
if (( lines > 0 )); then
  head -n "$lines" "$test_src" > "$runs_dir/test.src"
  head -n "$lines" "$test_ref" > "$runs_dir/test.ref"
else
  cp "$test_src" "$runs_dir/test.src"
  cp "$test_ref" "$runs_dir/test.ref"
fi
src="$runs_dir/test.src"

# One decoding run of ENGINE in MODE, run R: output ENGINE.MODE.txt, figures ENGINE.MODE.R.json.
run_one() {
  local engine="$1" mode="$2" r="$3" beam=4 int8=0
  [[ $mode == greedy-* ]] && beam=1
  [[ $mode == *-int8 ]] && int8=1
  local hyp="$runs_dir/$engine.$mode.txt" json="$runs_dir/$engine.$mode.$r.json" cmd=()
  case "$engine" in
    realmt)
      local q=none
      (( int8 )) && q=int8
      cmd=("$bin/realmt-translate" -m "$model/realmt.safetensors" -v "$spm" -i "$src" -o "$hyp" -b "$beam"
           --normalize 1 --mini-batch 32 --maxi-batch 10 --cpu-threads "$threads" --quantize "$q"
           --max-length-factor "$factor" --length-rule marian --repeat-guard 0 --quiet-translation)
      # PASS-THROUGH: realmt-translate's --shortlist FILE FIRST BEST THRESHOLD (another change adds it).
      [[ -n "$shortlist" ]] && read -r -a sl <<< "$shortlist" && cmd+=(--shortlist "${sl[@]}")
      env=(OMP_NUM_THREADS="$threads") ;;
    ctranslate2)
      local ct=float32
      (( int8 )) && ct=int8
      cmd=("$py" "$decode_py" ct2 --model "$ct2_dir" --vocab "$spm" --input "$src" --output "$hyp" --beam "$beam"
           --threads "$threads" --compute-type "$ct" --normalize 1 --max-length-factor "$factor" "${vmap_flag[@]}")
      env=(OMP_NUM_THREADS="$threads") ;;
    marian)
      local m="$model/model.npz" g=()
      if (( int8 )); then
        [[ -f "$model/model.$packed.bin" ]] || return 0
        m="$model/model.$packed.bin" g=(--gemm-type "$packed")
      fi
      cmd=("$py" "$decode_py" marian --model "$m" --vocab "$spm" --input "$src" --output "$hyp" --beam "$beam"
           --threads "$threads" --normalize 1 --max-length-factor "$factor" "${g[@]}")
      env=(OMP_NUM_THREADS=1) ;;  # Marian's threads are its workers
  esac
  env "${env[@]}" "$py" "$decode_py" measure --out "$json" -- "${cmd[@]}"
  echo "run $r $mode $engine: $(cat "$json")" >&2
}

trained="given"
if [[ -f "$model/train.json" ]]; then
  trained="$("$py" -c 'import json, sys; d = json.load(open(sys.argv[1]))
print("Marian, %.0f of %.0f CPU s, last logged update %s" % (d["cpu_used_s"], d["cpu_budget_s"], d["last_logged_update"]))' \
    "$model/train.json")"
fi
echo "# CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs); $(nproc) cores; threads $threads;" \
     "model $model ($trained); test: $(wc -l < "$src") lines of $test_src; length factor $factor"
[[ -n "$shortlist" ]] && echo "# shortlist: realmt --shortlist $shortlist; CTranslate2 ${vmap:+vmap $vmap}${vmap:-without vmap}; Marian without"
[[ -f "$model/model.$packed.bin" ]] || echo "# Marian int8 skipped: no $packed model (see $model/marian-convert.log)"
engines=(realmt ctranslate2 marian)
for r in $(seq 1 "$runs"); do
  echo "## run $r: load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
  k=$(( (r - 1) % 3 ))
  order=("${engines[@]:k}" "${engines[@]:0:k}")
  for mode in $modes; do
    for engine in "${order[@]}"; do run_one "$engine" "$mode" "$r"; done
  done
done
"$py" "$decode_py" summary --runs-dir "$runs_dir" --vocab "$spm" --source "$src" --ref "$runs_dir/test.ref" \
  --bleu "$bin/realmt-bleu" --factor "$factor" --runs "$runs"
