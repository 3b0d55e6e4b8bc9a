# Sourced by end-to-end tests: make_tiny_corpus and make_tiny_model write, in the current
# directory, a word-for-word English -> French task (target = source words mapped one by one):
# train.{en,fr} (1500 pairs), dev.{en,fr} (30), test.{en,fr} (20), a word vocabulary vocab.spm and
# a 1+1-layer model model.safetensors trained for 200 updates (about a second on one core), which
# translates most test lines right.

make_tiny_corpus() {
  python3 - <<'PY'
import random
rnd = random.Random(5)
en = "the a cat dog sees likes red small house tree".split()
fr = "le un chat chien voit aime rouge petit maison arbre".split()
m = dict(zip(en, fr))
for name, n in (("train", 1500), ("dev", 30), ("test", 20)):
    with open(name + ".en", "w") as e, open(name + ".fr", "w") as f:
        for _ in range(n):
            s = [rnd.choice(en) for _ in range(rnd.randint(2, 6))]
            e.write(" ".join(s) + "\n")
            f.write(" ".join(m[w] for w in s) + "\n")
PY
}

# make_tiny_model BIN_DIR: the corpus, vocab.spm and model.safetensors (+ model.safetensors.decoder.yml).
make_tiny_model() {
  local bin="$1"
  make_tiny_corpus
  "$bin/realmt-data" vocab -i train.en train.fr -o vocab.spm --vocab-size 24 --model-type word > tiny-vocab.log 2>&1 ||
    { cat tiny-vocab.log >&2; return 1; }
  "$bin/realmt-train" -t train.en train.fr -v vocab.spm vocab.spm -m model.safetensors \
    --enc-depth 1 --dec-depth 1 --dim-emb 32 --transformer-heads 2 --transformer-dim-ffn 64 \
    --transformer-dropout 0 --admin-init closed-form --mini-batch-words 400 --learn-rate 0.01 \
    --lr-warmup 5u --after 200u --disp-freq 100u --quiet-progress --cpu-threads 1 > tiny-train.log 2>&1 ||
    { tail -20 tiny-train.log >&2; return 1; }
}
