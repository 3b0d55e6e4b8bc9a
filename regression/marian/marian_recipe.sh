#!/usr/bin/env bash
# Marian's published transformer recipe (marian-examples, transformer/run-me.sh) run with realmt:
# the same command lines, options and file names, on a small synthetic corpus of pre-segmented
# text, with the recipe's word-list vocabulary model/vocab.ende.yml (Marian's {piece: id}).
#
# Changed from the recipe, and only these: the model is tiny (enc-depth, dec-depth, heads,
# dim-emb, transformer-dim-ffn), the frequencies and the warm-up are in tens of updates, --after
# stops the run (the recipe waits for early stopping), mini-batch-words sizes the batches (what
# mini-batch-fit does in Marian has no effect in realmt), GPUS is "cpu" when no GPU is used, and
# BPE post-processing (sed/detruecase/detokenizer) is left out of the pipes. The recipe's
# marian-vocab step is `realmt-data marian-vocab`.
# Checked: every option is accepted and means what it means in Marian (the effective config, the
# log lines, the files), and the recipe's own shell pipeline that picks the best checkpoint from
# valid.log works on realmt's valid.log.
set -euo pipefail
# shellcheck source=SCRIPTDIR/../lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
bin="$1"
GPUS="${REALMT_RECIPE_GPUS:-cpu}"
tmp="$(mktemp -d)"
remove_on_exit "$tmp"
cd "$tmp"
export PATH="$bin:$PATH"
export OMP_NUM_THREADS=1  # a tiny model: threads only contend on a shared machine

mkdir -p data model scripts
python3 - <<'PY'
import random
rnd = random.Random(11)
src = "cat dog house tree car book red blue big small sun moon".split()
tgt = "chat chien maison arbre voiture livre rouge bleu grand petit soleil lune".split()
m = dict(zip(src, tgt))
def pairs(n):
    out = []
    for _ in range(n):
        s = [rnd.choice(src) for _ in range(rnd.randint(2, 6))]
        out.append((" ".join(s), " ".join(m[w] for w in s)))
    return out
for name, n in (("corpus.bpe", 2000), ("valid.bpe", 40), ("test2014.bpe", 25)):
    p = pairs(n)
    open(f"data/{name}.en", "w").write("".join(a + "\n" for a, _ in p))
    open(f"data/{name}.de", "w").write("".join(b + "\n" for _, b in p))
PY
# ---- the recipe's common vocabulary ---------------------------------------------------------------
if [ ! -e "model/vocab.ende.yml" ]
then
    cat data/corpus.bpe.en data/corpus.bpe.de | realmt-data marian-vocab --max-size 36000 > model/vocab.ende.yml
fi
[[ "$(head -2 model/vocab.ende.yml)" == $'</s>: 0\n<unk>: 1' && $(wc -l < model/vocab.ende.yml) -eq 26 ]] \
  || fail "marian-vocab: $(head -4 model/vocab.ende.yml)"
# The recipe's validate.sh prints a BLEU score of the translations it is given.
cat > scripts/validate.sh <<'SH'
#!/bin/bash
realmt-bleu data/valid.bpe.de -i "$1" -b -w 2
SH

# ---- the recipe's training command (run-me.sh), sizes scaled down -------------------------------
train=(realmt-train
    --model model/model.npz --type transformer
    --train-sets data/corpus.bpe.en data/corpus.bpe.de
    --max-length 100
    --vocabs model/vocab.ende.yml model/vocab.ende.yml
    --mini-batch-fit -w 10000 --maxi-batch 1000
    --early-stopping 10 --cost-type=ce-mean-words
    --valid-freq 50 --save-freq 50 --disp-freq 10
    --valid-metrics ce-mean-words perplexity translation
    --valid-sets data/valid.bpe.en data/valid.bpe.de
    --valid-script-path "bash ./scripts/validate.sh"
    --valid-translation-output data/valid.bpe.en.output --quiet-translation
    --valid-mini-batch 64
    --beam-size 6 --normalize 0.6
    --log model/train.log --valid-log model/valid.log
    --enc-depth 1 --dec-depth 1
    --transformer-heads 2
    --transformer-postprocess-emb d
    --transformer-postprocess dan
    --transformer-dropout 0.1 --label-smoothing 0.1
    --learn-rate 0.003 --lr-warmup 20 --lr-decay-inv-sqrt 20 --lr-report
    --optimizer-params 0.9 0.98 1e-09 --clip-norm 5
    --tied-embeddings-all
    --devices $GPUS --sync-sgd --seed 1111
    --exponential-smoothing
    --dim-emb 32 --transformer-dim-ffn 64 --mini-batch-words 500 --after 100u)

# Every option means what it means in Marian: the effective config.
"${train[@]}" --dump-config minimal > config.yml 2> dump.err || fail "dump-config: $(cat dump.err)"
for want in "model: model/model.npz" "type: transformer" "max-length: 100" "maxi-batch: 1000" \
            "early-stopping: 10" "cost-type: ce-mean-words" "valid-freq: 50u" "save-freq: 50u" "disp-freq: 10u" \
            "valid-metrics: [ce-mean-words, perplexity, translation]" "valid-script-path: bash ./scripts/validate.sh" \
            "valid-translation-output: data/valid.bpe.en.output" "quiet-translation: true" "valid-mini-batch: 64" \
            "beam-size: 6" "normalize: 0.6" "log: model/train.log" "valid-log: model/valid.log" \
            "transformer-postprocess: dan" "transformer-postprocess-emb: d" "transformer-dropout: 0.1" \
            "label-smoothing: 0.1" "learn-rate: 0.003" "lr-warmup: 20u" "lr-decay-inv-sqrt: [20]" "lr-report: true" \
            "optimizer-params: [0.9, 0.98, 1e-09]" "clip-norm: 5" "tied-embeddings-all: true" "seed: 1111" \
            "exponential-smoothing: 0.0001" "workspace: 10000" "mini-batch-fit: true" "sync-sgd: true"; do
  grep -qxF "$want" config.yml || fail "effective config lacks '$want': $(grep -v '^#' config.yml)"
done

"${train[@]}" > train.out 2> train.err || fail "training: $(tail -20 train.err)"
# Options without effect in realmt say so once.
for name in workspace mini-batch-fit sync-sgd; do
  grep -q "$name has no effect in realmt" train.err || fail "no note for $name: $(head -20 train.err)"
done
# Marian's files: the vocabulary, the model, the checkpoints (no --overwrite), the decoder config,
# the logs. The checkpoints are safetensors, named so (model.npz -> model.safetensors): no .npz
# holds them.
for f in model/vocab.ende.yml model/model.safetensors model/model.iter50.safetensors \
         model/model.iter100.safetensors model/model.npz.decoder.yml model/train.log model/valid.log \
         data/valid.bpe.en.output; do
  [[ -s "$f" ]] || fail "missing $f: $(ls model data)"
done
[[ -z "$(ls model/*.npz 2> /dev/null)" ]] || fail "safetensors written under .npz names: $(ls model)"
grep -qx -- "  - model/model.safetensors" model/model.npz.decoder.yml || fail "decoder config: $(cat model/model.npz.decoder.yml)"
[[ $(wc -l < data/valid.bpe.en.output) -eq 40 ]] || fail "valid-translation-output has $(wc -l < data/valid.bpe.en.output) lines"
grep -qx "beam-size: 6" model/model.npz.decoder.yml && grep -qx "normalize: 0.6" model/model.npz.decoder.yml \
  && grep -qx "mini-batch: 64" model/model.npz.decoder.yml || fail "decoder config: $(cat model/model.npz.decoder.yml)"

# Marian's training lines, with L.r. (lr-report) and the ce-mean-words cost.
line_re='^\[[0-9-]+ [0-9:]+\] Ep\. [0-9]+ : Up\. [0-9]+ : Sen\. [0-9,]+ : Cost [0-9]+\.[0-9]{8} : Time [0-9]+\.[0-9]{2}s : [0-9]+\.[0-9]{2} words/s : gNorm [0-9]+\.[0-9]{4} : L\.r\. [0-9]\.[0-9]{4}e[-+][0-9]{2}'
[[ $(grep -cE "$line_re" model/train.log) -ge 6 ]] || fail "training lines: $(grep 'Up\.' model/train.log | head -3)"
grep -q "Up. 10 :" model/train.log && grep -q "Up. 100 :" model/train.log || fail "disp-freq 10"
# quiet-translation: no translation lines while validating.
! grep -q "Best translation" model/train.log || fail "quiet-translation printed translations"
# valid.log: Marian's [valid] lines only, three metrics at each of the two validations.
valid_re='^\[[0-9-]+ [0-9:]+\] \[valid\] Ep\. [0-9]+ : Up\. (50|100) : (ce-mean-words|perplexity|translation) : [0-9.e+-]+ : (new best|stalled [0-9]+ times \(last best: [0-9.e+-]+\))$'
[[ $(grep -cE "$valid_re" model/valid.log) -eq 6 && $(wc -l < model/valid.log) -eq 6 ]] \
  || fail "valid.log: $(cat model/valid.log)"
# The translation metric is the score validate.sh prints for valid-translation-output.
last=$(grep translation model/valid.log | tail -1 | awk '{print $12}')
python3 -c "import sys; sys.exit(0 if abs(float('$last') - float('$(bash scripts/validate.sh data/valid.bpe.en.output)')) < 0.01 else 1)" \
  || fail "translation metric $last is not validate.sh's score of the last validation's output"

# ---- the recipe's pipeline: best checkpoint from valid.log, then the decoder -----------------
ITER=`cat model/valid.log | grep translation | sort -rg -k12,12 -t' ' | cut -f8 -d' ' | head -n1`
[[ "$ITER" == 50 || "$ITER" == 100 ]] || fail "the recipe's ITER pipeline read '$ITER' from valid.log"
cat data/test2014.bpe.en \
    | realmt-translate -c model/model.npz.decoder.yml -m model/model.iter$ITER.npz -d $GPUS -b 12 -n -w 6000 \
    > data/test2014.de.output 2> decode.err || fail "decoder: $(cat decode.err)"
[[ $(wc -l < data/test2014.de.output) -eq 25 ]] || fail "decoder output lines"
# Marian's decoder log: one "Best translation" line a sentence, then the total time.
[[ $(grep -cE '^\[[0-9-]+ [0-9:]+\] Best translation [0-9]+ : ' decode.err) -eq 25 ]] || fail "$(cat decode.err)"
grep -qE '^\[[0-9-]+ [0-9:]+\] Total time: [0-9]+\.[0-9]{5}s wall' decode.err || fail "$(tail -1 decode.err)"
# -c supplied the vocabularies; -b 12 -n mean beam 12 and normalize 1.
realmt-translate -m model/model.iter$ITER.npz -v model/vocab.ende.yml -b 12 --normalize 1 --quiet \
  < data/test2014.bpe.en > check.txt
cmp -s check.txt data/test2014.de.output || fail "-c decoder.yml -b 12 -n differs from explicit options"

echo "marian recipe: OK (best iter $ITER: $(grep translation model/valid.log | grep "Up. $ITER " | awk '{print $12}') BLEU)"
