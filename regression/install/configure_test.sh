#!/usr/bin/env bash
# Configure-time dependency messages (cmake/Dependencies.cmake), each in a fresh build folder with
# one dependency hidden: without GoogleTest and cpp-httplib the configure succeeds, says what is
# left out and the programs are still there; without nlohmann-json or SentencePiece it stops with
# an error naming the Debian package and what needs it; oneDNN without OpenCL stops naming the
# OpenCL packages, no oneDNN at all builds everything with the portable int8 GEMM; the strict
# configure of tools/test stops on a missing test dependency. Configure only: nothing is compiled.
# Usage: configure_test.sh SOURCE_DIR
set -euo pipefail
# shellcheck source=SCRIPTDIR/../lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
repo="$(cd "$1" && pwd)"
tmp="$(mktemp -d)"
remove_on_exit "$tmp"
common=(-G Ninja -DCMAKE_BUILD_TYPE=Release -DREALMT_CUDA=OFF -DREALMT_BUILD_BENCH=OFF)

# pkg-config's search path with some modules taken out (PKG_CONFIG_LIBDIR replaces the default).
hide_pc() {  # hide_pc DIR MODULE...: DIR holds links to every .pc file but the MODULEs'
  local dir="$1" d f name skip m
  shift
  mkdir -p "$dir"
  IFS=: read -ra dirs <<< "$(pkg-config --variable pc_path pkg-config)"
  for d in "${dirs[@]}"; do
    for f in "$d"/*.pc; do
      [[ -e "$f" ]] || continue
      name="$(basename "$f" .pc)"
      skip=0
      for m in "$@"; do [[ "$name" == "$m" ]] && skip=1; done
      [[ $skip -eq 1 || -e "$dir/$name.pc" ]] || ln -s "$f" "$dir/$name.pc"
    done
  done
}

# 1. Optional: no GoogleTest, no cpp-httplib; also the portable build (REALMT_NATIVE=OFF).
hide_pc "$tmp/pc-no-httplib" cpp-httplib
PKG_CONFIG_LIBDIR="$tmp/pc-no-httplib" cmake -S "$repo" -B "$tmp/b1" "${common[@]}" -DCMAKE_DISABLE_FIND_PACKAGE_GTest=ON \
  -DREALMT_NATIVE=OFF > "$tmp/b1.log" 2>&1 || fail "configure without GoogleTest and cpp-httplib failed: $(tail -20 "$tmp/b1.log")"
# CMake wraps warning and error texts: read the logs as one line.
flat() { tr -s ' \n' '  ' < "$1"; }
flat "$tmp/b1.log" | grep -q "GoogleTest not found (Debian package libgtest-dev): the unit tests" ||
  fail "no message for the missing GoogleTest: $(grep -i gtest "$tmp/b1.log" || true)"
flat "$tmp/b1.log" | grep -q "cpp-httplib not found (Debian package libcpp-httplib-dev): server_tests" ||
  fail "no message for the missing cpp-httplib"
targets="$(ninja -C "$tmp/b1" -t targets all)"
for t in realmt-bleu realmt-server realmt-train realmt-translate; do
  grep -q "^apps/$t:" <<< "$targets" || fail "$t is not built without GoogleTest and cpp-httplib"
done
if grep -Eq "^tests/[a-z_/]*_tests:" <<< "$targets"; then fail "unit tests are still built without GoogleTest"; fi
# Portable: no file is compiled for the build machine's CPU.
if grep -q -- "-march=native" "$tmp/b1/compile_commands.json"; then fail "REALMT_NATIVE=OFF still compiles with -march=native"; fi
grep -q "REALMT_NATIVE_BUILD=0" "$tmp/b1/compile_commands.json" || fail "core/cpu_isa.cc does not know the build is portable"

# 2. Required: nlohmann-json, SentencePiece.
check_required() {  # check_required NAME PACKAGE CMAKE_ARGS... : configure must stop naming PACKAGE
  local name="$1" package="$2"
  shift 2
  if "$@" > "$tmp/$name.log" 2>&1; then fail "configure without $name succeeded"; fi
  flat "$tmp/$name.log" | grep -q "realmt: $name not found. It is needed by" ||
    fail "configure without $name: no clear error: $(grep -A3 'CMake Error' "$tmp/$name.log" | head -8)"
  flat "$tmp/$name.log" | grep -q "Install the Debian package $package" || fail "the error for $name does not name the package $package"
}
check_required nlohmann-json nlohmann-json3-dev \
  cmake -S "$repo" -B "$tmp/b2" "${common[@]}" -DCMAKE_DISABLE_FIND_PACKAGE_nlohmann_json=ON
hide_pc "$tmp/pc-no-spm" sentencepiece
check_required SentencePiece libsentencepiece-dev \
  env PKG_CONFIG_LIBDIR="$tmp/pc-no-spm" cmake -S "$repo" -B "$tmp/b3" "${common[@]}"

# 3. oneDNN. Debian's libdnnl-dev needs OpenCL, which it does not pull in: with the OpenCL packages
# missing, the configure stops naming them (not CMake's "Could NOT find OpenCL" from inside
# dnnl-config.cmake). Without oneDNN at all, everything configures (int8 on the portable GEMM)
# and the libraries and programs that never needed it do not link it.
if grep -qs "find_package(OpenCL" /usr/lib/*/cmake/dnnl/dnnl-config.cmake; then
  if cmake -S "$repo" -B "$tmp/b4" "${common[@]}" -DCMAKE_DISABLE_FIND_PACKAGE_OpenCL=ON > "$tmp/b4.log" 2>&1; then
    fail "configure with oneDNN but without OpenCL succeeded"
  fi
  flat "$tmp/b4.log" | grep -q "Install the Debian packages ocl-icd-opencl-dev and opencl-c-headers" ||
    fail "configure without OpenCL: the error does not name the packages: $(grep -A4 'CMake Error' "$tmp/b4.log" | head -8)"
  if grep -q "Could NOT find OpenCL" "$tmp/b4.log"; then fail "configure without OpenCL still ends in CMake's own message"; fi
fi
cmake -S "$repo" -B "$tmp/b5" "${common[@]}" -DCMAKE_DISABLE_FIND_PACKAGE_dnnl=ON > "$tmp/b5.log" 2>&1 ||
  fail "configure without oneDNN failed: $(grep -A4 'CMake Error' "$tmp/b5.log" | head -8)"
flat "$tmp/b5.log" | grep -q "oneDNN not found (Debian package libdnnl-dev): int8 decoding (--quantize int8) runs realmt's portable" ||
  fail "configure without oneDNN: no message saying what it changes"
for t in realmt-bleu realmt-data realmt-translate; do
  ninja -C "$tmp/b5" -t query "apps/$t" > /dev/null 2>&1 || fail "$t is not built without oneDNN"
done
# (The command lists go to files first: grep -q closing a pipe early fails the pipeline.)
ninja -C "$tmp/b5" -t commands apps/realmt-translate > "$tmp/b5.commands"
if grep -q dnnl "$tmp/b5.commands"; then fail "a build without oneDNN still links it"; fi
grep -q "int8_gemm_portable.cc" "$tmp/b5.commands" || fail "no portable int8 GEMM without oneDNN"
if grep -q "int8_gemm_onednn.cc" "$tmp/b5.commands"; then fail "oneDNN's GEMM file compiled without oneDNN"; fi
for t in realmt-bleu realmt-data; do
  ninja -C "$tmp/b5" -t commands "apps/$t" > "$tmp/$t.commands"
  if grep -Eq "dnnl|librealmt_core" "$tmp/$t.commands"; then fail "$t links oneDNN or the tensor core"; fi
done
# tools/test's strict configure: a missing test dependency stops it instead of leaving tests out.
if cmake -S "$repo" -B "$tmp/b6" "${common[@]}" -DREALMT_STRICT_DEPS=ON -DCMAKE_DISABLE_FIND_PACKAGE_GTest=ON \
     > "$tmp/b6.log" 2>&1; then
  fail "the strict configure without GoogleTest succeeded"
fi
flat "$tmp/b6.log" | grep -q "realmt: GoogleTest not found. It is needed by tools/test" ||
  fail "the strict configure without GoogleTest: no clear error: $(grep -A4 'CMake Error' "$tmp/b6.log" | head -8)"
echo "configure messages: OK"
