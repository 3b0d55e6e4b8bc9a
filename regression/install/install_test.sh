#!/usr/bin/env bash
# cmake --install into a temporary prefix, the prefix moved elsewhere, and every installed program
# run from there with no build tree on its library path: --help and --version of the ten
# programs, then a tiny model made and used with them (data -> train with the installed config ->
# translate -> bleu, score, average, init --dump-config). Reuses the build: nothing is compiled.
# Usage: install_test.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
# shellcheck source=SCRIPTDIR/../lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
build="$(cd "$1" && pwd)"
repo="$(cd "$2" && pwd)"
tmp="$(mktemp -d)"
remove_on_exit "$tmp"
programs=(realmt-train realmt-init realmt-translate realmt-server realmt-score realmt-average realmt-bleu realmt-data realmt-convert realmt-analyze)

cmake --install "$build" --prefix "$tmp/prefix" > "$tmp/install.log" 2>&1 || fail "cmake --install: $(tail -5 "$tmp/install.log")"
# Relocatable: the tree runs from wherever it is moved ($ORIGIN/../lib).
mv "$tmp/prefix" "$tmp/moved"
p="$tmp/moved"
unset LD_LIBRARY_PATH
for prog in "${programs[@]}"; do
  [[ -x "$p/bin/$prog" ]] || fail "$prog not installed in bin/: $(ls "$p/bin")"
done
[[ -f "$p/lib/librealmt_core.so" ]] || fail "librealmt_core.so not installed in lib/"
[[ -f "$p/share/realmt/configs/cpu-small.yml" ]] || fail "configs not installed: $(ls "$p/share/realmt" 2>&1)"
[[ -f "$p/share/doc/realmt/README.md" ]] || fail "docs not installed"
line="$(ldd "$p/bin/realmt-translate" | grep 'librealmt_core.so' || true)"
core="$(realpath -m "$(awk '{print $3}' <<< "$line")")"
[[ "$core" == "$p/lib/librealmt_core.so" ]] || fail "realmt-translate does not load the prefix's librealmt_core.so: ldd says '$line'"
for f in "$p"/bin/* "$p"/lib/*.so; do
  if readelf -d "$f" | grep -E 'R(UN)?PATH' | grep -qF "$build"; then fail "$f keeps the build tree in its run path"; fi
done

for prog in "${programs[@]}"; do
  "$p/bin/$prog" --help > "$tmp/$prog.help" 2>&1 || fail "$prog --help exited $?: $(head -5 "$tmp/$prog.help")"
  grep -q "$prog" "$tmp/$prog.help" || fail "$prog --help does not name the program: $(head -3 "$tmp/$prog.help")"
  "$p/bin/$prog" --version > "$tmp/$prog.version" 2>&1 || fail "$prog --version exited $?"
  grep -q "$prog" "$tmp/$prog.version" || fail "$prog --version: $(cat "$tmp/$prog.version")"
done

cd "$tmp"
source "$repo/regression/tiny_model.sh"
make_tiny_model "$p/bin" || fail "tiny model with the installed realmt-data and realmt-train"
"$p/bin/realmt-translate" -m model.safetensors -v vocab.spm -i test.en -o test.hyp --quiet || fail "translate"
[[ $(wc -l < test.hyp) -eq 20 ]] || fail "test.hyp has $(wc -l < test.hyp) lines"
"$p/bin/realmt-bleu" test.fr -i test.hyp -b > bleu.txt || fail "bleu"
grep -Eq '^[0-9]+(\.[0-9]+)?$' bleu.txt || fail "bleu output: $(cat bleu.txt)"
"$p/bin/realmt-score" -m model.safetensors -v vocab.spm -t test.en test.fr --quiet > scores.txt || fail "score"
[[ $(wc -l < scores.txt) -eq 20 ]] || fail "scores: $(head -3 scores.txt)"
"$p/bin/realmt-average" -m model.safetensors model.safetensors -o avg.safetensors > avg.log 2>&1 || fail "average: $(cat avg.log)"
# The installed config, read by the installed trainer.
"$p/bin/realmt-train" -c "$p/share/realmt/configs/cpu-small.yml" -t train.en train.fr -v vocab.spm --dump-config minimal \
  > dump.yml 2> dump.err || fail "realmt-train with the installed cpu-small.yml: $(cat dump.err)"
grep -q "^enc-depth" dump.yml || fail "dumped config: $(head -5 dump.yml)"
echo "install: OK (BLEU $(cat bleu.txt) on the tiny task)"
