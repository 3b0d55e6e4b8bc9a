#!/usr/bin/env bash
# realmt vs PyTorch training throughput on the CPU, same shapes, same threads, same run:
# alternates realmt-bench-train and bench/training/torch_train.py `--runs` times and prints the
# median target tokens/s of each and their ratio, with the load average before each run.
#   bench/training/run_bench.sh [--build DIR] [--venv DIR] [--threads N] [--runs N] [--updates N] [--model small|base|all]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
build="$root/build" venv="$root/build/venv-peers" threads=2 runs=3 updates=5 model=all
while [[ $# -gt 0 ]]; do
  case "$1" in
    --build) build="$2"; shift 2 ;;
    --venv) venv="$2"; shift 2 ;;
    --threads) threads="$2"; shift 2 ;;
    --runs) runs="$2"; shift 2 ;;
    --updates) updates="$2"; shift 2 ;;
    --model) model="$2"; shift 2 ;;
    *) echo "run_bench.sh: unknown option '$1'" >&2; exit 2 ;;
  esac
done
python="$("$root/bench/peers_venv.sh" "$venv")"
bench="$build/bench/training/realmt-bench-train"
[[ -x "$bench" ]] || { echo "run_bench.sh: $bench not built (cmake --build $build --target realmt-bench-train)" >&2; exit 1; }
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
echo "# CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs); $(nproc) cores; threads $threads; OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-unset}"
for r in $(seq 1 "$runs"); do
  echo "## run $r: load $(cut -d' ' -f1-3 /proc/loadavg)"
  OMP_NUM_THREADS="$threads" "$bench" --threads "$threads" --updates "$updates" --model "$model" | tee "$out/realmt.$r"
  echo "## run $r (PyTorch): load $(cut -d' ' -f1-3 /proc/loadavg)"
  "$python" "$here/torch_train.py" --threads "$threads" --updates "$updates" --model "$model" | tee "$out/torch.$r"
done
"$python" - "$out" "$runs" <<'PY'
import json, re, statistics, sys, pathlib
out, runs = pathlib.Path(sys.argv[1]), int(sys.argv[2])
realmt, torch, mfu = {}, {}, {}
for r in range(1, runs + 1):
    for line in (out / f"realmt.{r}").read_text().splitlines():
        m = re.match(r"(cpu-small|base) (plain|realformer)\s+\S+\s+(\S+)\s+\S+\s+(\S+)%", line)
        if m:
            realmt.setdefault((m[1], m[2]), []).append(float(m[3]))
            mfu.setdefault((m[1], m[2]), []).append(float(m[4]))
    for line in (out / f"torch.{r}").read_text().splitlines():
        j = json.loads(line)
        torch.setdefault("cpu-small" if j["model"] == "small" else "base", []).append(j["tokens_per_s"])
print(f"# medians of {runs} runs: target tokens/s")
print(f"{'model':<22} {'realmt':>10} {'MFU':>7} {'PyTorch':>10} {'ratio':>7}")
for (name, variant), v in sorted(realmt.items()):
    t = statistics.median(torch[name]) if name in torch else float("nan")
    r = statistics.median(v)
    print(f"{name + ' ' + variant:<22} {r:10.1f} {statistics.median(mfu[(name, variant)]):6.1f}% {t:10.1f} {r / t:7.2f}")
PY
