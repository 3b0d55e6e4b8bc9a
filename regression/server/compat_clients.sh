#!/usr/bin/env bash
# Runs compat_clients.py with the venv that clients_venv.sh makes (websockets, requests), in a
# temporary folder holding the toy model of regression/tiny_model.sh (English -> French word
# for word, 200 updates: it translates most lines right, so equal answers mean something).
# Usage: compat_clients.sh BIN_DIR VENV_DIR
set -euo pipefail
# shellcheck source=SCRIPTDIR/../lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
here="$(cd "$(dirname "$0")" && pwd)"
bin="$(cd "$1" && pwd)"
python="$("$here/clients_venv.sh" "$2")"
tmp="$(mktemp -d)"
remove_on_exit "$tmp"
cd "$tmp"
source "$here/../tiny_model.sh"
make_tiny_model "$bin"
"$python" "$here/compat_clients.py" "$bin"
