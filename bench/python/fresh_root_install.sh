#!/usr/bin/env bash
# The wheel on a fresh machine: a bare Debian 12 root (tools/debian-root, mmdebstrap's minbase
# with python3 and python3-venv only: no compiler, none of realmt's libraries) gets the wheel of
# tools/build-wheel, a virtual environment, `pip install --no-index` of the wheel (timed: the goal
# is under a minute), then one translation and one BLEU from Python with a given model. Prints the
# seconds and the translation; fails when the root holds a compiler or the package does not work.
#   bench/python/fresh_root_install.sh WHEEL MODEL VOCAB [ROOT]
# ROOT: an existing root made by `tools/debian-root ROOT --include python3,python3-venv` (made in
# a temporary folder when not given). Needs root (chroot) and, to make the root, mmdebstrap.
set -euo pipefail
wheel="$1" model="$2" vocab="$3" root="${4:-}"
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
fail() { echo "fresh_root_install: FAIL: $*" >&2; exit 1; }
for f in "$wheel" "$model" "$vocab"; do [[ -s "$f" ]] || fail "$f not found"; done
tmp="$(mktemp -d)"
trap 'umount -l "$root/proc" 2> /dev/null || true; umount -l "$root/dev" 2> /dev/null || true; rm -rf "$tmp"' EXIT
if [[ -z "$root" ]]; then
  root="$tmp/root"
  "$repo/tools/debian-root" "$root" --include python3,python3-venv > "$tmp/root.log" 2>&1 ||
    { tail -20 "$tmp/root.log" >&2; fail "tools/debian-root"; }
fi
for c in gcc cc c++ g++ clang; do
  [[ ! -e "$root/usr/bin/$c" ]] || fail "the root has a compiler: /usr/bin/$c"
done
rm -rf "$root/work"  # a fresh venv every run: a wheel of the same version would not replace the last one
mkdir -p "$root/work"
cp "$wheel" "$model" "$vocab" "$root/work/"
mount --bind /dev "$root/dev"
mount -t proc proc "$root/proc"
cat > "$root/work/check.py" << EOF
import realmt
t = realmt.Translator("/work/$(basename "$model")", vocabs=["/work/$(basename "$vocab")"], threads=1)
out = t.translate_batch(["The file could not be opened.", "Save the document"], beam_size=4)
print("translations:", [r.text for r in out])
print("cpu level:", realmt.cpu_isa())
print("BLEU of the first against itself:", realmt.metrics.corpus_bleu([out[0].text], [[out[0].text]]).score)
EOF
chroot "$root" /bin/bash -c "
  set -euo pipefail
  cd /work
  t0=\$(date +%s.%N)
  python3 -m venv venv
  venv/bin/pip install --no-index --disable-pip-version-check --quiet /work/$(basename "$wheel")
  t1=\$(date +%s.%N)
  awk -v a=\"\$t0\" -v b=\"\$t1\" 'BEGIN {printf \"fresh_root_install: venv + pip install --no-index of the wheel: %.1f s\n\", b - a}'
  venv/bin/python check.py
"
