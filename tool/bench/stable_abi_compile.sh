#!/usr/bin/env bash
# Benchmark: what the stable ABI saves at compile time. The operators of test_projects/stable_abi are
# generated twice with the built opgen, for the unstable C++ API and for the stable ABI (--stable-abi
# 2.10), and three translation units of each are compiled on their own, as a build compiles them:
#   RegisterCPU.cpp     the CPU registration (the unstable one: wrappers, TORCH_LIBRARY_IMPL)
#   RegisterSchema.cpp  the schemas (TORCH_LIBRARY / STABLE_TORCH_LIBRARY)
#   user.cpp            a source that includes the library's C++ API (NS/Functions.h), as a user's does
# Each compilation's user + system CPU seconds (bash's `time`: the compiler's own, whatever else the
# machine does) are taken as the least of RUNS runs. Needs PyTorch 2.10 or later's headers in
# /usr/include (run it in the sid root: tool/scripts/torch-root.sh sid run tool/bench/stable_abi_compile.sh).
# Not a test: run it by hand, preferably on an idle machine.
#
#   tool/bench/stable_abi_compile.sh [BUILD_DIR [RUNS]]     BUILD_DIR defaults to build, RUNS to 3
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
build=${1:-build}
runs=${2:-3}
opgen=$build/tool/opgen
[[ -x $opgen ]] || { echo "stable_abi_compile: $opgen is not built" >&2; exit 2; }
grep -qs "AOTITorchError torch_library_impl(" /usr/include/torch/csrc/stable/c/shim.h ||
  { echo "stable_abi_compile: no stable ABI in /usr/include/torch (PyTorch 2.10 on; run it in the sid root)" >&2; exit 2; }
version=$(sed -n 's/^#define TORCH_VERSION_\(MAJOR\|MINOR\) \([0-9]*\)$/\2/p' /usr/include/torch/headeronly/version.h | paste -sd.)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
yaml=test_projects/stable_abi/ops.yaml
common=(--backend CPU --templates templates/library --torch-version "$version")
"$opgen" library "$yaml" -o "$work/unstable" "${common[@]}"
"$opgen" library "$yaml" -o "$work/stable" "${common[@]}" --stable-abi 2.10
flags=(-std=c++17 -O2 -fPIC -I /usr/include/torch/csrc/api/include)
echo '#include <stableops/Functions.h>' >"$work/user.cpp"

# cpu_seconds VARIANT SOURCE: the least user + system CPU seconds of RUNS compilations.
cpu_seconds() {
  local variant=$1 source=$2 best="" t
  local extra=()
  [[ $variant == stable ]] && extra=(-DTORCH_TARGET_VERSION=0x020a000000000000)
  for ((i = 0; i < runs; i++)); do
    t=$( { TIMEFORMAT='%U %S'; time g++ "${flags[@]}" "${extra[@]}" -I "$work/$variant/include" -c "$source" -o /dev/null; } 2>&1 |
         tail -n1 | awk '{printf "%.2f", $1 + $2}')
    if [[ -z $best ]] || awk -v a="$t" -v b="$best" 'BEGIN{exit !(a < b)}'; then best=$t; fi
  done
  echo "$best"
}

echo "PyTorch $version headers, $(g++ --version | head -n1), -O2, least of $runs runs, CPU seconds (user + system)"
printf '%-20s %10s %10s %8s\n' "translation unit" unstable stable ratio
for unit in RegisterCPU.cpp RegisterSchema.cpp user.cpp; do
  if [[ $unit == user.cpp ]]; then u=$(cpu_seconds unstable "$work/user.cpp"); s=$(cpu_seconds stable "$work/user.cpp")
  else u=$(cpu_seconds unstable "$work/unstable/src/$unit"); s=$(cpu_seconds stable "$work/stable/src/$unit"); fi
  printf '%-20s %10s %10s %7.1fx\n' "$unit" "$u" "$s" "$(awk -v a="$u" -v b="$s" 'BEGIN{print a / b}')"
done
