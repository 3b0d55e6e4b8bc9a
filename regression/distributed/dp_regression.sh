#!/usr/bin/env bash
# Data-parallel training, end to end, with the real realmt-train under mpirun (2 processes on
# this machine, shared memory only).
#
#   dp_regression.sh equivalence REALMT_TRAIN REALMT_DATA
#     1. mini-batch-words is per rank: 2 processes with optimizer-delay 2 train on the batches
#        that 1 process with optimizer-delay 4 trains on (N x the batch of one rank per update;
#        distributed/shard.h deals the batch stream out), so both runs log the same sentence
#        counts, the same per-update losses and gradient norms (9 digits in the metrics file),
#        and end with the same parameters up to f32 summation order (tolerance below). A run
#        where the ranks shared one batch (the global budget) would see half the sentences.
#     2. Resume across ranks: a 2-process run stopped at update 6 and resumed to 12 (dropout on,
#        so each rank's own dropout stream is restored) ends bit-identical to an uninterrupted
#        2-process run; only rank 0 wrote files.
#   dp_regression.sh failure REALMT_TRAIN REALMT_DATA
#     3. A rank killed (SIGKILL) mid-run: the job ends within a bound with a non-zero status.
#     4. A rank hung (SIGSTOP) mid-run: rank 0's watchdog reports it after comm-timeout (3 s), the
#        job ends within a bound; every checkpoint on disk is complete, and the run resumes.
#
# Tolerance of 1: the two runs differ only in the order of floating-point sums (the update's
# gradient is one running sum over 4 batches in one process, two sums of 2 batches added by MPI
# in two). Each f32 sum then differs by a few ulp (relative ~1e-7); Adam turns a gradient g into
# lr * m/sqrt(v), whose relative error is that of g, so a weight moves by lr (1e-3) times
# ~1e-7 differently per update: over 12 updates ~1e-9, and ~1e-7 where a weight of size ~1
# rounds differently (1 ulp). We allow 1e-5: 100x that, yet 100x below what a wrong reduction
# gives (a rank that misses the other's batches, a mean instead of a token-weighted sum, or
# other batches than the one-process run's change the updates by O(lr) = 1e-3, visible in the
# losses too). The attention key biases are reported, not checked: softmax over keys is
# invariant to adding q.b_k to every score, so their true gradient is exactly 0 and what both
# runs compute is rounding noise (~1e-9), which Adam normalises to steps of O(lr) with a random
# sign: they differ by O(lr) between any two summation orders.
set -euo pipefail
# shellcheck source=SCRIPTDIR/../lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
mode=$1
train=$(readlink -f "$2")
data_tool=$(readlink -f "$3")
here=$(cd "$(dirname "$0")" && pwd)
compare="python3 $here/compare_safetensors.py"
work="$(mktemp -d "${TMPDIR:-/tmp}/realmt-dp-XXXXXX")"
remove_on_exit "$work"
cd "$work"

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# 2 ranks on this machine: oversubscription allowed (2 cores), shared memory and loopback only.
mpirun_2=(mpirun -np 2 --oversubscribe --allow-run-as-root --mca btl self,vader --mca btl_vader_single_copy_mechanism none)
# Sanitizer builds: CMake sets RANK_LSAN_OPTIONS (see CMakeLists.txt beside this script) and the
# ranks get it as LSAN_OPTIONS; realmt-data, run outside mpirun, keeps leak checking.
if [[ -n ${RANK_LSAN_OPTIONS:-} ]]; then
  mpirun_2+=(-x "LSAN_OPTIONS=$RANK_LSAN_OPTIONS")
fi

# A reversal corpus ("c a f" -> "f a c") and its character vocabulary.
python3 - <<'EOF'
import random
r = random.Random(5)
with open("train.src", "w") as s, open("train.tgt", "w") as t:
    for _ in range(600):
        w = [chr(ord("a") + r.randrange(12)) for _ in range(2 + r.randrange(7))]
        s.write(" ".join(w) + "\n")
        t.write(" ".join(reversed(w)) + "\n")
EOF
"$data_tool" vocab -i train.src train.tgt -o vocab.spm --vocab-size 24 --model-type char >/dev/null 2>&1
cat >config.yml <<'EOF'
train-sets: [train.src, train.tgt]
vocabs: [vocab.spm]
valid-sets: [train.src, train.tgt]
mini-batch-words: 300
maxi-batch: 4
disp-freq: 1u
valid-freq: 4u
save-freq: 6u
learn-rate: 0.001
lr-warmup: 4u
optimizer-delay: 2
clip-norm: 5
seed: 7
cpu-threads: 1
quiet-progress: true
overwrite: true
enc-depth: 2
dec-depth: 2
dim-emb: 32
transformer-heads: 2
transformer-dim-ffn: 64
transformer-dropout: 0
EOF

# Per-update (updates, epoch, sentences, loss, grad norm) of a metrics file, one line each.
train_curve() { python3 -c '
import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r["type"] == "train": print(r["updates"], r["epoch"], r["sentences"], r["loss_per_token"], r["grad_norm"])' "$1"; }

if [[ $mode == equivalence ]]; then
  echo "== 1 process with optimizer-delay 4 vs 2 processes with optimizer-delay 2 (12 updates)"
  mkdir one two
  "$train" -c config.yml --optimizer-delay 4 --model one/model.safetensors --after 12u 2>one.log ||
    { cat one.log; fail "1-process run"; }
  "${mpirun_2[@]}" "$train" -c config.yml --model two/model.safetensors --after 12u >two.log 2>&1 ||
    { cat two.log; fail "2-process run"; }
  grep -q "data parallel: 2 processes (mpi)" two.log || { cat two.log; fail "the 2-process run did not run data-parallel"; }
  train_curve one/model.metrics.jsonl >one.curve
  train_curve two/model.metrics.jsonl >two.curve
  [[ $(wc -l <one.curve) == 12 ]] || fail "expected 12 updates in one.curve"
  # 600 pairs make ~27 batches of 300 target tokens (padding counted), so 12 updates of 4 batches
  # cross the end of epoch 1, where a round may hold fewer batches than ranks.
  [[ $(tail -1 one.curve | cut -d' ' -f2) -ge 2 ]] || fail "12 updates did not cross an epoch: $(tail -1 one.curve)"
  python3 - one.curve two.curve <<'EOF' || fail "sentence counts, losses or gradient norms differ"
import sys
a = [l.split() for l in open(sys.argv[1])]
b = [l.split() for l in open(sys.argv[2])]
assert len(a) == len(b), (len(a), len(b))
worst = 0.0
for x, y in zip(a, b):
    assert x[:3] == y[:3], ("updates, epoch or sentences differ", x, y)
    for u, v in zip(x[3:], y[3:]):
        worst = max(worst, abs(float(u) - float(v)) / abs(float(u)))
print(f"per-update loss and gradient norm: max relative difference {worst:.2e} (limit 1e-5)")
sys.exit(0 if worst <= 1e-5 else 1)
EOF
  # The key bias (columns [32, 64) of self_attn.qkv.bias and [0, 32) of cross_attn.kv.bias at
  # dim-emb 32) has a gradient of exactly 0 in exact arithmetic (it adds q_i . b_k to every score
  # of query i, which the softmax ignores); its computed gradient is rounding noise, which Adam
  # scales up to steps of the learning rate, so it differs between summation orders by design.
  key_bias=(--skip-range self_attn.qkv.bias:32:64 cross_attn.kv.bias:0:32)
  $compare one/model.safetensors two/model.safetensors --max-abs 1e-5 "${key_bias[@]}" ||
    fail "parameters of 1 and 2 processes differ beyond f32 summation order"
  $compare one/model.state.safetensors two/model.state.safetensors --max-abs 1e-5 "${key_bias[@]}" >/dev/null ||
    fail "optimizer state of 1 and 2 processes differs"

  echo "== resume across ranks: 2 processes, dropout on, 6 updates + 6 updates vs 12 at once"
  mkdir full split
  dropout=(--transformer-dropout 0.1 --transformer-dropout-attention 0.1)
  "${mpirun_2[@]}" "$train" -c config.yml "${dropout[@]}" --model full/model.safetensors --after 12u >full.log 2>&1 ||
    { cat full.log; fail "uninterrupted run"; }
  "${mpirun_2[@]}" "$train" -c config.yml "${dropout[@]}" --model split/model.safetensors --after 6u >split1.log 2>&1 ||
    { cat split1.log; fail "first half"; }
  "${mpirun_2[@]}" "$train" -c config.yml "${dropout[@]}" --model split/model.safetensors --after 12u >split2.log 2>&1 ||
    { cat split2.log; fail "resumed half"; }
  grep -q "resumed from" split2.log || fail "the second half did not resume"
  [[ $(grep -c "resumed from" split2.log) == 1 ]] || fail "a rank other than 0 logged"
  $compare full/model.safetensors split/model.safetensors || fail "resumed run differs from the uninterrupted one"
  $compare full/model.state.safetensors split/model.state.safetensors || fail "resumed state differs"
  cmp <(train_curve full/model.metrics.jsonl) <(train_curve split/model.metrics.jsonl) ||
    fail "resumed losses differ from the uninterrupted run's"
  # Only rank 0 wrote files: the model, its decoder config, its state and one metrics file.
  [[ $(ls split | sort | tr '\n' ' ') == \
     "model.metrics.jsonl model.safetensors model.safetensors.decoder.yml model.state.safetensors " ]] ||
    fail "unexpected files: $(ls split)"
  echo "PASS equivalence"
  exit 0
fi

[[ $mode == failure ]] || fail "mode must be equivalence or failure"

# Starts a long 2-process run in the background; sets job_pid and victim (rank 1's pid).
start_job() {
  local dir=$1
  mkdir "$dir"
  "${mpirun_2[@]}" "$train" -c config.yml --model "$dir/model.safetensors" --after 100000u --save-freq 3u \
    --valid-freq 0u --comm-timeout 3 >"$dir.log" 2>&1 &
  job_pid=$!
  # Wait until training is under way (rank 0 has logged a few updates).
  for _ in $(seq 600); do
    [[ -f $dir/model.metrics.jsonl && $(wc -l <"$dir/model.metrics.jsonl") -ge 4 ]] && break
    kill -0 "$job_pid" 2>/dev/null || { cat "$dir.log"; fail "the job ended before training"; }
    sleep 0.1
  done
  victim=""
  for pid in $(pgrep -P "$job_pid"); do
    if tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null | grep -qx "OMPI_COMM_WORLD_RANK=1"; then victim=$pid; fi
  done
  [[ -n $victim ]] || fail "rank 1 not found among mpirun's children"
}

# Waits for the job to end; fails unless it ends within $1 s with a non-zero status.
expect_end_within() {
  local bound=$1 dir=$2 start=$SECONDS
  for _ in $(seq $((bound * 10))); do
    kill -0 "$job_pid" 2>/dev/null || break
    sleep 0.1
  done
  if kill -0 "$job_pid" 2>/dev/null; then
    kill -KILL "$job_pid" 2>/dev/null || true
    cat "$dir.log"
    fail "the job still ran ${bound}s after a rank failed"
  fi
  local rc=0
  wait "$job_pid" || rc=$?
  [[ $rc != 0 ]] || { cat "$dir.log"; fail "the job exited 0 after a rank failed"; }
  echo "job ended $((SECONDS - start))s after the failure, status $rc"
}

# Every checkpoint on disk is complete (the header matches the file length), and training
# resumes from it.
check_checkpoints() {
  local dir=$1
  for f in "$dir"/model.safetensors "$dir"/model.state.safetensors; do
    [[ -f $f ]] || fail "$f missing (save-freq 3u should have written it)"
    $compare "$f" "$f" >/dev/null || fail "$f is not a complete checkpoint"
  done
  local done_updates
  done_updates=$(python3 -c '
import json, struct, sys
d = open(sys.argv[1], "rb").read()
n = struct.unpack("<Q", d[:8])[0]
print(json.loads(d[8:8 + n])["__metadata__"]["realmt.step"])' "$dir/model.state.safetensors")
  "${mpirun_2[@]}" "$train" -c config.yml --model "$dir/model.safetensors" --after $((done_updates + 2))u \
    --valid-freq 0u >"$dir.resume.log" 2>&1 || { cat "$dir.resume.log"; fail "resume after the failure"; }
  grep -q "resumed from .* at update $done_updates" "$dir.resume.log" || fail "did not resume at update $done_updates"
}

echo "== a rank is killed (SIGKILL) mid-run"
start_job killed
kill -KILL "$victim"
expect_end_within 20 killed
# OpenMPI's mpirun ends the job when a rank dies; rank 0 may also report its watchdog first.
grep -Eq "exited on signal 9|did not complete within 3 s" killed.log || { cat killed.log; fail "no clear error"; }
grep -E "exited on signal 9|did not complete within 3 s" killed.log | head -2
check_checkpoints killed

echo "== a rank hangs (SIGSTOP) mid-run"
start_job hung
kill -STOP "$victim"
expect_end_within 20 hung
grep -q "rank 0 of 2: .* did not complete within 3 s (comm-timeout)" hung.log || { cat hung.log; fail "no watchdog error"; }
grep "did not complete within" hung.log | head -1 | cut -c1-200
kill -KILL "$victim" 2>/dev/null || true
check_checkpoints hung
echo "PASS failure"
