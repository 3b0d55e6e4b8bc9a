# shellcheck shell=bash
# Helpers shared by the regression scripts (regression/*/*.sh). A script sources it near its top,
# by a path relative to the script itself, so it works whatever folder ctest runs it from:
#   source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
# Nothing here changes shell options: each script keeps its own `set -euo pipefail` (or `set -uo`).
#
# Reporting
#   fail MESSAGE...        prints "FAIL: MESSAGE" on stderr and exits 1. The message must say
#                          what failed (and, where it helps, what was seen instead).
#   keep_going             switches fail to counting: it prints the same line, adds one to
#                          $failures and returns 0, so the script goes on to its other cases.
#   finish NAME            ends such a script: "NAME: N failure(s)" on stderr and exit 1, or
#                          "NAME: OK" and exit 0.
#
# A work folder
#   remove_on_exit DIR     removes the folder DIR (made by the script, usually with mktemp -d) when
#                          the script exits, unless KEEP_TMP is set (non-empty): then it is kept
#                          and its path printed on stderr, to look at after a failure. It sets the
#                          EXIT trap: a script that needs its own EXIT trap removes DIR there.
#
# Checks (each fails with the DESCRIPTION and what was seen). expect_exit and expect_error write
# the command's stdout to the file $expect_out (unset: dropped), and run it under
# `timeout $expect_timeout` when that is set (a number of seconds).
#   expect_exit WANT DESCRIPTION COMMAND...
#                          COMMAND exits with status WANT. Its stderr is kept in
#                          $expect_stderr for further checks (and shown when the status is wrong).
#   expect_error DESCRIPTION FRAGMENT COMMAND...
#                          COMMAND fails (exit 1..123; 124 and above, a timeout or a signal, count
#                          as a crash) and its stderr holds FRAGMENT (a fixed string, not a pattern).
#                          stderr is kept in $expect_stderr.
#   expect_files DESCRIPTION FILE...
#                          every FILE exists and is a regular file (the folder's listing is shown
#                          when one does not).
#   expect_lines FILE COUNT
#                          FILE has COUNT lines.

failures=0
_regr_keep_going=""

fail() {
  echo "FAIL: $*" >&2
  if [[ -n "$_regr_keep_going" ]]; then
    failures=$((failures + 1))
    return 0
  fi
  exit 1
}

keep_going() { _regr_keep_going=1; }

finish() {
  if [[ $failures -gt 0 ]]; then
    echo "$1: $failures failure(s)" >&2
    exit 1
  fi
  echo "$1: OK"
  exit 0
}

remove_on_exit() {
  _regr_work_dir="$1"
  trap _regr_remove_work_dir EXIT
}

_regr_remove_work_dir() {
  if [[ -n "${KEEP_TMP:-}" ]]; then
    echo "kept the work folder $_regr_work_dir (KEEP_TMP is set)" >&2
  else
    rm -rf "$_regr_work_dir"
  fi
}

expect_stderr=""

# Runs "$@" (under timeout when $expect_timeout is set) with stdout to ${expect_out:-/dev/null} and
# stderr kept in $expect_stderr; sets _regr_rc to its exit status.
_regr_run() {
  local pre=()
  [[ -z "${expect_timeout:-}" ]] || pre=(timeout "$expect_timeout")
  _regr_rc=0
  expect_stderr="$("${pre[@]}" "$@" 2>&1 > "${expect_out:-/dev/null}")" || _regr_rc=$?
}

expect_exit() {
  local want="$1" what="$2"
  shift 2
  _regr_run "$@"
  [[ $_regr_rc -eq $want ]] || { fail "$what: exit $_regr_rc, want $want: $expect_stderr"; return; }
}

expect_error() {
  local what="$1" fragment="$2"
  shift 2
  _regr_run "$@"
  if [[ $_regr_rc -eq 0 ]]; then fail "$what: accepted (exit 0)"; return; fi
  if [[ $_regr_rc -ge 124 ]]; then
    fail "$what: crashed or hung (exit $_regr_rc): $(tail -3 <<< "$expect_stderr")"
    return
  fi
  grep -qF -- "$fragment" <<< "$expect_stderr" ||
    { fail "$what: message lacks '$fragment': $(tail -3 <<< "$expect_stderr")"; return; }
}

expect_files() {
  local what="$1" f
  shift
  for f in "$@"; do
    [[ -f "$f" ]] || { fail "$what: no file $f (in $(pwd): $(ls | tr '\n' ' '))"; return; }
  done
}

expect_lines() {
  local n
  n="$(wc -l < "$1")" || { fail "$1: cannot be read"; return; }
  [[ $n -eq $2 ]] || { fail "$1 has $n lines, expected $2"; return; }
}
