#!/usr/bin/env bash
# The hostile-user probes of issue 16, rerun against the real executables: damaged, foreign and
# poisoned checkpoints, bad input files and options. Every case must end with a clear error
# naming the file (and line, tensor or field) or with the right output; never a crash, a hang or
# a silent wrong result. A crash (exit >= 128) fails at once.
set -uo pipefail
# shellcheck source=SCRIPTDIR/../lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
bin="$1"
tmp="$(mktemp -d)"
remove_on_exit "$tmp"
cd "$tmp"
# Every broken case is reported (fail counts it), then the script fails at its end. expect_error
# (regression/lib.sh): CMD exits 1..123 and its stderr holds FRAGMENT; its stdout goes to out.txt,
# and a run past 120 s counts as a hang.
keep_going
expect_out=out.txt
expect_timeout=120

# A word vocabulary, a second one of the same size with other words, and an initial model.
python3 - <<'PY'
import random
rnd = random.Random(3)
a = "cat dog house tree car book red blue".split()
b = "chat chien maison arbre voiture livre rouge bleu".split()
for name, words in (("a.txt", a), ("b.txt", b)):
    open(name, "w").write("".join(" ".join(rnd.choice(words) for _ in range(rnd.randint(2, 6))) + "\n" for _ in range(300)))
open("pairs.src", "w").write("".join(" ".join(rnd.choice(a) for _ in range(3)) + "\n" for _ in range(40)))
open("pairs.tgt", "w").write("".join(" ".join(rnd.choice(a) for _ in range(3)) + "\n" for _ in range(40)))
PY
"$bin/realmt-data" vocab -i a.txt -o vocab.spm --vocab-size 12 --model-type word 2> /dev/null || { echo "vocab failed"; exit 1; }
"$bin/realmt-data" vocab -i b.txt -o other.spm --vocab-size 12 --model-type word 2> /dev/null || { echo "vocab failed"; exit 1; }
cat > model.yml <<'YML'
train-sets: [pairs.src, pairs.tgt]
vocabs: [vocab.spm]
enc-depth: 1
dec-depth: 1
dim-emb: 16
transformer-heads: 2
transformer-dim-ffn: 32
admin-init: closed-form
quiet-progress: true
YML
"$bin/realmt-init" -c model.yml --model model.safetensors > /dev/null 2> init.log || { cat init.log; exit 1; }

# Checkpoint surgery in Python: rewrite a tensor or the metadata, with or without fixing the
# per-tensor CRC-32s (so that either the checksum or the later checks are what catches it).
cat > edit.py <<'PY'
import json, struct, sys, zlib, array
src, dst, what = sys.argv[1], sys.argv[2], sys.argv[3]
raw = open(src, "rb").read()
n = struct.unpack("<Q", raw[:8])[0]
header = json.loads(raw[8:8 + n])
data = bytearray(raw[8 + n:])
meta = header.get("__metadata__", {})
names = sorted((k for k in header if k != "__metadata__"), key=lambda k: header[k]["data_offsets"][0])
first = names[0]
b, e = header[first]["data_offsets"]
fix_crc = True
if what == "nan":
    data[b:b + 4] = struct.pack("<f", float("nan"))
elif what == "huge":  # finite weights whose products overflow to Inf, then NaN
    for k in names:
        b2, e2 = header[k]["data_offsets"]
        vals = array.array("f", bytes(data[b2:e2]))
        data[b2:e2] = array.array("f", [3e38 if i % 2 else -3e38 for i in range(len(vals))]).tobytes()
elif what == "flip":
    data[b + 1] ^= 0x10
    fix_crc = False
elif what == "format2":
    meta["realmt.format"] = "2"
if fix_crc and "realmt.crc32" in meta:
    meta["realmt.crc32"] = " ".join("%08x" % (zlib.crc32(bytes(data[header[k]["data_offsets"][0]:header[k]["data_offsets"][1]])) & 0xffffffff) for k in names)
header["__metadata__"] = meta
text = json.dumps(header).encode()
text += b" " * ((8 - len(text) % 8) % 8)
open(dst, "wb").write(struct.pack("<Q", len(text)) + text + bytes(data))
print(first)
PY
first=$(python3 edit.py model.safetensors nan.safetensors nan)
python3 edit.py model.safetensors huge.safetensors huge > /dev/null
python3 edit.py model.safetensors flip.safetensors flip > /dev/null
python3 edit.py model.safetensors format2.safetensors format2 > /dev/null
printf 'cat dog\n\nred car\n' > in.txt
tr="$bin/realmt-translate -v vocab.spm --quiet"

# ---- item 1: NaN weights are refused by every program, naming the file and the tensor
nan_msg="nan.safetensors: tensor '$first' holds 1 non-finite"
expect_error "translate NaN" "$nan_msg" $tr -m nan.safetensors -i in.txt
expect_error "score NaN" "$nan_msg" "$bin/realmt-score" -m nan.safetensors -v vocab.spm -t pairs.src pairs.tgt
expect_error "average NaN" "$nan_msg" "$bin/realmt-average" -m model.safetensors nan.safetensors -o avg.safetensors
expect_error "server NaN" "$nan_msg" "$bin/realmt-server" -m nan.safetensors -v vocab.spm --port 0
expect_error "train from NaN" "$nan_msg" "$bin/realmt-train" -c model.yml --model t1.safetensors \
  --pretrained-model nan.safetensors --after 2u
# ... and a finite model whose scores overflow: an error per sentence, the lines kept, no crash.
expect_error "translate overflow" "in.txt: line 1: no translation with a finite score" $tr -m huge.safetensors -i in.txt
[[ $(wc -l < out.txt) -eq 3 ]] || fail "translate overflow: $(wc -l < out.txt) output lines for 3 input lines"
# ---- item 1 (resume): a training state with NaN is refused
"$bin/realmt-train" -c model.yml --model r.safetensors --after 2u --disp-freq 1u > train.log 2>&1 \
  || fail "train 2 updates: $(tail -3 train.log)"
state_first=$(python3 edit.py r.state.safetensors r.state.safetensors nan)
expect_error "resume NaN" "r.state.safetensors: tensor '$state_first' holds 1 non-finite" \
  "$bin/realmt-train" -c model.yml --model r.safetensors --after 4u
# ---- item 10: byte flip, format 2, another vocabulary, average onto its input
expect_error "translate flipped" "flip.safetensors: tensor '$first' is damaged" $tr -m flip.safetensors -i in.txt
expect_error "translate format 2" "checkpoint format '2'" $tr -m format2.safetensors -i in.txt
expect_error "average format 2" "checkpoint format '2'" "$bin/realmt-average" -m format2.safetensors model.safetensors -o a2.safetensors
expect_error "other vocabulary" "is not the one" "$bin/realmt-translate" -m model.safetensors -v other.spm --quiet -i in.txt
cp model.safetensors m2.safetensors
expect_error "average onto input" "is also an input" "$bin/realmt-average" -m model.safetensors m2.safetensors -o ./m2.safetensors
cmp -s model.safetensors m2.safetensors || fail "average overwrote its input"
expect_error "config directory" "is a directory" "$bin/realmt-train" -c "$tmp" --after 1u
expect_error "nan option" "not nan or inf" "$bin/realmt-train" -c model.yml --optimizer-params 0.9 nan 1e-9 --after 1u
# ---- item 12: an empty input line translates to an empty line
printf '\n' > empty.txt
$tr -m model.safetensors -i empty.txt > out.txt 2> err.txt || fail "translate empty line: $(cat err.txt)"
[[ "$(cat out.txt)" == "" && $(wc -l < out.txt) -eq 1 ]] || fail "empty line translated as '$(cat out.txt)'"
# ---- item 3: no pair fits max-length: an error at once, not endless empty epochs
expect_error "max-length" "no sentence pair fits max-length 1" \
  "$bin/realmt-train" -c model.yml --model ml.safetensors --max-length 1 --after 100e
# ---- item 8: a truncated .gz is an error, not a shorter file
python3 -c "
import gzip; d = gzip.compress(''.join('cat dog red %d\n' % i for i in range(300)).encode())
open('cut.gz', 'wb').write(d[:len(d) // 2]); open('notrailer.gz', 'wb').write(d[:-8])"
expect_error "truncated gz" "cut.gz: the gzip data is incomplete" $tr -m model.safetensors -i cut.gz
expect_error "gz without trailer" "notrailer.gz: the gzip data is incomplete" $tr -m model.safetensors -i notrailer.gz
# ---- item 9: errors that name their input
mkdir refs.d
expect_error "bleu on a directory" "is a directory" "$bin/realmt-bleu" refs.d -i in.txt
python3 -c "open('long.txt', 'w').write(' '.join(['cat dog'] * 700000) + '\n')"
# Over max-length (1000 subwords, eos counted): Marian's empty line and a warning, not a crash.
timeout 120 "$bin/realmt-translate" -v vocab.spm -m model.safetensors -i long.txt -o long.out 2> err.txt \
  || fail "5 MB line: exit $?: $(tail -3 err.txt)"
grep -qF "long.txt: line 1: 1400001 subwords (eos counted), more than max-length 1000" err.txt \
  || fail "5 MB line: no warning naming the line: $(tail -3 err.txt)"
[[ "$(wc -l < long.out)" == 1 && ! -s <(tr -d '\n' < long.out) ]] || fail "5 MB line: output is not one empty line"
expect_error "TER on 5 MB lines" "line 1: TER of a" "$bin/realmt-bleu" long.txt -i long.txt -m ter
# ---- item 12: SGM line-break entities and SGM files without segments
printf '<doc docid="d">\n<seg id="1">a&#13;b</seg>\n</doc>\n' > t.sgm
"$bin/realmt-data" sgm2txt t.sgm -o t.txt 2> err.txt || fail "sgm2txt: $(cat err.txt)"
[[ "$(cat t.txt)" == "a b" ]] || fail "sgm2txt &#13;: got $(od -c t.txt | head -2)"
printf '<doc docid="d">\n</doc>\n' > noseg.sgm
expect_error "sgm without seg" "noseg.sgm: no <seg>" "$bin/realmt-data" sgm2txt noseg.sgm -o x.txt

finish "hardening regression"
