# Helpers shared by tools/fetch-corpus and tools/prepare-wmt14-enfr (sourced, not run).

# find_realmt_data ROOT [GIVEN]: the realmt-data executable to use, or exit with what to do.
find_realmt_data() {
  local root="$1" given="${2:-}"
  if [[ -n "$given" ]]; then
    [[ -x "$given" ]] || { echo "error: realmt-data '$given' is not an executable" >&2; exit 1; }
    echo "$given"; return
  fi
  local c
  for c in "$root"/build/apps/realmt-data "$root"/build*/apps/realmt-data; do
    [[ -x "$c" ]] && { echo "$c"; return; }
  done
  command -v realmt-data && return
  echo "error: realmt-data not found; build it (cmake --build build --target realmt-data) or pass --realmt-data PATH" >&2
  exit 1
}

all_exist() {
  local dir="$1"; shift
  local f
  for f in "$@"; do [[ -s "$dir/$f" ]] || return 1; done
}

print_counts() {
  local dir="$1"; shift
  local f
  for f in "$@"; do printf '  %-10s %8d lines\n' "$f" "$(wc -l < "$dir/$f")"; done
}

# fetch_tatoeba REALMT_DATA WORK: appends Tatoeba's pairs (manythings.org export) to WORK/pairs.*.
fetch_tatoeba() {
  local rd="$1" work="$2"
  curl -fsSL --max-time 60 -A "Mozilla/5.0 (realmt fetch-corpus)" -o "$work/fra-eng.zip" \
    https://www.manythings.org/anki/fra-eng.zip || return 1
  python3 -c "import zipfile,sys; zipfile.ZipFile(sys.argv[1]).extract('fra.txt', sys.argv[2])" \
    "$work/fra-eng.zip" "$work" || return 1
  "$rd" clean --tsv "$work/fra.txt" --src-out "$work/tatoeba.en" --tgt-out "$work/tatoeba.fr" || return 1
  cat "$work/tatoeba.en" >> "$work/pairs.en"
  cat "$work/tatoeba.fr" >> "$work/pairs.fr"
  echo "fetch-corpus: added $(wc -l < "$work/tatoeba.en") Tatoeba pairs (CC-BY 2.0 FR, tatoeba.org)"
}

# write_source_md DIR MANIFEST CATALOGS SPLIT FILE...: DIR/SOURCE.md.
write_source_md() {
  local dir="$1" manifest="$2" catalogs="$3" split="$4"; shift 4
  local how
  case "$split" in
    catalog) how="made dev/test out of whole catalog groups (a catalog, its copies in other packages and
catalogs sharing most of its strings), with no English sentence whose masked form (case folded,
numbers and placeholders masked, punctuation ignored) occurs in train, one translation each." ;;
    sentence) how="made dev/test with one translation per English sentence, no English sentence
(masked: case folded, numbers and placeholders masked, punctuation ignored) in two splits." ;;
    *) how="made dev/test with one translation per English sentence, no English sentence
(case-folded) in two splits." ;;
  esac
  {
    echo "# English-French pairs from Debian software translations"
    echo
    echo "Made by tools/fetch-corpus on $(date -u +%Y-%m-%d) from the French gettext catalogs"
    echo "(fr, fr_FR) of the packages below: $(wc -l < "$catalogs") catalogs. realmt-data mo2pairs"
    echo "cleaned them (markup, accelerators, format-only, untranslated, duplicates) and realmt-data"
    echo "split (--split $split) $how"
    echo "Each catalog keeps its package's licence (see the package's copyright file)."
    echo
    echo "| file | lines |"
    echo "| --- | --- |"
    local f
    for f in "$@"; do echo "| $f | $(wc -l < "$dir/$f") |"; done
    echo
    echo "Packages:"
    echo
    sed 's/^/- /' "$manifest"
  } > "$dir/SOURCE.md"
}
