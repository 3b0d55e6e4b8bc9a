# Sourced (bash) on a GPU machine: places a pack made by tests/device_pack.sh where it was built
# and sets LD_LIBRARY_PATH to its libraries and the machine's CUDA libraries. Needs `root` (this
# repository) and `prebuilt` (the pack's folder); sets `build` (the unpacked build folder).
# Used by tests/device_check.sh --prebuilt and bench/quickstart/sweep_device.sh.
device_unpack() {
  [[ -f "$prebuilt/pack.tar.xz" ]] || { echo "device_unpack: $prebuilt/pack.tar.xz not found (make it with tests/device_check.sh --pack)"; return 1; }
  local origin build_rel libs cuda_dirs missing
  origin="$(tar -xOJf "$prebuilt/pack.tar.xz" devpack/origin)"
  build_rel="$(tar -xOJf "$prebuilt/pack.tar.xz" devpack/build)"
  if [[ "$origin" != "$root" ]]; then
    if [[ -e "$origin" && ! "$origin" -ef "$root" ]]; then
      echo "device_unpack: $origin exists here and is not this repository: cannot place the pack"; return 1
    fi
    mkdir -p "$(dirname "$origin")" && { [[ -e "$origin" ]] || ln -s "$root" "$origin"; }
  fi
  tar -xJf "$prebuilt/pack.tar.xz" -C "$root" --exclude 'devpack/origin' --exclude 'devpack/build'
  build="$root/$build_rel"
  libs="$root/devpack/lib"
  cuda_dirs="$(find /usr/local /opt /usr/lib -name 'libcublasLt.so.13*' -o -name 'libnccl.so.2*' 2> /dev/null |
    xargs -r -n1 dirname | sort -u | paste -sd:)"
  export LD_LIBRARY_PATH="$libs:${cuda_dirs}:${LD_LIBRARY_PATH:-}:$libs/fallback"
  echo "device_unpack: pack from $origin ($build_rel); CUDA libraries from: ${cuda_dirs:-none found}"
  missing="$(ldd "$build"/apps/realmt-* | grep 'not found' | sort -u)"
  [[ -z "$missing" ]] || { echo "device_unpack: libraries not found:"; echo "$missing"; return 1; }
}
