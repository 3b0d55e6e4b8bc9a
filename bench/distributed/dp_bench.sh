#!/usr/bin/env bash
# Data-parallel throughput on this machine: the same training job (cpu-small model shape:
# 3+3 layers, D=256, F=1024, 4 heads; synthetic reversal corpus with 8-24 tokens a side;
# mini-batch-words 1500; 15 updates, the first 3 not timed) run as
#   a) 1 process x 1 thread, b) 1 process x 2 threads, c) mpirun -np 2, 1 thread each
#      (mini-batch-words is per rank: each rank trains on its own batches, so an update holds
#      twice the tokens of a 1-process update; gradients summed by MPI_Iallreduce).
# Prints target tokens/s (subword tokens of the target side, padding excluded; the trainer's
# own count) over the timed updates, and the load average (the machine is shared).
#
#   bench/distributed/dp_bench.sh BUILD_DIR
set -euo pipefail
build=$(readlink -f "${1:-build}")
here=$(cd "$(dirname "$0")" && pwd)
train=$build/apps/realmt-train
data_tool=$build/apps/realmt-data
work=$(mktemp -d "${TMPDIR:-/tmp}/realmt-dpbench-XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
python3 - <<'PY'
import random
r = random.Random(3)
with open("train.src", "w") as s, open("train.tgt", "w") as t:
    for _ in range(20000):
        w = [chr(ord("a") + r.randrange(20)) for _ in range(8 + r.randrange(17))]
        s.write(" ".join(w) + "\n")
        t.write(" ".join(reversed(w)) + "\n")
PY
"$data_tool" vocab -i train.src train.tgt -o vocab.spm --vocab-size 32 --model-type char >/dev/null 2>&1
cat >config.yml <<'YML'
train-sets: [train.src, train.tgt]
vocabs: [vocab.spm]
mini-batch-words: 1500
maxi-batch: 10
disp-freq: 1u
save-freq: 0u
valid-freq: 0u
after: 15u
learn-rate: 0.0003
lr-warmup: 10u
seed: 1
quiet-progress: true
overwrite: true
enc-depth: 3
dec-depth: 3
dim-emb: 256
transformer-heads: 4
transformer-dim-ffn: 1024
transformer-dropout: 0.1
YML
run() {
  local name=$1; shift
  rm -rf "$name"; mkdir "$name"
  "$@" -c config.yml --model "$name/model.safetensors" >"$name.log" 2>&1 || { cat "$name.log"; exit 1; }
  printf "%-36s %s   (load average %s)\n" "$name" "$(python3 "$here/tokens_per_s.py" "$name/model.metrics.jsonl" 3)" \
    "$(cut -d' ' -f1 /proc/loadavg)"
}
echo "cores: $(nproc)"
run "1-process-1-thread" "$train" --cpu-threads 1
run "1-process-2-threads" "$train" --cpu-threads 2
run "2-processes-1-thread-each(mpirun)" mpirun -np 2 --oversubscribe --allow-run-as-root --mca btl self,vader \
  --bind-to none "$train" --cpu-threads 1
