#!/usr/bin/env bash
# End-to-end: realmt-data vocab -> realmt-train (tiny model, a few dozen updates, bleu/chrf
# validation) -> realmt-translate (beam 1, beam 4 n-best, alignments) -> realmt-score (pairs,
# n-best rescoring) -> realmt-average; clear errors for a missing model and a wrong vocabulary.
set -euo pipefail
# shellcheck source=SCRIPTDIR/../lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
bin="$1"
tmp="$(mktemp -d)"
remove_on_exit "$tmp"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$tmp"

# The reordering word-mapping task and its tiny model (regression/tiny_model.sh): 60 updates,
# validated twice.
source "$here/../tiny_model.sh"
make_tiny_model "$bin" --task reorder --schedule - <<'YML' || fail "training the tiny model"
valid-sets: [dev.src, dev.tgt]
after: 60u
save-freq: 30u
valid-freq: 30u
valid-metrics: [ce-mean-words, bleu, chrf]
disp-freq: 20u
YML
[[ -f model.safetensors && -f model.iter30.safetensors && -f model.iter60.safetensors ]] || fail "checkpoints: $(ls)"
grep -q '"bleu"' model.metrics.jsonl && grep -q '"chrf"' model.metrics.jsonl \
  || fail "no bleu/chrf in the validation metrics: $(grep -i valid model.metrics.jsonl | head -3)"

tr="$bin/realmt-translate -m model.safetensors -v vocab.spm --quiet"
$tr -i test.src -o out1.txt -b 1 || fail "translate beam 1"
$tr -i test.src -o out4.txt -b 4 --normalize 0.6 --mini-batch 7 || fail "translate beam 4"
$tr -b 4 --normalize 0.6 --n-best < test.src > nbest.txt || fail "translate n-best"
$tr -b 4 --alignment hard < test.src > align.txt || fail "translate alignments"
[[ $(wc -l < out1.txt) -eq 20 && $(wc -l < out4.txt) -eq 20 && $(wc -l < align.txt) -eq 20 ]] \
  || fail "line counts $(wc -l out1.txt out4.txt align.txt)"
# Mini-batch size and sorting do not change the output.
$tr -i test.src -b 4 --normalize 0.6 --mini-batch 1 --maxi-batch 1 > out4b.txt
cmp -s out4.txt out4b.txt || fail "batching changed translations"
# --profile: the same output, and where the decoding's time went by kind of op and by kernel.
"$bin/realmt-translate" -m model.safetensors -v vocab.spm -i test.src -o outp.txt -b 1 --profile \
  --quiet-translation 2> profile.log || fail "translate --profile"
cmp -s out1.txt outp.txt || fail "--profile changed translations"
grep -Eq 'profile: gemm +[0-9.]+ s +[0-9.]+% +[0-9]+ calls' profile.log &&
  grep -Eq 'profile: kernel matmul_kernel +[0-9.]+ s' profile.log ||
  fail "--profile: no gemm share or matmul kernel line: $(grep profile profile.log)"

python3 - <<'PY' || fail "n-best/alignment format"
import re
lines = open("nbest.txt").read().splitlines()
best = open("out4.txt").read().splitlines()
ids, last = {}, {}
for l in lines:
    f = l.split(" ||| ")
    assert len(f) == 4 and re.fullmatch(r"F0= \S+", f[2]), l
    i, s = int(f[0]), float(f[3])
    assert i not in last or last[i] >= s, ("unsorted", l)
    last[i] = s
    ids.setdefault(i, []).append(f[1])
assert sorted(ids) == list(range(20)), sorted(ids)
assert all(len(v) == 4 for v in ids.values()), "beam 4 gives 4 hypotheses a sentence"
assert [ids[i][0] for i in range(20)] == best, "n-best heads differ from the 1-best output"
for l in open("align.txt").read().splitlines():
    text, a = l.split(" ||| ")
    for pair in a.split():
        assert re.fullmatch(r"\d+-\d+", pair), pair
PY

# realmt-score agrees with the decoder's n-best scores.
"$bin/realmt-score" -m model.safetensors -v vocab.spm -t test.src nbest.txt --n-best --normalize 0.6 \
  > rescored.txt 2> score.log || fail "rescore: $(cat score.log)"
python3 - <<'PY' || fail "rescored n-best disagrees with the decoder"
for l in open("rescored.txt").read().splitlines():
    f = l.split(" ||| ")
    feats = f[2].split()
    assert feats[2] == "Score=", f[2]
    assert abs(float(feats[3]) - float(f[3])) < 1e-3, l
PY
"$bin/realmt-score" -m model.safetensors -v vocab.spm -t test.src test.tgt --word-scores > pairs.txt 2> score.log
[[ $(wc -l < pairs.txt) -eq 20 ]] || fail "score lines"

# The model learned: its test perplexity is below that of a model that knows only how often each
# target piece occurs (unigram frequencies of the training targets, eos included; the word-level
# vocabulary makes each word one piece), itself below the uniform model's, which is the
# vocabulary size V (read from the checkpoint's config). Measured: 6.9 against 12.0 and 28.
ppl=$("$bin/realmt-score" -m model.safetensors -v vocab.spm -t test.src test.tgt --summary perplexity 2> /dev/null)
python3 - "$ppl" <<'PY' || fail "perplexity $ppl: the model did not learn"
import collections, json, math, struct, sys
ppl = float(sys.argv[1])
d = open("model.safetensors", "rb").read()
n = struct.unpack("<Q", d[:8])[0]
config = json.loads(d[8:8 + n])["__metadata__"]["realmt.config"]
V = int(next(l.split(":")[1].strip(" []").split(",")[0] for l in config.splitlines() if l.startswith("dim-vocabs:")))  # "28" or "[28]"
counts = collections.Counter()
for line in open("train.tgt"):
    counts.update(line.split() + ["</s>"])
total = sum(counts.values())
test = [w for line in open("test.tgt") for w in line.split() + ["</s>"]]
unigram = math.exp(-sum(math.log(counts[w] / total) for w in test) / len(test))
print(f"test perplexity {ppl:.2f}; unigram model {unigram:.2f}; uniform model {V}")
sys.exit(0 if ppl < unigram < V else 1)
PY
# BLEU: the validations logged it, and it rose (0 at update 30 here, before the model has
# learned the mapping); the beam-4 output scores at least 2 (measured 4.4) where copying the
# source scores 0 (other words).
bleu=$("$bin/realmt-bleu" test.tgt -i out4.txt -b)
copy=$("$bin/realmt-bleu" test.tgt -i test.src -b)
python3 - "$bleu" "$copy" <<'PY' || fail "BLEU: the model did not learn"
import json, sys
bleu, copy = float(sys.argv[1]), float(sys.argv[2])
valid = [json.loads(l) for l in open("model.metrics.jsonl") if '"type":"valid"' in l]
print(f"test BLEU (beam 4) {bleu}, copying the source {copy}; validation BLEU {[v['bleu'] for v in valid]}")
assert len(valid) == 2 and valid[1]["bleu"] > valid[0]["bleu"], "validation BLEU did not rise"
assert valid[1]["ce-mean-words"] < valid[0]["ce-mean-words"], "validation cross-entropy did not fall"
assert bleu >= 2.0 and bleu > copy + 2.0, "test BLEU too low"
PY

# int8 inference (--quantize int8) scores close to f32 (realmt-score); its translations are
# compared with f32's on a better trained model in int8_regression.sh.
ppl8=$("$bin/realmt-score" -m model.safetensors -v vocab.spm -t test.src test.tgt --summary perplexity \
  --quantize int8 2> /dev/null) || fail "score int8"
python3 -c "import sys; sys.exit(0 if abs($ppl8 / $ppl - 1) < 0.05 else 1)" || fail "int8 perplexity $ppl8 vs f32 $ppl"

# Averaging: two identical checkpoints give the same model; two different ones give a model.
"$bin/realmt-average" -m model.safetensors model.safetensors -o same.safetensors 2> avg.log || fail "average"
"$bin/realmt-translate" -m same.safetensors -v vocab.spm --quiet -b 4 --normalize 0.6 < test.src > same.txt
cmp -s same.txt out4.txt || fail "average of identical checkpoints changed the translations"
"$bin/realmt-average" -m model.iter30.safetensors model.iter60.safetensors -o avg.safetensors 2> avg.log
"$bin/realmt-translate" -m avg.safetensors -v vocab.spm --quiet < test.src > avg.txt
[[ $(wc -l < avg.txt) -eq 20 ]] || fail "averaged model output"
# Ensemble of two models with weights.
"$bin/realmt-translate" -m model.safetensors avg.safetensors --weights 0.7 0.3 -v vocab.spm --quiet --n-best \
  -b 2 < test.src > ens.txt
grep -q "F1= " ens.txt || fail "ensemble n-best has no F1"

# Clear errors.
expect_error "a missing model" "model not found" "$bin/realmt-translate" -m missing.safetensors -v vocab.spm -i test.src
"$bin/realmt-data" vocab -i train.src -o small.spm --vocab-size 16 --model-type word 2> /dev/null
expect_error "a wrong vocabulary" "was trained with" "$bin/realmt-translate" -m model.safetensors -v small.spm -i test.src
expect_error "average of a non-model" "" "$bin/realmt-average" -m model.safetensors small.spm -o x.safetensors

echo "translate regression: OK ($(grep -o '"bleu":[^,}]*' model.metrics.jsonl | tail -1))"
