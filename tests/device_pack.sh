#!/usr/bin/env bash
# Packs a CUDA build (made here, with nvcc, for sm_90) for a GPU machine that has the NVIDIA driver
# and CUDA libraries but none of realmt's Debian build packages and no network to fetch them.
# Called by tests/device_check.sh --pack; the GPU machine runs tests/device_check.sh --prebuilt.
#   tests/device_pack.sh BUILD-DIR PACK-DIR
# Writes PACK-DIR/pack.tar.xz holding, under their paths relative to the repository:
#   the device check's binaries, librealmt_core.so and ctest's files (CTestTestfile.cmake and the
#   test lists gtest_discover_tests wrote), and devpack/lib/ with every shared library they need
#   except the C library's own, the CUDA libraries found on the GPU machine (cuBLAS, cuBLASLt,
#   NCCL) and libstdc++/libgcc_s (devpack/lib/fallback/, searched last: the GPU machine's own
#   are usually newer); devpack/origin and devpack/build name where it was built.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
build="${1:?usage: tests/device_pack.sh BUILD-DIR PACK-DIR}"
pack="${2:?usage: tests/device_pack.sh BUILD-DIR PACK-DIR}"
build_abs="$(cd "$build" && pwd)"
build_rel="$(realpath --relative-to="$root" "$build_abs")"
[[ "$build_rel" != ..* ]] || { echo "device_pack: $build must be inside the repository"; exit 1; }
grep -q '^CMAKE_CUDA_FLAGS:' "$build_abs/CMakeCache.txt" ||
  { echo "device_pack: $build is not a CUDA build (configure with -DREALMT_CUDA=ON)"; exit 1; }
arch="$(sed -n 's/^CMAKE_CUDA_ARCHITECTURES:[A-Z]*=//p' "$build_abs/CMakeCache.txt")"
[[ "$arch" == *90* ]] || { echo "device_pack: $build targets CUDA architectures '$arch', not 90 (H100/H200)"; exit 1; }

targets=(cuda_tests cuda_training_tests op_tests core_tests models_tests realmt-train realmt-data
         realmt-translate realmt-bleu realmt-average realmt-bench-cuda)
echo "device_pack: building ${targets[*]} in $build_rel"
cmake --build "$build_abs" --target "${targets[@]}" -j "$(nproc)" > "$build_abs/device_pack.build.log" 2>&1 ||
  { grep -E "error|FAILED" -A3 "$build_abs/device_pack.build.log" | head -40; exit 1; }

stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
bins=(apps/realmt-train apps/realmt-data apps/realmt-translate apps/realmt-bleu apps/realmt-average
      bench/cuda/realmt-bench-cuda
      tests/cuda/cuda_tests tests/cuda/cuda_training_tests tests/ops/op_tests tests/core/core_tests
      tests/models/models_tests src/librealmt_core.so)
mkdir -p "$stage/devpack/lib/fallback"
for b in "${bins[@]}"; do
  [[ -f "$build_abs/$b" ]] || { echo "device_pack: $build_rel/$b was not built"; exit 1; }
  mkdir -p "$stage/$build_rel/$(dirname "$b")"
  cp -p "$build_abs/$b" "$stage/$build_rel/$b"
done
( cd "$build_abs" && find . \( -name CTestTestfile.cmake -o -name '*_include.cmake' -o -name '*_tests.cmake' \) \
    -not -path './_deps/*' -print0 ) |
  while IFS= read -r -d '' f; do mkdir -p "$stage/$build_rel/$(dirname "$f")"; cp -p "$build_abs/$f" "$stage/$build_rel/$f"; done

# Shared libraries: what ldd resolves for the binaries, minus the C library's and the CUDA ones.
skip='^(linux-vdso|ld-linux|libc\.so|libm\.so|libdl\.so|libpthread\.so|librt\.so|libcublas|libcublasLt|libnccl|libcuda\.so)'
ldd "${bins[@]/#/$build_abs/}" | awk '$2 == "=>" && $3 ~ /^\// { print $1, $3 }' | sort -u |
  while read -r name path; do
    [[ "$name" =~ $skip || "$name" == librealmt_core.so ]] && continue
    case "$name" in
      libstdc++.so*|libgcc_s.so*) cp -L "$path" "$stage/devpack/lib/fallback/$name" ;;
      *) cp -L "$path" "$stage/devpack/lib/$name" ;;
    esac
  done
echo "$root" > "$stage/devpack/origin"
echo "$build_rel" > "$stage/devpack/build"
mkdir -p "$pack"
XZ_OPT="-6 -T$(nproc)" tar -cJf "$pack/pack.tar.xz" -C "$stage" devpack "${build_rel%%/*}"
echo "device_pack: $pack/pack.tar.xz, $(du -h "$pack/pack.tar.xz" | cut -f1) ($(du -sh "$stage" | cut -f1) unpacked):" \
  "$(ls "$stage/devpack/lib" | grep -c .) libraries, built from $(git rev-parse --short HEAD)"
