#!/usr/bin/env bash
# realmt-init end to end, with the real executables: the ADMIN profiling pass on the first
# training batch writes a checkpoint whose omegas are the profile it prints (first sub-layer of
# each stack 1, then growing), the same profile realmt-train computes when it profiles at start
# (same first batch, same dropout seed), a checkpoint that realmt-train continues from
# (--pretrained-model) and realmt-translate loads; and clear errors for bad input.
#
#   init_end_to_end.sh BUILD_APPS_DIR
set -euo pipefail
# shellcheck source=SCRIPTDIR/../lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
bin=$(readlink -f "$1")
work="$(mktemp -d "${TMPDIR:-/tmp}/realmt-init-XXXXXX")"
remove_on_exit "$work"
cd "$work"

python3 - <<'PY'
import random
r = random.Random(4)
with open("train.src", "w") as s, open("train.tgt", "w") as t:
    for _ in range(300):
        w = [chr(ord("a") + r.randrange(12)) for _ in range(2 + r.randrange(7))]
        s.write(" ".join(w) + "\n")
        t.write(" ".join(reversed(w)) + "\n")
PY
"$bin/realmt-data" vocab -i train.src train.tgt -o vocab.spm --vocab-size 24 --model-type char >/dev/null 2>&1
cat >config.yml <<'YML'
train-sets: [train.src, train.tgt]
vocabs: [vocab.spm]
mini-batch-words: 300
maxi-batch: 4
enc-depth: 2
dec-depth: 2
dim-emb: 32
transformer-heads: 2
transformer-dim-ffn: 64
transformer-dropout: 0.1
admin-init: profile
seed: 11
cpu-threads: 1
quiet-progress: true
YML

"$bin/realmt-init" -c config.yml --model init.safetensors >init.out 2>init.err || { cat init.err; fail "realmt-init"; }
[[ -s init.safetensors && -s init.safetensors.admin-profile.txt ]] || fail "realmt-init wrote $(ls)"
cmp -s init.out init.safetensors.admin-profile.txt || fail "printed and written profiles differ"

# The checkpoint's omegas are the table's values, every element; the profile has the 4 encoder
# and 6 decoder sub-layers in forward order, starting from 1 in each stack and growing.
python3 - <<'PY' || fail "checkpoint and profile disagree"
import json, struct
from array import array
d = open("init.safetensors", "rb").read()
n = struct.unpack("<Q", d[:8])[0]
header = json.loads(d[8:8 + n])
rows = [l.split() for l in open("init.out").read().splitlines()[1:] if l.strip()]
names = [r[0] for r in rows]
expected = [f"encoder.layers.{i}.{s}.omega" for i in range(2) for s in ("self_attn", "ffn")] + \
           [f"decoder.layers.{i}.{s}.omega" for i in range(2) for s in ("self_attn", "cross_attn", "ffn")]
assert names == expected, names
omega = {r[0]: float(r[1]) for r in rows}
for name, value in omega.items():
    t = header[name]
    assert t["dtype"] == "F32", t
    a = array("f")
    a.frombytes(d[8 + n + t["data_offsets"][0]:8 + n + t["data_offsets"][1]])
    assert len(a) == 32 and len(set(a)) == 1, (name, set(a))
    assert abs(a[0] - value) <= 5e-5 * value, (name, a[0], value)
assert omega[expected[0]] == 1.0 and omega[expected[4]] == 1.0, omega
assert all(omega[e] > 1.0 for e in expected if e not in (expected[0], expected[4])), omega
print("profile:", ", ".join(f"{k.split('.omega')[0]} {v:.4f}" for k, v in omega.items()))
PY

# realmt-train profiling at start (no pretrained model) computes the same table.
mkdir fresh run
"$bin/realmt-train" -c config.yml --model fresh/model.safetensors --after 1u --valid-freq 0u >fresh.log 2>&1 ||
  { cat fresh.log; fail "realmt-train with admin-init profile"; }
python3 - <<'PY' || fail "realmt-train's start-up profile differs from realmt-init's"
import re
# Every line of the log is time-stamped (core/log.h), the table's too.
log = [re.sub(r"^\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\] ", "", l) for l in open("fresh.log").read().splitlines()]
start = next(i for i, l in enumerate(log) if "ADMIN profile" in l) + 1
table = open("init.out").read().splitlines()
assert log[start:start + len(table)] == table, (log[start:start + len(table)], table)
PY

# Training continues from the initial checkpoint, and the checkpoint translates.
"$bin/realmt-train" -c config.yml --pretrained-model init.safetensors --model run/model.safetensors --after 4u \
  --valid-freq 0u >run.log 2>&1 || { cat run.log; fail "realmt-train --pretrained-model"; }
grep -q "initialised from init.safetensors" run.log || fail "realmt-train did not start from the checkpoint"
head -3 train.src | "$bin/realmt-translate" -m init.safetensors -v vocab.spm --quiet >out.txt 2>tr.log ||
  { cat tr.log; fail "realmt-translate of the initial checkpoint"; }
[[ $(wc -l <out.txt) == 3 ]] || fail "translation of the initial checkpoint: $(cat out.txt)"

# Clear errors: a missing vocabulary, an empty corpus.
expect_error "a missing vocabulary" "missing.spm" "$bin/realmt-init" -c config.yml --vocabs missing.spm --model x.safetensors
: >empty.src
: >empty.tgt
expect_error "an empty corpus" "empty.src" "$bin/realmt-init" -c config.yml --train-sets empty.src empty.tgt \
  --model x.safetensors
[[ ! -e x.safetensors ]] || fail "a failed realmt-init left a checkpoint"
echo "PASS: realmt-init end to end"
