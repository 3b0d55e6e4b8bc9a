#!/usr/bin/env bash
# The tiny model of the translate regressions, trained in the current directory:
#   train_tiny.sh BIN [NAME=COUNT ...] < run.yml
# writes a word-for-word "translation" task with reordering (target = source words mapped,
# reversed) as train/dev/test .src/.tgt (3000, 40 and 20 pairs, then each NAME with COUNT pairs,
# drawn from one seeded stream in that order: the same sentences for every caller), a word-level
# vocabulary vocab.spm (28 pieces), and trains model.safetensors with realmt-train: a 1+1-layer
# model of dimension 32 (ADMIN closed form) plus the YAML lines read from stdin (the caller's
# schedule: after, save-freq, validation, display). Logs: vocab.log, train.log.
set -euo pipefail
bin="$1"
shift
fail() { echo "FAIL: $*" >&2; exit 1; }

python3 - "$@" <<'PY'
import random, sys
rnd = random.Random(7)
src_words = "cat dog house tree car book red blue big small sun moon".split()
tgt_words = "chat chien maison arbre voiture livre rouge bleu grand petit soleil lune".split()
m = dict(zip(src_words, tgt_words))
def pairs(n):
    out = []
    for _ in range(n):
        s = [rnd.choice(src_words) for _ in range(rnd.randint(2, 6))]
        out.append((" ".join(s), " ".join(m[w] for w in reversed(s))))
    return out
extra = [(name, int(n)) for name, n in (a.split("=") for a in sys.argv[1:])]
for name, n in [("train", 3000), ("dev", 40), ("test", 20)] + extra:
    p = pairs(n)
    open(name + ".src", "w").write("".join(a + "\n" for a, _ in p))
    open(name + ".tgt", "w").write("".join(b + "\n" for _, b in p))
PY

"$bin/realmt-data" vocab -i train.src train.tgt -o vocab.spm --vocab-size 28 --model-type word 2> vocab.log \
  || fail "vocab: $(cat vocab.log)"
cat > train.yml <<'YML'
train-sets: [train.src, train.tgt]
vocabs: [vocab.spm]
model: model.safetensors
enc-depth: 1
dec-depth: 1
dim-emb: 32
transformer-heads: 2
transformer-dim-ffn: 64
transformer-dropout: 0.0
admin-init: closed-form
mini-batch-words: 400
learn-rate: 0.003
lr-warmup: 10u
quiet-progress: true
YML
cat >> train.yml
"$bin/realmt-train" -c train.yml > train.log 2>&1 || fail "train: $(tail -20 train.log)"
