#!/usr/bin/env bash
# Builds the CPU image of Dockerfile with podman (which runs the test suite inside; ~30 min on 2
# cores) and runs an installed program from it. Where the base image cannot be pulled (no
# container registry reachable), it is made here instead: tools/debian-root's minimal Debian 12
# root from the machine's own Debian mirrors, imported with `podman import` under the base's
# name, so that the Dockerfile itself is built unchanged. Skips (77) without podman, or without
# root and mmdebstrap when the base must be made; dockerfile_test.py checks the files statically.
# Usage: docker_build.sh SOURCE_DIR
set -euo pipefail
repo="$(cd "$1" && pwd)"
command -v podman > /dev/null || { echo "SKIP: podman not installed (tools/install-deps extra installs it)"; exit 77; }
base="$(awk '$1 == "FROM" {print $2; exit}' "$repo/Dockerfile")"
log="$(mktemp)"
made_base=""
cleanup() {
  rm -f "$log" "$log.pip.conf"
  podman rmi -f "${tag:-}" > /dev/null 2>&1 || true
  [[ -n "$made_base" ]] && podman rmi -f "$made_base" > /dev/null 2>&1 || true
}
trap cleanup EXIT
if podman pull "docker.io/library/$base" > "$log" 2>&1; then
  echo "base image: $base pulled"
else
  echo "base image: cannot pull $base ($(tail -1 "$log")); making it from a Debian 12 root"
  [[ $(id -u) -eq 0 ]] && command -v mmdebstrap > /dev/null ||
    { echo "SKIP: making the base needs root and mmdebstrap (tools/install-deps test)"; exit 77; }
  made_base="localhost/$base"
  "$repo/tools/debian-root" - | podman import --change 'CMD ["bash"]' - "$made_base" > /dev/null ||
    { echo "FAIL: making the base image $made_base"; exit 1; }
  echo "base image: $made_base imported"
fi
tag="localhost/realmt-ci:$$"
# Where the OCI runtime cannot start containers (a cgroup v1 host, crun: "cgroups in hybrid mode
# not supported"; or no permission to set rlimits), podman still builds with chroot isolation,
# and the installed program is run by a second one-line build on the image.
base_ref="${made_base:-docker.io/library/$base}"
isolation=()
if ! podman run --rm "$base_ref" true > "$log" 2>&1; then
  echo "containers cannot run here ($(tail -1 "$log")); building with --isolation=chroot"
  isolation=(--isolation=chroot)
fi
# A machine whose HTTPS traffic passes a proxy with its own certificate authority (certificates
# added under /usr/local/share/ca-certificates) lends the build its trust, read only and for the
# build's RUN steps alone: the test suite's pip installs from PyPI then verify as they do here.
trust=()
if compgen -G "/usr/local/share/ca-certificates/*.crt" > /dev/null; then
  # Beside the image's own bundle, not over it: ca-certificates' install script rewrites that one.
  printf '[global]\ncert = /etc/realmt-build-host-ca.crt\n' > "$log.pip.conf"
  trust=(-v /etc/ssl/certs/ca-certificates.crt:/etc/realmt-build-host-ca.crt:ro -v "$log.pip.conf:/etc/pip.conf:ro")
  echo "this machine adds certificate authorities: the build uses its CA bundle"
fi
podman build "${isolation[@]}" "${trust[@]}" -f "$repo/Dockerfile" -t "$tag" "$repo" || { echo "FAIL: podman build"; exit 1; }
if [[ ${#isolation[@]} -eq 0 ]]; then
  out="$(podman run --rm "$tag" realmt-bleu --version)"
else
  check="$(mktemp -d)"
  printf 'FROM %s\nRUN realmt-bleu --version\n' "$tag" > "$check/Dockerfile"
  out="$(podman build "${isolation[@]}" --no-cache -t "$tag-check" "$check" 2>&1 | grep '^realmt-bleu' || true)"
  podman rmi -f "$tag-check" > /dev/null 2>&1 || true
  rm -rf "$check"
fi
[[ "$out" == realmt-bleu* ]] || { echo "FAIL: realmt-bleu --version in the image: $out"; exit 1; }
echo "docker image: OK ($out)"
