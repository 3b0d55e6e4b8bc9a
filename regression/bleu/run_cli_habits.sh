#!/usr/bin/env bash
# sacreBLEU users' habits (cli_habits.py): -t on a made-up cache, argparse forms, -f latex, exit
# codes; realmt-bleu against sacreBLEU 2.6.0 (installed with pip into a venv made here).
# Usage: run_cli_habits.sh REALMT_BLEU VENV_DIR
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
python="$("$here/sacrebleu_venv.sh" "$2")"
exec "$python" "$here/cli_habits.py" --bin "$1" --data "$repo/../shared/data/wmt14-enfr"
