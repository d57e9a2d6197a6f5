#!/usr/bin/env bash
# The tests' runtimes from pip: PyTorch as most users install it (`pip install torch`, on Linux a CUDA
# build with NVIDIA's libraries as packages of their own), in a virtual environment of the host's
# Python (Debian 12: 3.11), made with the pip client as this machine configures it (its index, its
# mirrors) and cached outside any build folder.
#
#   pip-runtime.sh SPEC ensure      make the environment unless it is there and its PyTorch imports
#                                   (5-7 GB, about 2 minutes here: pip's downloads shown as
#                                   progress), print its path
#   pip-runtime.sh SPEC check       exit 0 if it is there, else 77 (ctest's "skipped") with the reason
#   pip-runtime.sh SPEC run CMD [ARG]...
#                                   run CMD with the environment's bin/ first on PATH (python3 is its
#                                   Python), VIRTUAL_ENV set, and its PyTorch's folder in
#                                   CMAKE_PREFIX_PATH (find_package(Torch) finds it, and its
#                                   libraries before any in the system's folders)
#   pip-runtime.sh SPEC path        print where the environment is (or would be)
#   pip-runtime.sh SPEC version     print the PyTorch version installed there
#
# SPEC: a pip version specifier of torch: 2.15.0, or 2.10.* (the newest 2.10 release). Where:
# $OPGEN_PIP_RUNTIMES/torch-SPEC (OPGEN_PIP_RUNTIMES defaults to ${XDG_CACHE_HOME:-~/.cache}/opgen),
# `*` written as x (torch-2.10.x). The environment records what it was made with (.opgen-pip); a
# list that gains packages installs them into it. When the index cannot be reached, `ensure` says so
# and exits 77; the tests that need the environment then report that reason as skipped.
set -euo pipefail
usage() { sed -n '2,24p' "$0" >&2; exit 2; }

spec=${1:-}
[[ $spec =~ ^[0-9]+\.[0-9]+\.([0-9]+|\*)$ ]] || usage
shift
# What the tests use besides PyTorch: numpy and expecttest (torch.testing's opcheck and test helpers
# import them), PyYAML, scikit-build-core (the wheel tests build with it, without isolation), and a
# current pip (the one a venv of Debian 12's Python starts with, 23.0, lacks `pip wheel -C`).
packages=("torch==$spec" numpy expecttest pyyaml scikit-build-core "pip>=24")
python=${OPGEN_PIP_PYTHON:-/usr/bin/python3}
env_dir=${OPGEN_PIP_RUNTIMES:-${XDG_CACHE_HOME:-$HOME/.cache}/opgen}/torch-${spec//\*/x}
env_dir=${env_dir%/}
stamp=$env_dir/.opgen-pip
reason_file=$env_dir.unavailable
log_file=$env_dir.log
recipe="$python ${packages[*]} sysconfig-libdir"

skip() {
  echo "pip-runtime: skipped: $*" >&2
  mkdir -p "$(dirname "$reason_file")" && echo "$*" >"$reason_file"
  exit 77
}
ready() { [[ -f $stamp && $(cat "$stamp") == "$recipe" ]]; }
usable() { "$env_dir/bin/python3" -c 'import torch, numpy, expecttest' >/dev/null 2>&1; }
version() { "$env_dir/bin/python3" -c 'import torch; print(torch.__version__)'; }

ensure() {
  if ready && usable; then echo "$env_dir"; return; fi
  "$python" -c 'import venv, ensurepip' 2>/dev/null ||
    skip "$python cannot make a virtual environment (Debian: python3-venv)"
  mkdir -p "$(dirname "$env_dir")"
  exec 9>"$env_dir.lock"
  flock 9  # another test may be making it right now
  if ready && usable; then echo "$env_dir"; return; fi
  local start=$SECONDS
  if [[ ! -x $env_dir/bin/python3 ]] || ! "$env_dir/bin/python3" -c 'import pip' 2>/dev/null; then
    rm -rf "$env_dir"
    "$python" -m venv "$env_dir" >"$log_file" 2>&1 || { cat "$log_file" >&2; exit 1; }
  fi
  echo "pip-runtime: installing ${packages[*]} into $env_dir with pip (5-7 GB with NVIDIA's packages; log: $log_file)" >&2
  # pip's own lines, one per package collected and downloaded, are the progress (no bars: not a
  # terminal under ctest); its wheel cache is left off: the environment is the cache.
  local status=0
  "$env_dir/bin/python3" -m pip install --no-cache-dir --progress-bar off "${packages[@]}" 2>&1 |
    tee -a "$log_file" | grep --line-buffered -E '^ *(Downloading|Installing collected|Successfully installed|ERROR)' |
    sed -u "s/^ */  pip: /" >&2 || status=$?
  if ! usable; then
    if grep -qE 'Could not find a version|No matching distribution' "$log_file"; then
      skip "pip found no release of ${packages[0]} for $python ($("$python" --version 2>&1)): see $log_file"
    elif grep -qE 'NewConnectionError|Network is unreachable|Temporary failure in name resolution|ConnectTimeout|ReadTimeout' "$log_file"; then
      skip "pip could not reach its package index (as this machine's pip is configured), so the PyTorch ${spec} environment cannot be made: see $log_file"
    fi
    echo "pip-runtime: pip failed to install ${packages[*]} (exit $status); the log: $log_file" >&2
    exit 1
  fi
  # AOTInductor links a compiled model with -L<Python's LIBDIR> before -L<torch/lib>: with Debian's
  # Python that is /usr/lib/x86_64-linux-gnu, where Debian's libtorch-dev (the host's PyTorch 1.13)
  # has libtorch.so, which the model then links instead of pip's and cannot load ("undefined symbol:
  # aoti_torch_dtype_float32"; PyTorch's doing, on any such machine). The environment's Python takes
  # its build configuration from a copy whose LIBDIR is the environment's lib/ (`run` names it).
  "$env_dir/bin/python3" - "$env_dir" <<'PY' || { echo "pip-runtime: cannot write the sysconfig data" >&2; exit 1; }
import os, sys, sysconfig, importlib
data = importlib.import_module(sysconfig._get_sysconfigdata_name())
build = dict(data.build_time_vars, LIBDIR=os.path.join(sys.argv[1], "lib"))
site = sysconfig.get_paths()["purelib"]
with open(os.path.join(site, "_sysconfigdata_opgen_venv.py"), "w") as f:
    f.write("build_time_vars = %r\n" % build)
PY
  echo "$recipe" >"$stamp"
  rm -f "$reason_file"
  echo "pip-runtime: PyTorch $(version) in $env_dir, $(du -sh "$env_dir" | cut -f1), made in $((SECONDS - start)) s" >&2
  echo "$env_dir"
}

check() {
  ready && usable && return 0
  if [[ -f $reason_file ]]; then
    echo "skipped: the pip runtime torch==$spec is not there: $(cat "$reason_file")" >&2
  else
    echo "skipped: the pip runtime torch==$spec is not there ($env_dir); make it with tool/scripts/pip-runtime.sh '$spec' ensure" >&2
  fi
  exit 77
}

run() {
  [[ $# -gt 0 ]] || usage
  local prefix
  # PyTorch's own folder: find_package(Torch) finds its share/cmake/Torch there, and find_library
  # its lib/ before the system's folders, where another PyTorch may be (Debian's libtorch-dev on the
  # host; see add_operator_library's check). The same import as `usable`, once.
  ready && prefix=$("$env_dir/bin/python3" -c 'import os, torch, numpy, expecttest; print(os.path.dirname(torch.__file__))' 2>/dev/null) ||
    check
  export VIRTUAL_ENV=$env_dir PATH=$env_dir/bin:$PATH
  export CMAKE_PREFIX_PATH=$prefix${CMAKE_PREFIX_PATH:+:$CMAKE_PREFIX_PATH}
  # (the build configuration without the system's library folder: see ensure)
  [[ -f $prefix/../_sysconfigdata_opgen_venv.py ]] &&
    export _PYTHON_SYSCONFIGDATA_NAME=_sysconfigdata_opgen_venv
  unset PYTHONHOME
  exec "$@"
}

case ${1:-} in
  ensure) ensure ;;
  check) check ;;
  run) shift; run "$@" ;;
  path) echo "$env_dir" ;;
  version) ready && usable || check; version ;;
  *) usage ;;
esac
