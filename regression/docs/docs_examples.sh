#!/usr/bin/env bash
# The documentation's runnable examples (issue 21): every ```sh run block of docs/*.md, run as
# written, page by page, in a fresh folder with the toy corpus, vocabulary and model of
# regression/tiny_model.sh (docs/README.md, "The examples", says what the folder holds). The
# blocks of one page run in order in one shell (bash -euo pipefail), so a block may use what an
# earlier one made. realmt-train, realmt-init and `realmt-data vocab` are called through wrappers
# that append options shrinking the run (later options win), as regression/marian/readme_commands.sh.
# Also: each program's page has a section for every option group its --help prints.
# ```python run blocks (docs/python.md) run after the page's sh blocks, in the same folder, as one
# script of the interpreter REALMT_TEST_PYTHON with the build's package on PYTHONPATH (ctest sets
# both; a page with such blocks fails without them).
# Usage: docs_examples.sh BIN_DIR REPO [PAGE.md...]
set -euo pipefail
# shellcheck source=SCRIPTDIR/../lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
bin="$(cd "$1" && pwd)"
repo="$(cd "$2" && pwd)"
shift 2
tmp="$(mktemp -d)"
remove_on_exit "$tmp"

pages=()
for p in "$@"; do pages+=("$(realpath "$p")"); done
if [[ ${#pages[@]} -eq 0 ]]; then
  mapfile -t pages < <(ls "$repo"/docs/*.md)
  for prog in realmt-train realmt-init realmt-translate realmt-server realmt-score realmt-average realmt-bleu realmt-data \
              realmt-convert realmt-analyze; do
    [[ -f "$repo/docs/$prog.md" ]] || fail "docs/$prog.md is missing"
  done
fi
selected() { [[ " ${pages[*]} " == *"/$1.md "* || " ${pages[*]} " == *" $1.md "* ]]; }

# ---- option groups: each program's page has a heading for every group of its --help ----------
for prog in realmt-train realmt-init realmt-translate realmt-server realmt-score realmt-average realmt-convert \
            realmt-analyze; do
  selected "$prog" || continue
  page="$repo/docs/$prog.md"
  while IFS= read -r group; do
    name="${group%:}"
    name="${name%% (*}"
    grep -Eq "^#+ .*$name" "$page" || fail "docs/$prog.md has no section for the option group '$name' of $prog --help"
  done < <("$bin/$prog" --help | grep -E '^[A-Z][A-Za-z ,/()-]*:$')
done
selected realmt-data && for cmd in $("$bin/realmt-data" --help | awk '/^commands:/ {on = 1; next} on && NF {print $1}'); do
  grep -Eq "^#+ $cmd\$" "$repo/docs/realmt-data.md" || fail "docs/realmt-data.md has no section for '$cmd'"
done
selected realmt-bleu && for opt in -t --test-set -l --echo --list -tok -m -i -nr --paired-bs --paired-ar -ci -sl -f -b -w; do
  grep -Eq -- "[\`/]$opt([ \`/]|\$)" "$repo/docs/realmt-bleu.md" || fail "docs/realmt-bleu.md does not mention $opt"
done

# ---- the workspace every page starts from ------------------------------------------------------
base="$tmp/base"
mkdir -p "$base" "$tmp/wrap"
cd "$base"
source "$repo/regression/tiny_model.sh"
make_tiny_model "$bin" || fail "tiny model"
rm -f tiny-*.log
ln -s "$repo/marian-style-configs" marian-style-configs
shrink="--after 8u --time-limit 0 --enc-depth 1 --dec-depth 1 --dim-emb 32 --transformer-heads 2 --transformer-dim-ffn 64 --mini-batch-words 600 --valid-freq 4u --save-freq 4u --disp-freq 2u --cpu-threads 1"
for prog in realmt-train realmt-init; do
  printf '#!/bin/sh\nexec "%s/%s" "$@" %s\n' "$bin" "$prog" "$shrink" > "$tmp/wrap/$prog"
done
cat > "$tmp/wrap/realmt-data" <<SH
#!/bin/sh
if [ "\$1" = vocab ]; then exec "$bin/realmt-data" "\$@" --vocab-size 40; fi
exec "$bin/realmt-data" "\$@"
SH
chmod +x "$tmp/wrap"/*
export PATH="$tmp/wrap:$bin:$PATH"
export SACREBLEU="$tmp/sacrebleu-default"  # never the user's ~/.sacrebleu
# mpirun examples: Open MPI refuses root without these, and containers lack its single-copy path.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl_vader_single_copy_mechanism=none

ran=0
for page in "${pages[@]}"; do
  name="$(basename "$page" .md)"
  script="$tmp/$name.sh"
  awk '/^```sh run[[:space:]]*$/ {on = 1; next} on && /^```/ {on = 0; print ""; next} on {print}' "$page" > "$script"
  awk '/^```python run[[:space:]]*$/ {on = 1; next} on && /^```/ {on = 0; print ""; next} on {print}' "$page" \
    > "$tmp/$name.py"
  if [[ -s "$tmp/$name.py" ]]; then
    [[ -n "${REALMT_TEST_PYTHON:-}" && -n "${PYTHONPATH:-}" ]] ||
      fail "docs/$name.md has python run blocks: set REALMT_TEST_PYTHON and PYTHONPATH (the build's python/)"
    printf '%q %q\n' "$REALMT_TEST_PYTHON" "$tmp/$name.py" >> "$script"
  fi
  [[ -s "$script" ]] || continue
  if grep -q '^mpirun ' "$script" && ! command -v mpirun > /dev/null; then
    echo "docs/$name.md: skipped (no mpirun: MPI is optional)"
    continue
  fi
  work="$tmp/run-$name"
  cp -a "$base" "$work"
  cd "$work"
  # Its own process group, so that whatever a page leaves running (a server) is stopped after it.
  set +e
  setsid bash -euo pipefail "$script" > "$tmp/$name.out" 2> "$tmp/$name.err" < /dev/null &
  pid=$!
  wait "$pid"
  status=$?
  kill -- -"$pid" 2> /dev/null
  set -e
  if [[ $status -ne 0 ]]; then
    echo "---- docs/$name.md: the examples failed (exit $status); script:" >&2
    cat -n "$script" >&2
    echo "---- stdout (end):" >&2; tail -n 20 "$tmp/$name.out" >&2
    echo "---- stderr (end):" >&2; tail -n 30 "$tmp/$name.err" >&2
    fail "docs/$name.md"
  fi
  echo "docs/$name.md: $(grep -c . "$script") command lines ran"
  ran=$((ran + 1))
done
[[ $ran -ge 1 ]] || fail "no runnable example found"
echo "docs examples: OK ($ran pages)"
