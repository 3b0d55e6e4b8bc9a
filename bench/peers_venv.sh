#!/usr/bin/env bash
# Creates (once) the virtual environment of the peer toolkits the benchmarks compare with
# (PyTorch for training, CTranslate2 and Hugging Face transformers for decoding) and prints its
# python path. Pinned versions: the figures in bench/RESULTS.md were measured with these.
# Usage: bench/peers_venv.sh VENV_DIR
set -euo pipefail
venv="$1"
pins=(torch==2.15.0 ctranslate2==4.8.5 transformers==5.24.0 sentencepiece safetensors numpy)
if [[ -x "$venv/bin/python" ]] && "$venv/bin/python" - <<'PY' 2>/dev/null; then
import sys, torch, ctranslate2, transformers
sys.exit(not (torch.__version__.startswith("2.15.0") and ctranslate2.__version__ == "4.8.5"))
PY
  echo "$venv/bin/python"
  exit 0
fi
python3 -m venv "$venv" >&2
"$venv/bin/pip" install --quiet --disable-pip-version-check "${pins[@]}" >&2
echo "$venv/bin/python"
