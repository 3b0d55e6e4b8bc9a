#!/usr/bin/env bash
# The recipe sweep on a GPU machine that has none of realmt's build packages: unpacks a pack made
# here (tests/device_check.sh --pack BUILD .devpack, a CUDA build for sm_90) and runs
# bench/quickstart/sweep_updates.sh with training and translation on GPU 0, several lines at once.
# The update counts are the same as on the 2-core machine (the calibrations measure CPU time per
# update on this machine's CPU, two threads each), so the table ranks the recipes for the 2-core
# machine's 10 minutes; the GPU only makes the runs fast.
#
#   bench/quickstart/sweep_device.sh PACK-DIR DATA-DIR OUT-DIR [sweep_updates.sh options...]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
prebuilt="${1:?usage: sweep_device.sh PACK-DIR DATA-DIR OUT-DIR [options]}"
data="${2:?usage: sweep_device.sh PACK-DIR DATA-DIR OUT-DIR [options]}"
out="${3:?usage: sweep_device.sh PACK-DIR DATA-DIR OUT-DIR [options]}"
shift 3
# shellcheck source=tests/device_unpack.sh
source "$root/tests/device_unpack.sh"
device_unpack
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2) x $(nproc)"
exec bash "$root/bench/quickstart/sweep_updates.sh" --build "$build" --data "$data" --out "$out" --devices 0 "$@"
