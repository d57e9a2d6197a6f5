#!/usr/bin/env bash
# Benchmark: the CPU seconds to compile an operator library's generated code, test_projects/vision
# (13 operators and 3 autogen: variants, backends CPU and Meta, the typed Python package), built with the installed opgen
# against the host's PyTorch, with its generated sources compiled
#   unity     as one translation unit (the default, OPGEN_UNITY=ON)
#   separate  one translation unit per generated source (OPGEN_UNITY=OFF, as before)
#   handwritten  instead of the generated code, tool/bench/vision_handwritten.cpp: the same schemas,
#             registrations and C++ API written by hand in one file (compiled with the flags of the
#             project's kernels.cpp)
# and for each: the full build of the library target, then the rebuild after adding one operator
# (for handwritten: the file again, with the operator added to it). The project's own kernel sources
# (kernels.cpp, box_kernels.cpp) include only the per-operator headers of their operators
# (PER_OPERATOR_HEADERS): adding an operator whose kernel goes to kernels.cpp leaves box_kernels.cpp
# alone.
# Not a test: run it by hand after building opgen, preferably on an idle machine.
#
#   tool/bench/library_build.sh [BUILD_DIR]      BUILD_DIR defaults to build
#
# Every compiler run goes through /usr/bin/time (as the compiler launcher), so the figures are the
# compiler's own user + system CPU seconds, whatever else the machine is doing; the table gives them
# summed over the generated sources, over kernels.cpp, and in all.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
build=${1:-build}
[[ -x $build/tool/opgen ]] || { echo "library_build: $build/tool/opgen is not built" >&2; exit 2; }
[[ -x /usr/bin/time ]] || { echo "library_build: needs /usr/bin/time (apt-get install time)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" >/dev/null

# The launcher: one line per compilation, "CPU-SECONDS SOURCE".
cat >"$work/timed" <<'EOF'
#!/bin/sh
src=
for a in "$@"; do case $a in *.cpp|*.cxx) src=$a ;; esac; done
exec /usr/bin/time -a -o "$OPGEN_BENCH_LOG" -f "%U %S $src" "$@"
EOF
chmod +x "$work/timed"

sum() {  # LOG PATTERN: CPU seconds of the compilations whose source matches PATTERN
  awk -v p="$2" '$3 ~ p { s += $1 + $2 } END { printf "%.1f", s }' "$1"
}
count() { awk -v p="$2" '$3 ~ p { n++ } END { print n + 0 }' "$1"; }

printf '%-11s %-12s %4s %10s %8s %6s\n' mode build TUs generated kernels all
for mode in unity separate; do
  src=$work/$mode/src bld=$work/$mode/build
  mkdir -p "$work/$mode"
  cp -r test_projects/vision "$src"
  unity=ON
  [[ $mode == separate ]] && unity=OFF
  cmake -S "$src" -B "$bld" -G Ninja -DCMAKE_PREFIX_PATH="$work/prefix" -DOPGEN_UNITY=$unity \
        -DCMAKE_CXX_COMPILER_LAUNCHER="$work/timed" -DCMAKE_EXPORT_COMPILE_COMMANDS=ON >/dev/null
  for step in full add_operator; do
    if [[ $step == add_operator ]]; then
      printf '\n- func: vision::box_center(Tensor boxes) -> Tensor\n  dispatch:\n    CompositeExplicitAutograd: box_center\n' >>"$src/ops.yaml"
      printf '\n#include <vision/ops/box_center_native.h>\nnamespace vision::native {\nat::Tensor box_center(const at::Tensor& b) { return (b.narrow(1, 0, 2) + b.narrow(1, 2, 2)) / 2; }\n}\n' >>"$src/kernels.cpp"
    fi
    log=$work/$mode.$step.log
    : >"$log"
    OPGEN_BENCH_LOG=$log cmake --build "$bld" --target vision -j "$(nproc)" >/dev/null
    printf '%-11s %-12s %4s %10s %8s %6s\n' "$mode" "$step" "$(count "$log" .)" \
      "$(sum "$log" "_generated/|/Unity/")" "$(sum "$log" kernels)" "$(sum "$log" .)"
  done
done

# The hand-written equivalent, compiled as the project compiles kernels.cpp (its compile command
# from compile_commands.json, with the source and object swapped).
hand=$work/handwritten
mkdir -p "$hand"
cp tool/bench/vision_handwritten.cpp "$hand/vision.cpp"
compile=$(/usr/bin/python3 - "$work/unity/build/compile_commands.json" "$hand" <<'EOF'
import json, shlex, sys
commands, hand = sys.argv[1], sys.argv[2]
entry = next(e for e in json.load(open(commands)) if e["file"].endswith("/kernels.cpp"))
args = shlex.split(entry["command"])  # (CMake leaves the launcher out)
args[args.index("-o") + 1] = hand + "/vision.o"
args[args.index("-c") + 1] = hand + "/vision.cpp"
print(shlex.join(args))
EOF
)
for step in full add_operator; do
  if [[ $step == add_operator ]]; then
    cat >>"$hand/vision.cpp" <<'EOF'
namespace vision::native { at::Tensor box_center(const at::Tensor& boxes); }
namespace vision {
at::Tensor box_center(const at::Tensor& boxes) {
  static const auto op = handle<at::Tensor(const at::Tensor&)>("vision::box_center");
  return op.call(boxes);
}
}  // namespace vision
TORCH_LIBRARY_FRAGMENT(vision, m) { m.def("box_center(Tensor boxes) -> Tensor"); }
TORCH_LIBRARY_IMPL(vision, CompositeExplicitAutograd, m) { m.impl("box_center", TORCH_FN(vision::native::box_center)); }
EOF
  fi
  log=$work/handwritten.$step.log
  : >"$log"
  (cd "$work/unity/build" && eval "OPGEN_BENCH_LOG=$log \"$work/timed\" $compile")
  printf '%-11s %-12s %4s %10s %8s %6s\n' handwritten "$step" "$(count "$log" .)" "$(sum "$log" .)" - "$(sum "$log" .)"
done
