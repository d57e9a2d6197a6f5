#!/usr/bin/env bash
# Builds the libFuzzer targets of tool/fuzz with clang (ASan + UBSan) and runs them.
#
#   tool/fuzz/run.sh [-B BUILD_DIR] [--fresh] TARGET|all SECONDS
#   tool/fuzz/run.sh [-B BUILD_DIR] --build-only
#
# TARGET is yaml, native_functions, schema, backend_yaml, derivatives or object_symbols. Each runs SECONDS seconds on
# its seeds (tool/fuzz/corpus/TARGET) and on the inputs earlier runs found (BUILD_DIR/corpus/TARGET;
# --fresh starts from the seeds alone, in a new folder). BUILD_DIR (default: build-fuzz) is configured
# once and reused; ccache is used when installed. A crash, leak, sanitizer report or timeout fails
# the run (exit status 1) and saves the input as BUILD_DIR/artifacts/TARGET-crash-*: reproduce with
# `BUILD_DIR/tool/fuzz/TARGET_fuzzer FILE`, then add it, fixed, to tool/fuzz/corpus/TARGET/. Without
# clang or its fuzzer runtime, the script says so and exits with status 77 (ctest: skipped).
# --build-only builds every target and runs none (the main build does this, so that the fuzzers are
# built once, through ccache, before the tests run; then it exits 0 without clang, saying so).
set -uo pipefail
source_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build_dir=$source_dir/build-fuzz
fresh=0
build_only=0
while (($#)); do
  case $1 in
    -B) build_dir=$2; shift 2 ;;
    --fresh) fresh=1; shift ;;
    --build-only) build_only=1; shift ;;
    -h|--help) sed -n '2,17p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) break ;;
  esac
done
all_targets=(yaml native_functions schema backend_yaml derivatives object_symbols)
((build_only)) && set -- all 0
if (($# != 2)) || ! [[ $2 =~ ^[0-9]+$ ]]; then
  echo "usage: $0 [-B BUILD_DIR] [--fresh] TARGET|all SECONDS (targets: ${all_targets[*]})" >&2
  exit 2
fi
if [[ $1 == all ]]; then targets=("${all_targets[@]}"); else targets=("$1"); fi
for t in "${targets[@]}"; do
  [[ " ${all_targets[*]} " == *" $t "* ]] || { echo "run.sh: unknown target '$t' (${all_targets[*]})" >&2; exit 2; }
done
seconds=$2

cxx=${OPGEN_FUZZ_CXX:-clang++}
unavailable() {  # the fuzzers cannot be built here: a skip for ctest, a note for the build
  echo "skipped: $*"
  ((build_only)) && exit 0
  exit 77
}
if ! command -v "$cxx" >/dev/null; then
  unavailable "$cxx is not installed (apt-get install -y clang)"
fi
probe=$(mktemp -d)
trap 'rm -rf "$probe"' EXIT
printf '%s\n' '#include <cstddef>' '#include <cstdint>' \
  'extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t*, std::size_t) { return 0; }' >"$probe/probe.cpp"
if ! "$cxx" -fsanitize=fuzzer,address,undefined "$probe/probe.cpp" -o "$probe/probe" 2>"$probe/log"; then
  unavailable "$cxx cannot link -fsanitize=fuzzer,address,undefined (Debian: apt-get install -y libclang-rt-14-dev): $(head -1 "$probe/log")"
fi

generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
configured=0
[[ -f $build_dir/CMakeCache.txt ]] && { generator=(); configured=1; }
# Configured once; later builds re-run CMake by themselves when a CMakeLists changes.
if ((configured == 0)) && ! nice cmake -S "$source_dir" -B "$build_dir" "${generator[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
       -DCMAKE_CXX_COMPILER="$cxx" "${launcher[@]}" -DOPGEN_FUZZ=ON -DOPGEN_BUILD_TESTS=OFF \
       -DOPGEN_USE_MIMALLOC=OFF >"$build_dir.configure.log" 2>&1; then
  cat "$build_dir.configure.log"
  echo "run.sh: configuring $build_dir failed" >&2
  exit 1
fi
rm -f "$build_dir.configure.log"
build_targets=()
for t in "${targets[@]}"; do build_targets+=("${t}_fuzzer"); done
start=$SECONDS
nice cmake --build "$build_dir" --target "${build_targets[@]}" -j "$(nproc)" >"$build_dir/fuzz-build.log" 2>&1 || {
  cat "$build_dir/fuzz-build.log"
  echo "run.sh: building the fuzz targets failed" >&2
  exit 1
}
echo "built ${build_targets[*]} in $((SECONDS - start)) s ($build_dir)"
((build_only)) && exit 0

mkdir -p "$build_dir/artifacts" "$build_dir/logs"
failed=()
for t in "${targets[@]}"; do
  work=$build_dir/corpus/$t
  if ((fresh)); then rm -rf "$work"; fi
  mkdir -p "$work"
  log=$build_dir/logs/$t.log
  # libFuzzer's own failure status (77 by default) would read as "skipped" to ctest.
  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ASAN_OPTIONS=detect_leaks=1 \
    nice "$build_dir/tool/fuzz/${t}_fuzzer" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
      -error_exitcode=1 -timeout_exitcode=1 -print_final_stats=1 -artifact_prefix="$build_dir/artifacts/$t-" \
      "$work" "$source_dir/tool/fuzz/corpus/$t" >"$log" 2>&1
  status=$?
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  if ((status != 0)) || grep -q -e 'runtime error:' -e 'ERROR: AddressSanitizer' -e 'ERROR: LeakSanitizer' "$log"; then
    tail -n 60 "$log"
    echo "FAILED $t (status $status, after ${runs:-?} runs; log: $log; inputs: $build_dir/artifacts/$t-*)"
    failed+=("$t")
  else
    echo "ok $t: ${runs:-?} runs in $seconds s, $(sed -n 's/^stat::new_units_added: *//p' "$log") new inputs ($(ls "$work" | wc -l) in $work)"
  fi
done
if ((${#failed[@]})); then
  echo "run.sh: ${failed[*]} failed"
  exit 1
fi
