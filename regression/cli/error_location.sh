#!/usr/bin/env bash
# Error lines name the source location ("(src/data/line_reader.cc:38)") only at --log-level debug
# (issue 33, item 5b): a missing model, a missing corpus and a contradiction among options, each
# without it at the default level and with it at debug, on stderr and in the --log file.
# Usage: error_location.sh BIN_DIR
set -euo pipefail
# shellcheck source=SCRIPTDIR/../lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
bin="$(cd "$1" && pwd)"
tmp="$(mktemp -d)"
remove_on_exit "$tmp"
cd "$tmp"
place='\((src|apps)/[a-z_/]+\.(cc|h):[0-9]+\)'

# check NAME WANT_EXIT CMD...: CMD fails with WANT_EXIT and an error line, without the place at the
# default level and with it at --log-level debug.
check() {
  local name="$1" want="$2"
  shift 2
  for level in default debug; do
    local extra=(--log "$name.$level.log")
    [[ $level == debug ]] && extra+=(--log-level debug)
    set +e
    "$@" "${extra[@]}" > /dev/null 2> "$name.$level.err"
    local rc=$?
    set -e
    [[ $rc -eq $want ]] || fail "$name ($level): exit $rc, want $want: $(cat "$name.$level.err")"
    local line
    line="$(grep ': error: ' "$name.$level.err")" || fail "$name ($level): no error line: $(cat "$name.$level.err")"
    if [[ $level == default ]]; then
      if grep -Eq "$place" <<< "$line"; then fail "$name: the place at the default level: $line"; fi
      grep -q '\[error\]' "$name.$level.log" || fail "$name: no error in the log: $(cat "$name.$level.log")"
      if grep -Eq "$place" "$name.$level.log"; then fail "$name: the place in the log at the default level"; fi
    else
      grep -Eq "$place\$" <<< "$line" || fail "$name: no place at --log-level debug: $line"
      grep -Eq "\[error\] .*$place\$" "$name.$level.log" || fail "$name: no place in the debug log: $(cat "$name.$level.log")"
    fi
  done
}
check translate 1 "$bin/realmt-translate" -m missing.safetensors -v missing.spm
check data 1 "$bin/realmt-data" stats missing.txt
check train 2 "$bin/realmt-train" -t a b -v v.spm --after 2u --after-epochs 1
echo "error location: OK"
