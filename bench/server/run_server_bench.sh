#!/usr/bin/env bash
# Server load benchmark end to end: realmt-server on 127.0.0.1 (port picked by the kernel), then
# realmt-bench-server: concurrent clients (1, 8, 64 by default) against offline realmt-translate
# on the same sentences, same model, threads and search options; it prints sentences/s, target
# tokens/s and the ratio server / offline for every level (goal at 64 clients: 85% or more).
#
#   bench/server/run_server_bench.sh BUILD_DIR [sentences=512] [threads=2] [per-request=1]
#   bench/server/run_server_bench.sh BUILD_DIR --model M.safetensors --vocab V.spm --input F
#       [--lines N] [--threads 2] [--per-request 1] [--clients "64"] [--search "-b 4 -n 1"]
#       [--max-seconds 600]
#
# Without --model: synthetic sentences of 3 to 20 words (a 600-word word-level vocabulary), a
# small Transformer (2+2 layers, D 128, F 512, 4 heads) with its initial random weights
# (realmt-init, no training). The random model never picks eos, so every output has the maximal
# length, floor(1.5 x (source words + 1)) tokens: decoding work as with real outputs of that
# length and the same for both sides (as the decoding benchmark fixes output lengths).
# With --model: that model (e.g. the one bench/search/run_field.sh makes, OUT/model/
# realmt.safetensors and vocab.spm) on real sentences (--input, its first --lines), beam 4 and
# normalize 1 unless --search says otherwise (passed to the server and to realmt-translate).
set -euo pipefail
build="$(cd "$1" && pwd)"
shift
n=512 threads=2 per_request=1 model="" vocab="" input="" clients="1 8 64" search="" max_seconds=60
positional=0 lines_given=0
while [[ $# -gt 0 ]]; do
  case "$1" in
    --model) model="$(realpath "$2")"; shift 2 ;;
    --vocab) vocab="$(realpath "$2")"; shift 2 ;;
    --input) input="$(realpath "$2")"; shift 2 ;;
    --lines) n="$2" lines_given=1; shift 2 ;;
    --threads) threads="$2"; shift 2 ;;
    --per-request) per_request="$2"; shift 2 ;;
    --clients) clients="$2"; shift 2 ;;
    --search) search="$2"; shift 2 ;;
    --max-seconds) max_seconds="$2"; shift 2 ;;
    -*) echo "run_server_bench.sh: unknown option '$1'" >&2; exit 2 ;;
    *)  # the old positional form: sentences threads per-request
      case $positional in 0) n="$1" ;; 1) threads="$1" ;; 2) per_request="$1" ;; esac
      positional=$((positional + 1)); shift ;;
  esac
done
bin="$build/apps"
tmp="$(mktemp -d)"
server_pid=""
cleanup() {
  [[ -n "$server_pid" ]] && kill -TERM "$server_pid" 2> /dev/null && wait "$server_pid" || true
  rm -rf "$tmp"
}
trap cleanup EXIT
cd "$tmp"

if [[ -n "$model" ]]; then
  [[ -f "$model" && -f "$vocab" && -f "$input" ]] || { echo "run_server_bench.sh: --model, --vocab and --input must be files" >&2; exit 2; }
  (( lines_given )) || n=0  # every line of --input
  if [[ "$n" -gt 0 ]]; then head -n "$n" "$input" > test.src; else cp "$input" test.src; fi
  read -r -a opts <<< "${search:--b 4 -n 1}"
  model_args=(-m "$model" -v "$vocab" --cpu-threads "$threads" "${opts[@]}")
else
python3 - "$n" <<'PY'
import random, sys
rnd = random.Random(11)
letters = "abcdefghijklmnopqrstuvwxyz"
def words(k, letters):
    out = set()
    while len(out) < k:
        out.add("".join(rnd.choice(letters) for _ in range(rnd.randint(3, 7))))
    return sorted(out)
src, tgt = words(300, letters), words(300, letters.upper())  # disjoint: 600 words
m = dict(zip(src, tgt))
def pairs(k):
    for _ in range(k):
        s = [rnd.choice(src) for _ in range(rnd.randint(3, 20))]
        yield " ".join(s), " ".join(m[w] for w in reversed(s))
for name, k in (("train", 2000), ("test", int(sys.argv[1]))):
    p = list(pairs(k))
    open(name + ".src", "w").write("".join(a + "\n" for a, _ in p))
    open(name + ".tgt", "w").write("".join(b + "\n" for _, b in p))
PY
"$bin/realmt-data" vocab -i train.src train.tgt -o vocab.spm --vocab-size 600 --model-type word 2> vocab.log || { cat vocab.log; exit 1; }
cat > train.yml <<YML
train-sets: [train.src, train.tgt]
vocabs: [vocab.spm]
model: model.safetensors
enc-depth: 2
dec-depth: 2
dim-emb: 128
transformer-heads: 4
transformer-dim-ffn: 512
transformer-dropout: 0.0
admin-init: closed-form
mini-batch-words: 1000
learn-rate: 0.002
lr-warmup: 10u
after: 30u
disp-freq: 10u
quiet-progress: true
cpu-threads: $threads
YML
"$bin/realmt-init" -c train.yml > init.log 2>&1 || { tail -20 init.log; exit 1; }
model_args=(-m model.safetensors -v vocab.spm --cpu-threads "$threads" -b 4 --max-length-factor 1.5)
fi

# Requests are at most --max-request-sentences (16 by default) sentences; the queue holds all.
"$bin/realmt-server" "${model_args[@]}" --port 0 --max-request-sentences "$(( per_request > 16 ? per_request : 16 ))" \
  2> server.log &
server_pid=$!
for _ in $(seq 600); do grep -q "listening on" server.log && break; sleep 0.1; done
port="$(sed -n 's/.*listening on 127\.0\.0\.1:\([0-9]*\)$/\1/p' server.log)"
[[ -n "$port" ]] || { cat server.log; exit 1; }
echo "load before: $(uptime)"
"$build/bench/server/realmt-bench-server" --port "$port" --input test.src \
  --translate "$bin/realmt-translate ${model_args[*]}" --clients $clients \
  --sentences-per-request "$per_request" --max-seconds "$max_seconds"
echo "load after: $(uptime)"
curl -s "127.0.0.1:$port/metrics" 2> /dev/null | grep -E "^realmt_batch_(sentences|requests)_(sum|count)" || true
