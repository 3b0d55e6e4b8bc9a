#!/usr/bin/env bash
# Every program: --version, usage errors exit 2 (as argparse), other errors exit 1; Marian's
# stdin/stdout file names; max-length limits the decoder's input (Marian's meaning).
set -euo pipefail
# shellcheck source=SCRIPTDIR/../lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
bin="$1"
tmp="$(mktemp -d)"
remove_on_exit "$tmp"
here="$(cd "$(dirname "$0")" && pwd)"
cd "$tmp"

# ---- --version and exit codes, eight of the ten programs --------------------------------------
for p in train init translate score server average data bleu; do
  out=$("$bin/realmt-$p" --version) || fail "realmt-$p --version exited $?"
  [[ "$out" =~ ^realmt-$p\ [0-9] ]] || [[ $p == bleu && "$out" == realmt-bleu* ]] || fail "realmt-$p --version: '$out'"
  set +e
  "$bin/realmt-$p" --no-such-option > /dev/null 2> err.txt
  rc=$?
  set -e
  [[ $rc -eq 2 ]] || fail "realmt-$p with an unknown option exited $rc: $(cat err.txt)"
done
expect_exit 2 "a bad value" "$bin/realmt-train" --enc-depth four
expect_exit 2 "a missing value" "$bin/realmt-translate" -m
expect_exit 2 "a contradiction" "$bin/realmt-train" -t a b -v v.spm --after 2u --after-epochs 1
expect_exit 2 "an unavailable Marian option" "$bin/realmt-train" -t a b -v v.spm --dim-rnn 512
expect_exit 2 "a missing required option" "$bin/realmt-data" vocab -i x.txt
expect_exit 2 "an unknown realmt-data command" "$bin/realmt-data" vocabulary
expect_exit 2 "realmt-average without output" "$bin/realmt-average" -m a.safetensors
expect_exit 1 "a missing model" "$bin/realmt-translate" -m missing.safetensors -v missing.spm
expect_exit 1 "a missing corpus" "$bin/realmt-data" stats missing.txt
expect_exit 0 "--help" "$bin/realmt-score" --help

# ---- a tiny model to decode with -------------------------------------------------------------
python3 - <<'PY'
import random
rnd = random.Random(3)
w = "a b c d e f g h".split()
with open("train.src", "w") as s, open("train.tgt", "w") as t:
    for _ in range(600):
        x = [rnd.choice(w) for _ in range(rnd.randint(2, 5))]
        s.write(" ".join(x) + "\n")
        t.write(" ".join(reversed(x)) + "\n")
open("long.txt", "w").write("a b\n" + " ".join(w * 3) + "\nc d e\n")
PY
"$bin/realmt-data" vocab -i train.src train.tgt -o vocab.spm --vocab-size 12 --model-type word 2> /dev/null
"$bin/realmt-train" -t train.src train.tgt -v vocab.spm -m model.safetensors --enc-depth 1 --dec-depth 1 \
  --dim-emb 16 --transformer-heads 2 --transformer-dim-ffn 32 --admin-init none --after 5u --quiet \
  > /dev/null 2>&1 || fail "training the tiny model"

# stdin/stdout are standard streams, not files of that name.
"$bin/realmt-translate" -m model.safetensors -v vocab.spm -i stdin -o stdout --quiet < long.txt > out.txt
[[ $(wc -l < out.txt) -eq 3 && ! -e stdout && ! -e stdin ]] || fail "stdin/stdout: $(ls)"
"$bin/realmt-score" -m model.safetensors -v vocab.spm -t train.src train.tgt -o stdout --summary --quiet \
  > ce.txt
[[ $(wc -l < ce.txt) -eq 1 && ! -e stdout ]] || fail "realmt-score -o stdout"

# max-length limits the input (eos counted): the 24-word line is left empty with a warning, or
# cropped with max-length-crop; the short lines are translated as without the limit.
"$bin/realmt-translate" -m model.safetensors -v vocab.spm --max-length 10 --quiet-translation < long.txt \
  > limited.txt 2> limited.err
[[ "$(sed -n 2p limited.txt)" == "" && "$(sed -n 1p limited.txt)" == "$(sed -n 1p out.txt)" \
   && "$(sed -n 3p limited.txt)" == "$(sed -n 3p out.txt)" ]] || fail "max-length: $(cat limited.txt)"
grep -q "\] \[warn\] stdin: line 2: 25 subwords (eos counted), more than max-length 10" limited.err \
  || fail "$(cat limited.err)"
# --log: the lines also go to the file, even with --quiet (Marian's); --log-level in every program.
"$bin/realmt-translate" -m model.safetensors -v vocab.spm --max-length 10 --quiet --log tr.log --log-level debug \
  < long.txt > /dev/null 2> quiet.err
[[ ! -s quiet.err ]] || fail "--quiet wrote to stderr: $(cat quiet.err)"
grep -q "\[warn\] stdin: line 2" tr.log && grep -q "Total time" tr.log || fail "--log: $(cat tr.log)"
# A Marian 1.12 training --dump-config loads (its data need not exist for a dump).
"$bin/realmt-train" -c "$here/marian-1.12-train.yml" --dump-config > dump.yml 2> dump.err \
  || fail "Marian 1.12 dump: $(cat dump.err)"
grep -q "^lr-decay-inv-sqrt:" dump.yml || fail "Marian 1.12 dump: $(head dump.yml)"
"$bin/realmt-translate" -m model.safetensors -v vocab.spm --max-length 10 --max-length-crop --quiet < long.txt \
  > cropped.txt
[[ -n "$(sed -n 2p cropped.txt)" ]] || fail "max-length-crop left line 2 empty"
echo "marian cli: OK"
