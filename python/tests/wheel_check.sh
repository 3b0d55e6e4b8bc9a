#!/usr/bin/env bash
# The wheel as a user gets it: tools/build-wheel (a portable, CPU-only build of this tree in
# build-wheel/, the shared libraries copied in), then `pip install --no-index` of that wheel into a
# fresh virtual environment (no network, no compiler involved; the seconds it took are printed:
# the goal is under a minute), then the Python package's tests on the installed package (not this
# tree's: PYTHONPATH is not set and they run outside the repository), with pytest and sacreBLEU
# installed beside it afterwards. The programs the tests compare with are built with the wheel's
# options in build-wheel-apps/ (the same portable code, so the same numbers to the bit; ccache
# gives them the wheel build's objects).
# Usage: wheel_check.sh PYTHON
set -euo pipefail
python="$1"
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="$repo/build-wheel-apps"
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$repo}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
PYTHON="$python" "$repo/tools/build-wheel" "$tmp/wheels"
wheel="$(ls "$tmp"/wheels/realmt-*.whl)"
cmake -S "$repo" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DREALMT_NATIVE=OFF -DREALMT_CUDA=OFF \
  -DREALMT_PYTHON=OFF -DREALMT_BUILD_TESTS=OFF -DREALMT_BUILD_BENCH=OFF > "$tmp/apps-configure.log" ||
  { cat "$tmp/apps-configure.log" >&2; exit 1; }
cmake --build "$build" --target realmt-translate realmt-train realmt-score realmt-data realmt-convert
"$python" -m venv "$tmp/fresh"
t0=$(date +%s.%N)
"$tmp/fresh/bin/pip" install --no-index --disable-pip-version-check --quiet "$wheel"
t1=$(date +%s.%N)
awk -v a="$t0" -v b="$t1" -v w="$(basename "$wheel")" 'BEGIN {printf "wheel_check: pip install --no-index %s: %.1f s\n", w, b - a}'
"$tmp/fresh/bin/pip" install --quiet --disable-pip-version-check pytest==8.3.4 sacrebleu==2.6.0
mkdir "$tmp/run"
cd "$tmp/run"
source "$repo/regression/tiny_model.sh"
make_tiny_model "$build/apps"
unset PYTHONPATH
export REALMT_BIN="$build/apps" REALMT_TINY="$tmp/run" REALMT_REPO="$repo" REALMT_SHARED_DATA="$repo/../shared/data"
"$tmp/fresh/bin/python" -c 'import realmt, sys; assert "site-packages" in realmt.__file__, realmt.__file__; print("wheel_check:", realmt.__file__, realmt.cpu_isa())'
cp -r "$repo/python/tests" "$tmp/tests"
"$tmp/fresh/bin/python" -m pytest -q -p no:cacheprovider "$tmp/tests"
