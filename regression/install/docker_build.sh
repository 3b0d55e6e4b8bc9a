#!/usr/bin/env bash
# Builds the CPU image of Dockerfile with podman (which runs the test suite inside; ~30 min on 2
# cores) and runs an installed program from it. Skips (77) without podman or when the base image
# cannot be pulled (no registry access); dockerfile_test.py checks the files statically anyway.
# Usage: docker_build.sh SOURCE_DIR
set -euo pipefail
repo="$(cd "$1" && pwd)"
command -v podman > /dev/null || { echo "SKIP: podman not installed (tools/install-deps installs it)"; exit 77; }
base="$(awk '$1 == "FROM" {print $2; exit}' "$repo/Dockerfile")"
if ! podman pull "docker.io/library/$base" > /tmp/docker_build_pull.$$ 2>&1; then
  echo "SKIP: cannot pull $base: $(tail -1 /tmp/docker_build_pull.$$)"
  rm -f /tmp/docker_build_pull.$$
  exit 77
fi
rm -f /tmp/docker_build_pull.$$
tag="localhost/realmt-ci:$$"
trap 'podman rmi -f "$tag" > /dev/null 2>&1 || true' EXIT
podman build -f "$repo/Dockerfile" -t "$tag" "$repo" || { echo "FAIL: podman build"; exit 1; }
out="$(podman run --rm "$tag" realmt-bleu --version)"
[[ "$out" == realmt-bleu* ]] || { echo "FAIL: realmt-bleu --version in the image: $out"; exit 1; }
echo "docker image: OK ($out)"
