#!/usr/bin/env bash
# Marian's --gemm-type in realmt-translate, realmt-score and realmt-server (issue 33, item 5a): the
# 8-bit types are quantize int8 in the effective config (--dump-config), from the command line and
# from a YAML config; float32 stays quantize none; a 16-bit type decodes in f32 and says so; a
# quantize given explicitly wins; an unknown type is a usage error (exit 2).
# Usage: gemm_type.sh BIN_DIR
set -euo pipefail
# shellcheck source=SCRIPTDIR/../lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
bin="$(cd "$1" && pwd)"
tmp="$(mktemp -d)"
remove_on_exit "$tmp"
cd "$tmp"

# quantize_of PROGRAM ARGS...: the quantize line of PROGRAM's --dump-config with ARGS.
quantize_of() {
  local p="$1"
  shift
  local args=(-m m.safetensors -v v.spm)
  [[ $p == score ]] && args+=(-t a.txt b.txt)
  "$bin/realmt-$p" "${args[@]}" "$@" --dump-config > dump.yml 2> dump.err || fail "realmt-$p $*: $(cat dump.err)"
  grep '^quantize:' dump.yml || fail "realmt-$p $*: no quantize in the dump"
}
printf 'gemm-type: intgemm8avx512vnni\n' > int8.yml
printf 'gemm-type: float32\n' > f32.yml
for p in translate score server; do
  for type in int8 intgemm8 intgemm8ssse3 intgemm8avx2 intgemm8avx512 intgemm8avx512vnni packed8avx2 packed8avx512; do
    [[ "$(quantize_of $p --gemm-type $type)" == "quantize: int8" ]] || fail "realmt-$p --gemm-type $type: $(cat dump.yml)"
  done
  [[ "$(quantize_of $p -g intgemm8)" == "quantize: int8" ]] || fail "realmt-$p -g intgemm8"
  [[ "$(quantize_of $p -c int8.yml)" == "quantize: int8" ]] || fail "realmt-$p -c int8.yml: $(cat dump.yml)"
  [[ "$(quantize_of $p -c f32.yml)" == "quantize: none" ]] || fail "realmt-$p -c f32.yml: $(cat dump.yml)"
  [[ "$(quantize_of $p)" == "quantize: none" ]] || fail "realmt-$p without gemm-type"
  [[ "$(quantize_of $p -c int8.yml --quantize none)" == "quantize: none" ]] || fail "realmt-$p: quantize given lost"
  [[ "$(quantize_of $p -g intgemm16)" == "quantize: none" ]] || fail "realmt-$p -g intgemm16: $(cat dump.yml)"
  set +e
  "$bin/realmt-$p" -m m.safetensors -v v.spm -g float16 > /dev/null 2> bad.err
  rc=$?
  set -e
  [[ $rc -eq 2 ]] && grep -q "gemm-type: 'float16' is not one of Marian's" bad.err || fail "realmt-$p -g float16: exit $rc: $(cat bad.err)"
done
# The 16-bit types: the log line says what realmt does instead (before loading the missing model).
set +e
"$bin/realmt-translate" -m missing.safetensors -v missing.spm -g intgemm16avx2 > /dev/null 2> i16.err
set -e
grep -q "gemm-type intgemm16avx2: realmt has no 16-bit GEMM; decoding in f32" i16.err || fail "intgemm16: $(cat i16.err)"
echo "gemm-type: OK"
