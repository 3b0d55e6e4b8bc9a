#!/usr/bin/env bash
# Every program's --help (and each realmt-data command's) prints an option's default once (issue
# 33, item 5c): a line that ends with --help's own "(default: X)" says nothing else about a
# default, and no line gives the implicit value ("alone: X") twice. Help that describes what an
# empty value means says "empty: ...", not "default: ...".
# Usage: help_defaults.sh BIN_DIR
set -euo pipefail
# shellcheck source=SCRIPTDIR/../lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
bin="$(cd "$1" && pwd)"
tmp="$(mktemp -d)"
remove_on_exit "$tmp"
cd "$tmp"

for p in train init translate score server average bleu analyze convert data; do
  "$bin/realmt-$p" --help > "$p.txt" || fail "realmt-$p --help exited $?"
done
for c in sgm2txt clean vocab marian-vocab split stats mo2pairs testsets shortlist; do
  "$bin/realmt-data" "$c" --help > "data-$c.txt" || fail "realmt-data $c --help exited $?"
done
[[ $(grep -c '(default: ' translate.txt) -gt 10 ]] || fail "realmt-translate --help shows no defaults: $(head translate.txt)"
# Lines whose own default (the final "(default: ...)") comes with another mention of a default, or
# with the implicit value twice.
twice="$(grep -HiE 'default.*\(default: [^()]*(\([^()]*\)[^()]*)*\)$|alone:.*alone:' ./*.txt || true)"
[[ -z "$twice" ]] || fail "a default shown twice:
$twice"
echo "help defaults: OK"
