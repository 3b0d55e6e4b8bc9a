#!/usr/bin/env bash
# realmt-translate --version names the CPU kernel level; REALMT_CPU_ISA caps it; asking for a
# level above the CPU's, or for no level at all, fails with a message naming REALMT_CPU_ISA.
set -euo pipefail
# shellcheck source=SCRIPTDIR/../lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
translate="$1"
tmp="$(mktemp -d)"
remove_on_exit "$tmp"

out=$(env -u REALMT_CPU_ISA "$translate" --version) || fail "--version exited $?"
echo "$out"
line=$(grep '^cpu kernels: ' <<< "$out") || fail "--version has no 'cpu kernels:' line: $out"
[[ "$line" =~ ^cpu\ kernels:\ (baseline|avx2|avx512)\ \(CPU:\ .*\;\ REALMT_CPU_ISA\ not\ set\;\ (portable|-march=native)\ build\)$ ]] \
  || fail "unexpected line: $line"
best="${BASH_REMATCH[1]}"

line=$(REALMT_CPU_ISA=baseline "$translate" --version | grep '^cpu kernels: ') || fail "REALMT_CPU_ISA=baseline: --version failed"
[[ "$line" == "cpu kernels: baseline (CPU: "*"; REALMT_CPU_ISA=baseline; "* ]] || fail "REALMT_CPU_ISA=baseline: $line"

refused() {  # refused VALUE TEXT: --version with REALMT_CPU_ISA=VALUE exits 1 and says TEXT
  expect_exit 1 "REALMT_CPU_ISA=$1" env REALMT_CPU_ISA="$1" "$translate" --version
  grep -qF -- "$2" <<< "$expect_stderr" || fail "REALMT_CPU_ISA=$1: the error does not say '$2': $expect_stderr"
  echo "REALMT_CPU_ISA=$1 refused: $expect_stderr"
}
refused avx3 "REALMT_CPU_ISA='avx3' is not a CPU kernel level"
case "$best" in
  baseline) refused avx2 "REALMT_CPU_ISA=avx2 asks for more than this machine has" ;;
  avx2) refused avx512 "REALMT_CPU_ISA=avx512 asks for more than this machine has" ;;
  avx512) echo "this CPU runs every level: no level above it to refuse" ;;
esac
# A program that does work refuses a bad REALMT_CPU_ISA at start, as a usage error (exit 2),
# before it opens its model.
expect_exit 2 "translate with REALMT_CPU_ISA=avx3" env REALMT_CPU_ISA=avx3 "$translate" -m "$tmp/missing.safetensors" \
  -v "$tmp/missing.spm" < /dev/null
grep -qF "REALMT_CPU_ISA='avx3'" <<< "$expect_stderr" || fail "translate with REALMT_CPU_ISA=avx3 says: $expect_stderr"
echo "ok"
