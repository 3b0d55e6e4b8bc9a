# shellcheck shell=bash
# The tiny trained model of the end-to-end tests (the one script that makes it). Source this file,
# then, in the folder that is to hold the model:
#
#   make_tiny_model BIN_DIR [--task en-fr|reorder] [--schedule FILE] [NAME=COUNT ...]
#
# BIN_DIR holds realmt-data and realmt-train. It writes a generated word-for-word task, a word
# vocabulary vocab.spm, and model.safetensors (with model.safetensors.decoder.yml): a 1+1-layer
# transformer of dimension 32 (2 heads, feed-forward 64, no dropout, ADMIN closed-form
# initialisation, mini-batches of 400 words). It returns 1, with the failing step's log on
# stderr, when a step fails; the caller's fail names what it needed the model for.
#
# The two tasks (each drawn from its own seeded stream, so every caller gets the same sentences):
#   en-fr (the default): English -> French, each word mapped, in the same order. train.{en,fr}
#     (1500 pairs), dev.{en,fr} (30), test.{en,fr} (20); 24 pieces; learning rate 0.01 after 5
#     warm-up updates. 200 updates (the default schedule) take about a second on one core and
#     translate most test lines right.
#   reorder: each word mapped and the sentence reversed, so the model must learn to reorder.
#     train.{src,tgt} (3000 pairs), dev (40), test (20); 28 pieces; learning rate 0.003 after 10
#     warm-up updates. The translate regressions and the server tests use it, with their own
#     schedules.
# Each NAME=COUNT adds a further set NAME.{en,fr} or NAME.{src,tgt} of COUNT pairs, drawn after
# the others from the same stream (int8_regression.sh's 300 held-out sentences).
# --schedule FILE: realmt-train YAML lines for the run's length, validation, saving and display
# (for instance "after: 60u", "valid-freq: 30u"), instead of the default "after: 200u",
# "disp-freq: 100u", "cpu-threads: 1"; FILE "-" reads them from stdin (a here-document).
# Logs: tiny-vocab.log, tiny-train.log (and the schedule, when given, in tiny-schedule.yml).

# make_tiny_corpus TASK [NAME=COUNT ...]: only the corpus files of TASK, as described above.
make_tiny_corpus() {
  python3 - "$@" <<'PY'
import random, sys
task, extra = sys.argv[1], [(a.split("=")[0], int(a.split("=")[1])) for a in sys.argv[2:]]
if task == "en-fr":
    rnd = random.Random(5)
    src = "the a cat dog sees likes red small house tree".split()
    tgt = "le un chat chien voit aime rouge petit maison arbre".split()
    ext, sets, reverse = ("en", "fr"), [("train", 1500), ("dev", 30), ("test", 20)], False
elif task == "reorder":
    rnd = random.Random(7)
    src = "cat dog house tree car book red blue big small sun moon".split()
    tgt = "chat chien maison arbre voiture livre rouge bleu grand petit soleil lune".split()
    ext, sets, reverse = ("src", "tgt"), [("train", 3000), ("dev", 40), ("test", 20)], True
else:
    sys.exit(f"make_tiny_corpus: unknown task '{task}' (en-fr or reorder)")
m = dict(zip(src, tgt))
for name, n in sets + extra:
    with open(f"{name}.{ext[0]}", "w") as s, open(f"{name}.{ext[1]}", "w") as t:
        for _ in range(n):
            words = [rnd.choice(src) for _ in range(rnd.randint(2, 6))]
            s.write(" ".join(words) + "\n")
            t.write(" ".join(m[w] for w in (reversed(words) if reverse else words)) + "\n")
PY
}

make_tiny_model() {
  local bin="$1" task="en-fr" schedule=""
  local -a extra=()
  shift
  while [[ $# -gt 0 ]]; do
    case "$1" in
      --task) task="$2"; shift 2 ;;
      --schedule) schedule="$2"; shift 2 ;;
      *=*) extra+=("$1"); shift ;;
      *) echo "make_tiny_model: unknown argument '$1'" >&2; return 1 ;;
    esac
  done
  # Each task as it was first written: en-fr names the vocabulary once a side, reorder once.
  local src tgt vocab_size
  local -a vocabs recipe
  case "$task" in
    en-fr) src=en tgt=fr vocab_size=24 vocabs=(vocab.spm vocab.spm) recipe=(--learn-rate 0.01 --lr-warmup 5u) ;;
    reorder) src=src tgt=tgt vocab_size=28 vocabs=(vocab.spm) recipe=(--learn-rate 0.003 --lr-warmup 10u) ;;
    *) echo "make_tiny_model: unknown task '$task' (en-fr or reorder)" >&2; return 1 ;;
  esac
  local -a run=(--after 200u --disp-freq 100u --cpu-threads 1)
  if [[ -n "$schedule" ]]; then
    if [[ "$schedule" == - ]]; then cat > tiny-schedule.yml || return 1
    else cp "$schedule" tiny-schedule.yml || return 1; fi
    run=(-c tiny-schedule.yml)
  fi
  make_tiny_corpus "$task" "${extra[@]}" || return 1
  "$bin/realmt-data" vocab -i "train.$src" "train.$tgt" -o vocab.spm --vocab-size "$vocab_size" --model-type word \
    > tiny-vocab.log 2>&1 || { cat tiny-vocab.log >&2; return 1; }
  "$bin/realmt-train" "${run[@]}" -t "train.$src" "train.$tgt" -v "${vocabs[@]}" -m model.safetensors \
    --enc-depth 1 --dec-depth 1 --dim-emb 32 --transformer-heads 2 --transformer-dim-ffn 64 \
    --transformer-dropout 0 --admin-init closed-form --mini-batch-words 400 "${recipe[@]}" \
    --quiet-progress > tiny-train.log 2>&1 || { tail -20 tiny-train.log >&2; return 1; }
}
