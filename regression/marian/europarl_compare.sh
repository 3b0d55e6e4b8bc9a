#!/usr/bin/env bash
# Agreement of realmt with real Marian on real data (issue 31's note): a small transformer trained
# by Marian (pymarian 1.12.42, pinned venv) on the Europarl en-fr sample with a SentencePiece
# vocabulary Marian trains itself, converted by realmt-convert --from marian, and the held-out
# test lines translated by Marian (beam 4, one sentence a batch) and by realmt-translate
# --length-rule marian --repeat-guard 0 -b 4 --mini-batch 1. Prints the share of identical lines,
# the cause of each differing line (a length limit or the search), and BLEU / chrF2 of both
# (realmt-bleu). A measurement, not a gate: it fails only when a step fails.
# Usage: europarl_compare.sh BIN_DIR VENV_DIR [DATA_DIR]   (EUROPARL_UPDATES: Marian's updates)
set -euo pipefail
# shellcheck source=SCRIPTDIR/../lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
bin="$1"
venv="$2"
here="$(cd "$(dirname "$0")" && pwd)"
data="${3:-$here/../../../shared/data/europarl-opus-enfr}"
updates="${EUROPARL_UPDATES:-1200}"
[[ -f "$data/Europarl_train_10k.en" ]] || { echo "SKIP: no Europarl sample at $data"; exit 77; }
py=$(bash "$here/../pinned_venv.sh" "$venv" pymarian==1.12.42 sentencepiece==0.2.0) ||
  { echo "SKIP: cannot make the pymarian venv" >&2; exit 77; }
tmp="$(mktemp -d)"
remove_on_exit "$tmp"
cd "$tmp"
cp "$data"/Europarl_train_10k.{en,fr} "$data"/Europarl_test_500.{en,fr} .
mkdir -p m
start=$(date +%s)
"$py" - "$updates" > marian-train.log 2>&1 <<'PY' || { tail -20 marian-train.log >&2; fail "pymarian training"; }
import sys, pymarian
u = sys.argv[1]
pymarian.Trainer(
    "--type transformer --model m/model.npz --train-sets Europarl_train_10k.en Europarl_train_10k.fr "
    "--vocabs m/vocab.spm m/vocab.spm --dim-vocabs 4000 4000 --dim-emb 128 --enc-depth 2 --dec-depth 2 "
    "--transformer-heads 4 --transformer-dim-ffn 512 --tied-embeddings-all --transformer-dropout 0.1 "
    "--max-length 100 --mini-batch 64 --learn-rate 0.0005 --lr-warmup 200 "
    f"--after {u}u --disp-freq 200u --save-freq {u}u --valid-freq 1000000u --seed 1 --cpu-threads 2 "
    "--overwrite --no-restore-corpus").train()
PY
echo "Marian: $updates updates in $(( $(date +%s) - start )) s; last log line: $(grep -a 'Ep\. ' marian-train.log | tail -1)"
"$bin/realmt-convert" --from marian m/model.npz -v m/vocab.spm m/vocab.spm -o imported.safetensors \
  > convert.log 2>&1 || { cat convert.log >&2; fail "realmt-convert --from marian"; }
"$py" - > marian-decode.log 2>&1 <<'PY' || { tail -20 marian-decode.log >&2; fail "Marian decoding"; }
import pymarian
t = pymarian.Translator("-m m/model.npz -v m/vocab.spm m/vocab.spm --beam-size 4 --normalize 0 --word-penalty 0 "
                        "--mini-batch 1 --maxi-batch 1 --cpu-threads 2 --quiet --quiet-translation")
lines = [l.rstrip("\n") for l in open("Europarl_test_500.en", encoding="utf-8")]
with open("marian.out", "w", encoding="utf-8") as f:
    for line in t.translate(lines):
        f.write(line + "\n")
PY
"$bin/realmt-translate" -m imported.safetensors -v m/vocab.spm m/vocab.spm -i Europarl_test_500.en -o realmt.out \
  -b 4 --mini-batch 1 --length-rule marian --repeat-guard 0 --quiet || fail "realmt-translate"
"$py" "$here/marian_peer.py" segment m/vocab.spm < Europarl_test_500.en > test.pieces.en
"$py" "$here/marian_peer.py" compare marian.out realmt.out test.pieces.en 3 0 m/vocab.spm > compare.log || true
head -1 compare.log
echo "differing lines by cause:"
grep -o '^line [0-9]*: [a-z]*' compare.log | awk '{print $3}' | sort | uniq -c || true
grep -A2 '^line ' compare.log | head -12 || true  # none when every line is identical
for sys in marian realmt; do
  echo "$sys: $("$bin/realmt-bleu" Europarl_test_500.fr -i $sys.out -m bleu chrf -b -w 2 | tr '\n' ' ')"
done
