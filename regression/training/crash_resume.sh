#!/usr/bin/env bash
# Crash consistency of a save, with the real realmt-train: a run killed (SIGKILL) in the save of
# update 8, after the model file and before the state file, resumes from the state of update 4
# and ends bit-identical to an uninterrupted run: raw weights, Adam moments, smoothed weights
# (exponential-smoothing on), dropout and data order all come from that one state file.
# A trainer that took the smoothed weights from the model file (written at update 8) would pair
# the average of update 8 with the weights and moments of update 4 and end elsewhere. Also: a
# state without smoothed weights (written by an older realmt) resumes from the model file's.
#
#   crash_resume.sh REALMT_TRAIN REALMT_DATA COMPARE_SAFETENSORS_PY
set -euo pipefail
# shellcheck source=SCRIPTDIR/../lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
train=$(readlink -f "$1")
data_tool=$(readlink -f "$2")
compare="python3 $(readlink -f "$3")"
work="$(mktemp -d "${TMPDIR:-/tmp}/realmt-crash-XXXXXX")"
remove_on_exit "$work"
cd "$work"

python3 - <<'PY'
import random
r = random.Random(9)
with open("train.src", "w") as s, open("train.tgt", "w") as t:
    for _ in range(400):
        w = [chr(ord("a") + r.randrange(12)) for _ in range(2 + r.randrange(7))]
        s.write(" ".join(w) + "\n")
        t.write(" ".join(reversed(w)) + "\n")
PY
"$data_tool" vocab -i train.src train.tgt -o vocab.spm --vocab-size 24 --model-type char >/dev/null 2>&1
cat >config.yml <<'YML'
train-sets: [train.src, train.tgt]
vocabs: [vocab.spm]
mini-batch-words: 200
maxi-batch: 4
disp-freq: 1u
valid-freq: 0u
save-freq: 4u
after: 12u
learn-rate: 0.002
lr-warmup: 4u
exponential-smoothing: 0.05
seed: 3
cpu-threads: 1
quiet-progress: true
overwrite: true
enc-depth: 1
dec-depth: 1
dim-emb: 32
transformer-heads: 2
transformer-dim-ffn: 64
transformer-dropout: 0.1
YML
meta() {  # file key: a metadata value of a safetensors file
  python3 -c '
import json, struct, sys
d = open(sys.argv[1], "rb").read()
n = struct.unpack("<Q", d[:8])[0]
print(json.loads(d[8:8 + n])["__metadata__"][sys.argv[2]])' "$1" "$2"
}

mkdir full crashed
"$train" -c config.yml --model full/model.safetensors 2>full.log || { cat full.log; fail "uninterrupted run"; }

rc=0
REALMT_TEST_KILL_BEFORE_STATE=8 "$train" -c config.yml --model crashed/model.safetensors 2>crash.log || rc=$?
[[ $rc == 137 ]] || { cat crash.log; fail "the run should have died by SIGKILL (status 137), got $rc"; }
# The crash left the model file of update 8 beside the state of update 4.
[[ $(meta crashed/model.safetensors realmt.updates) == 8 ]] || fail "model file not from update 8"
[[ $(meta crashed/model.state.safetensors realmt.step) == 4 ]] || fail "state file not from update 4"
echo "killed between the writes of update 8: model file at update 8, state at update 4"

"$train" -c config.yml --model crashed/model.safetensors 2>resume.log || { cat resume.log; fail "resume"; }
grep -q "resumed from .* at update 4" resume.log || { cat resume.log; fail "did not resume at update 4"; }
$compare full/model.safetensors crashed/model.safetensors ||
  fail "the smoothed model after the crash and resume differs from the uninterrupted run's"
$compare full/model.state.safetensors crashed/model.state.safetensors ||
  fail "the training state after the crash and resume differs from the uninterrupted run's"
echo "resumed after a crash between the writes of a save: bit-identical to the uninterrupted run"

# A state written before the smoothed weights moved into it (no ema.* tensors) still resumes:
# after a clean stop the model file holds the smoothed weights of the same save.
mkdir legacy
"$train" -c config.yml --model legacy/model.safetensors --after 8u 2>legacy1.log || { cat legacy1.log; fail "legacy run"; }
python3 - legacy/model.state.safetensors <<'PY'
import json, struct, sys
path = sys.argv[1]
d = open(path, "rb").read()
n = struct.unpack("<Q", d[:8])[0]
header, data = json.loads(d[8:8 + n]), d[8 + n:]
meta = header.pop("__metadata__")
meta.pop("realmt.crc32", None)  # an older realmt wrote no per-tensor checksums either
out, blobs, offset = {"__metadata__": meta}, [], 0
for name, t in sorted(header.items(), key=lambda kv: kv[1]["data_offsets"][0]):
    if name.startswith("ema."):
        continue
    blob = data[t["data_offsets"][0]:t["data_offsets"][1]]
    out[name] = {"dtype": t["dtype"], "shape": t["shape"], "data_offsets": [offset, offset + len(blob)]}
    blobs.append(blob)
    offset += len(blob)
h = json.dumps(out).encode()
h += b" " * (-len(h) % 8)
open(path, "wb").write(struct.pack("<Q", len(h)) + h + b"".join(blobs))
PY
"$train" -c config.yml --model legacy/model.safetensors 2>legacy2.log || { cat legacy2.log; fail "resume of a state without smoothed weights"; }
grep -q "holds no smoothed weights" legacy2.log || { cat legacy2.log; fail "no note about the older state"; }
$compare full/model.safetensors legacy/model.safetensors || fail "resume of an older state differs"
echo "PASS: crash between the writes, and an older state, both resume exactly"
