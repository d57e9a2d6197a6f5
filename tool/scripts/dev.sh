#!/usr/bin/env bash
# The two things a developer (and CI) does with a fresh clone, on Debian 12 as root:
#   tool/scripts/dev.sh example   install what is missing, build, run opgen on the bundled example
#   tool/scripts/dev.sh test      install what is missing, build, run the whole test suite (ctest)
# Installing is a no-op when every package is already there. BUILD_DIR (default: build) is reused.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

packages=(
  g++ cmake ninja-build make pkg-config    # toolchain (make: the plugin is tested with Unix Makefiles too)
  libyaml-dev nlohmann-json3-dev libmd-dev libgtest-dev libyaml-cpp-dev   # opgen's libraries (yaml-cpp: tests)
  libmimalloc-dev                          # optional: a faster malloc for opgen
  python3 python3-yaml python3-typing-extensions               # the reference generator (tests)
  libtorch-dev python3-torch               # the runtime generated operator libraries build against
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
    ctest --output-on-failure -j "$(nproc)"
    ;;
  *)
    sed -n '2,6p' "$0" >&2
    exit 2
    ;;
esac
