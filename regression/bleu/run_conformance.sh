#!/usr/bin/env bash
# Conformance of realmt-bleu with sacreBLEU 2.6.0 (installed with pip into a venv made here).
# Usage: run_conformance.sh REALMT_BLEU VENV_DIR quick|full
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
python="$("$here/sacrebleu_venv.sh" "$2")"
exec "$python" "$here/conformance.py" --bin "$1" --mode "$3" --data "$repo/../shared/data/wmt14-enfr"
