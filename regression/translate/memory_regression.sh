#!/usr/bin/env bash
# realmt-translate's peak memory does not grow with the input: a file and the same file repeated
# 8 times, decoded with the same options, must reach the same peak resident memory (the child's
# ru_maxrss) within a margin. The input mixes lengths from 1 to 90 words, so its batches have many
# shapes; beam 8 and 32-sentence batches make a batch's key/value caches the largest part of the
# peak. Before the CPU memory was given back after each batch (core/allocator.h,
# release_host_memory), the caching allocator kept blocks of every shape it had seen and the
# repeated file reached a higher peak.
#   memory_regression.sh BIN_DIR
set -euo pipefail
# shellcheck source=SCRIPTDIR/../lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
bin="$1"
tmp="$(mktemp -d)"
remove_on_exit "$tmp"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$tmp"
source "$here/../tiny_model.sh"
make_tiny_model "$bin" || fail "training the tiny model"

python3 - <<'PY'
import random
rnd = random.Random(11)
words = "the a cat dog sees likes red small house tree".split()
lines = [" ".join(rnd.choice(words) for _ in range(rnd.randint(1, 90))) for _ in range(96)]
open("once.en", "w").write("".join(l + "\n" for l in lines))
open("eight.en", "w").write("".join(l + "\n" for l in lines) * 8)
PY

python3 - "$bin/realmt-translate" <<'PY' || fail "peak memory grows with the input"
import resource, subprocess, sys
def peak_mib(inp):
    # A fresh Python child per run: RUSAGE_CHILDREN's ru_maxrss is the largest of all children
    # waited for, so each measurement runs in its own process and reports its own child's peak.
    code = ("import resource, subprocess, sys; subprocess.run(sys.argv[1:], check=True); "
            "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
    cmd = [sys.argv[1], "-m", "model.safetensors", "-v", "vocab.spm", "-i", inp, "-o", inp + ".out",
           "-b", "8", "--mini-batch", "32", "--maxi-batch", "4", "--max-length-factor", "3",
           "--repeat-guard", "0", "--cpu-threads", "2", "--quiet"]
    out = subprocess.run([sys.executable, "-c", code] + cmd, check=True, capture_output=True, text=True)
    return int(out.stdout.split()[-1]) / 1024.0
once, eight = peak_mib("once.en"), peak_mib("eight.en")
a, b = open("once.en.out").read().splitlines(), open("eight.en.out").read().splitlines()
assert b == a * 8, "the repeated input's translations differ from the single file's"
# Margin: 4 MiB. Measured (2 cores, CUDA build without a GPU): 37.4 and 38.6 MiB with the memory
# given back after each batch, 255.7 and 265.2 MiB (+9.5) before; the fixed runs' difference is
# output text and glibc's small blocks, the old one a batch's caches kept per shape seen. 4 MiB is
# three times the first and under half the second.
print(f"peak RSS: {once:.1f} MiB for 96 lines, {eight:.1f} MiB for the same lines 8 times (margin 4 MiB)")
assert eight <= once + 4, (once, eight)
PY
