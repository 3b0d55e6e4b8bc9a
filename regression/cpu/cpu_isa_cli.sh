#!/usr/bin/env bash
# realmt-translate --version names the CPU kernel level; REALMT_CPU_ISA caps it; asking for a
# level above the CPU's, or for no level at all, fails with a message naming REALMT_CPU_ISA.
set -euo pipefail
translate="$1"
fail() { echo "FAIL: $*" >&2; exit 1; }
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

out=$(env -u REALMT_CPU_ISA "$translate" --version) || fail "--version exited $?"
echo "$out"
line=$(grep '^cpu kernels: ' <<< "$out") || fail "--version has no 'cpu kernels:' line: $out"
[[ "$line" =~ ^cpu\ kernels:\ (baseline|avx2|avx512)\ \(CPU:\ .*\;\ REALMT_CPU_ISA\ not\ set\;\ (portable|-march=native)\ build\)$ ]] \
  || fail "unexpected line: $line"
best="${BASH_REMATCH[1]}"

line=$(REALMT_CPU_ISA=baseline "$translate" --version | grep '^cpu kernels: ') || fail "REALMT_CPU_ISA=baseline: --version failed"
[[ "$line" == "cpu kernels: baseline (CPU: "*"; REALMT_CPU_ISA=baseline; "* ]] || fail "REALMT_CPU_ISA=baseline: $line"

refused() {  # refused VALUE TEXT: --version with REALMT_CPU_ISA=VALUE exits 1 and says TEXT
  set +e
  REALMT_CPU_ISA="$1" "$translate" --version > "$tmp/out" 2> "$tmp/err"
  local rc=$?
  set -e
  [[ $rc -eq 1 ]] || fail "REALMT_CPU_ISA=$1: exit $rc, want 1 ($(cat "$tmp/out" "$tmp/err"))"
  grep -qF -- "$2" "$tmp/err" || fail "REALMT_CPU_ISA=$1: the error does not say '$2': $(cat "$tmp/err")"
  echo "REALMT_CPU_ISA=$1 refused: $(cat "$tmp/err")"
}
refused avx3 "REALMT_CPU_ISA='avx3' is not a CPU kernel level"
case "$best" in
  baseline) refused avx2 "REALMT_CPU_ISA=avx2 asks for more than this machine has" ;;
  avx2) refused avx512 "REALMT_CPU_ISA=avx512 asks for more than this machine has" ;;
  avx512) echo "this CPU runs every level: no level above it to refuse" ;;
esac
# A program that does work refuses a bad REALMT_CPU_ISA at start, as a usage error (exit 2),
# before it opens its model.
set +e
REALMT_CPU_ISA=avx3 "$translate" -m "$tmp/missing.safetensors" -v "$tmp/missing.spm" < /dev/null > /dev/null 2> "$tmp/err"
rc=$?
set -e
[[ $rc -eq 2 ]] || fail "translate with REALMT_CPU_ISA=avx3: exit $rc, want 2: $(cat "$tmp/err")"
grep -qF "REALMT_CPU_ISA='avx3'" "$tmp/err" || fail "translate with REALMT_CPU_ISA=avx3 says: $(cat "$tmp/err")"
echo "ok"
