#!/usr/bin/env bash
# What a developer (and CI) does with a fresh clone, on Debian 12 as root:
#   tool/scripts/dev.sh example   install what is missing, build, run opgen on the bundled example
#   tool/scripts/dev.sh test      install what is missing, build, run the whole test suite (ctest)
#   tool/scripts/dev.sh clang     install clang if missing, build opgen (not its tests) with it, run it
# Installing is a no-op when every package is already there. BUILD_DIR (default: build, build-clang
# for clang) is reused.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

packages=(
  g++ cmake ninja-build make pkg-config    # toolchain (make: the plugin is tested with Unix Makefiles too)
  libyaml-dev nlohmann-json3-dev libmd-dev libgtest-dev libyaml-cpp-dev   # opgen's libraries (yaml-cpp: tests)
  libmimalloc-dev                          # optional: a faster malloc for opgen
  python3 python3-yaml python3-typing-extensions               # the reference generator (tests)
  libtorch-dev python3-torch               # the runtime generated operator libraries build against
  mmdebstrap curl                          # the tests' PyTorch 2 runtime, a Debian sid root (sid-root.sh)
  ccache                                   # the plugin tests compile their projects through it
)

install_missing() {
  local missing=()
  for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if ((${#missing[@]})); then
    echo "dev.sh: installing ${missing[*]}" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  fi
}

# For each test that ctest's summary (file $1) lists as skipped, the first line of its output
# (ctest's log, file $2) that gives the reason: a line with "skipped:" (the shell tests) or the line
# after GoogleTest's "FILE:LINE: Skipped".
skipped_reasons() {
  local names
  names=$(sed -n 's/^\s*[0-9]* - \(.*\) (Skipped)$/\1/p' "$1")
  [[ -n $names ]] || return 0
  echo "Why the skipped tests were skipped:"
  awk -v names="$names" '
    BEGIN { n = split(names, list, "\n"); for (i = 1; i <= n; i++) want[list[i]] = 1 }
    /^[0-9]+\/[0-9]+ Test: / { name = substr($0, index($0, "Test: ") + 6); said = 0; after = 0; next }
    !(name in want) || said { next }
    after { print "  " name ": " $0; said = 1; next }
    /: Skipped$/ { after = 1; next }
    /skipped:/ { sub(/^.*skipped: */, ""); print "  " name ": " $0; said = 1 }
  ' "$2"
}

build_dir=${BUILD_DIR:-build}
build() {
  cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$build_dir" -j "$(nproc)"
}

case ${1:-} in
  example)
    install_missing
    build
    out=$build_dir/example
    mkdir -p "$out"
    "$build_dir/tool/opgen" parse test_projects/vision/ops.yaml -o "$out/vision-model.json"
    ;;
  test)
    install_missing
    build
    cd "$build_dir"
    mkdir -p Testing
    status=0
    ctest --output-on-failure -j "$(nproc)" | tee Testing/dev-sh-ctest.log || status=$?
    # ctest names the skipped tests but not why: print each one's reason from its output.
    skipped_reasons Testing/dev-sh-ctest.log Testing/Temporary/LastTest.log
    exit "$status"
    ;;
  clang)
    # The generator must build with clang too (ctest's build.clang_headers checks its headers only).
    packages=(clang cmake ninja-build pkg-config libyaml-dev nlohmann-json3-dev libmd-dev libmimalloc-dev)
    install_missing
    dir=${BUILD_DIR:-build-clang}
    cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER=clang++ -DOPGEN_BUILD_TESTS=OFF >/dev/null
    cmake --build "$dir" -j "$(nproc)" --target opgen
    "$dir/tool/opgen" parse test_projects/vision/ops.yaml -o "$dir/vision-model.json"
    ;;
  *)
    sed -n '2,8p' "$0" >&2
    exit 2
    ;;
esac
