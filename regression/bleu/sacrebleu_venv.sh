#!/usr/bin/env bash
# Creates (once) a virtual environment with sacrebleu==2.6.0 and sentencepiece==0.2.0 (sacreBLEU's
# spm/flores tokenizers) and prints its python path.
# Usage: sacrebleu_venv.sh VENV_DIR
set -euo pipefail
venv="$1"
if [[ -x "$venv/bin/python" ]] && "$venv/bin/python" -c 'import sacrebleu, sentencepiece, sys; sys.exit(sacrebleu.__version__ != "2.6.0")' 2>/dev/null; then
  echo "$venv/bin/python"
  exit 0
fi
python3 -m venv "$venv" >&2
"$venv/bin/pip" install --quiet --disable-pip-version-check 'sacrebleu==2.6.0' 'sentencepiece==0.2.0' >&2
echo "$venv/bin/python"
