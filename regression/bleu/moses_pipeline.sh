#!/usr/bin/env bash
# realmt-bleu's papers' tokenized BLEU (-tok moses / moses-a) against the Moses pipeline itself,
# on newstest2014 (../shared/data; skipped with 77 when absent) and a perturbed hypothesis:
#  1. the tokenizer, line for line and byte for byte, against Moses' tokenizer.perl as the
#     mosestokenizer 1.2.1 package carries it (tools/moses-scripts; its 2016 "Version 1.1"):
#     realmt's --legacy rules on fr and en, with and without -a, reference and hypothesis;
#  2. the same with mosesdecoder master's end-of-line rules: the Perl script with the three
#     lines master added (pull request 204 and its neighbours; patched below) against realmt's
#     default rules;
#  3. BLEU to the second decimal: sacreBLEU -tok none -s none on the Perl pipeline's tokens
#     (’ -> ', tokenizer.perl -a -l fr; and with t2t's ##AT## compound splitting) against
#     realmt-bleu -tok moses-a [--compound-split] on the raw text; --multi-bleu's line carries
#     the same score, precisions, BP, ratio and lengths as sacreBLEU's verbose output.
# Usage: moses_pipeline.sh REALMT_BLEU MOSES_TOKENIZE SACREBLEU_VENV MOSES_DIR
set -euo pipefail
# shellcheck source=SCRIPTDIR/../lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
bleu="$1" tok="$2" venv="$3" moses_dir="$4"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
data="$root/../shared/data/wmt14-enfr/test"
if [[ ! -f "$data/newstest2014.fr" || ! -f "$data/newstest2014.en" ]]; then
  echo "SKIP: $data/newstest2014.{en,fr} not found"
  exit 77
fi
scripts="$("$root/tools/moses-scripts" "$moses_dir")"
python="$("$root/regression/bleu/sacrebleu_venv.sh" "$venv")"
prefixes="$scripts/nonbreaking_prefixes"
work="$(mktemp -d)"
remove_on_exit "$work"
cd "$work"

# A hypothesis that differs from the reference in ways the pipeline sees: dropped and swapped
# words, typographic apostrophes, joined compounds, final dots, an empty line.
python3 - "$data/newstest2014.fr" > hyp.fr <<'PY'
import sys
for i, line in enumerate(open(sys.argv[1], encoding="utf-8").read().split("\n")[:-1]):
    w = line.split(" ")
    if i % 3 != 2 and len(w) > 3: del w[len(w) // 2]
    if i % 2 == 1 and len(w) > 4: w[1], w[2] = w[2], w[1]
    if i % 3 == 1: w = ["la" if x == "le" else "de" if x == "du" else x for x in w]
    if i % 5 == 0 and len(w) > 6: w = w[:3] + w[4:-2] + w[-1:]
    s = " ".join(w)
    if i % 4 == 2: s = s.replace("'", "\u2019")
    if i % 7 == 3: s = s.replace("-", " ", 1)
    if i % 11 == 5: s = s.rstrip(".") if s.endswith(".") else s + "."
    if i == 100: s = ""
    print(s)
PY

perl_tok() { perl "$1" -q "${@:2}" 2>/dev/null; }
same() {  # name file_a file_b
  if ! cmp -s "$2" "$3"; then
    echo "FAIL: $1: $(diff "$2" "$3" | grep -c '^<') lines differ; first ones:"
    diff "$2" "$3" | head -8
    exit 1
  fi
  echo "ok: $1 ($(wc -l < "$2") lines identical)"
}

# 1. The 2016 script as released.
v11="$scripts/tokenizer-v1.1.perl"
for args in "-a -l fr" "-l fr" "-a -l en" "-l en"; do
  lang="${args##* }"
  for f in "$data/newstest2014.$lang" hyp.fr; do
    [[ "$f" == hyp.fr && "$lang" != fr ]] && continue
    perl_tok "$v11" $args < "$f" > perl.tok
    "$tok" $args --legacy --prefixes "$prefixes" < "$f" > realmt.tok
    same "tokenizer-v1.1.perl $args $(basename "$f")" perl.tok realmt.tok
  done
done

# 2. Master's end-of-line rules added to the same script.
perl -pe '
  s/^(\s*)(\$text =~ s\/\[,\]\(\[\^\\p\{IsN\}\]\)\/ , \$1\/g;)$/$1$2\n$1\$text =~ s\/([\\p{IsN}])[,]\$\/\$1 ,\/g;/;
  s/^(\s*)if \(\(\$pre =~/$1if (\$i == scalar(\@words)-1) { \$word = \$pre." ."; }\n$1elsif ((\$pre =~/;
  s/^(\s*)(# restore protected)$/$1\$text =~ s\/\\.\\\x27 ?\$\/ . \x27 \/;\n$1$2/;
' "$v11" > master.perl
# 6 added lines: the three rules, the final-dot one twice (the unused -penn word loop has a copy).
[[ $(diff "$v11" master.perl | grep -c "^>") == 6 ]] ||
  { diff "$v11" master.perl; fail "patching tokenizer-v1.1.perl did not add the 3 rules (the diff above)"; }
sed -i "s|\$RealBin/nonbreaking_prefixes|$prefixes|" master.perl
for f in "$data/newstest2014.fr" hyp.fr; do
  sed "s/’/'/g" "$f" | perl_tok master.perl -a -l fr > "$(basename "$f").perl"
  sed "s/’/'/g" "$f" | "$tok" -a -l fr --prefixes "$prefixes" > realmt.tok
  same "master rules -a -l fr $(basename "$f")" "$(basename "$f").perl" realmt.tok
done

# 3. BLEU: sacreBLEU on the Perl pipeline's tokens against realmt-bleu on the raw text.
ref="$data/newstest2014.fr"
check_score() {  # name expected got
  [[ "$2" == "$3" ]] || fail "$1: Moses pipeline $2, realmt-bleu $3"
  echo "ok: $1 BLEU $3"
}
sacre() { "$python" -m sacrebleu "$1" -i "$2" -tok none -s none --force -w 2 -b; }
expected="$(sacre newstest2014.fr.perl hyp.fr.perl)"
got="$("$bleu" "$ref" -i hyp.fr -l en-fr -tok moses-a --moses-prefixes "$prefixes" -s none -w 2 -b)"
check_score "moses-a" "$expected" "$got"
[[ "$got" != "100.00" && "$got" != "0.00" ]] || fail "degenerate score $got"
# multi-bleu.perl's line: the same figures as sacreBLEU's verbose score.
line="$("$bleu" "$ref" -i hyp.fr -l en-fr -tok moses-a --moses-prefixes "$prefixes" --multi-bleu)"
verbose="$("$python" -m sacrebleu newstest2014.fr.perl -i hyp.fr.perl -tok none -s none --force -w 2 -f text)"
want="$(echo "$verbose" | sed -E 's/^BLEU\S* = ([0-9.]+) ([0-9./]+) \(BP = ([0-9.]+) ratio = ([0-9.]+) hyp_len = ([0-9]+) ref_len = ([0-9]+)\)$/BLEU = \1, \2 (BP=\3, ratio=\4, hyp_len=\5, ref_len=\6)/')"
[[ "$line" == "$want" ]] || fail "--multi-bleu printed '$line', sacreBLEU's figures give '$want'"
echo "ok: --multi-bleu $line"
# t2t's compound splitting (get_ende_bleu.sh) on both sides.
perl -ple 's{(\S)-(\S)}{$1 ##AT##-##AT## $2}g' < newstest2014.fr.perl > ref.split
perl -ple 's{(\S)-(\S)}{$1 ##AT##-##AT## $2}g' < hyp.fr.perl > hyp.split
expected="$(sacre ref.split hyp.split)"
got="$("$bleu" "$ref" -i hyp.fr -l en-fr -tok moses-a --compound-split --moses-prefixes "$prefixes" -s none -w 2 -b)"
check_score "moses-a --compound-split" "$expected" "$got"
echo "moses pipeline: all checks passed"
