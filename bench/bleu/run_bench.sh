#!/usr/bin/env bash
# Speed of realmt-bleu vs sacreBLEU 2.6.0. Usage: run_bench.sh REALMT_BLEU VENV_DIR [RUNS]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
python="$("$repo/regression/bleu/sacrebleu_venv.sh" "$2")"
exec "$python" "$here/bench.py" --bin "$1" --data "$repo/../shared/data/wmt14-enfr" --runs "${3:-5}"
