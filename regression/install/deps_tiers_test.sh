#!/usr/bin/env bash
# tools/deps.txt's tiers as tools/install-deps reads them (--list; nothing is installed): each tier
# holds the one above it and adds to it; oneDNN comes with the OpenCL packages its CMake file
# needs, in the same tier or an earlier one (the bare-machine failure of issue 30); the build tier
# that tools/quickstart installs has no browser, container engine or second compiler; an
# unknown tier is refused. tools/clean-room proves the tiers on a bare root; this checks the
# file's shape in a second.
# Usage: deps_tiers_test.sh SOURCE_DIR
set -euo pipefail
# shellcheck source=SCRIPTDIR/../lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
repo="$(cd "$1" && pwd)"
list() { "$repo/tools/install-deps" --list "$1" | sort; }
build="$(list build)" test="$(list test)" extra="$(list extra)"
[[ -n "$build" ]] || fail "the build tier is empty"
only_in() { comm -23 <(echo "$1") <(echo "$2"); }
[[ -z "$(only_in "$build" "$test")" ]] || fail "the test tier lacks build packages: $(only_in "$build" "$test")"
[[ -z "$(only_in "$test" "$extra")" ]] || fail "the extra tier lacks test packages: $(only_in "$test" "$extra")"
[[ -n "$(only_in "$test" "$build")" && -n "$(only_in "$extra" "$test")" ]] || fail "a tier adds nothing"
for tier in build test extra; do
  pkgs="$(list "$tier")"
  if grep -qx libdnnl-dev <<< "$pkgs"; then
    for need in ocl-icd-opencl-dev opencl-c-headers; do
      grep -qx "$need" <<< "$pkgs" || fail "tier $tier has libdnnl-dev without $need (its CMake file needs OpenCL)"
    done
  fi
done
for heavy in chromium podman clang; do
  if grep -qx "$heavy" <<< "$build"; then fail "the build tier (tools/quickstart) installs $heavy"; fi
done
dups="$(list extra | uniq -d)"
[[ -z "$dups" ]] || fail "packages listed twice: $dups"
set +e
"$repo/tools/install-deps" --list nonsense > /dev/null 2>&1
rc=$?
set -e
[[ $rc -eq 2 ]] || fail "an unknown tier exits $rc, not 2"
echo "deps tiers: OK ($(wc -l <<< "$build") build, $(wc -l <<< "$test") test, $(wc -l <<< "$extra") extra)"
