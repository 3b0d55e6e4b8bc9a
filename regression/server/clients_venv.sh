#!/usr/bin/env bash
# Creates (once) a virtual environment with the client libraries that Marian and OPUS-MT users
# talk to servers with, websockets==17.4 and requests==2.34.2, and prints its python path.
# Usage: clients_venv.sh VENV_DIR
exec "$(dirname "${BASH_SOURCE[0]}")/../pinned_venv.sh" "$1" 'websockets==17.4' 'requests==2.34.2'
