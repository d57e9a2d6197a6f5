#!/usr/bin/env bash
# test_projects/cuda on a machine with an NVIDIA GPU, in one go, with an opgen built elsewhere.
#
#   run_on_gpu.sh pack PREFIX DIR   on the machine that built opgen: DIR gets the opgen installed in
#                                   PREFIX (cmake --install build --prefix PREFIX), the shared libraries
#                                   it links (ldd; glibc's own excepted) behind a wrapper that alone
#                                   sees them, this project, run_test.sh and this script
#   DIR/run_on_gpu.sh [WORK]        on the GPU machine (nvcc, cmake, ninja, python3 with pip's PyTorch
#                                   with CUDA): builds the project against that PyTorch with its CUDA
#                                   kernels, runs its C++ and Python tests and the incremental checks
#                                   (run_test.sh cuda ... gpu) in WORK (default DIR/work), then prints
#                                   a summary. Exit status: 0 passed, 1 failed, 77 skipped (the reason
#                                   is printed: no nvcc, no GPU, a PyTorch without CUDA).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

if [[ ${1:-} == pack ]]; then
  [[ $# == 3 ]] || { sed -n '2,13p' "$0" >&2; exit 2; }
  prefix=$(cd "$2" && pwd) dir=$3
  [[ -x $prefix/bin/opgen ]] || { echo "run_on_gpu.sh: no $prefix/bin/opgen (cmake --install build --prefix $prefix)" >&2; exit 2; }
  rm -rf "$dir" && mkdir -p "$dir/prefix" "$dir/test_projects"
  cp -a "$prefix/." "$dir/prefix/"
  # The real binary beside the wrapper (opgen finds its templates from its own path, ../share/opgen),
  # and its libraries where only the wrapper looks, so that nothing else (python3, the compilers)
  # loads them.
  mv "$dir/prefix/bin/opgen" "$dir/prefix/bin/opgen.bin"
  mkdir -p "$dir/prefix/lib/opgen-libs"
  ldd "$prefix/bin/opgen" | awk '/=> \// {print $3}' | while read -r lib; do
    case $(basename "$lib") in libc.so.*|libm.so.*|libpthread.so.*|libdl.so.*|librt.so.*|ld-linux*) continue ;; esac
    cp -L "$lib" "$dir/prefix/lib/opgen-libs/"
  done
  cat >"$dir/prefix/bin/opgen" <<'WRAPPER'
#!/bin/sh
bin=$(dirname "$(readlink -f "$0")")
LD_LIBRARY_PATH="$bin/../lib/opgen-libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" exec "$bin/opgen.bin" "$@"
WRAPPER
  chmod +x "$dir/prefix/bin/opgen"
  "$dir/prefix/bin/opgen" --help >/dev/null || { echo "run_on_gpu.sh: the packed opgen does not run here" >&2; exit 1; }
  cp "$here/../run_test.sh" "$dir/test_projects/"
  cp -r "$here" "$dir/test_projects/cuda"
  cp "$here/run_on_gpu.sh" "$dir/run_on_gpu.sh"
  echo "packed into $dir ($(du -sh "$dir" | cut -f1)); on the GPU machine: $dir/run_on_gpu.sh"
  exit 0
fi

[[ -x $here/prefix/bin/opgen ]] || { echo "run_on_gpu.sh: run 'run_on_gpu.sh pack PREFIX DIR' first, then DIR/run_on_gpu.sh" >&2; exit 2; }
work=${1:-$here/work}
log=$work.log
mkdir -p "$(dirname "$work")"
start=$SECONDS
status=0
bash "$here/test_projects/run_test.sh" cuda Ninja "$here/prefix" "$work" gpu 2>&1 | tee "$log" || status=${PIPESTATUS[0]}
echo
echo "== summary"
echo "machine:  $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -n1 || echo 'no GPU')"
echo "nvcc:     $( (${CUDACXX:-nvcc} --version 2>/dev/null || true) | sed -n 's/.*release \([0-9.]*\).*/\1/p')"
echo "compiler: $( (c++ --version 2>/dev/null || true) | head -n1); cmake $( (cmake --version || true) | head -n1 | awk '{print $3}')"
echo "PyTorch:  $(python3 -c 'import torch; print(torch.__version__, "CUDA", torch.version.cuda)' 2>/dev/null || echo none)"
grep -E "checks passed|tests passed|^cuda \(gpu\): all good|^skipped: |FAIL" "$log" || true
case $status in
  0) echo "result:   passed ($((SECONDS - start)) s; log: $log)" ;;
  77) echo "result:   skipped (the reason is above)" ;;
  *) echo "result:   FAILED (exit $status; log: $log)" ;;
esac
exit "$status"
