#!/usr/bin/env bash
# convert_oracle (ctest): tests/convert/oracle.py in the peers' virtual environment, made by
# bench/peers_venv.sh on first use. Exit 77 (skipped) without python3 with venv and pip, or when
# pip cannot install the pinned packages (no access to PyPI), or without ../shared/data.
# Usage: run_oracle.sh APPS_DIR DUMP_TOOL VENV_DIR WORK_DIR
set -uo pipefail
apps="$1" dump="$2" venv="$3" work="$4"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
command -v python3 >/dev/null || { echo "SKIP: no python3"; exit 77; }
python3 -c 'import venv, ensurepip' 2>/dev/null || { echo "SKIP: python3 lacks the venv/ensurepip modules"; exit 77; }
# Without the shared data the oracle skips: say so before pip installs torch (~3 GB).
data="$root/../shared/data/europarl-opus-enfr"
[[ -f "$data/Europarl_dev_1k.en" ]] || { echo "SKIP: $data not found (the shared data folder)"; exit 77; }
if ! python="$("$root/bench/peers_venv.sh" "$venv")"; then
  echo "SKIP: pip could not install the peers (torch, transformers, ctranslate2) into $venv"
  exit 77
fi
rm -rf "$work"
exec "$python" "$root/tests/convert/oracle.py" --bin "$apps" --dump "$dump" --work "$work"
