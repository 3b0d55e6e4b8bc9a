#!/usr/bin/env bash
# Server load benchmark end to end: synthetic sentences of 3 to 20 words (a 600-word word-level
# vocabulary), a small Transformer (2+2 layers, D 128, F 512, 4 heads) with its initial random
# weights (realmt-init, no training), realmt-server on 127.0.0.1 (port picked by the kernel),
# then realmt-bench-server: 1, 8, 64 clients against offline realmt-translate on the same
# sentences. The random model never picks eos, so every output has the maximal length,
# floor(1.5 x (source words + 1)) tokens: decoding work as with real outputs of that length
# and the same for both sides (as the decoding benchmark fixes output lengths).
#
#   bench/server/run_server_bench.sh BUILD_DIR [sentences=512] [threads=2] [per-request=1]
set -euo pipefail
build="$(cd "$1" && pwd)"
n="${2:-512}"
threads="${3:-2}"
per_request="${4:-1}"
bin="$build/apps"
tmp="$(mktemp -d)"
server_pid=""
cleanup() {
  [[ -n "$server_pid" ]] && kill -TERM "$server_pid" 2> /dev/null && wait "$server_pid" || true
  rm -rf "$tmp"
}
trap cleanup EXIT
cd "$tmp"

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

model=(-m model.safetensors -v vocab.spm --cpu-threads "$threads" -b 4 --max-length-factor 1.5)
"$bin/realmt-server" "${model[@]}" --port 0 2> server.log &
server_pid=$!
for _ in $(seq 600); do grep -q "listening on" server.log && break; sleep 0.1; done
port="$(sed -n 's/.*listening on 127\.0\.0\.1:\([0-9]*\)$/\1/p' server.log)"
[[ -n "$port" ]] || { cat server.log; exit 1; }
echo "load before: $(uptime)"
"$build/bench/server/realmt-bench-server" --port "$port" --input test.src \
  --translate "$bin/realmt-translate ${model[*]}" --clients 1 8 64 \
  --sentences-per-request "$per_request" --max-seconds 60
echo "load after: $(uptime)"
curl -s "127.0.0.1:$port/metrics" 2> /dev/null | grep -E "^realmt_batch_(sentences|requests)_(sum|count)" || true
