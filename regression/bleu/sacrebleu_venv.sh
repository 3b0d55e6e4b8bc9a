#!/usr/bin/env bash
# Creates (once) a virtual environment with sacrebleu==2.6.0 and sentencepiece==0.2.0 (sacreBLEU's
# spm/flores tokenizers) and prints its python path.
# Usage: sacrebleu_venv.sh VENV_DIR
exec "$(dirname "${BASH_SOURCE[0]}")/../pinned_venv.sh" "$1" 'sacrebleu==2.6.0' 'sentencepiece==0.2.0'
