#!/usr/bin/env bash
# The downstream-project tests that ctest runs (test_projects/CMakeLists.txt). Each builds a project
# (test_projects/vision unless said otherwise) in its own folder under WORK, from a copy.
#
#   run_test.sh project    GENERATOR PREFIX WORK [NAME] installed package: build test_projects/NAME
#                                                       (default vision), then the project's ctest;
#                                                       through ccache, again in a second folder:
#                                                       every object a cache hit
#   run_test.sh example    GENERATOR PREFIX WORK NAME   installed package: build test_projects/NAME and run
#                                                       its ctest (myops: the docs' example); with its
#                                                       broken_kernels.cpp, the build fails with the lines
#                                                       of its expected_kernel_errors.txt
#   run_test.sh subdir     GENERATOR SOURCE WORK OPGEN  add_subdirectory of opgen's source tree
#   run_test.sh install    GENERATOR PREFIX WORK        install_operator_library: the installed library
#                                                       serves test_projects/consumer and Python
#   run_test.sh incremental GENERATOR PREFIX WORK       what each kind of edit rebuilds (see below)
#   run_test.sh errors     GENERATOR PREFIX WORK        bad CMake calls, a bad YAML, missing kernels:
#                                                       clear failures
#   run_test.sh derivatives GENERATOR PREFIX WORK       test_projects/autograd: a bad derivatives.yaml
#                                                       fails the build; an edited formula rebuilds
#   run_test.sh backend    GENERATOR PREFIX WORK        opgen backend's files (tool/test/data/backend_conformance/
#                                                       keys.yaml, backend/structured.yaml) for the runtime's
#                                                       native_functions.yaml and libtorch compile against it
#   run_test.sh privateuse1 GENERATOR PREFIX WORK       test_projects/privateuse1 (add_dispatch_backend): build,
#                                                       its tests, what edits rebuild, backend YAML errors
#   run_test.sh aoti       GENERATOR PREFIX WORK        test_projects/aoti (AOTI_SHIMS): a model calling the library's
#                                                       operators compiled by AOTInductor with and without the
#                                                       generated C shims, run from Python and from C++ without
#                                                       Python; where PyTorch's AOTInductor takes custom operator
#                                                       shims (else exit 77, skipped, with the reason)
#   run_test.sh stable_abi GENERATOR PREFIX WORK        test_projects/stable_abi (STABLE_ABI 2.10): build, its
#                                                       C++, Python and opcheck tests, its undefined dynamic
#                                                       symbols (the stable ABI's C functions only), its errors
#                                                       (exit 77, skipped, where libtorch has no stable ABI)
#   run_test.sh stable_binary GENERATOR PREFIX WORK     one binary for every PyTorch from 2.10 on:
#                                                       test_projects/stable_abi built once against pip's
#                                                       2.10, then the same libstableops.so (its sha256)
#                                                       checked on pip's 2.10, sid's 2.14.1 and pip's 2.15.0:
#                                                       its C++ test (compiled against each libtorch), its
#                                                       Python test and opcheck (exit 77 without a runtime)
#   run_test.sh cuda       GENERATOR PREFIX WORK cpu|build|gpu  test_projects/cuda: cpu builds and tests its
#                                                       CPU half (CUDAOPS_CUDA=OFF); build compiles and links
#                                                       the whole library, CUDA kernels included, with nvcc
#                                                       against a PyTorch with CUDA, loads it into Python and
#                                                       runs its CPU half (no GPU needed; else exit 77); gpu
#                                                       the whole library and all its tests, where nvcc, an
#                                                       NVIDIA GPU and PyTorch with CUDA are (else exit 77,
#                                                       skipped, with the reason)
#   run_test.sh wheel      GENERATOR PREFIX WORK ops|backend  a wheel with pip and scikit-build-core (offline,
#                                                       no build isolation): ops test_projects/wheel (an operator
#                                                       library, install_operator_library), backend
#                                                       test_projects/wheel_backend (a device backend, loaded by
#                                                       `import torch`); its contents and metadata, installed
#                                                       into a fresh venv, used, uninstalled (exit 77 without
#                                                       scikit-build-core, pip or venv: Debian 12)
#
# The runtime is the environment the script runs in: Debian's python3 and PyTorch (the host's, or a
# root's entered by tool/scripts/torch-root.sh), or a virtual environment's (VIRTUAL_ENV: pip's
# PyTorch, entered by tool/scripts/pip-runtime.sh, which puts its PyTorch on CMAKE_PREFIX_PATH).
set -euo pipefail
mode=$1 generator=$2 where=$3 work=$4
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
jobs=${OPGEN_TEST_JOBS:-2}
fail() { echo "FAIL: $*" >&2; exit 1; }
python=/usr/bin/python3
[[ -n ${VIRTUAL_ENV:-} ]] && python=$VIRTUAL_ENV/bin/python3
# The runtime's PyTorch: its headers (torch/include; Debian's links to /usr/include), its torchgen's
# ATen folder (native_functions.yaml, tags.yaml) and its version.
torch_paths() {
  local out
  out=$("$python" -c 'import os, torch, torchgen
print(os.path.join(os.path.dirname(torch.__file__), "include"))
print(os.path.join(os.path.dirname(torchgen.__file__), "packaged", "ATen"))
print(torch.__version__)') || fail "$python cannot import torch and torchgen"
  { read -r torch_include; read -r torch_aten; read -r torch_version; } <<<"$out"
}

project=vision
case $mode in
  project) project=${5:-vision} ;;
  example) project=$5 ;;
  derivatives) project=autograd ;;
  privateuse1) project=privateuse1 ;;
  cuda) project=cuda ;;
  wheel) project=wheel; [[ ${5:-} == backend ]] && project=wheel_backend ;;
  aoti) project=aoti ;;
  stable_abi|stable_binary) project=stable_abi ;;
esac
if [[ $mode == aoti ]]; then
  "$python" -c 'import sys, torch._inductor.config as c; sys.exit(0 if hasattr(c.aot_inductor, "custom_ops_to_c_shims") else 1)' 2>/dev/null ||
    { echo "skipped: PyTorch $("$python" -c 'import torch; print(torch.__version__)' 2>/dev/null) has no AOTInductor custom operator C shims (torch._inductor.config.aot_inductor.custom_ops_to_c_shims, 2.8 on)"; exit 77; }
fi
if [[ $mode == stable_abi ]]; then
  torch_paths
  shim=$torch_include/torch/csrc/stable/c/shim.h
  grep -qs "AOTITorchError torch_library_impl(" "$shim" ||
    { echo "skipped: PyTorch $torch_version has no stable ABI for operator libraries (no torch_library_impl in $shim; 2.10 on)"; exit 77; }
fi
if [[ $mode == cuda && ${5:-} != cpu ]]; then
  # What the CUDA half needs, each missing one a reason to skip (before anything is built).
  skip() { echo "skipped: $*"; exit 77; }
  [[ $5 == gpu ]] && python=$(command -v python3)  # (run_on_gpu.sh: the GPU machine's python3, pip's PyTorch)
  command -v "${CUDACXX:-nvcc}" >/dev/null || skip "no CUDA toolkit (${CUDACXX:-nvcc} is not on PATH; CUDACXX names another)"
  if [[ $5 == gpu ]]; then
    command -v nvidia-smi >/dev/null && nvidia-smi -L 2>/dev/null | grep -q '^GPU ' || skip "no NVIDIA GPU (nvidia-smi lists none)"
  fi
  torch_cuda=$("$python" -c 'import torch; print(torch.version.cuda or "")' 2>/dev/null) ||
    skip "$python cannot import torch (the CUDA half needs a PyTorch with CUDA)"
  [[ -n $torch_cuda ]] || skip "$python's PyTorch is not built with CUDA (torch.version.cuda is None)"
  nvcc_cuda=$("${CUDACXX:-nvcc}" --version | grep -oE 'release [0-9]+\.[0-9]+' | cut -d' ' -f2)
  # CUDA's minor releases are compatible; a major one is not (PyTorch's extensions refuse it too).
  [[ ${nvcc_cuda%%.*} == "${torch_cuda%%.*}" ]] ||
    fail "nvcc is CUDA $nvcc_cuda, PyTorch $("$python" -c 'import torch; print(torch.__version__)') is built with CUDA $torch_cuda: another major release"
  if [[ $5 == gpu ]]; then
    "$python" -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null ||
      skip "$python's PyTorch sees no GPU (torch.cuda.is_available() is not True)"
  fi
fi
if [[ $mode == wheel ]]; then
  skip() { echo "skipped: $*"; exit 77; }
  "$python" -c 'import scikit_build_core' 2>/dev/null ||
    skip "$python has no scikit-build-core, which builds the wheel (Debian: python3-scikit-build-core, from trixie on)"
  "$python" -m pip --version >/dev/null 2>&1 || skip "$python has no pip (Debian: python3-pip)"
  "$python" -c 'import ensurepip' 2>/dev/null || skip "$python cannot make a virtual environment (Debian: python3-venv)"
  if [[ ${5:-} == backend ]]; then
    "$python" -c 'import importlib.metadata as m, sys; sys.exit(tuple(map(int, m.version("torch").split(".")[:2])) < (2, 5))' ||
      skip "$python's PyTorch loads no device backend with import torch (the torch.backends entry points: PyTorch 2.5 on)"
  fi
fi
rm -rf "$work"
mkdir -p "$work"
cp -r "$here/$project" "$work/src"
build=$work/build

# With OPGEN_TEST_CCACHE (a cache folder) and ccache installed, the projects compile through ccache:
# the tests build the same generated sources many times (each test, and again from scratch), and
# the cache makes the repeats cheap. What each test checks (which objects a build compiles, what
# opgen rewrites) is the same with or without it.
launcher=()
if [[ -n ${OPGEN_TEST_CCACHE:-} ]] && command -v ccache >/dev/null; then
  export CCACHE_DIR=$OPGEN_TEST_CCACHE CCACHE_BASEDIR=$work CCACHE_NOHASHDIR=1
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache)
fi
# PYTHON3: the runtime's Python, which the projects' Python tests run with.
configure() { cmake -S "$work/src" -B "$build" -G "$generator" -DCMAKE_PREFIX_PATH="$where" -DPYTHON3="$python" "${launcher[@]}" "$@"; }
# The build's log; the list of objects compiled and whether opgen ran.
build_log() { cmake --build "$build" -j "$jobs" 2>&1 | tee "$work/last.log"; }
compiled() { grep -oE "Building CXX object [^ ]+" "$work/last.log" | sed 's/.*\///; s/\.o$//' | sort | tr '\n' ' '; }
generated() { grep -c "opgen: generating" "$work/last.log" || true; }
# After a build: a second build does nothing, and touching kernels.cpp recompiles that file alone.
quiet_rebuilds() {
  echo "== a second build does nothing"
  build_log >/dev/null
  [[ -z $(compiled) && $(generated) == 0 ]] || fail "second build did work: $(compiled) / opgen ran $(generated)x"
  echo "== touching a kernel source recompiles that file only"
  sleep 1; touch "$work/src/kernels.cpp"
  build_log >/dev/null
  [[ $(compiled) == "kernels.cpp " && $(generated) == 0 ]] || fail "touch kernels.cpp rebuilt: $(compiled) / opgen $(generated)x"
}

case $mode in
  project)
    configure >/dev/null
    build_log >/dev/null
    ctest --test-dir "$build" --output-on-failure
    if ((${#launcher[@]})); then
      # A compiler cache shares the objects across build folders: the same project in a second
      # folder (the same layout below CCACHE_BASEDIR, $work) compiles nothing, the generated
      # translation units included (no absolute path in them or in the unity source that includes them).
      echo "== the project in a second folder: every object from the compiler cache"
      mkdir -p "$work/second"
      cp -r "$work/src" "$work/second/src"
      cmake -S "$work/second/src" -B "$work/second/build" -G "$generator" -DCMAKE_PREFIX_PATH="$where" "${launcher[@]}" >/dev/null
      CCACHE_LOGFILE=$work/second/ccache.log cmake --build "$work/second/build" -j "$jobs" >"$work/second/build.log" 2>&1 ||
        { cat "$work/second/build.log"; fail "the second folder's build failed"; }
      misses=$(grep -c "Result: cache_miss" "$work/second/ccache.log" || true)
      hits=$(grep -cE "Result: (direct|preprocessed)_cache_hit" "$work/second/ccache.log" || true)
      unity=$(grep -c "Source file: .*unity_opgen_.*_cxx.cxx" "$work/second/ccache.log" || true)
      [[ $misses == 0 && $hits -gt 0 && $unity -gt 0 ]] ||
        fail "the second folder's build missed the compiler cache $misses times ($hits hits; the generated unit compiled $unity times; $work/second/ccache.log)"
      echo "ok: the second folder's $hits objects came from the compiler cache, the generated translation unit's included"
    fi
    if command -v distcc >/dev/null && command -v distccd >/dev/null && [[ $generator == Ninja ]]; then
      # The generated translation unit compiles remotely through distcc, on a distccd of the
      # loopback address (no local fallback); it is preprocessed locally (distcc's plain mode).
      echo "== the generated translation unit through distcc"
      logs=$(mktemp -d)
      chmod 777 "$logs"  # distccd writes as the user it runs as
      port=$((20000 + RANDOM % 20000))
      user=()
      ((EUID == 0)) && user=(--user nobody)
      # distccd runs only the compilers masqueraded in /usr/lib/distcc (Debian: update-distcc-symlinks).
      [[ -e /usr/lib/distcc/c++ || ! -d /usr/lib/distcc ]] ||
        fail "distccd would refuse c++: /usr/lib/distcc has no c++ (run update-distcc-symlinks; tool/scripts/dev.sh does)"
      distccd --daemon --listen 127.0.0.1 --allow 127.0.0.1 --port "$port" --jobs 2 --pid-file "$logs/pid" \
        --log-file "$logs/log" --log-level info "${user[@]}" || fail "distccd did not start"
      for _ in {1..50}; do [[ -s $logs/pid ]] && break; sleep 0.1; done
      distccd_pid=$(cat "$logs/pid" 2>/dev/null) || fail "distccd wrote no pid file"
      stop_distccd() { kill "$distccd_pid" 2>/dev/null || true; rm -rf "$logs"; trap - EXIT; }
      trap stop_distccd EXIT
      mkdir -p "$work/third"
      cp -r "$work/src" "$work/third/src"
      cmake -S "$work/third/src" -B "$work/third/build" -G Ninja -DCMAKE_PREFIX_PATH="$where" \
        -DCMAKE_CXX_COMPILER_LAUNCHER=distcc >/dev/null
      object=$(cd "$work/third/build" && ninja -t targets all | grep -oE "^[^:]*unity_opgen_[^:]*_cxx\.cxx\.o" | head -1)
      [[ -n $object ]] || fail "no generated translation unit among the build's targets"
      DISTCC_HOSTS="127.0.0.1:$port/2" DISTCC_FALLBACK=0 DISTCC_SKIP_LOCAL_RETRY=1 \
        cmake --build "$work/third/build" --target "$object" >"$work/third/build.log" 2>&1 ||
        { cat "$work/third/build.log" "$logs/log"; fail "the generated translation unit did not compile through distcc"; }
      grep -qE "COMPILE_OK .*unity_opgen_.*_cxx\.cxx" "$logs/log" ||
        { cat "$logs/log"; fail "distccd did not compile the generated translation unit"; }
      stop_distccd
      echo "ok: the generated translation unit compiled on the loopback distccd"
    fi
    ;;
  example)
    configure >/dev/null
    build_log >/dev/null
    ctest --test-dir "$build" --output-on-failure
    if [[ -f $work/src/broken_kernels.cpp ]]; then
      # The docs' example of the link-time check: with broken_kernels.cpp as kernels.cpp, the build
      # stops before the link with the lines of expected_kernel_errors.txt (each at the end of a line
      # of the build's output, which names ops.yaml by its full path).
      echo "== the kernels of broken_kernels.cpp: the build fails with expected_kernel_errors.txt"
      cp "$work/src/broken_kernels.cpp" "$work/src/kernels.cpp"
      if build_log >/dev/null; then fail "the build with broken_kernels.cpp succeeded"; fi
      while IFS= read -r line; do
        grep -qF -- "/$line" "$work/last.log" || { cat "$work/last.log"; fail "no line ending in: $line"; }
      done <"$work/src/expected_kernel_errors.txt"
      [[ $(grep -cE "(error|note): " "$work/last.log") == $(wc -l <"$work/src/expected_kernel_errors.txt") ]] ||
        { cat "$work/last.log"; fail "the build printed other errors than expected_kernel_errors.txt's"; }
      echo "ok: the build stopped with expected_kernel_errors.txt's lines"
    fi
    ;;
  cuda)
    if [[ $5 != cpu ]]; then
      # PyTorch's CMake package (pip's, with CUDA) beside opgen's.
      torch_prefix=$("$python" -c 'import torch.utils; print(torch.utils.cmake_prefix_path)')
      if [[ $5 == build && -z ${TORCH_CUDA_ARCH_LIST:-} ]]; then
        # Without a GPU or TORCH_CUDA_ARCH_LIST, PyTorch's CMake package takes a list of its own: where
        # nvcc lacks one of those architectures (CUDA 13: compute_50), configuring says so and how.
        if ! configure -DCUDAOPS_CUDA=ON -DCMAKE_PREFIX_PATH="$where;$torch_prefix" >"$work/configure.log" 2>&1; then
          tr -s ' \n' '  ' <"$work/configure.log" | grep -oE "GPU architectures that nvcc [^:]* does not support: [a-z0-9_ ]*" ||
            { cat "$work/configure.log"; fail "configuring without TORCH_CUDA_ARCH_LIST failed, not for the architectures"; }
          echo "ok: said at configure time, with TORCH_CUDA_ARCH_LIST as the way out"
        fi
        rm -rf "$build"
        # One architecture (the lent GPU machines': H100, H200), which keeps nvcc's part short.
        export TORCH_CUDA_ARCH_LIST=9.0
      fi
      configure -DCUDAOPS_CUDA=ON -DCMAKE_PREFIX_PATH="$where;$torch_prefix" >"$work/configure.log" 2>&1 ||
        { cat "$work/configure.log"; fail "the cuda project does not configure with CUDAOPS_CUDA=ON"; }
      grep -E "Found CUDAToolkit|The CUDA compiler identification" "$work/configure.log" || true
    else
      configure -DCUDAOPS_CUDA=OFF >/dev/null
    fi
    build_log >/dev/null
    if [[ $5 == build ]]; then
      # No GPU here: the library with its CUDA kernels is compiled and linked; Python loads it (the
      # CUDA kernels registered) and runs its CPU half.
      cu=$(grep -cE "Building CUDA object .*kernels\.cu\.o" "$work/last.log" || true)
      [[ $cu -ge 1 ]] || fail "kernels.cu was not compiled by nvcc: $(cat "$work/last.log")"
      "$python" - "$build/libcudaops.so" <<'PY' || fail "the CUDA library does not load or has no CUDA kernels"
import sys, torch
torch.ops.load_library(sys.argv[1])
missing = [op for op in ("axpby", "axpby.out", "axpby_", "clip_")
           if not torch._C._dispatch_has_kernel_for_dispatch_key(f"cudaops::{op}", "CUDA")]
assert not missing, f"no CUDA kernel registered for {missing}"
print(f"ok: libcudaops.so loads into PyTorch {torch.__version__} (CUDA {torch.version.cuda}) with its CUDA kernels registered")
PY
      "$python" "$work/src/test_cudaops.py" "$build/libcudaops.so" cpu || fail "the CPU half of the CUDA library failed"
      [[ -x $build/cudaops_test ]] || fail "the C++ test (with CUDA) was not linked"
      echo "ok: the C++ test with the CUDA kernels linked (it needs a GPU to run)"
    else
      # Verbose: the tests' own counts are the summary of run_on_gpu.sh.
      ctest --test-dir "$build" -V >"$work/ctest.log" 2>&1 || { cat "$work/ctest.log"; fail "the cuda project's tests failed (above)"; }
      grep -E "checks passed|tests passed" "$work/ctest.log"
    fi
    quiet_rebuilds
    if [[ $5 != cpu ]]; then
      echo "== touching kernels.cu recompiles that file only"
      sleep 1; touch "$work/src/kernels.cu"
      build_log >/dev/null
      [[ $(grep -oE "Building CUDA object [^ ]+" "$work/last.log" | sed 's/.*\///; s/\.o$//') == kernels.cu &&
         -z $(compiled) && $(generated) == 0 ]] || fail "touch kernels.cu rebuilt: $(cat "$work/last.log")"
    fi
    echo "cuda ($5): all good"
    ;;
  aoti)
    configure >/dev/null
    build_log >/dev/null
    # The operator without a shim is named in the build's output, at its YAML line.
    grep -E "ops.yaml:[0-9]+:[0-9]+: note: 'scale_' gets no AOTInductor C shim" "$work/last.log" ||
      fail "the build did not note the in-place operator left to the proxy executor: $(cat "$work/last.log")"
    # Every type a shim passes compiles against this libtorch: test_projects/vision's operators (int[2],
    # int?, str, SymInt[], ScalarType?/Layout?/Device?/bool?, Tensor[], Tensor?, tuples, structured and
    # composite kernels) with --aoti-shims, their AotiShims.cpp.
    "$where/bin/opgen" library "$here/vision/ops.yaml" -o "$work/vision_shims" --backend CPU --aoti-shims \
      --python-module --python-fakes "$here/vision/fake.py" \
      --templates "$where/share/opgen/templates/library" 2>"$work/vision_shims.log" ||
      { cat "$work/vision_shims.log"; fail "opgen library --aoti-shims failed on test_projects/vision"; }
    torch_paths
    g++ -std=c++20 -fsyntax-only -I "$work/vision_shims/include" -I "$torch_include" -I "$torch_include/torch/csrc/api/include" \
      "$work/vision_shims/src/AotiShims.cpp" || fail "test_projects/vision's shims do not compile"
    echo "ok: test_projects/vision's $(grep -c '^extern "C"' "$work/vision_shims/src/AotiShims.cpp") shims compile"
    ctest --test-dir "$build" -V >"$work/ctest.log" 2>&1 || { cat "$work/ctest.log"; fail "the aoti project's tests failed (above)"; }
    grep -E "(ok|skipped):" "$work/ctest.log" | sed 's/^[0-9]*: //'
    echo "aoti: all good"
    ;;
  install)
    # install_operator_library: the installed library, headers and CMake package serve another
    # project (test_projects/consumer), and the installed Python package loads the installed library,
    # with the build tree gone.
    configure >/dev/null
    build_log >/dev/null
    inst=$work/installed
    cmake --install "$build" --prefix "$inst" >/dev/null
    rm -rf "$build"
    # No installed text file (CMake package, Python package, headers) names the build tree.
    ! grep -rlI "$build" "$inst" || fail "installed files name the build tree (above)"
    cp -r "$here/consumer" "$work/consumer"
    cmake -S "$work/consumer" -B "$work/consumer-build" -G "$generator" -DCMAKE_PREFIX_PATH="$inst;$where" \
      "${launcher[@]}" >/dev/null
    cmake --build "$work/consumer-build" -j "$jobs" >/dev/null
    "$work/consumer-build/consumer" || fail "the consumer of the installed library failed"
    # Several opgen libraries in one program (installed and build tree, SHARED and STATIC, an
    # operator library and a device backend), none of whose symbols it uses: each one registers.
    "$work/consumer-build/registrations" || fail "linking several opgen libraries did not register each (above)"
    site=$(find "$inst" -path '*/dist-packages/vision/__init__.py' -printf '%h\n')
    [[ -n $site ]] || fail "the Python package was not installed"
    PYTHONPATH=$(dirname "$site") "$python" -c '
import torch, vision
out = vision.box_area(torch.tensor([[0., 0., 2., 3.]]))
assert out.tolist() == [6.0], out
print("python: vision.box_area from the installed package:", out.tolist())' || fail "the installed Python package failed"
    echo "install: all good"
    ;;
  subdir)
    configure -DOPGEN_SOURCE_DIR="$where" -DOPGEN_EXECUTABLE="$5" >/dev/null
    build_log >/dev/null
    ctest --test-dir "$build" --output-on-failure -E "golden|opcheck"  # (opcheck: run by the project test)
    ;;
  incremental)
    configure >/dev/null
    build_log >/dev/null
    gen=$build/vision_generated
    stamp() { stat -c %Y.%N "$gen/$1" 2>/dev/null || stat -c %y "$gen/$1"; }
    mtimes() { (cd "$gen" && find include src -type f -printf '%p %T@\n' | sort); }

    quiet_rebuilds

    echo "== editing the Python fake kernels (PYTHON_FAKES) rewrites the package's copy and compiles nothing"
    before=$(mtimes)
    sleep 1
    printf '\n# edited\n' >>"$work/src/fake.py"
    build_log >/dev/null
    [[ $(generated) == 1 && -z $(compiled) ]] || fail "editing fake.py: opgen ran $(generated)x, compiled: $(compiled)"
    [[ $(mtimes) == "$before" ]] || fail "editing fake.py rewrote C++ outputs"
    [[ $(tail -1 "$gen/python/vision/fake.py") == "# edited" ]] || fail "the package's fake.py is not the edited file"

    echo "== editing one operator rewrites only the outputs that change, and recompiles what includes them"
    before=$(mtimes)
    sleep 1
    # Rename clip_boxes' kernel: its declaration and its registration change, nothing else.
    sed -i 's/CompositeExplicitAutograd: clip_boxes/CompositeExplicitAutograd: clip_boxes_kernel/' "$work/src/ops.yaml"
    sed -i 's/^at::Tensor clip_boxes(/at::Tensor clip_boxes_kernel(/' "$work/src/box_kernels.cpp"
    build_log >/dev/null
    after=$(mtimes)
    changed=$(diff <(echo "$before") <(echo "$after") | grep '^>' | cut -d' ' -f2 | sort | tr '\n' ' ' || true)
    [[ $changed == "include/vision/ops/clip_boxes_native.h src/RegisterCompositeExplicitAutograd.cpp " ]] ||
      fail "renaming a kernel rewrote: $changed"
    # The generated sources compile as one translation unit (CMake's unity source of the group
    # opgen_vision), which includes RegisterCompositeExplicitAutograd.cpp. With PER_OPERATOR_HEADERS,
    # box_kernels.cpp includes clip_boxes_native.h and kernels.cpp does not: kernels.cpp is not
    # recompiled (nor vision_test.cpp, which includes Functions.h).
    [[ $(compiled) == "box_kernels.cpp unity_opgen_vision_cxx.cxx " ]] ||
      fail "renaming a kernel recompiled: $(compiled) (expected box_kernels.cpp and the generated sources' unit)"

    echo "== adding an operator works without running cmake by hand, and recompiles only what includes it"
    cp "$work/src/ops.yaml" "$work/ops.yaml.before"
    cp "$work/src/kernels.cpp" "$work/kernels.cpp.before"
    printf '\n- func: vision::box_center(Tensor boxes) -> Tensor\n  dispatch:\n    CompositeExplicitAutograd: box_center\n' >>"$work/src/ops.yaml"
    printf '\n#include <vision/ops/box_center_native.h>\nnamespace vision::native {\nat::Tensor box_center(const at::Tensor& b) { return (b.narrow(1, 0, 2) + b.narrow(1, 2, 2)) / 2; }\n}\n' >>"$work/src/kernels.cpp"
    build_log >/dev/null
    grep -q "box_center" "$gen/include/vision/ops/box_center.h" || fail "the new operator has no header"
    grep -q "ops/box_center.h" "$gen/include/vision/Functions.h" || fail "Functions.h does not include the new operator's header"
    # The new operator's kernel is in kernels.cpp; vision_test.cpp includes Functions.h, which
    # changed; box_kernels.cpp includes neither.
    [[ $(compiled) == "kernels.cpp unity_opgen_vision_cxx.cxx vision_test.cpp " ]] ||
      fail "adding an operator recompiled: $(compiled) (expected kernels.cpp, the generated unit and vision_test.cpp)"
    ctest --test-dir "$build" -R vision_cpp --output-on-failure >/dev/null || fail "tests fail after adding an operator"

    echo "== removing the operator removes its headers"
    cp "$work/ops.yaml.before" "$work/src/ops.yaml"
    cp "$work/kernels.cpp.before" "$work/src/kernels.cpp"
    build_log >/dev/null
    [[ ! -e $gen/include/vision/ops/box_center.h && ! -e $gen/include/vision/ops/box_center_native.h ]] ||
      fail "the removed operator's headers are still there: $(ls "$gen/include/vision/ops" | grep box_center)"
    ! grep -q "box_center" "$gen/include/vision/Functions.h" || fail "Functions.h still includes the removed operator"

    echo "== a deleted output comes back"
    rm "$gen/src/RegisterCPU.cpp"
    build_log >/dev/null
    [[ -f $gen/src/RegisterCPU.cpp ]] || fail "RegisterCPU.cpp did not come back"
    build_log >/dev/null
    [[ -z $(compiled) && $(generated) == 0 ]] || fail "the build after restoring did work: $(compiled)"

    echo "== a parallel build from scratch"
    cmake --build "$build" --target clean >/dev/null
    rm -rf "$gen"
    cmake --build "$build" -j 8 >/dev/null 2>&1 || fail "parallel build failed"
    ctest --test-dir "$build" -R vision_cpp >/dev/null || fail "tests fail after a parallel build"
    echo "incremental: all good"
    ;;
  errors)
    expect_configure_error() {  # NAME EXPECTED-TEXT CMAKE-LINE-TO-APPEND
      rm -rf "$build"
      cp "$here/vision/CMakeLists.txt" "$work/src/CMakeLists.txt"
      echo "$3" >>"$work/src/CMakeLists.txt"
      if configure >"$work/out.log" 2>&1; then fail "$1: configure succeeded"; fi
      # CMake wraps its messages: compare with the whitespace collapsed.
      tr -s ' \n' '  ' <"$work/out.log" | grep -qF "$2" || { cat "$work/out.log"; fail "$1: no '$2' in the message"; }
      echo "ok: $1"
    }
    expect_configure_error "unknown keyword" "add_operator_library(bad): unknown argument(s): COLOR" \
      "add_operator_library(bad YAML ops.yaml COLOR blue)"
    expect_configure_error "missing yaml" "add_operator_library(bad): YAML file 'nope.yaml' not found" \
      "add_operator_library(bad YAML nope.yaml)"
    expect_configure_error "unknown dispatch key" "add_dispatch_backend(vision GPU): opgen failed (exit status 2); its message is above" \
      "add_dispatch_backend(vision GPU)"
    # opgen's own message, as it printed it: one line, not wrapped or indented by CMake.
    grep -qE "^opgen library: error: --backend: unknown dispatch key 'GPU'" "$work/out.log" ||
      { cat "$work/out.log"; fail "opgen's message is not printed as one line"; }
    # A YAML error found at configure time (the namespace comes from the YAML): the same line opgen wrote.
    printf -- '- func: badops::bad(Tensor self, int dim=abc) -> Tensor\n' >"$work/src/bad.yaml"
    expect_configure_error "yaml error at configure time" "add_operator_library(bad): opgen failed" \
      "add_operator_library(bad YAML bad.yaml)"
    grep -qxE "/.*/bad.yaml:1:42: error: in 'bad': default of 'dim': 'abc' is not an int" "$work/out.log" ||
      { cat "$work/out.log"; fail "the YAML error is not opgen's one line"; }
    expect_configure_error "not a library" "add_dispatch_backend(vision_test CPU): 'vision_test' was not made by add_operator_library" \
      "add_dispatch_backend(vision_test CPU)"
    # Values said in add_operator_library's terms, not opgen's (and SHARDS 0 is not taken for 1).
    expect_configure_error "PYTHON_FAKES without PYTHON_MODULE" \
      "add_operator_library(bad): PYTHON_FAKES needs PYTHON_MODULE (the package imports the fake kernels)" \
      "add_operator_library(bad YAML ops.yaml PYTHON_FAKES fake.py)"
    expect_configure_error "SHARDS 0" "add_operator_library(bad): SHARDS must be a number from 1 to 64, not '0'" \
      "add_operator_library(bad YAML ops.yaml SHARDS 0)"
    expect_configure_error "SHARDS 100" "add_operator_library(bad): SHARDS must be a number from 1 to 64, not '100'" \
      "add_operator_library(bad YAML ops.yaml SHARDS 100)"
    expect_configure_error "NAMESPACE a;b" \
      "add_operator_library(bad): NAMESPACE must be one C++ identifier (the operators' namespace), not 'a;b'" \
      "add_operator_library(bad YAML ops.yaml NAMESPACE \"a;b\")"
    # A '[' in a path: CMake's lists do not split inside brackets (opgen then said "missing -o OUTPUT_DIR").
    mkdir -p "$work/src/br[1"
    cp "$work/src/ops.yaml" "$work/src/br[1/ops.yaml"
    expect_configure_error "a '[' in a path" "add_operator_library(bad): the path $work/src/br[1/ops.yaml holds '['" \
      "add_operator_library(bad YAML \"br[1/ops.yaml\")"
    # AOTI_SHIMS on a libtorch without the AOTInductor shim helpers the shims need (1.13, 2.6): said
    # at configure time (test_projects/aoti builds them where they are).
    torch_paths
    if ! find -L "$torch_include/" -path '*/aoti_torch/utils.h' \
         -exec grep -l resolve_tensor_dispatch_flags {} + 2>/dev/null | grep -q .; then
      expect_configure_error "AOTI_SHIMS on an older libtorch" \
        "add_operator_library(bad): AOTI_SHIMS needs a libtorch whose AOTInductor shim helpers" \
        "add_operator_library(bad YAML ops.yaml NAMESPACE badaoti AOTI_SHIMS)"
    fi
    # pip's PyTorch found through torch.utils.cmake_prefix_path alone, on a machine whose system
    # folders have another libtorch (the host's Debian libtorch-dev): find_package(Torch) takes that
    # one's libtorch.so and libc10.so with pip's headers, and add_operator_library says so.
    if [[ -n ${VIRTUAL_ENV:-} && -n $(ls /usr/lib/*/libtorch.so /usr/lib/libtorch.so 2>/dev/null) ]]; then
      share=$("$python" -c 'import torch.utils; print(torch.utils.cmake_prefix_path)')
      CMAKE_PREFIX_PATH=$share expect_configure_error "a PyTorch found in pieces" \
        "add_operator_library(vision): find_package(Torch) found the PyTorch in $(dirname "$(dirname "$share")")" ""
      tr -s ' \n' '  ' <"$work/out.log" | grep -qE "but took TORCH_LIBRARY=/usr/lib/[^ ]*libtorch\.so" ||
        { cat "$work/out.log"; fail "the system's libtorch.so is not named"; }
    fi
    # What must be one library's alone: its namespace, its OUTPUT_DIR (in the project and across
    # build trees).
    expect_configure_error "two libraries, one namespace" \
      "add_operator_library(vision2): namespace 'vision' is already the namespace of operator library 'vision'" \
      "add_operator_library(vision2 YAML ops.yaml SOURCES kernels.cpp box_kernels.cpp PYTHON_MODULE PYTHON_FAKES fake.py)"
    printf -- '- func: sharedops::f(Tensor self) -> Tensor\n' >"$work/src/shared.yaml"
    expect_configure_error "two libraries, one OUTPUT_DIR" \
      "add_operator_library(other): OUTPUT_DIR $build/vision_generated is already the output folder of 'vision'" \
      "add_operator_library(other YAML shared.yaml OUTPUT_DIR \${CMAKE_BINARY_DIR}/vision_generated)"
    cp "$here/vision/CMakeLists.txt" "$work/src/CMakeLists.txt"
    echo "add_operator_library(sharedops YAML shared.yaml OUTPUT_DIR $work/shared_out)" >>"$work/src/CMakeLists.txt"
    rm -rf "$build" "$work/build2"
    configure >/dev/null
    if cmake -S "$work/src" -B "$work/build2" -G "$generator" -DCMAKE_PREFIX_PATH="$where" >"$work/out.log" 2>&1; then
      fail "a second build tree configured with the first one's OUTPUT_DIR"
    fi
    tr -s ' \n' '  ' <"$work/out.log" | grep -qF "add_operator_library(sharedops): OUTPUT_DIR $work/shared_out is the output folder of the build tree $build (target 'sharedops')" ||
      { cat "$work/out.log"; fail "a second build tree's claim of an OUTPUT_DIR is not an error naming both"; }
    rm -rf "$build"
    cmake -S "$work/src" -B "$work/build2" -G "$generator" -DCMAKE_PREFIX_PATH="$where" >/dev/null ||
      fail "the OUTPUT_DIR of a deleted build tree cannot be taken over"
    rm -rf "$work/build2" "$work/shared_out"
    echo "ok: a second build tree's OUTPUT_DIR"
    # A YAML error fails the build with opgen's FILE:LINE:COL message.
    cp "$here/vision/CMakeLists.txt" "$work/src/CMakeLists.txt"
    rm -rf "$build"
    configure >/dev/null
    sed -i 's/Tensor boxes, Tensor scores, float iou_threshold/Tensor boxes, Tensr scores, float iou_threshold/' "$work/src/ops.yaml"
    if cmake --build "$build" >"$work/out.log" 2>&1; then fail "a bad yaml built"; fi
    # Without NAMESPACE the yaml is also read when CMake re-runs (inside the build): either way the
    # build stops with opgen's message.
    tr -s ' \n' '  ' <"$work/out.log" | grep -qE "ops.yaml:5:35: error: in 'nms': unrecognized type 'Tensr'" ||
      { cat "$work/out.log"; fail "no FILE:LINE:COL error"; }
    echo "ok: yaml error at build time"
    # With NAMESPACE (and without PER_OPERATOR_HEADERS, whose list of headers comes from the yaml),
    # only the generator reads the yaml: the error comes from the build step.
    sed -i 's/^  YAML ops.yaml$/  YAML ops.yaml NAMESPACE vision/; s/^  PER_OPERATOR_HEADERS)$/)/' "$work/src/CMakeLists.txt"
    grep -q "NAMESPACE vision" "$work/src/CMakeLists.txt" && ! grep -q PER_OPERATOR_HEADERS "$work/src/CMakeLists.txt" ||
      fail "the test's edit of CMakeLists.txt did not apply"
    sed -i 's/Tensr scores/Tensor scores/' "$work/src/ops.yaml"
    rm -rf "$build"
    configure >/dev/null
    sed -i 's/Tensor scores, float iou_threshold/Tensr scores, float iou_threshold/' "$work/src/ops.yaml"
    if cmake --build "$build" >"$work/out.log" 2>&1; then fail "a bad yaml built"; fi
    grep -q "opgen: generating operator library vision" "$work/out.log" || { cat "$work/out.log"; fail "opgen did not run"; }
    grep -qE "ops.yaml:5:35: error: in 'nms': unrecognized type 'Tensr'" "$work/out.log" ||
      { cat "$work/out.log"; fail "no FILE:LINE:COL error from the generator"; }
    echo "ok: yaml error from the generation step"
    # A wrong autogen: list (scale_boxes_ generates two variants, the list names one): one line at
    # the autogen: value, printed once.
    sed -i 's/Tensr scores/Tensor scores/; s/^  autogen: scale_boxes, scale_boxes.out$/  autogen: scale_boxes.out/' "$work/src/ops.yaml"
    line=$(grep -n "^  autogen: scale_boxes.out$" "$work/src/ops.yaml" | cut -d: -f1)
    [[ -n $line ]] || fail "the test's edit of ops.yaml did not apply"
    if cmake --build "$build" >"$work/out.log" 2>&1; then fail "a wrong autogen: list built"; fi
    [[ $(grep -c ": error: " "$work/out.log") == 1 ]] &&
      grep -qE "ops.yaml:$line:12: error: in 'scale_boxes_': the codegen expects to be able to generate 'scale_boxes, scale_boxes.out'" "$work/out.log" ||
      { cat "$work/out.log"; fail "a wrong autogen: list is not one error at its line"; }
    echo "ok: a wrong autogen: list is one error at its line"
    # A tag the PyTorch in use does not have, which the library's tags.yaml declares: one warning at
    # the tag, naming the release, and the tag left out of this build (one ops.yaml for every release).
    sed -i 's/^  autogen: scale_boxes.out$/  autogen: scale_boxes, scale_boxes.out/; s/^  tags: dynamic_output_shape$/  tags: [dynamic_output_shape, fancy]/' "$work/src/ops.yaml"
    printf -- '- tag: fancy\n  desc: not a tag of PyTorch\n' >>"$work/src/tags.yaml"
    grep -q "fancy]" "$work/src/ops.yaml" || fail "the test's edit of ops.yaml did not apply"
    # (the generation must pass; the kernels do not compile in this part of the test, which has no
    # PER_OPERATOR_HEADERS)
    cmake --build "$build" >"$work/out.log" 2>&1 || true
    grep -q "opgen: generating operator library vision" "$work/out.log" && ! grep -qE "ops.yaml:[0-9]+:[0-9]+: error" "$work/out.log" ||
      { cat "$work/out.log"; fail "a tag PyTorch lacks (declared in tags.yaml) did not generate"; }
    release=$("$python" -c 'import torch; print(".".join(torch.__version__.split(".")[:2]))')
    [[ $(grep -c "tag 'fancy'" "$work/out.log") == 1 ]] &&
      grep -qE "ops.yaml:6:32: warning: in 'nms': tag 'fancy' is not a tag of PyTorch $release \(its ATen/core/enum_tag.h\): left out of this build" "$work/out.log" ||
      { cat "$work/out.log"; fail "a tag PyTorch lacks is not one warning at the tag"; }
    ! grep -rq "Tag::fancy" "$build/vision_generated/src" || fail "the tag PyTorch lacks is registered"
    echo "ok: a tag PyTorch lacks (declared in tags.yaml) is one warning at the tag, and left out"
    # A tag declared nowhere: one error at the tag.
    sed -i 's/^  tags: \[dynamic_output_shape, fancy\]$/  tags: [dynamic_output_shape, fanciful]/' "$work/src/ops.yaml"
    if cmake --build "$build" >"$work/out.log" 2>&1; then fail "a tag declared nowhere built"; fi
    [[ $(grep -c ": error: " "$work/out.log") == 1 ]] && grep -qE "ops.yaml:6:32: error: .*fanciful" "$work/out.log" ||
      { cat "$work/out.log"; fail "a tag declared nowhere is not one error at the tag"; }
    echo "ok: a tag declared nowhere is one error at the tag"
    sed -i 's/^  tags: \[dynamic_output_shape, fanciful\]$/  tags: [dynamic_output_shape, fancy]/' "$work/src/ops.yaml"
    # A kernel the YAML declares but kernels.cpp does not define (box_area), and one defined with
    # other parameters (nms_cpu, float for double): the library is not linked, and the build says so
    # with one line per kernel at its YAML entry (add_operator_library's kernel check).
    for f in CMakeLists.txt ops.yaml tags.yaml kernels.cpp; do cp "$here/vision/$f" "$work/src/$f"; done
    sed -i '/^at::Tensor box_area(/,/^}/d' "$work/src/kernels.cpp"
    sed -i 's/^\(at::Tensor nms_cpu(.*\)double iou_threshold) {$/\1float iou_threshold) {/' "$work/src/kernels.cpp"
    grep -q "float iou_threshold) {" "$work/src/kernels.cpp" || fail "the test's edit of kernels.cpp did not apply"
    rm -rf "$build"
    configure >/dev/null
    if cmake --build "$build" -j "$jobs" >"$work/out.log" 2>&1; then fail "a library with missing kernels built"; fi
    yaml=$work/src/ops.yaml
    expected="$yaml:5:3: error: in 'nms': kernel 'nms_cpu' (CPU) is declared but not defined; expected: at::Tensor vision::native::nms_cpu(const at::Tensor & boxes, const at::Tensor & scores, double iou_threshold); found instead: vision::native::nms_cpu(at::Tensor const&, at::Tensor const&, float)
$yaml:30:3: error: in 'box_area': kernel 'box_area' (CompositeImplicitAutograd) is declared but not defined; expected: at::Tensor vision::native::box_area(const at::Tensor & boxes)"
    [[ $(grep -E ": error: " "$work/out.log") == "$expected" ]] ||
      { cat "$work/out.log"; fail "the missing kernels are not reported as expected (above)"; }
    ! ls "$build"/libvision.so* >/dev/null 2>&1 || fail "libvision.so was linked despite the missing kernels"
    echo "ok: missing kernels stop the link"
    # Without the check, the shared library still does not link with an undefined kernel (--no-undefined).
    printf 'set_target_properties(vision PROPERTIES OPGEN_CHECK_KERNELS OFF)\n' >>"$work/src/CMakeLists.txt"
    if cmake --build "$build" -j "$jobs" >"$work/out.log" 2>&1; then fail "without the check, a library with missing kernels linked"; fi
    grep -q "undefined reference to .vision::native::box_area(at::Tensor const&)" "$work/out.log" ||
      { cat "$work/out.log"; fail "no linker error for the missing kernel without the check"; }
    ! grep -q "is declared but not defined" "$work/out.log" || fail "OPGEN_CHECK_KERNELS OFF still checked"
    echo "ok: without the check, --no-undefined stops the link"
    cp "$here/vision/CMakeLists.txt" "$work/src/CMakeLists.txt"
    # Defined as declared again, nms_cpu in kernels.cpp and box_area in a static library of the
    # project that vision links: the check reads that library too, and the library links.
    cp "$here/vision/kernels.cpp" "$work/src/kernels.cpp"
    sed -i '/^at::Tensor box_area(/,/^}/d' "$work/src/kernels.cpp"
    printf '%s\n' '#include <ATen/ATen.h>' 'namespace vision::native {' \
      'at::Tensor box_area(const at::Tensor& b) { return (b.select(1, 2) - b.select(1, 0)) * (b.select(1, 3) - b.select(1, 1)); }' \
      '}' >"$work/src/box_area.cpp"
    printf '%s\n' 'add_library(vision_box_area STATIC box_area.cpp)' \
      'set_target_properties(vision_box_area PROPERTIES POSITION_INDEPENDENT_CODE ON)' \
      'target_link_libraries(vision_box_area PRIVATE torch)' 'target_link_libraries(vision PRIVATE vision_box_area)' \
      'if(Torch_VERSION VERSION_GREATER_EQUAL 2)' '  set_target_properties(vision_box_area PROPERTIES CXX_STANDARD 20)' \
      'endif()' >>"$work/src/CMakeLists.txt"
    cmake --build "$build" -j "$jobs" >"$work/out.log" 2>&1 || { cat "$work/out.log"; fail "the fixed kernels do not build"; }
    echo "ok: the fixed kernels link, one of them from a library of the project"
    ;;
  derivatives)
    configure >/dev/null
    build_log >/dev/null
    gen=$build/diffops_generated
    mtimes() { (cd "$gen" && find include src -type f -printf '%p %T@\n' | sort); }
    echo "== editing a formula regenerates RegisterAutograd.cpp only, and rebuilds the generated sources' unit alone"
    before=$(mtimes)
    sleep 1
    sed -i 's/^  self: grad \* exponent \* self.pow(exponent - 1)$/  self: exponent * grad * self.pow(exponent - 1)/' "$work/src/derivatives.yaml"
    grep -q "exponent \* grad \* self" "$work/src/derivatives.yaml" || fail "the test's edit of derivatives.yaml did not apply"
    build_log >/dev/null
    changed=$(diff <(echo "$before") <(mtimes) | grep '^>' | cut -d' ' -f2 | sort | tr '\n' ' ' || true)
    [[ $changed == "src/RegisterAutograd.cpp " ]] || fail "editing a formula rewrote: $changed"
    [[ $(generated) == 1 && $(compiled) == "unity_opgen_diffops_cxx.cxx " ]] ||
      fail "editing a formula: opgen ran $(generated)x, compiled: $(compiled)"
    grep -q "exponent \* grad \* self.pow" "$gen/src/RegisterAutograd.cpp" || fail "the new formula is not in RegisterAutograd.cpp"
    ctest --test-dir "$build" -R diffops_python --output-on-failure >/dev/null || fail "tests fail after editing a formula"
    echo "== a bad derivatives.yaml fails the build with FILE:LINE:COL"
    sed -i 's/^  other: grad \* self$/  other: grad * self * grad_bogus/' "$work/src/derivatives.yaml"
    if cmake --build "$build" >"$work/out.log" 2>&1; then fail "a bad derivatives.yaml built"; fi
    grep -qE "derivatives.yaml:5:10: error: in 'mul_add': the formula names an unknown variable 'grad_bogus'" "$work/out.log" ||
      { cat "$work/out.log"; fail "no FILE:LINE:COL error for the bad formula"; }
    echo "ok: unknown variable"
    sed -i 's/^  other: grad \* self \* grad_bogus$/  other: grad * self/; s/^  bias: grad$//' "$work/src/derivatives.yaml"
    if cmake --build "$build" >"$work/out.log" 2>&1; then fail "a derivatives.yaml without bias' formula built"; fi
    grep -qE "derivatives.yaml:3:9: error: in 'mul_add': tensor argument 'bias' has no formula" "$work/out.log" ||
      { cat "$work/out.log"; fail "no FILE:LINE:COL error for the missing formula"; }
    echo "ok: missing formula"
    echo "== a view operator without its inverse, or without its view_copy variant: an error at its entry"
    cp "$here/autograd/derivatives.yaml" "$work/src/derivatives.yaml"
    yaml=$work/src/ops.yaml
    line=$(grep -n "^- func: diffops::swap01(" "$yaml" | cut -d: -f1)
    sed -i '/^at::Tensor swap01_inverse(/,/^}/d' "$work/src/kernels.cpp"
    ! grep -q "swap01_inverse(" "$work/src/kernels.cpp" && [[ -n $line ]] || fail "the test's edit of kernels.cpp did not apply"
    if cmake --build "$build" >"$work/out.log" 2>&1; then fail "a library without its view's inverse built"; fi
    [[ $(grep -E ": error: " "$work/out.log") == "$yaml:$line:3: error: in 'swap01': view inverse 'swap01_inverse' is declared but not defined; expected: at::Tensor diffops::native::swap01_inverse(const at::Tensor & base, const at::Tensor & mutated_view, InverseReturnMode inverse_return_mode)" ]] ||
      { cat "$work/out.log"; fail "the missing view inverse is not one error at the view's entry"; }
    echo "ok: missing view inverse"
    cp "$here/autograd/kernels.cpp" "$work/src/kernels.cpp"
    sed -i '/^- func: diffops::swap01_copy(/,/^$/d' "$yaml"
    ! grep -q "swap01_copy(" "$yaml" || fail "the test's edit of ops.yaml did not apply"
    if cmake --build "$build" >"$work/out.log" 2>&1; then fail "a view operator without its view_copy variant built"; fi
    grep -qF "$yaml:$line:3: error: in 'swap01': appears to be a new operator that aliases its inputs; the codegen expects a corresponding operator in native_functions.yaml: swap01_copy" "$work/out.log" ||
      { cat "$work/out.log"; fail "a view operator without its view_copy variant is not an error at its entry"; }
    echo "ok: missing view_copy variant"
    cp "$here/autograd/ops.yaml" "$yaml"
    echo "== a missing DERIVATIVES file fails at configure time"
    sed -i 's/DERIVATIVES derivatives.yaml/DERIVATIVES nope.yaml/' "$work/src/CMakeLists.txt"
    rm -rf "$build"
    if configure >"$work/out.log" 2>&1; then fail "configure succeeded without the DERIVATIVES file"; fi
    tr -s ' \n' '  ' <"$work/out.log" | grep -qF "add_operator_library(diffops): DERIVATIVES file 'nope.yaml' not found" ||
      { cat "$work/out.log"; fail "no clear message for the missing DERIVATIVES file"; }
    echo "ok: missing file"
    echo "derivatives: all good"
    ;;
  backend)
    # The runtime's own operators and libtorch version (its torchgen and torch).
    torch_paths
    aten=$torch_aten
    [[ -f $aten/native/native_functions.yaml ]] || fail "no native_functions.yaml in $aten ($python's torchgen)"
    version=$torch_version
    major=${version%%.*}
    release=$(grep -oE '^[0-9]+\.[0-9]+' <<<"$version")  # the table's row: the facts of that release
    std=c++17
    [[ $major -ge 2 ]] && std=c++20
    compile() { g++ -std=$std -fsyntax-only -I "$1" -I "$torch_include" -I "$torch_include/torch/csrc/api/include" "$2" || fail "$2 does not compile"; }
    for yaml in "$here/../tool/test/data/backend_conformance/keys.yaml" "$here/backend/structured.yaml"; do
      out=$work/$(basename "$yaml" .yaml)
      "$where/bin/opgen" backend -s "$yaml" -o "$out" --source-path "$aten" --torch-version "$release" --include-prefix= ||
        fail "opgen backend refused $yaml"
      compile "$out" "$out/RegisterPrivateUse1.cpp"
      echo "ok: $(basename "$yaml"): RegisterPrivateUse1.cpp compiles against libtorch $version"
    done
    cp "$here/backend/kernels.cpp" "$work/structured/"
    compile "$work/structured" "$work/structured/kernels.cpp"
    echo "ok: structured kernels compile"
    # The version table's row for this release (what TORCH_VERSION x.y gives) is what the release's
    # headers say: a library configured here (facts read from the headers) generates the same files
    # as the row alone would (test_projects/cuda's operators: structured, autogen:, derivatives).
    facts=$work/facts
    mkdir -p "$facts/src"
    cp "$here/cuda/ops.yaml" "$here/cuda/derivatives.yaml" "$facts/src/"
    printf '%s\n' "cmake_minimum_required(VERSION 3.22)" "project(facts CXX)" "find_package(OpGen 0.1 REQUIRED)" \
      "find_package(Torch REQUIRED)" "add_operator_library(cudaops YAML ops.yaml DERIVATIVES derivatives.yaml BACKENDS CPU Meta)" \
      >"$facts/src/CMakeLists.txt"
    cmake -S "$facts/src" -B "$facts/build" -G "$generator" -DCMAKE_PREFIX_PATH="$where" >"$facts/configure.log" 2>&1 ||
      { cat "$facts/configure.log"; fail "the facts project does not configure"; }
    probed=$(grep -rhoE --include=build.ninja --include=build.make -- "--torch-facts [^ ]+" "$facts/build" | head -n1 | cut -d' ' -f2)
    [[ -n $probed ]] || fail "no facts read from libtorch $version's headers"
    for run in "probed --torch-facts $probed" "row"; do
      read -r name extra <<<"$run"
      # shellcheck disable=SC2086
      "$where/bin/opgen" library "$facts/src/ops.yaml" -o "$facts/$name" --backend CPU --backend Meta \
        --derivatives "$facts/src/derivatives.yaml" --torch-version "$release" $extra || fail "opgen library ($name) failed"
    done
    diff -r "$facts/probed" "$facts/row" || fail "the table's row for $release differs from libtorch $version's headers ($probed)"
    echo "ok: the table's row for $release is what libtorch $version's headers say ($probed)"
    ;;
  privateuse1)
    configure >/dev/null
    build_log >/dev/null
    ctest --test-dir "$build" --output-on-failure
    for type in STATIC MODULE; do
      echo "== a $type library (STATIC: the C++ tests; MODULE: the Python test)"
      other=$work/build-$type
      cmake -S "$work/src" -B "$other" -G "$generator" -DCMAKE_PREFIX_PATH="$where" -DPYTHON3="$python" "${launcher[@]}" \
        -DHOSTDEV_LIBRARY_TYPE=$type >/dev/null
      cmake --build "$other" -j "$jobs" >/dev/null
      case $type in
        STATIC) [[ -f $other/libhostdev.a ]] || fail "no libhostdev.a" ;;
        MODULE) [[ -f $other/libhostdev.so ]] || fail "no libhostdev.so" ;;
      esac
      ctest --test-dir "$other" --output-on-failure || fail "the tests fail against the $type library"
      [[ $(cmake --build "$other" 2>&1 | grep -cE "Building CXX|opgen: generating") == 0 ]] ||
        fail "a second build of the $type library did work"
    done
    gen=$build/hostdev_generated
    mtimes() { (cd "$gen" && find . \( -name '*.h' -o -name '*.cpp' \) -printf '%P %T@\n' | sort); }
    changed_since() { diff <(echo "$1") <(mtimes) | grep '^>' | cut -d' ' -f2 | sort | tr '\n' ' ' || true; }
    set_of() { printf '%s\n' "$@" | sort | tr '\n' ' '; }

    quiet_rebuilds

    echo "== a comment in the backend YAML: opgen runs, rewrites nothing, nothing is compiled"
    before=$(mtimes)
    sleep 1; echo "# a comment" >>"$work/src/backend.yaml"
    build_log >/dev/null
    [[ $(generated) == 1 && -z $(compiled) && -z $(changed_since "$before") ]] ||
      fail "a comment: opgen ran $(generated)x, rewrote: $(changed_since "$before"), compiled: $(compiled)"

    echo "== a new operator in the backend YAML regenerates and recompiles what declares or registers kernels"
    before=$(mtimes)
    sleep 1
    sed -i 's/^  - mul.out$/  - mul.out\n  - sub.Tensor/' "$work/src/backend.yaml"
    grep -qx "  - sub.Tensor" "$work/src/backend.yaml" || fail "the test's edit of backend.yaml did not apply"
    printf '%s\n' 'namespace hostdev {' \
      'at::Tensor PrivateUse1NativeFunctions::sub(const at::Tensor& self, const at::Tensor& other, const at::Scalar& alpha) {' \
      '  return add(self, other, -alpha.toDouble());' '}' '}' >>"$work/src/kernels.cpp"
    build_log >/dev/null
    [[ $(changed_since "$before") == $(set_of PrivateUse1NativeFunctions.h RegisterPrivateUse1.cpp) ]] ||
      fail "a new operator rewrote: $(changed_since "$before")"
    # device.cpp and the test do not include the generated header; RegisterAutogradPrivateUse1.cpp does.
    [[ $(generated) == 1 && $(compiled) == $(set_of RegisterAutogradPrivateUse1.cpp RegisterPrivateUse1.cpp kernels.cpp) ]] ||
      fail "a new operator: opgen ran $(generated)x, compiled: $(compiled)"
    ctest --test-dir "$build" --output-on-failure >/dev/null || fail "the tests fail after adding an operator"
    "$python" - "$build/libhostdev.so" <<'PY' || fail "sub does not run on the device after it was added"
import sys, types, torch
torch.ops.load_library(sys.argv[1])
torch._register_device_module("privateuseone", types.ModuleType("hostdev"))
a, b = torch.tensor([5.0, 7.0]).to("privateuseone"), torch.tensor([1.0, 2.0]).to("privateuseone")
assert torch.sub(a, b, alpha=2).cpu().tolist() == [3.0, 3.0], torch.sub(a, b, alpha=2).cpu()
PY
    build_log >/dev/null
    [[ -z $(compiled) && $(generated) == 0 ]] || fail "the build after adding an operator did work: $(compiled)"

    echo "== a deleted output comes back"
    rm "$gen/RegisterPrivateUse1.cpp"
    build_log >/dev/null
    [[ -f $gen/RegisterPrivateUse1.cpp && $(generated) == 1 ]] || fail "RegisterPrivateUse1.cpp did not come back"
    build_log >/dev/null
    [[ -z $(compiled) && $(generated) == 0 ]] || fail "the build after restoring did work: $(compiled)"

    echo "== a backend YAML error at build time: opgen's FILE:LINE:COL line"
    sed -i 's/^  - sub.Tensor$/  - sub.Tensr/' "$work/src/backend.yaml"
    if cmake --build "$build" >"$work/out.log" 2>&1; then fail "a bad backend.yaml built"; fi
    line=$(grep -n "^  - sub.Tensr$" "$work/src/backend.yaml" | cut -d: -f1)
    grep -qxE "/.*/backend.yaml:$line:5: error: .*sub.Tensr.*" "$work/out.log" ||
      { cat "$work/out.log"; fail "no FILE:LINE:COL line for the bad operator"; }
    echo "ok: bad operator at build time"
    echo "== the same at configure time"
    rm -rf "$build"
    if configure >"$work/out.log" 2>&1; then fail "configure succeeded with a bad backend.yaml"; fi
    grep -qxE "/.*/backend.yaml:$line:5: error: .*sub.Tensr.*" "$work/out.log" ||
      { cat "$work/out.log"; fail "no FILE:LINE:COL line at configure time"; }
    tr -s ' \n' '  ' <"$work/out.log" | grep -qF "add_dispatch_backend(hostdev): opgen failed (exit status 1)" ||
      { cat "$work/out.log"; fail "CMake does not name the call"; }
    echo "ok: bad operator at configure time"
    sed -i 's/^  - sub.Tensr$/  - sub.Tensor/' "$work/src/backend.yaml"

    echo "== configure-time errors of the CMake call"
    cp "$work/src/CMakeLists.txt" "$work/CMakeLists.orig"
    expect_configure_error() {  # NAME EXPECTED-TEXT CMAKE-LINE-TO-APPEND
      rm -rf "$build"
      cp "$work/CMakeLists.orig" "$work/src/CMakeLists.txt"
      echo "$3" >>"$work/src/CMakeLists.txt"
      if configure >"$work/out.log" 2>&1; then fail "$1: configure succeeded"; fi
      tr -s ' \n' '  ' <"$work/out.log" | grep -qF "$2" || { cat "$work/out.log"; fail "$1: no '$2' in the message"; }
      echo "ok: $1"
    }
    expect_configure_error "unknown keyword" "add_dispatch_backend(bad): unknown argument(s): BACKENDS" \
      "add_dispatch_backend(bad YAML backend.yaml BACKENDS CPU)"
    expect_configure_error "missing NATIVE_FUNCTIONS file" "add_dispatch_backend(bad): NATIVE_FUNCTIONS file 'nope.yaml' not found" \
      "add_dispatch_backend(bad YAML backend.yaml NATIVE_FUNCTIONS nope.yaml)"
    expect_configure_error "no native_functions.yaml for Torch_DIR" \
      "add_dispatch_backend(bad): no native_functions.yaml found for the PyTorch of Torch_DIR=/nowhere/share/cmake/Torch" \
      "set(Torch_DIR /nowhere/share/cmake/Torch)
add_dispatch_backend(bad YAML backend.yaml)"
    # Every place searched is named, one per line: Torch_DIR and the folders above it, not the root.
    for place in /nowhere/share/cmake/Torch/torchgen /nowhere/share/python3*/*-packages/torchgen \
                 /nowhere/lib/python3*/*-packages/torchgen; do
      grep -qF "  $place/packaged/ATen/native/native_functions.yaml" "$work/out.log" ||
        { cat "$work/out.log"; fail "$place is not listed among the places searched"; }
    done
    ! grep -qE "^ *//?lib/python3" "$work/out.log" || { cat "$work/out.log"; fail "the file system's root was searched"; }
    # A pip-like installation: torchgen beside torch, Torch_DIR in torch/share/cmake/Torch.
    torch_paths
    aten=$torch_aten/native
    pip=$work/pip
    mkdir -p "$pip/torch/share/cmake/Torch" "$pip/torchgen/packaged/ATen/native"
    cp "$aten/native_functions.yaml" "$aten/tags.yaml" "$pip/torchgen/packaged/ATen/native/"
    fake_torch="set(Torch_DIR $pip/torch/share/cmake/Torch)
add_dispatch_backend(pip YAML backend.yaml SOURCES kernels.cpp device.cpp TORCH_VERSION 1.13)"
    echo 'if(NOT Torch_VERSION MATCHES "^([0-9]+[.][0-9]+)")
  message(FATAL_ERROR "no Torch_VERSION")
endif()
file(WRITE "'"$pip"'/torch/version.py" "__version__ = '"'"'${CMAKE_MATCH_1}.5+pip'"'"'\n")' >"$work/version.cmake"
    rm -rf "$build"
    cp "$work/CMakeLists.orig" "$work/src/CMakeLists.txt"
    printf 'include(%s)\n%s\n' "$work/version.cmake" "$fake_torch" >>"$work/src/CMakeLists.txt"
    configure >"$work/out.log" 2>&1 || { cat "$work/out.log"; fail "a pip-like installation's native_functions.yaml was not found"; }
    # The generation command, in build.ninja or a build.make.
    grep -rqF --include=build.ninja --include=build.make -- \
      "--native-functions $pip/torchgen/packaged/ATen/native/native_functions.yaml" "$build" ||
      fail "the pip-like installation's native_functions.yaml is not the one used"
    # TORCH_VERSION overrides the version of the Torch found.
    grep -rqE --include=build.ninja --include=build.make -- "pip_generated .*--torch-version 1\.13 --include-prefix=" "$build" ||
      fail "TORCH_VERSION 1.13 is not passed to opgen"
    # ... and the facts read from the headers: the code is spelled for that release alone.
    ! grep -rqE --include=build.ninja --include=build.make -- "pip_generated .*--torch-facts" "$build" ||
      fail "TORCH_VERSION given, yet the headers' facts are passed to opgen"
    echo "ok: a pip-like installation"
    # pip in a virtual environment (lib/python3.N/site-packages/{torch,torchgen}, Torch_DIR in
    # torch/share/cmake/Torch, what torch.utils.cmake_prefix_path leads to), without TORCH_VERSION:
    # its native_functions.yaml, the version found and every fact read from the headers are passed.
    venv=$work/venv/lib/python3.12/site-packages
    mkdir -p "$venv/torch/share/cmake/Torch" "$venv/torchgen/packaged/ATen/native"
    cp "$aten/native_functions.yaml" "$aten/tags.yaml" "$venv/torchgen/packaged/ATen/native/"
    rm -rf "$build"
    cp "$work/CMakeLists.orig" "$work/src/CMakeLists.txt"
    printf 'set(Torch_DIR %s)\nadd_dispatch_backend(venv YAML backend.yaml SOURCES kernels.cpp device.cpp)\n' \
      "$venv/torch/share/cmake/Torch" >>"$work/src/CMakeLists.txt"
    configure >"$work/out.log" 2>&1 || { cat "$work/out.log"; fail "a virtual environment's native_functions.yaml was not found"; }
    grep -rqF --include=build.ninja --include=build.make -- \
      "--native-functions $venv/torchgen/packaged/ATen/native/native_functions.yaml" "$build" ||
      fail "the virtual environment's native_functions.yaml is not the one used"
    command=$(grep -rhoE --include=build.ninja --include=build.make -- "venv_generated .*--torch-facts [^ ]+" "$build" | head -n1)
    for fact in std-optional slow-intarrayref-names intrusive-nodes view-funcs reverse-view-funcs named-tensors \
                diagnostic-macros view-meta-classes view-meta-symbolic-inputs stable-error-check; do
      [[ $command =~ --torch-facts\ ([^ ]*,)?$fact=[01] ]] || fail "fact $fact is not passed to opgen: $command"
    done
    [[ $command =~ --torch-version\ [0-9]+\.[0-9]+ ]] || fail "the version found is not passed to opgen: $command"
    echo "ok: pip in a virtual environment, facts from the headers"
    # ... whose torch/version.py names another version than the Torch found: not taken.
    echo "__version__ = '0.1.0'" >"$pip/torch/version.py"
    expect_configure_error "another version's native_functions.yaml" \
      "skipped $pip/torchgen/packaged/ATen/native/native_functions.yaml: $pip/torch/version.py says 0.1, the Torch found is" \
      "$fake_torch"
    expect_configure_error "no golden test" "opgen_add_golden_test(g): LIBRARY 'hostdev' was not made by add_operator_library" \
      "opgen_add_golden_test(NAME g LIBRARY hostdev EXPECTED_DIR golden)"
    expect_configure_error "the operator-library form" "add_dispatch_backend(hostdev CPU): 'hostdev' was not made by add_operator_library" \
      "add_dispatch_backend(hostdev CPU)"
    echo "privateuse1: all good"
    ;;
  wheel)
    src=$work/src
    if [[ $project == wheel_backend ]]; then
      # The backend of test_projects/privateuse1, and the wheel's requirement on torch as test_projects/wheel says it.
      cp "$here"/privateuse1/{backend.yaml,device.cpp,kernels.cpp,hostdev.h} "$here/wheel/torch_requirement.py" "$src/"
      package=hostdev
    else
      package=myops
    fi
    release=$("$python" -c 'import torch; print(".".join(torch.__version__.split(".")[:2]))')
    echo "== pip wheel (scikit-build-core, offline, against PyTorch $release)"
    export CMAKE_PREFIX_PATH=$where${CMAKE_PREFIX_PATH:+:$CMAKE_PREFIX_PATH}  # (pip-runtime.sh: PyTorch's folder)
    ((${#launcher[@]} == 0)) || export CMAKE_CXX_COMPILER_LAUNCHER=ccache
    start=$SECONDS
    "$python" -m pip wheel "$src" --no-build-isolation --no-index --no-deps -w "$work/dist" -C build-dir="$build" \
      >"$work/wheel.log" 2>&1 || { cat "$work/wheel.log"; fail "pip wheel failed"; }
    wheels=("$work"/dist/*.whl)
    ((${#wheels[@]} == 1)) || fail "pip wheel made ${#wheels[@]} wheels: ${wheels[*]}"
    wheel=${wheels[0]}
    echo "ok: $(basename "$wheel") in $((SECONDS - start)) s"
    # Its name, files and metadata: the package at the top (with the library inside), the dist-info
    # folder, nothing else; any Python 3; torch==X.Y.* of the PyTorch it was built against.
    "$python" - "$wheel" "$package" "$release" <<'PY' || fail "the wheel's contents or metadata (above)"
import os, sys, zipfile
wheel, package, release = sys.argv[1:]
name = os.path.basename(wheel)
errors = []
if not name.startswith(package + "-") or "-py3-none-" not in name:
    errors.append(f"{name} is not tagged py3-none-PLATFORM")
files = zipfile.ZipFile(wheel).namelist()
dist_info = [f for f in files if f.split("/")[0].endswith(".dist-info")]
top = sorted({f.split("/")[0] for f in files})
if top != sorted({package, dist_info[0].split("/")[0]}):
    errors.append(f"the wheel's top level is {top}, not the package {package} and its .dist-info")
library = f"{package}/lib{package}.so"
if library not in files:
    errors.append(f"no {library} in the package")
metadata = zipfile.ZipFile(wheel).read(dist_info[0].split("/")[0] + "/METADATA").decode()
requires = [l.split(":", 1)[1].strip() for l in metadata.splitlines() if l.startswith("Requires-Dist:")]
if requires != [f"torch=={release}.*"]:
    errors.append(f"Requires-Dist is {requires}, not torch=={release}.*")
if package == "hostdev":
    entry_points = zipfile.ZipFile(wheel).read(dist_info[0].split("/")[0] + "/entry_points.txt").decode()
    if "[torch.backends]\nhostdev = hostdev:_autoload" not in entry_points:
        errors.append(f"no torch.backends entry point hostdev:\n{entry_points}")
for e in errors:
    print("wheel:", e)
print(f"wheel: {len(files)} files, top level {top}, Requires-Dist {requires}")
sys.exit(1 if errors else 0)
PY
    "$python" -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extract(sys.argv[2], sys.argv[3])' \
      "$wheel" "$package/lib$package.so" "$work/unzipped"
    dynamic=$(readelf -d "$work/unzipped/$package/lib$package.so")
    ! grep -qE "NEEDED.*libpython" <<<"$dynamic" || fail "lib$package.so links Python, yet the wheel is for any Python 3"
    ! grep -qE "R(UN)?PATH" <<<"$dynamic" || fail "lib$package.so keeps a search path: $(grep -E 'R(UN)?PATH' <<<"$dynamic")"
    echo "ok: py3-none, the package alone at the top, torch==$release.*, a library without Python or RPATH"

    echo "== installed into a fresh virtual environment (--system-site-packages: the PyTorch installed)"
    venv=$work/venv
    if [[ -n ${VIRTUAL_ENV:-} ]]; then
      # A virtual environment made by another one's Python sees the base Python's packages, not the
      # other's: a .pth file adds the runtime's site-packages (its PyTorch) instead.
      # (made, and its site-packages found, without the runtime's own sysconfig data, which is then
      # copied in: see tool/scripts/pip-runtime.sh)
      env -u _PYTHON_SYSCONFIGDATA_NAME "$python" -m venv "$venv"
      parent=$("$python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
      child=$(env -u _PYTHON_SYSCONFIGDATA_NAME "$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
      echo "$parent" >"$child/runtime.pth"
      [[ ! -f $parent/_sysconfigdata_opgen_venv.py ]] || cp "$parent/_sysconfigdata_opgen_venv.py" "$child/"
    else
      "$python" -m venv --system-site-packages "$venv"
    fi
    # --no-deps: Debian's own torch does not satisfy its own metadata everywhere (trixie's requires
    # sympy==1.13.1 beside Debian's 1.13.3), so pip's resolver would fail on torch, not on the wheel:
    # the wheel's requirement is checked against the torch installed below.
    "$venv/bin/python" -m pip install --no-index --no-deps "$wheel" >"$work/install.log" 2>&1 ||
      { cat "$work/install.log"; fail "pip install failed"; }
    cd "$work"  # (not the source folder: Python must import the installed package)
    "$venv/bin/python" - "$package" <<'PY' || fail "the installed wheel's requirement is not met by the torch installed"
import importlib.metadata as m, sys
from packaging.requirements import Requirement
torch = m.version("torch")
for r in m.requires(sys.argv[1]):
    assert Requirement(r).specifier.contains(torch, prereleases=True), (r, torch)
    print(f"ok: {r} is met by torch {torch}")
PY
    if [[ $package == myops ]]; then
      # The library finds libtorch as the torch imported before it loaded it: the loader searches for
      # none of its libtorch libraries (LD_DEBUG) when it loads it.
      LD_DEBUG=libs,files LD_DEBUG_OUTPUT=$work/ld "$venv/bin/python" - "$venv" <<'PY' || fail "the installed package does not run"
import sys, torch, myops
assert myops.__file__.startswith(sys.argv[1]), myops.__file__
assert myops._BUILT_LIBRARY.startswith(sys.argv[1]) and myops._BUILT_LIBRARY.endswith("/myops/libmyops.so"), myops._BUILT_LIBRARY
got = myops.scale_shift(torch.tensor([1.0, 2.0]), 3.0, offset=1.0)
assert got.tolist() == [4.0, 7.0], got
assert torch.ops.myops.scale_shift(torch.tensor([2.0]), 0.5).tolist() == [1.0]
print("ok: import myops loads", myops._BUILT_LIBRARY, "and myops.scale_shift runs")
PY
      # The loader's searches for libtorch's libraries from its mapping libmyops.so to its initializing it.
      searched() {
        awk '/file=.*myops\/libmyops\.so .*generating link map/ { on = 1; next }
             on && /calling init: .*myops\/libmyops\.so/ { printf "%s", block; found = 1; exit }
             on && /find library=lib(torch|c10)/ { block = block $0 "\n" }
             END { if (!found) print "no libmyops.so in the log" }' "$@"
      }
      [[ -z $(searched "$work"/ld.*) ]] || { searched "$work"/ld.*; fail "libmyops.so searched for libtorch's libraries"; }
      # (The check sees a search: libmyops.so loaded without torch imported first searches for them.)
      if LD_DEBUG=libs,files LD_DEBUG_OUTPUT=$work/ld-alone "$venv/bin/python" -c 'import ctypes, sys; ctypes.CDLL(sys.argv[1])' \
           "$(find "$venv/lib" -path '*-packages/myops/libmyops.so')" 2>"$work/alone.err"; then
        searched "$work"/ld-alone.* | grep -q "find library=libtorch_cpu" ||
          fail "the LD_DEBUG check sees no search even for libmyops.so loaded alone"
      else
        # pip's PyTorch: its libraries are in no folder the loader searches, so alone it does not load.
        grep -qE "lib(torch|c10)[a-z_]*\.so: cannot open" "$work/alone.err" ||
          { cat "$work/alone.err"; fail "libmyops.so does not load on its own"; }
      fi
      echo "ok: libmyops.so took the libtorch libraries that import torch loaded (no search path needed)"
      echo "== a C++ program uses the installed wheel's library: find_package(myops), site-packages on CMAKE_PREFIX_PATH"
      site=$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["platlib"])')
      mkdir -p "$work/cpp-src"
      printf '%s\n' '#include <myops/Functions.h>' '#include <ATen/ATen.h>' '#include <iostream>' \
        'int main() { std::cout << myops::scale_shift(at::ones({2}), 2.0, 0.5).sum().item<double>() << std::endl; }' \
        >"$work/cpp-src/main.cpp"
      printf '%s\n' 'cmake_minimum_required(VERSION 3.22)' 'project(usewheel CXX)' 'find_package(myops REQUIRED)' \
        'add_executable(usewheel main.cpp)' 'target_link_libraries(usewheel PRIVATE myops::myops)' >"$work/cpp-src/CMakeLists.txt"
      cmake -S "$work/cpp-src" -B "$work/cpp" -G "$generator" -DCMAKE_PREFIX_PATH="$site" "${launcher[@]}" >"$work/cpp.log" 2>&1 &&
        cmake --build "$work/cpp" >>"$work/cpp.log" 2>&1 || { cat "$work/cpp.log"; fail "find_package(myops) of the installed wheel"; }
      grep -qF "$site/myops/libmyops.so" "$work/cpp/build.ninja" || fail "usewheel does not link the wheel's libmyops.so"
      [[ $("$work/cpp/usewheel") == 5 ]] || fail "usewheel printed $("$work/cpp/usewheel"), not 5"
      echo "ok: usewheel, built against the wheel's headers and CMake package, runs myops::scale_shift"
      echo "== install_operator_library's errors in a wheel (configured as scikit-build-core does: SKBUILD)"
      wheel_error() {  # NAME EXPECTED-TEXT [CMAKE-ARG]...
        local name=$1 expected=$2
        shift 2
        rm -rf "$work/bad"
        if cmake -S "$work/bad-src" -B "$work/bad" -G "$generator" -DSKBUILD=2 "$@" >"$work/bad.log" 2>&1; then
          fail "$name: configure succeeded"
        fi
        tr -s ' \n' '  ' <"$work/bad.log" | grep -qF "$expected" || { cat "$work/bad.log"; fail "$name: no '$expected'"; }
        echo "ok: $name"
      }
      cp -r "$src" "$work/bad-src"
      printf '#!/bin/sh\necho 1.0.0\n' >"$work/python-with-torch-1.0"
      chmod +x "$work/python-with-torch-1.0"
      wheel_error "another torch than the Python's" \
        "install_operator_library(myops): the wheel is built against PyTorch $release" \
        -DPython_EXECUTABLE="$work/python-with-torch-1.0"
      tr -s ' \n' '  ' <"$work/bad.log" | grep -qF "imports torch 1.0.0, the release the wheel would require" || { cat "$work/bad.log"; fail "the Python's torch is not named"; }
      sed -i '/^  PYTHON_MODULE)$/d; s/^  BACKENDS CPU$/  BACKENDS CPU)/' "$work/bad-src/CMakeLists.txt"
      wheel_error "no PYTHON_MODULE" \
        "install_operator_library(myops): in a wheel (scikit-build-core sets SKBUILD) the library is what its Python package loads: make it SHARED, with PYTHON_MODULE ('myops' is SHARED_LIBRARY without PYTHON_MODULE)"
    else
      "$venv/bin/python" - <<'PY' || fail "import torch does not load the backend"
import sys, torch
assert "hostdev" in sys.modules, "import torch did not import hostdev (the torch.backends entry point)"
ones = torch.ones(3, device="hostdev")
assert ones.device.type == "hostdev", ones.device
assert (ones + ones).cpu().tolist() == [2.0, 2.0, 2.0]
assert torch.hostdev.device_count() == 1
print("ok: import torch loaded hostdev (torch", torch.__version__ + "); torch.ones(3, device='hostdev') + itself runs")
PY
      TORCH_DEVICE_BACKEND_AUTOLOAD=0 "$venv/bin/python" -c 'import sys, torch; assert "hostdev" not in sys.modules' ||
        fail "TORCH_DEVICE_BACKEND_AUTOLOAD=0, yet import torch imported hostdev"
      echo "ok: TORCH_DEVICE_BACKEND_AUTOLOAD=0 turns the autoload off"
    fi

    echo "== uninstalled"
    "$venv/bin/python" -m pip uninstall -y "$package" >"$work/uninstall.log" 2>&1 || { cat "$work/uninstall.log"; fail "pip uninstall failed"; }
    left=$(find "$venv/lib" -path "*-packages/$package*" | head -5)
    [[ -z $left ]] || fail "pip uninstall left $left"
    "$venv/bin/python" -c "import importlib.util, sys; sys.exit(importlib.util.find_spec('$package') is not None)" ||
      fail "$package is still importable after pip uninstall"
    echo "ok: nothing of $package is left"
    echo "wheel $5: all good"
    ;;
  stable_binary)
    # The runtimes: NAME, then the command that runs a command in it.
    scripts=$(cd "$here/../tool/scripts" && pwd)
    runtimes=("torch210 $scripts/pip-runtime.sh 2.10.* run" "torch2 $scripts/torch-root.sh sid run"
              "torch215 $scripts/pip-runtime.sh 2.15.0 run")
    "$scripts/pip-runtime.sh" "2.10.*" check && "$scripts/pip-runtime.sh" 2.15.0 check && "$scripts/torch-root.sh" sid check ||
      { echo "skipped: a runtime of the check is missing (above)"; exit 77; }
    run_in() {  # NAME CMD...: CMD in runtime NAME
      local name=$1 r
      shift
      for r in "${runtimes[@]}"; do
        # shellcheck disable=SC2086
        [[ ${r%% *} == "$name" ]] && { set -f; ${r#* } "$@"; local status=$?; set +f; return $status; }
      done
      fail "no runtime $name"
    }
    echo "== built once, against pip's PyTorch $(run_in torch210 python3 -c 'import torch; print(torch.__version__)')"
    run_in torch210 cmake -S "$work/src" -B "$build" -G "$generator" -DCMAKE_PREFIX_PATH="$where" \
      -DPYTHON3="$("$scripts/pip-runtime.sh" "2.10.*" path)/bin/python3" "${launcher[@]}" >"$work/configure.log" 2>&1 ||
      { cat "$work/configure.log"; fail "configuring against 2.10"; }
    run_in torch210 cmake --build "$build" -j "$jobs" --target stableops >"$work/last.log" 2>&1 ||
      { cat "$work/last.log"; fail "building against 2.10"; }
    lib=$build/libstableops.so
    sum=$(sha256sum "$lib" | cut -d' ' -f1)
    include=$(dirname "$(dirname "$(find "$build/stableops_generated" -path '*/include/stableops/Functions.h')")")
    package=$build/stableops_generated/python
    opcheck=$(find "$where" -name OpGenOpcheck.py | head -n1)
    echo "ok: $(basename "$lib") sha256 $sum"
    # The C++ test against a runtime's libtorch, linking the library built above as it is.
    mkdir -p "$work/cpp"
    cp "$work/src/stableops_test.cpp" "$work/cpp/"
    cat >"$work/cpp/CMakeLists.txt" <<CMAKE
cmake_minimum_required(VERSION 3.22)
project(stablecheck CXX)
set(CMAKE_CXX_STANDARD 17)
find_package(Torch REQUIRED)
find_package(GTest REQUIRED)
add_library(stableops SHARED IMPORTED)
set_target_properties(stableops PROPERTIES IMPORTED_LOCATION "$lib" IMPORTED_NO_SONAME ON
                      INTERFACE_INCLUDE_DIRECTORIES "$include" INTERFACE_COMPILE_DEFINITIONS TORCH_TARGET_VERSION=0x020a000000000000)
add_executable(stableops_test stableops_test.cpp)
target_link_libraries(stableops_test PRIVATE stableops torch GTest::gtest_main)
# (loading the library registers the operators; the test calls them through the dispatcher only)
target_link_options(stableops_test PRIVATE LINKER:--no-as-needed)
# (pip's CUDA build: its NVIDIA libraries before a CUDA toolkit's, as add_operator_library does)
file(GLOB nvidia LIST_DIRECTORIES true "\${TORCH_INSTALL_PREFIX}/../nvidia/*/lib")
if(nvidia)
  list(JOIN nvidia ":" nvidia)
  target_link_options(stableops_test PRIVATE "LINKER:-rpath-link=\${nvidia}")
endif()
CMAKE
    for r in "${runtimes[@]}"; do
      name=${r%% *}
      version=$(run_in "$name" python3 -c 'import torch; print(torch.__version__)')
      echo "== on $name: PyTorch $version"
      rm -rf "$work/cpp-$name"
      { run_in "$name" cmake -S "$work/cpp" -B "$work/cpp-$name" -G "$generator" &&
        run_in "$name" cmake --build "$work/cpp-$name"; } >"$work/cpp-$name.log" 2>&1 ||
        { cat "$work/cpp-$name.log"; fail "the C++ test does not build against PyTorch $version"; }
      run_in "$name" "$work/cpp-$name/stableops_test" >"$work/cpp-$name.log" 2>&1 ||
        { cat "$work/cpp-$name.log"; fail "the C++ test fails on PyTorch $version"; }
      echo "ok: C++: $(grep -oE '\[  PASSED  \] [0-9]+ tests?' "$work/cpp-$name.log")"
      run_in "$name" env OPGEN_STABLEOPS_LIBRARY="$lib" PYTHONPATH="$package" python3 "$work/src/test_stableops.py" ||
        fail "the Python test fails on PyTorch $version"
      echo "ok: Python: test_stableops.py"
      run_in "$name" python3 "$opcheck" "$lib" stableops "$work/src/opcheck_samples.py" \
        >"$work/opcheck-$name.log" 2>&1 || { cat "$work/opcheck-$name.log"; fail "opcheck fails on PyTorch $version"; }
      echo "ok: opcheck: $(grep -c ' PASS' "$work/opcheck-$name.log") PASS, $(grep -c ' SKIP' "$work/opcheck-$name.log") SKIP, $(grep -c ' XFAIL' "$work/opcheck-$name.log") XFAIL"
      [[ $(sha256sum "$lib" | cut -d' ' -f1) == "$sum" ]] || fail "$lib changed"
    done
    echo "stable_binary: one libstableops.so (sha256 $sum) passed on ${#runtimes[@]} runtimes"
    ;;
  stable_abi)
    configure >/dev/null
    build_log >/dev/null
    grep -q -- "-DTORCH_TARGET_VERSION=0x020a000000000000" "$build/compile_commands.json" 2>/dev/null ||
      grep -rqs -- "TORCH_TARGET_VERSION=0x020a000000000000" "$build/build.ninja" ||
      fail "the library does not compile with TORCH_TARGET_VERSION for 2.10"
    ctest --test-dir "$build" --output-on-failure
    # One binary for every PyTorch from 2.10 on: the library needs nothing of libtorch's C++ API, only
    # the stable ABI's C functions (aoti_torch_*, torch_*) and the C and C++ runtimes.
    libs=(libstableops.so)
    [[ -f $build/libstabletags.so ]] && libs+=(libstabletags.so)  # (2.12 on: see the project)
    for lib in "${libs[@]}"; do
      nm -D --undefined-only "$build/$lib" >"$work/undefined.txt" || fail "nm cannot read $build/$lib"
      c++filt <"$work/undefined.txt" | grep -E " (c10|at|torch|caffe2)::" && fail "$lib needs libtorch's C++ API (above)"
      # Unversioned C symbols come from libtorch: the stable ABI's; versioned ones from glibc and libstdc++.
      others=$(awk '{print $NF}' "$work/undefined.txt" | grep -v "@" | grep -vE "^(aoti_torch_|torch_)" |
               grep -vE "^(__gmon_start__|_ITM_deregisterTMCloneTable|_ITM_registerTMCloneTable)$" || true)
      [[ -z $others ]] || fail "$lib needs other symbols than the stable ABI's and the runtimes': $others"
      needed=(torch_library_impl)
      [[ $lib == libstableops.so ]] && needed+=(aoti_torch_library_def torch_call_dispatcher)  # (its C++ API: double_it)
      [[ $lib == libstabletags.so ]] && needed+=(torch_library_def_with_tags)  # (2.12: the schemas' tags)
      for symbol in "${needed[@]}"; do
        grep -qE " $symbol\$" "$work/undefined.txt" || fail "$symbol is not among $lib's undefined symbols"
      done
      echo "ok: $lib needs $(grep -cE ' (aoti_torch_|torch_)' "$work/undefined.txt") stable-ABI C functions and nothing of libtorch's C++ API"
    done
    # Refused at its YAML line, naming the type and the release: what the stable ABI cannot pass, and
    # what needs the unstable C++ API.
    bad=$work/bad.yaml
    printf '%s\n' "- func: bad::f(Tensor x, Scalar s) -> Tensor" "  dispatch:" "    CPU: f" \
      "- func: bad::g(Tensor x, SymInt n) -> Tensor" "- func: bad::h(Tensor x) -> Tensor" "  tags: pt2_compliant_tag" >"$bad"
    printf '%s\n' "- tag: pt2_compliant_tag" "  desc: the tag h names" >"$work/tags.yaml"
    if "$where/bin/opgen" library "$bad" -o "$work/bad" --stable-abi 2.10 2>"$work/bad.log"; then fail "opgen took $bad"; fi
    for expected in "bad.yaml:1:26: error: in 'f': argument 's': type Scalar cannot pass the stable ABI of PyTorch 2.10" \
                    "bad.yaml:4:26: error: in 'g': argument 'n': type SymInt cannot pass the stable ABI of PyTorch 2.10" \
                    "bad.yaml:6:9: error: in 'h': with STABLE_ABI 2.10, tag 'pt2_compliant_tag' cannot be registered"; do
      grep -qF -- "$expected" "$work/bad.log" || { cat "$work/bad.log"; fail "no error: $expected"; }
    done
    "$where/bin/opgen" library "$here/stable_abi/ops.yaml" -o "$work/x" --stable-abi 2.10 --derivatives "$bad" 2>"$work/bad.log" &&
      fail "opgen took --derivatives with --stable-abi"
    grep -qF -- "--stable-abi 2.10: --derivatives (DERIVATIVES) is not available" "$work/bad.log" || { cat "$work/bad.log"; fail "no derivatives error"; }
    "$where/bin/opgen" library "$here/stable_abi/ops.yaml" -o "$work/x" --stable-abi 2.9 2>"$work/bad.log" &&
      fail "opgen took --stable-abi 2.9"
    grep -qF "starts with PyTorch 2.10" "$work/bad.log" || { cat "$work/bad.log"; fail "no error for 2.9"; }
    echo "ok: what the stable ABI cannot do is refused at its line"
    quiet_rebuilds
    echo "== a missing kernel fails the build at its YAML line, with its stable declaration"
    sed -i 's/^Tensor scale_cpu_(/Tensor scale_cpu_renamed(/' "$work/src/kernels.cpp"
    if build_log >/dev/null; then fail "the library built without the kernel scale_cpu_"; fi
    grep -F "error: in 'scale_': kernel 'scale_cpu_' (CPU) is declared but not defined; expected: torch::stable::Tensor stableops::native::scale_cpu_(const torch::stable::Tensor& self, double alpha)" "$work/last.log" ||
      fail "no error for the missing kernel scale_cpu_ ($work/last.log)"
    echo "stable_abi: all good"
    ;;
  *) sed -n '2,45p' "$0" >&2; exit 2 ;;
esac
