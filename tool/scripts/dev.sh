#!/usr/bin/env bash
# What a developer (and CI) does with a fresh clone, on Debian 12 as root:
#   tool/scripts/dev.sh example   install what is missing, build opgen alone, then build the bundled
#                                 operator library (test_projects/vision) with it and run it from C++
#                                 and Python: a few minutes on 2 cores
#   tool/scripts/dev.sh test      install what is missing, build, run the whole test suite (ctest)
#   tool/scripts/dev.sh clang     install clang if missing, build opgen (not its tests) with it, run it
# Installing is a no-op when every package is already there. BUILD_DIR (default: build, build-clang
# for clang) is reused.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
repo=$PWD

packages=(
  g++ cmake ninja-build make pkg-config    # toolchain (make: the plugin is tested with Unix Makefiles too)
  xz-utils mawk mount procps               # what a minimal Debian lacks: the reference is a .tar.xz, the
                                           # scripts use awk, the roots and fault tests mount, ps/pkill
  libyaml-dev nlohmann-json3-dev libmd-dev libgtest-dev libyaml-cpp-dev   # opgen's libraries (yaml-cpp: tests)
  libmimalloc-dev                          # optional: a faster malloc for opgen
  python3 python3-yaml python3-typing-extensions               # the reference generator (tests)
  libtorch-dev python3-torch               # the runtime generated operator libraries build against
  mmdebstrap curl ca-certificates          # the tests' PyTorch 2 runtimes, Debian trixie and sid roots (torch-root.sh)
  python3-venv python3-pip                 # ... and pip's PyTorch 2.15.0 and 2.10 in virtual environments (pip-runtime.sh)
  ccache                                   # the plugin tests compile their projects through it
  clang                                    # build.clang_headers: the generator compiles with clang too
  libclang-rt-dev                          # clang's sanitizer and libFuzzer runtimes: fuzz.short (tool/fuzz)
  distcc                                   # plugin_*_vision_project: the generated unit on a loopback distccd
  strace                                   # faults.kill-steps: kill -9 at each step of opgen library's rewrite
  python3-sphinx python3-myst-parser       # docs.build: the documentation (docs/), warnings as errors
)

install_missing() {
  local missing=()
  for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if ((${#missing[@]})); then
    # apt's whole output goes to a log; the terminal gets one line per package set up, so that a
    # long first install shows its progress, and apt's errors when it fails.
    local log=${TMPDIR:-/tmp}/opgen-dev-apt.log start=$SECONDS
    echo "dev.sh: installing ${#missing[@]} packages and what they need: ${missing[*]} (log: $log)" >&2
    export DEBIAN_FRONTEND=noninteractive
    if ! { apt-get update -q && apt-get install -y -q --no-install-recommends "${missing[@]}"; } >"$log" 2>&1 </dev/null; then
      grep -E '^(E|W|Err):' "$log" >&2 || tail -n 20 "$log" >&2
      echo "dev.sh: installing the packages failed (log: $log)" >&2
      exit 1
    fi
    echo "dev.sh: installed $(grep -c '^Setting up ' "$log") packages in $((SECONDS - start)) s" >&2
  fi
  # distccd runs only the compilers masqueraded in /usr/lib/distcc, whose links distcc's installation
  # makes for the compilers there at the time: installed in the same transaction as g++, c++ may lack
  # one (the distcc test's daemon then refuses it).
  if command -v update-distcc-symlinks >/dev/null && [[ -d /usr/lib/distcc && ! -e /usr/lib/distcc/c++ ]]; then
    update-distcc-symlinks >/dev/null 2>&1 || echo "dev.sh: update-distcc-symlinks failed" >&2
  fi
}

build_dir=${BUILD_DIR:-build}
build() {
  # opgen itself compiles through ccache too (installed by then), so that a new clone or folder
  # reuses the objects of an earlier build.
  local launcher=()
  command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release "${launcher[@]}" >/dev/null
  cmake --build "$build_dir" -j "$(nproc)"
}

case ${1:-} in
  example)
    install_missing
    start=$SECONDS
    cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
    echo "== building opgen" >&2
    cmake --build "$build_dir" -j "$(nproc)" --target opgen
    prefix=$PWD/$build_dir/example/prefix
    cmake --install "$build_dir" --prefix "$prefix" >/dev/null
    # The operator library of test_projects/vision: thirteen operators in ops.yaml (and three that
    # autogen: adds), their kernels in kernels.cpp and box_kernels.cpp, a C++ test, two Python tests
    # and golden files, built with the installed package.
    project=$PWD/$build_dir/example/vision
    echo "== building the operator library of test_projects/vision with $prefix/bin/opgen" >&2
    cmake -S test_projects/vision -B "$project" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
    cmake --build "$project" -j "$(nproc)"
    echo "== running its tests (C++, Python, golden files)" >&2
    ctest --test-dir "$project" --output-on-failure
    cat <<DONE

Built in $((SECONDS - start)) s, in $PWD/$build_dir/example:
  prefix/bin/opgen                the generator, installed with its CMake package (find_package(OpGen))
  vision/libvision.so             the operator library: torch.ops.vision.* in Python, vision::* in C++
  vision/vision_generated/        what opgen generated from test_projects/vision/ops.yaml
  vision/vision_generated/python/ the typed Python package (import vision)
Try it:
  PYTHONPATH=$project/vision_generated/python /usr/bin/python3 -c 'import torch, vision; print(vision.clip_boxes(torch.tensor([[-1., 2, 30, 40]]), [20, 20]))'
Next: make your own library from a copy of test_projects/myops or test_projects/vision, with
docs/libraries.md ("Operator libraries") beside you.
DONE
    ;;
  test)
    install_missing
    # pip's PyTorch runtimes (4-5 GB each with NVIDIA's packages, a few minutes each, once): made here,
    # with pip's progress on the terminal, rather than inside ctest, which shows nothing until a
    # test ends. A runtime that cannot be made (no index reachable) is reported by its tests as
    # skipped, with the reason.
    for spec in 2.15.0 "2.10.*"; do
      tool/scripts/pip-runtime.sh "$spec" ensure >/dev/null || true
    done
    build
    cd "$build_dir"
    mkdir -p Testing
    status=0
    ctest --output-on-failure -j "$(nproc)" | tee Testing/dev-sh-ctest.log || status=$?
    # Per suite, what passed, failed and was skipped, each skip with its reason; a skip for a reason
    # the README does not list fails the run (OPGEN_ALLOW_SKIPS=1 accepts it).
    python3 "$repo/tool/scripts/ctest_summary.py" Testing/dev-sh-ctest.log Testing/Temporary/LastTest.log || status=1
    exit "$status"
    ;;
  clang)
    # The generator must build with clang too (ctest's build.clang_headers checks its headers only).
    packages=(clang cmake ninja-build pkg-config libyaml-dev nlohmann-json3-dev libmd-dev libmimalloc-dev)
    install_missing
    dir=${BUILD_DIR:-build-clang}
    cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER=clang++ -DOPGEN_BUILD_TESTS=OFF >/dev/null
    cmake --build "$dir" -j "$(nproc)" --target opgen
    "$dir/tool/opgen" parse test_projects/autograd/ops.yaml -o "$dir/autograd-model.json"  # (vision's has `fake:`, not torchgen's)
    ;;
  *)
    sed -n '2,9p' "$0" >&2
    exit 2
    ;;
esac
