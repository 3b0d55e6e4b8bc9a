#!/usr/bin/env bash
# End-to-end checks of realmt-data and tools/{fetch-corpus,prepare-wmt14-enfr} on fixtures
# written here, then on $REPO/../shared/data when it exists.
set -euo pipefail
# shellcheck source=SCRIPTDIR/../lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
rd="$1" repo="$2"
tmp="$(mktemp -d)"
remove_on_exit "$tmp"
cd "$tmp"

# ---- sgm2txt: document order, entities decoded ------------------------------------------------
mkdir -p wmt/test-full wmt/dev wmt/training
sgm() {  # sgm FILE LANG TEXT...: an SGM file with two documents
  local f="$1" l="$2"; shift 2
  { echo "<srcset setid=\"x\" srclang=\"any\">"; echo "<doc sysid=\"ref\" docid=\"d1\" genre=\"news\" origlang=\"$l\">"
    local i=1 t
    for t in "$@"; do
      [[ $i -eq 3 ]] && echo "</doc>" && echo "<doc sysid=\"ref\" docid=\"d2\">"
      echo "<seg id=\"$i\">$t</seg>"; i=$((i + 1))
    done
    echo "</doc>"; echo "</srcset>"; } > "$f"
}
sgm wmt/test-full/newstest2014-fren-src.en.sgm en "Tom &amp; Jerry" "A &quot;test&quot;" "Third one" "Fourth"
sgm wmt/test-full/newstest2014-fren-ref.fr.sgm fr "Tom &amp; Jerry" "Un &quot;test&quot;" "Troisi&#232;me" "Quatri&egrave;me"
"$rd" sgm2txt wmt/test-full/newstest2014-fren-ref.fr.sgm -o t.fr 2> sgm.log
[[ "$(sed -n 3p t.fr)" == "Troisième" && "$(sed -n 1p t.fr)" == "Tom & Jerry" ]] || fail "sgm2txt text: $(cat t.fr)"
grep -q "4 segments in 2 documents; 1 unknown entities" sgm.log || fail "sgm2txt report: $(cat sgm.log)"
printf '<seg id="1">open\n' > bad.sgm
expect_error "an unclosed seg" "bad.sgm:1" "$rd" sgm2txt bad.sgm
for y in 2012 2013; do
  sgm wmt/dev/newstest$y-src.en.sgm en "Dev $y one" "Dev $y two" "Dev $y three"
  sgm wmt/dev/newstest$y-src.fr.sgm fr "Dév $y un" "Dév $y deux" "Dév $y trois"
done

# ---- clean / split / stats on a synthetic corpus ---------------------------------------------
python3 - <<'PY'
import random
random.seed(3)
w_en = "the a house cat dog green red runs sleeps quickly under over river tree book reads".split()
w_fr = "la une maison chat chien vert rouge court dort vite sous sur rivière arbre livre lit".split()
en, fr = [], []
for i in range(3000):
    k = [random.randrange(len(w_en)) for _ in range(random.randint(2, 12))]
    en.append(" ".join(w_en[j] for j in k)); fr.append(" ".join(w_fr[j] for j in k))
en[5] = ""; en[6] = en[7]; fr[6] = fr[7]
open("wmt/training/europarl-v7.fr-en.en", "w").write("\n".join(en) + "\n")
open("wmt/training/europarl-v7.fr-en.fr", "w").write("\n".join(fr) + "\n")
PY
"$rd" clean --src wmt/training/europarl-v7.fr-en.en --tgt wmt/training/europarl-v7.fr-en.fr \
  --src-out c.en --tgt-out c.fr --dropped dropped.tsv 2> clean.log
grep -q "dropped 1 with an empty side" clean.log || fail "clean report: $(cat clean.log)"
grep -q "^duplicate	8	" dropped.tsv || fail "duplicate of line 7 not listed: $(cat dropped.tsv)"
expect_error "a mistyped option" "did you mean '--max-words'" "$rd" clean --src c.en --tgt c.fr --src-out x \
  --tgt-out y --max-word 3
"$rd" split --src c.en --tgt c.fr -o split --dev 100 --test 200 2> split.log
expect_lines split/dev.en 100 && expect_lines split/test.fr 200
[[ -z "$(sort -u split/dev.en | comm -12 - <(sort -u split/train.en))" ]] || fail "dev source in train"
"$rd" vocab -i c.en c.fr -o v.spm --vocab-size 60 2> vocab.log
"$rd" stats c.en --vocab v.spm > stats.txt
grep -q "lines: $(wc -l < c.en)" stats.txt && grep -q "vocabulary coverage: 100.00% of tokens known" stats.txt ||
  fail "stats: $(cat stats.txt)"
"$rd" vocab --help > vocab_help.txt
grep -q "0 <pad>" vocab_help.txt || fail "vocab --help does not document the special ids"

# ---- prepare-wmt14-enfr --from the fixtures (SGM test sets, plain training corpus) ------------
export SACREBLEU="$tmp/sacrebleu"  # the test-set cache prepare-wmt14-enfr fills
"$repo/tools/prepare-wmt14-enfr" --out prep --from wmt --vocab-size 60 --realmt-data "$rd" > prep.log
expect_lines prep/test.en 4 && expect_lines prep/dev.fr 6 && expect_lines prep/train.en "$(wc -l < c.en)"
# The cache from the SGM fixtures, as sacreBLEU converts them (no entity decoding; document fields).
[[ "$(sed -n 2p "$SACREBLEU/wmt14/wmt14.en-fr.ref")" == 'Un &quot;test&quot;' ]] ||
  fail "cached wmt14 en-fr reference: $(cat "$SACREBLEU/wmt14/wmt14.en-fr.ref" 2>&1)"
expect_lines "$SACREBLEU/wmt14/wmt14.en-fr.docid" 4 && expect_lines "$SACREBLEU/wmt13/wmt13.fr-en.src" 3
[[ "$(sed -n 2p prep/test.fr)" == 'Un "test"' ]] || fail "prepared test.fr: $(cat prep/test.fr)"
grep -q "vocab.spm" prep/data.yml || fail "data.yml does not point at the vocabulary"
"$repo/tools/prepare-wmt14-enfr" --out prep --from wmt --vocab-size 60 --realmt-data "$rd" > prep2.log
grep -q "training corpus" prep2.log && fail "second run redid the cleaning"

# ---- fetch-corpus offline on .mo fixtures -----------------------------------------------------
mkdir -p mo/usr/share/locale/fr/LC_MESSAGES
python3 - <<'PY'
import struct
def write_mo(path, pairs):
    pairs = sorted(pairs)
    n = len(pairs); ids = b""; strs = b""; orig = []; trans = []
    base = 28 + 16 * n
    blob = b""
    for k, v in pairs:
        k, v = k.encode(), v.encode()
        orig.append((len(k), base + len(blob))); blob += k + b"\0"
        trans.append((len(v), base + len(blob))); blob += v + b"\0"
    head = struct.pack("<7I", 0x950412de, 0, n, 28, 28 + 8 * n, 0, 0)
    body = b"".join(struct.pack("<2I", *e) for e in orig) + b"".join(struct.pack("<2I", *e) for e in trans)
    open(path, "wb").write(head + body + blob)
def word(i):
    return "".join("abcdefghij"[int(d)] for d in "%03d" % i)
pairs = [("", "Content-Type: text/plain; charset=UTF-8\n"), ("_Open", "_Ouvrir"), ("%s: %s", "%s : %s"),
         ("Untranslated", ""), ("Two\nlines", "Deux\nlignes")]
pairs += [("Open file %s" % word(i), "Ouvrir le fichier %s" % word(i)) for i in range(300)]
write_mo("mo/usr/share/locale/fr/LC_MESSAGES/app.mo", pairs)
write_mo("mo/usr/share/locale/fr/LC_MESSAGES/dup.mo", pairs[:50])
# Fourteen small catalogs of five strings each, and in one of them a near-duplicate of app's.
for c in range(14):
    small = [("Close window %s %s" % (word(c), word(i)), "Fermer la fenêtre %s %s" % (word(c), word(i))) for i in range(5)]
    if c == 0:
        small.append(("OPEN FILE %s!" % word(7), "Ouvre le fichier %s" % word(7)))
    write_mo("mo/usr/share/locale/fr/LC_MESSAGES/small%02d.mo" % c, small)
PY
# The default split: whole catalogs held out (app and its copy dup are too large: train).
"$repo/tools/fetch-corpus" --out fc --mo-dir mo --dev 20 --test 30 --realmt-data "$rd" > fc.log 2>&1 || fail "fetch-corpus: $(cat fc.log)"
grep -q "kept 372; duplicate 46; format-only 2; multi-line 2; untranslated 2" fc.log || fail "mo2pairs counts: $(cat fc.log)"
grep -q "16 catalogs in 15 groups (0 joined a catalog of the same name, 1 one sharing" fc.log || fail "catalog groups: $(cat fc.log)"
grep -q "dev/test pairs whose source occurs in another group" fc.log || fail "split counts: $(cat fc.log)"
expect_lines fc/dev.fr 20 && expect_lines fc/test.en 30
[[ -z "$(grep -v '^Close window' fc/dev.en fc/test.en)" ]] || fail "dev/test hold pairs of a large catalog or a near-duplicate"
grep -qx "Ouvrir" fc/train.fr || fail "accelerator not removed"
"$repo/tools/fetch-corpus" --out fc --mo-dir mo --realmt-data "$rd" > fc2.log
grep -q "complete already" fc2.log || fail "fetch-corpus not idempotent: $(cat fc2.log)"
# The earlier split on demand; asking for another split remakes the corpus.
"$repo/tools/fetch-corpus" --out fc --mo-dir mo --dev 20 --test 30 --split casefold --realmt-data "$rd" > fc3.log 2>&1 ||
  fail "fetch-corpus --split casefold: $(cat fc3.log)"
grep -q "was split with --split catalog; making it again with --split casefold" fc3.log || fail "split change: $(cat fc3.log)"
expect_lines fc/train.en 322 && expect_lines fc/dev.fr 20 && expect_lines fc/test.en 30

# ---- the quickstart's samples (tools/data/samples.py) ------------------------------------------
printf '%s\n' "Open" "Delete %s?" "Copy {count} files" "Saved" \
  "This is a long sentence of many words that goes on and on until it has more than fifteen" > s.en
printf '%s\n' "Ouvrir" "Supprimer ?" "copier {count} fichiers." "Enregistré" "Une phrase longue" > s.hyp
printf '%s\n' "Ouvrir" "Supprimer %s ?" "Copier {count} fichiers" "Sauvegardé" "Une longue phrase" > s.ref
python3 "$repo/tools/data/samples.py" s.en s.hyp s.ref --each 2 > samples.txt || fail "samples.py: $(cat samples.txt)"
expect_sample() {  # KIND LINE VERDICT: the sample of test line LINE is of KIND, with VERDICT
  grep -A4 -F "[$1, test line $2]" samples.txt | grep -qF "match:     $3" ||
    fail "samples.py: no '$1' sample of line $2 with '$3': $(cat samples.txt)"
}
expect_sample plain 1 "matches the reference exactly"
expect_sample plain 4 "differs from the reference (0 of 1 reference words found)"
expect_sample placeholders 2 "differs from the reference (1 of 2 reference words found); placeholders lost: %s"
expect_sample placeholders 3 "matches the reference but for case, punctuation or spacing; placeholders kept"
expect_sample "long: 15+ words" 5 "differs from the reference (3 of 3 reference words found)"

# ---- real data, when present -------------------------------------------------------------------
shared="$repo/../shared/data"
if [[ ! -d "$shared/wmt14-enfr" ]]; then
  echo "SKIP: $shared/wmt14-enfr not found; real-data part skipped"
else
  "$repo/tools/prepare-wmt14-enfr" --out real --from "$shared/wmt14-enfr" --vocab-size 8000 --realmt-data "$rd" > real.log
  for f in newstest2012.en newstest2012.fr newstest2013.en newstest2013.fr newstest2014.en newstest2014.fr; do
    cmp -s "real/$f" "$(find "$shared/wmt14-enfr" -name "$f")" || fail "real/$f differs from the shared copy"
  done
  expect_lines real/train.en 7948   # 8000 pairs less 19 empty, 13 ratio, 20 duplicates
  "$rd" stats real/test.en --vocab real/vocab.spm > real_stats.txt
grep -q "lines: 3003" real_stats.txt || fail "stats on newstest2014: $(cat real_stats.txt)"
  if [[ -d "$shared/tatoeba-enfr" ]]; then
    f="$shared/tatoeba-enfr/manythings-fra-eng-2019-04-07/fra.txt"
    "$rd" clean --tsv "$f" --src-out tt.en --tgt-out tt.fr 2> tt.log
    grep -q "read $(wc -l < "$f") pairs" tt.log || fail "Tatoeba TSV: $(cat tt.log)"
  fi
  echo "real data: $(wc -l < real/train.en) cleaned training pairs, vocab $(wc -l < real/vocab.vocab) pieces"
fi
echo PASS
