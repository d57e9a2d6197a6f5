#!/usr/bin/env bash
# The tests' second runtime: PyTorch 2 (Debian sid's libtorch-dev and python3-torch) in a root of its
# own, made with mmdebstrap from Debian's package registry and cached outside any build folder.
#
#   sid-root.sh ensure          make the root unless it is there and its tools run (about 2 GB,
#                               4-7 minutes), print its path
#   sid-root.sh check           exit 0 if the root is there, else 77 (ctest's "skipped") with the reason
#   sid-root.sh run CMD [ARG]...
#                               run CMD inside the root, in the current folder, as root: /proc, /dev,
#                               /tmp and this project's folders (OPGEN_ROOT_BINDS, colon-separated,
#                               adds more) are bind-mounted at their own paths in a private mount
#                               namespace, so nothing stays mounted afterwards
#   sid-root.sh path            print where the root is (or would be)
#
# Where: $OPGEN_SID_ROOT, else ${XDG_CACHE_HOME:-~/.cache}/opgen/sid-root. The root records the
# package list it was made with; a root made with another list is made again. When the registry
# cannot be reached, `ensure` says so and exits 77; the tests that need the root then report that
# reason as skipped (never as passed).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
project=$(cd "$here/../.." && pwd)

mirror=${OPGEN_SID_MIRROR:-http://deb.debian.org/debian}
# What the tests run inside: the compiler and build tools of the plugin tests, PyTorch 2 for C++ and
# Python, GoogleTest (the test projects' C++ tests), and the libraries an opgen built on the host
# links (libyaml, libmd; mimalloc's soname differs in sid and is copied from the host, see below).
packages=(libtorch-dev python3-torch g++ cmake ninja-build make libgtest-dev libyaml-0-2 libmd0 ccache)
recipe="sid ${packages[*]}"

root=${OPGEN_SID_ROOT:-${XDG_CACHE_HOME:-$HOME/.cache}/opgen/sid-root}
stamp=$root/.opgen-root
reason_file=${root%/}.unavailable

skip() {  # prints the reason, remembers it for `check`, exits 77
  echo "sid-root: skipped: $*" >&2
  mkdir -p "$(dirname "$reason_file")" && echo "$*" >"$reason_file"
  exit 77
}

ready() { [[ -f $stamp && $(cat "$stamp") == "$recipe" ]]; }

# A root with the right stamp can still be unusable (a cache restored without its symlinks, a
# half-deleted folder): `ensure` checks that the tools and PyTorch the tests use really run in it.
usable() {  # [-v] [DIR] (default: the root); with -v, prints what the check printed when it fails
  local dir=$root verbose=0 output
  [[ ${1:-} == -v ]] && { verbose=1; shift; }
  [[ -n ${1:-} ]] && dir=$1
  output=$(chroot "$dir" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin /bin/sh -c \
    'command -v ldconfig g++ cmake ninja make ccache >/dev/null && python3 -c "import torch"' 2>&1) && return 0
  ((verbose == 0)) || echo "$output" >&2
  return 1
}

ensure() {
  if ready; then
    usable && { echo "$root"; return; }
    echo "sid-root: the root in $root is there but unusable (its tools or PyTorch do not run); making it again" >&2
    rm -f "$stamp"
  fi
  [[ $(id -u) == 0 ]] || skip "making the Debian sid root needs root (mmdebstrap, chroot)"
  command -v mmdebstrap >/dev/null || skip "mmdebstrap is not installed (apt-get install mmdebstrap)"
  mkdir -p "$(dirname "$root")"
  exec 9>"$root.lock"
  flock 9  # another test may be making it right now
  ready && { echo "$root"; return; }
  if ! curl -fsS -o /dev/null --max-time 30 "$mirror/dists/sid/Release" 2>/dev/null &&
     ! wget -q -O /dev/null --timeout=30 "$mirror/dists/sid/Release" 2>/dev/null; then
    skip "Debian's package registry ($mirror) cannot be reached, so the PyTorch 2 root cannot be made"
  fi
  echo "sid-root: making the PyTorch 2 root in $root (Debian sid, about 2 GB; 4-7 minutes, once)" >&2
  local start=$SECONDS tmp
  rm -rf "$root" "$root".new.*
  tmp=$(mktemp -d "$root.new.XXXXXX")
  # sid's index is a fixed snapshot whose Release file is past its Valid-Until date.
  if ! mmdebstrap --variant=apt --quiet --aptopt='Acquire::Check-Valid-Until "false"' \
       --include="$(IFS=,; echo "${packages[*]}")" sid "$tmp" "$mirror" >"$tmp.log" 2>&1; then
    tail -n 20 "$tmp.log" >&2
    rm -rf "$tmp"
    echo "sid-root: mmdebstrap failed (log: $tmp.log)" >&2
    exit 1
  fi
  rm -f "$tmp.log"
  # sid's files live under /usr; the top-level links to them come from base-files or mmdebstrap's
  # merged-/usr step. Where one is missing (a root without /sbin failed every test once), make it.
  local d
  for d in bin sbin lib lib64; do
    [[ -e $tmp/$d || -L $tmp/$d || ! -d $tmp/usr/$d ]] || ln -s "usr/$d" "$tmp/$d"
  done
  if ! usable -v "$tmp"; then
    echo "sid-root: mmdebstrap made $tmp, but its tools or PyTorch do not run in it (above); its /sbin: $(ls -ld "$tmp/sbin")" >&2
    rm -rf "$tmp"
    exit 1
  fi
  echo "$recipe" >"$tmp/.opgen-root"
  mv "$tmp" "$root"
  rm -f "$reason_file"
  echo "sid-root: made in $((SECONDS - start)) s" >&2
  echo "$root"
}

check() {
  ready && return 0
  if [[ -f $reason_file ]]; then
    echo "skipped: the PyTorch 2 root is not there: $(cat "$reason_file")" >&2
  else
    echo "skipped: the PyTorch 2 root is not there ($root); make it with tool/scripts/sid-root.sh ensure" >&2
  fi
  exit 77
}

# An opgen built on the host runs in the root when the shared libraries it links are there: the
# ones the root lacks (mimalloc's soname differs between Debian 12 and sid) are copied from the
# host into the root's /usr/local/lib.
provide_host_libraries() {
  local exe=$1 name lib known copied=0
  known=$(chroot "$root" /sbin/ldconfig -p | awk '{print $1}')
  while read -r name lib; do
    grep -qxF "$name" <<<"$known" && continue
    cp -L "$lib" "$root/usr/local/lib/$name"
    copied=1
  done < <(ldd "$exe" | awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}')
  ((copied == 0)) || chroot "$root" /sbin/ldconfig
}

run() {
  check
  [[ -n ${OPGEN_ROOT_HOST_EXE:-} ]] && provide_host_libraries "$OPGEN_ROOT_HOST_EXE"
  exec unshare --mount --propagation private "$0" _inside "$PWD" "$@"
}

# In the private mount namespace of `run`: mount, enter, run.
inside() {
  local cwd=$1 b
  shift
  local binds=(/proc /dev /tmp "$project")
  if [[ -n ${OPGEN_ROOT_BINDS:-} ]]; then
    IFS=: read -r -a more <<<"$OPGEN_ROOT_BINDS"
    binds+=("${more[@]}")
  fi
  for b in "${binds[@]}"; do
    [[ -e $b ]] || continue
    b=$(realpath "$b")
    mkdir -p "$root$b"
    mount --rbind "$b" "$root$b"
  done
  # The root's own PATH and Python; the tests' OPGEN_* settings pass through.
  local env=(HOME=/root PATH=/usr/local/bin:/usr/bin:/bin LANG=C.UTF-8)
  while IFS='=' read -r -d '' name value; do
    [[ $name == OPGEN_* || $name == CTEST_* ]] && env+=("$name=$value")
  done < <(env -0)
  exec chroot "$root" /usr/bin/env -i "${env[@]}" /bin/sh -c 'cd "$0" && exec "$@"' "$cwd" "$@"
}

case ${1:-} in
  ensure) ensure ;;
  check) check ;;
  path) echo "$root" ;;
  _inside) shift; inside "$@" ;;
  run) shift; [[ $# -gt 0 ]] || { echo "sid-root.sh run: no command" >&2; exit 2; }; run "$@" ;;
  *) sed -n '2,18p' "$0" >&2; exit 2 ;;
esac
