#!/usr/bin/env bash
# Marian's reference row for the quickstart (issue 36): real Marian (pymarian 1.12.42 from PyPI,
# pinned venv) trains the quickstart's model shape on the quickstart's data and vocabulary for the
# same wall time, then translates the test set with its own decoder; realmt-bleu scores it beside
# copying the source. A measurement: it fails only when a step fails.
#
#   bench/quickstart/marian_row.sh --qs DIR [--minutes 10] [--norm post|pre] [--venv DIR] [--build DIR]
#                                  [--out DIR]
#
# DIR is a finished `tools/quickstart --out DIR` folder: DIR/data/{train,dev,test}.{en,fr} and
# DIR/vocab.spm are used as they are, so both systems see the same sentences and pieces.
#
# What is the same as realmt's cpu-small.yml: 3+3 layers, its width, FFN width and batch size
# (read from the file; 192, 768 relu and 1200 tokens since 2026-12-08), 4 heads, all
# embeddings tied, Post-LN (Marian's default "dan"), no dropout, label smoothing 0.1, the token
# batches (Marian's --mini-batch-words counts target labels as realmt's budget does), maxi-batch
# 100, max length 64, learning rate 2e-3 with 100 warm-up updates and inverse-sqrt decay from
# update 100, no clipping, exponential smoothing 1e-4, validation (ce-mean-words) on the same 500
# dev lines every 100 updates, 2 threads, beam 4 and length normalisation 1.0 at test time.
# What Marian cannot do: RAdam (it gets Adam with the same betas and epsilon), ADMIN
# initialisation and residual attention (it trains a plain Transformer). `--norm pre` gives Marian
# its own remedy for unstable early training instead: Pre-LN (preprocess n, postprocess da, a final
# norm on top), the same shape otherwise. Training stops
# at the time limit with SIGTERM and Marian's `--sigterm save-and-exit` (it saves the smoothed
# weights it has); realmt's --time-limit likewise counts validation and saves.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
qs="" minutes=10 norm=post venv="" build="$root/build" out=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --qs) qs="$2"; shift 2 ;;
    --minutes) minutes="$2"; shift 2 ;;
    --norm) norm="$2"; shift 2 ;;
    --venv) venv="$2"; shift 2 ;;
    --build) build="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    -h|--help) sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "marian_row.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
done
[[ -n "$qs" ]] || { echo "marian_row.sh: --qs DIR (a quickstart output folder) is required" >&2; exit 2; }
data="$qs/data"
for f in "$data"/{train,dev,test}.{en,fr} "$qs/vocab.spm"; do
  [[ -s "$f" ]] || { echo "marian_row.sh: $f missing (run tools/quickstart --out $qs first)" >&2; exit 1; }
done
bleu="$build/apps/realmt-bleu"
[[ -x "$bleu" ]] || { echo "marian_row.sh: $bleu not built" >&2; exit 1; }
venv="${venv:-$build/venv-pymarian}"
out="${out:-$qs/marian-$norm}"
case "$norm" in
  post) norm_opts="" ;;
  pre) norm_opts="--transformer-preprocess n --transformer-postprocess da --transformer-postprocess-top n" ;;
  *) echo "marian_row.sh: --norm post or pre, not '$norm'" >&2; exit 2 ;;
esac
py=$(bash "$root/regression/pinned_venv.sh" "$venv" pymarian==1.12.42 sentencepiece==0.2.0)
mkdir -p "$out"
head -n 500 "$data/dev.en" > "$out/valid.en"
head -n 500 "$data/dev.fr" > "$out/valid.fr"
cp "$qs/vocab.spm" "$out/vocab.spm"

# The shape and batch size as cpu-small.yml has them now (the sweep changes them).
cfg="$root/marian-style-configs/cpu-small.yml"
yml() { sed -n "s/^$1: *//p" "$cfg"; }
dim="$(yml dim-emb)" ffn="$(yml transformer-dim-ffn)" batch_words="$(yml mini-batch-words)"
[[ -n "$dim" && -n "$ffn" && -n "$batch_words" ]] || { echo "marian_row.sh: cannot read the shape from $cfg" >&2; exit 1; }

train_cli="--type transformer --model $out/model.npz --train-sets $data/train.en $data/train.fr
  --vocabs $out/vocab.spm $out/vocab.spm --enc-depth 3 --dec-depth 3 --dim-emb $dim --transformer-heads 4
  --transformer-dim-ffn $ffn --transformer-ffn-activation relu --tied-embeddings-all
  --transformer-dropout 0 --transformer-dropout-attention 0 --transformer-dropout-ffn 0
  --optimizer adam --optimizer-params 0.9 0.98 1e-9 --learn-rate 0.002 --lr-warmup 100 --lr-decay-inv-sqrt 100
  --label-smoothing 0.1 --clip-norm 0 --cost-type ce-mean-words --mini-batch-words $batch_words --maxi-batch 100
  --max-length 64 --exponential-smoothing 0.0001 --valid-sets $out/valid.en $out/valid.fr --valid-freq 100u
  --valid-metrics ce-mean-words perplexity --disp-freq 100u --save-freq 200u --overwrite --seed 1
  --cpu-threads 2 --workspace 2048 --sigterm save-and-exit --log $out/train.log --quiet $norm_opts"
echo "# Marian trains for $minutes minutes ($out/train.log)" >&2
start=$(date +%s)
set +e
timeout -s TERM "$(( minutes * 60 ))" "$py" -c 'import sys, pymarian; pymarian.Trainer(sys.argv[1]).train()' \
  "$(echo $train_cli)" > "$out/train.out" 2>&1
rc=$?
set -e
train_s=$(( $(date +%s) - start ))
# 124: stopped by the time limit (Marian saved on SIGTERM); 0: finished before it.
[[ $rc -eq 0 || $rc -eq 124 ]] || { tail -20 "$out/train.out" "$out/train.log" >&2; exit 1; }
[[ -s "$out/model.npz" ]] || { echo "marian_row.sh: Marian saved no model" >&2; exit 1; }
# The updates done: Marian's progress file, written with the model on SIGTERM.
updates=$(sed -n 's/^batches: *\([0-9]*\).*/\1/p' "$out/model.npz.progress.yml")
saved=$(grep -o 'Saving model weights and runtime parameters to' "$out/train.log" | wc -l)
echo "# trained $train_s s, ${updates:-?} updates ($saved saves)" >&2

start=$(date +%s)
"$py" - "$out/model.npz" "$out/vocab.spm" "$data/test.en" "$out/test.hyp.fr" <<'PY'
import sys, pymarian
model, vocab, inp, outp = sys.argv[1:]
t = pymarian.Translator(f"-m {model} -v {vocab} {vocab} --beam-size 4 --normalize 1.0 --mini-batch 32 "
                        "--maxi-batch 100 --cpu-threads 2 --quiet --quiet-translation")
lines = open(inp, encoding="utf-8").read().split("\n")[:-1]
with open(outp, "w", encoding="utf-8") as f:
    for hyp in t.translate(lines):
        f.write(hyp + "\n")
PY
decode_s=$(( $(date +%s) - start ))
read -r m_bleu m_chrf < <("$bleu" "$data/test.fr" -i "$out/test.hyp.fr" -m bleu chrf -b | tr -d '[],' | xargs)
read -r c_bleu c_chrf < <("$bleu" "$data/test.fr" -i "$data/test.en" -m bleu chrf -b | tr -d '[],' | xargs)
echo "| system | updates in $minutes min | test BLEU | test chrF2 |"
echo "| --- | --- | --- | --- |"
echo "| Marian 1.12.42 (pymarian), $minutes minutes, Adam, $norm-LN | ${updates:-?} | $m_bleu | $m_chrf |"
echo "| copy the English source | | $c_bleu | $c_chrf |"
echo "# training $train_s s (load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)), translation $decode_s s" >&2
