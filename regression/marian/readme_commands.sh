#!/usr/bin/env bash
# The README's example commands, run as written (the block after "<!-- readme-commands") on a
# small synthetic corpus. Only the scale changes: realmt-train and realmt-data are called through
# wrappers that append options shrinking the vocabulary, the model and the run (later options
# win), so the commands' own options, files and order are what is tested.
set -euo pipefail
# shellcheck source=SCRIPTDIR/../lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
bin="$1"
repo="$2"
tmp="$(mktemp -d)"
remove_on_exit "$tmp"
cd "$tmp"

mkdir wrap
cat > wrap/realmt-train <<SH
#!/bin/sh
exec "$bin/realmt-train" "\$@" --after 8u --time-limit 0 --enc-depth 1 --dec-depth 1 --dim-emb 32 \\
  --transformer-heads 2 --transformer-dim-ffn 64 --mini-batch-words 600 --valid-freq 4u --save-freq 4u --disp-freq 2u
SH
cat > wrap/realmt-data <<SH
#!/bin/sh
exec "$bin/realmt-data" "\$@" --vocab-size 40
SH
chmod +x wrap/*
export PATH="$tmp/wrap:$bin:$PATH"
ln -s "$repo/marian-style-configs" marian-style-configs

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

# The commands: the first ```sh block after the marker.
awk '/<!-- readme-commands/ {on = 1; next} on && /^```sh/ {inside = 1; next} inside && /^```/ {exit} inside {print}' \
  "$repo/README.md" > commands.sh
[[ $(grep -c realmt- commands.sh) -ge 4 ]] || fail "README commands not found: $(cat commands.sh)"
bash -euo pipefail commands.sh > commands.out 2> commands.err || fail "README commands: $(tail -20 commands.err)"
[[ $(wc -l < test.hyp) -eq 20 ]] || fail "test.hyp has $(wc -l < test.hyp) lines"
grep -q "^BLEU\|\"name\": \"BLEU\"" commands.out || fail "no BLEU score: $(cat commands.out)"
grep -q "\[valid\] Ep\. 1 : Up\. 8 : bleu : " model/valid.log || fail "valid.log: $(cat model/valid.log)"
echo "README commands: OK"
