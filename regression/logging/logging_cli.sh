#!/usr/bin/env bash
# One logging facility for every program (issue 21, item 4): each program (eight of the ten here) takes
# --log FILE (its lines appended there, in the one time-stamped style) and --log-level (warn hides
# the information lines on stderr and in the file; a bad level is a usage error, exit 2), and a
# failing program records its error in the log file. On the toy model of regression/tiny_model.sh.
# Usage: logging_cli.sh BIN_DIR REPO
set -euo pipefail
# shellcheck source=SCRIPTDIR/../lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
bin="$(cd "$1" && pwd)"
repo="$(cd "$2" && pwd)"
tmp="$(mktemp -d)"
remove_on_exit "$tmp"
cd "$tmp"
source "$repo/regression/tiny_model.sh"
make_tiny_model "$bin" || fail "toy model"
stamp='^\[[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}\] '

# check NAME PATTERN CMD...: CMD with --log NAME.log writes a line matching PATTERN there (and on
# stderr), every line of the file time-stamped; with --log-level warn neither has it.
check() {
  local name="$1" pattern="$2"
  shift 2
  "$@" --log "$name.log" > "$name.out" 2> "$name.err" || fail "$name: $* --log: $(tail -3 "$name.err")"
  grep -Eq "${stamp}.*$pattern" "$name.log" || fail "$name: no '$pattern' line in its --log file: $(head -5 "$name.log")"
  grep -Eq "$pattern" "$name.err" || fail "$name: no '$pattern' line on stderr"
  if grep -Evq "$stamp" "$name.log"; then fail "$name: a line without the time stamp: $(grep -Ev "$stamp" "$name.log" | head -2)"; fi
  "$@" --log "$name.warn.log" --log-level warn > /dev/null 2> "$name.warn.err" || fail "$name --log-level warn"
  if grep -Eq "$pattern" "$name.warn.log" "$name.warn.err"; then fail "$name: --log-level warn still shows '$pattern'"; fi
}

check train 'Ep\. [0-9]+ : Up\. 4 ' "$bin/realmt-train" -t train.en train.fr -v vocab.spm -m t.safetensors --enc-depth 1 \
  --dec-depth 1 --dim-emb 32 --transformer-heads 2 --transformer-dim-ffn 64 --after 4u --disp-freq 4u --cpu-threads 1 --overwrite --no-reload
grep -q 'realmt-train: stopped (after) after 4 updates' train.log || fail "train: the summary is not in the log file"
check init 'realmt-init: wrote i\.safetensors' "$bin/realmt-init" -t train.en train.fr -v vocab.spm -m i.safetensors \
  --enc-depth 1 --dec-depth 1 --dim-emb 32 --transformer-heads 2 --transformer-dim-ffn 64
check translate 'Best translation 0 : ' "$bin/realmt-translate" -m model.safetensors -v vocab.spm -i test.en -o test.hyp
check score 'realmt-score: 20 pairs' "$bin/realmt-score" -m model.safetensors -v vocab.spm -t test.en test.fr
check average 'realmt-average: averaged 2 checkpoints' "$bin/realmt-average" -m model.safetensors model.safetensors -o avg.safetensors
check data 'clean: read 1500 pairs' "$bin/realmt-data" clean --src train.en --tgt train.fr --src-out c.en --tgt-out c.fr
check bleu 'realmt-bleu: Found 2 systems' "$bin/realmt-bleu" test.fr -i test.hyp test.fr -f text

# --quiet: nothing on stderr, the file still gets the lines.
"$bin/realmt-translate" -m model.safetensors -v vocab.spm -i test.en -o q.hyp --quiet --log quiet.log 2> quiet.err
[[ ! -s quiet.err ]] || fail "--quiet still wrote to stderr: $(head -2 quiet.err)"
grep -q 'Best translation 19 : ' quiet.log || fail "--quiet: the log file lacks the lines"

# realmt-bleu's warnings (sacreBLEU's) are log lines; -q (sacreBLEU's --quiet) leaves only errors.
mkdir -p sb/wmt14 && cp test.fr sb/wmt14/wmt14.en-fr.ref
SACREBLEU=sb "$bin/realmt-bleu" -t wmt14 -l en-fr -i test.hyp -tok none -f text --log bleuwarn.log > bleuwarn.out 2> bleuwarn.err ||
  fail "bleu -t from the cache: $(cat bleuwarn.err)"
grep -Eq "${stamp}\[warn\] realmt-bleu: You are turning off BLEU's internal tokenizer" bleuwarn.err ||
  fail "bleu: no tokenizer warning: $(cat bleuwarn.err)"
[[ $(grep -c 'turning off' bleuwarn.log) -eq 1 ]] || fail "bleu: the warning is not in its --log file once"
SACREBLEU=sb "$bin/realmt-bleu" -t wmt14 -l en-fr -i test.hyp -tok none -f text -q > bleuq.out 2> bleuq.err
[[ ! -s bleuq.err ]] || fail "bleu -q still wrote to stderr: $(head -2 bleuq.err)"
cmp -s bleuwarn.out bleuq.out || fail "bleu -q changed the scores"

# The server: its start and stop lines.
"$bin/realmt-server" -m model.safetensors -v vocab.spm --port 0 --cpu-threads 1 --log server.log 2> server.err &
server=$!
for _ in $(seq 300); do grep -q 'listening on' server.log 2> /dev/null && break; sleep 0.1; done
grep -Eq "${stamp}realmt-server: listening on 127\.0\.0\.1:[0-9]+" server.log || fail "server: $(cat server.err)"
kill -TERM "$server"
wait "$server" || fail "server exited $? after SIGTERM"
grep -Eq "${stamp}realmt-server: stopped" server.log || fail "server: no stop line in its log: $(cat server.log)"

# Errors: a usage error exits 2; any error is recorded in the log file.
for prog in realmt-train realmt-translate realmt-server realmt-score realmt-average realmt-init; do
  set +e
  "$bin/$prog" --log-level loud > /dev/null 2> level.err
  status=$?
  set -e
  [[ $status -eq 2 ]] || fail "$prog --log-level loud exited $status, not 2"
  grep -q "log-level" level.err || fail "$prog: the error does not name --log-level: $(cat level.err)"
done
set +e
"$bin/realmt-bleu" test.fr -i test.hyp --log-level loud > /dev/null 2> level.err; status=$?
"$bin/realmt-data" stats --log-level loud test.en > /dev/null 2> data-level.err; data_status=$?
"$bin/realmt-translate" -m missing.safetensors -v vocab.spm -i test.en --log err.log > /dev/null 2> err.err; err_status=$?
set -e
[[ $status -eq 2 ]] || fail "realmt-bleu --log-level loud exited $status"
[[ $data_status -eq 2 ]] || fail "realmt-data stats --log-level loud exited $data_status"
[[ $err_status -eq 1 ]] || fail "a missing model exited $err_status"
grep -q '^realmt-translate: error: .*missing.safetensors' err.err || fail "stderr: $(cat err.err)"
grep -Eq "${stamp}\[error\] realmt-translate: .*missing\.safetensors" err.log || fail "the error is not in the log file: $(cat err.log)"
echo "logging: OK"
