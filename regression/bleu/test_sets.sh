#!/usr/bin/env bash
# realmt-bleu -t and the cache realmt-data testsets fills (issue 21):
# 1. on ../shared/data/wmt14-enfr (skipped when absent): `realmt-bleu -t wmt14 -l en-fr` gives the
#    same output as `realmt-bleu newstest2014.fr`, for every metric;
# 2. realmt-data testsets writes, from SGM files made to trip a converter (whitespace runs, NBSP,
#    tabs, CRLF, text after </seg>, an unclosed <seg>, entities, documents missing attributes),
#    the same files as sacreBLEU 2.6.0's own conversion (FakeSGMLDataset), and sacreBLEU -t then
#    scores like realmt-bleu -t on them;
# 3. errors are realmt-bleu's own ("realmt-bleu: ..."), --version names realmt-bleu.
# Usage: test_sets.sh REALMT_BLEU REALMT_DATA VENV_DIR REPO
set -euo pipefail
# shellcheck source=SCRIPTDIR/../lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
bleu="$(realpath "$1")" data="$(realpath "$2")" venv="$(realpath -m "$3")" repo="$(cd "$4" && pwd)"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
tmp="$(mktemp -d)"
remove_on_exit "$tmp"
export SACREBLEU="$tmp/cache"
cd "$tmp"

# 3. Names.
"$bleu" --version | grep -q '^realmt-bleu [0-9]' || fail "--version: $("$bleu" --version)"
if "$bleu" nope -i nope 2> err.txt; then fail "a missing reference file succeeded"; fi
grep -q '^realmt-bleu: ' err.txt || fail "error not under realmt-bleu's name: $(cat err.txt)"
if grep -q 'sacreBLEU:' err.txt; then fail "error under sacreBLEU's name: $(cat err.txt)"; fi

# 1. The shared newstest2014.
shared="$repo/../shared/data/wmt14-enfr"
if [[ -f "$shared/test/newstest2014.fr" ]]; then
  "$data" testsets --from "$shared" --sets wmt14 2> fill.log || fail "realmt-data testsets: $(cat fill.log)"
  grep -q "wmt14 en-fr: 3003 segments" fill.log || fail "fill: $(cat fill.log)"
  # A system output: the reference with every 7th word dropped.
  awk '{ out = ""; for (i = 1; i <= NF; i++) if (i % 7) out = out (out == "" ? "" : " ") $i; print out }' \
    "$shared/test/newstest2014.fr" > hyp.fr
  for args in "-m bleu chrf ter" "-m bleu -f text -w 4" "-m chrf -cw 2 -f text" "-tok intl -f text"; do
    # shellcheck disable=SC2086
    "$bleu" -t wmt14 -l en-fr -i hyp.fr $args > by-t.txt || fail "-t wmt14 -l en-fr $args"
    # shellcheck disable=SC2086
    "$bleu" "$shared/test/newstest2014.fr" -i hyp.fr $args > by-file.txt || fail "newstest2014.fr $args"
    cmp -s by-t.txt by-file.txt || fail "-t wmt14 -l en-fr $args differs from the file: $(diff by-t.txt by-file.txt | head -5)"
  done
  echo "newstest2014: -t wmt14 -l en-fr = newstest2014.fr ($(head -c 200 < <("$bleu" -t wmt14 -l en-fr -i hyp.fr -b)) BLEU)"
else
  echo "NOTE: $shared not found: the newstest2014 comparison is skipped"
fi

# 2. SGM conversion against sacreBLEU's.
python="$("$here/sacrebleu_venv.sh" "$venv")"
mkdir -p sgm/test
printf '%s\n' '<srcset setid="newstest2014" srclang="any">' \
  '<doc sysid="ref" docid="1012-bbc" genre="news" origlang="en">' \
  '<seg id="1">  Spectacular   Wingsuit Jump </seg>' \
  "<seg id=\"2\">$(printf '\t')Tabs$(printf '\t\t')and a no-break$(printf '\xc2\xa0\xc2\xa0')space</seg>" \
  '<seg id="3">Entities &amp; &quot;quotes&quot; stay</seg> trailing text' \
  '<seg id="4">unclosed segment' \
  '</doc>' '<doc sysid="ref" docid="2-lemonde" origlang="fr">' \
  "<seg id=\"1\">CRLF line</seg>$(printf '\r')" \
  '<seg id="2">a</seg> <seg id="3">b</seg>' \
  '</doc>' '</srcset>' > sgm/test/newstest2014-fren-src.en.sgm
sed -e 's/Spectacular/Spectaculaire/; s/Tabs/Tabulations/; s/srcset/refset/' sgm/test/newstest2014-fren-src.en.sgm \
  > sgm/test/newstest2014-fren-ref.fr.sgm
"$data" testsets --from sgm --cache realmt-cache --sets wmt14 2> sgm.log || fail "testsets on SGM: $(cat sgm.log)"
"$python" - "$tmp" <<'PY' || fail "realmt-data testsets differs from sacreBLEU's conversion"
import filecmp, os, sys
tmp = sys.argv[1]
from sacrebleu.dataset import DATASETS
ds = DATASETS['wmt14']
src, ref = (os.path.join(tmp, 'sgm/test', f) for f in ('newstest2014-fren-src.en.sgm', 'newstest2014-fren-ref.fr.sgm'))
os.makedirs(ds._outdir, exist_ok=True)
ds._convert_format(src, ds._get_txt_file_path('en-fr', 'src'))
ds._convert_format(ref, ds._get_txt_file_path('en-fr', 'ref'))
for field in ('docid', 'genre', 'origlang'):
    ds._convert_meta(src, field, ds._get_txt_file_path('en-fr', field))
bad = 0
for field in ds.fieldnames('en-fr'):
    ours = os.path.join(tmp, 'realmt-cache/wmt14', f'wmt14.en-fr.{field}')
    theirs = ds._get_txt_file_path('en-fr', field)
    if not filecmp.cmp(ours, theirs, shallow=False):
        print(f'{field}: realmt {open(ours, "rb").read()!r}\n{field}: sacreBLEU {open(theirs, "rb").read()!r}')
        bad += 1
sys.exit(bad)
PY
# sacreBLEU -t reads the cache realmt-data wrote (every field present: it downloads nothing).
printf 'Spectaculaire Wingsuit\nTabulations and space\nEntities stay\nunclosed\nCRLF line\na b\n' > sgm.hyp
SACREBLEU="$tmp/realmt-cache" "$python" -m sacrebleu -t wmt14 -l en-fr -i sgm.hyp -m bleu chrf -f text > sb.txt 2> sb.err ||
  fail "sacreBLEU -t on realmt-data's cache: $(tail -3 sb.err)"
SACREBLEU="$tmp/realmt-cache" "$bleu" -t wmt14 -l en-fr -i sgm.hyp -m bleu chrf -f text > rb.txt ||
  fail "realmt-bleu -t on realmt-data's cache"
cmp -s sb.txt rb.txt || fail "sacreBLEU and realmt-bleu -t differ: $(diff sb.txt rb.txt)"
echo "test sets: OK"
