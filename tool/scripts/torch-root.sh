#!/usr/bin/env bash
# The tests' PyTorch 2 runtimes: Debian's libtorch-dev and python3-torch of another Debian release, in
# a root of its own, made with mmdebstrap from the Debian mirror this machine's apt uses, and cached
# outside any build folder.
#
#   torch-root.sh SUITE ensure      make the root unless it is there and its tools run (about 2 GB,
#                                   4-9 minutes), print its path
#   torch-root.sh SUITE check       exit 0 if the root is there, else 77 (ctest's "skipped") with the reason
#   torch-root.sh SUITE run CMD [ARG]...
#                                   run CMD inside the root, in the current folder, as root: /proc, /dev,
#                                   /tmp and this project's folders (OPGEN_ROOT_BINDS, colon-separated,
#                                   adds more) are bind-mounted at their own paths in a mount namespace of
#                                   its own, so nothing stays mounted afterwards
#   torch-root.sh SUITE path        print where the root is (or would be)
#   torch-root.sh mirror            print the Debian mirror the roots are made from
#
# SUITE: sid (PyTorch 2.14.1, GCC 16, CMake 4.3) or trixie (PyTorch 2.6.0, GCC 14, CMake 3.31).
# Where: $OPGEN_<SUITE>_ROOT (OPGEN_SID_ROOT, OPGEN_TRIXIE_ROOT), else
# ${XDG_CACHE_HOME:-~/.cache}/opgen/SUITE-root. The root records the package list it was made with
# (.opgen-root) and the packages installed into it since (.opgen-root-added): when the list below
# gains packages, `ensure` installs those into the existing root (apt-get inside it, under a minute)
# instead of making it again; packages dropped from the list stay. The mirror is
# $OPGEN_DEBIAN_MIRROR, else the first Debian archive (not -security) in
# /etc/apt/sources.list.d/*.sources or /etc/apt/sources.list. When the mirror cannot be reached,
# `ensure` says so and exits 77; the tests that need the root then report that reason as skipped
# (never as passed). A failed download is tried once more; apt's own errors are printed and kept in
# SUITE-root.log beside the root.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
project=$(cd "$here/../.." && pwd)
self=$here/$(basename "${BASH_SOURCE[0]}")  # (`enter` re-runs it from another folder)

usage() { sed -n '2,27p' "$0" >&2; exit 2; }

# The first Debian archive of this machine's apt sources: deb822 files first, then the one-line format.
debian_mirror() {
  if [[ -n ${OPGEN_DEBIAN_MIRROR:-} ]]; then echo "$OPGEN_DEBIAN_MIRROR"; return; fi
  local uri
  uri=$( { for f in /etc/apt/sources.list.d/*.sources; do
             [[ -f $f ]] || continue
             # one stanza per paragraph: print its first URI when it is a deb archive without -security
             awk 'BEGIN { RS = ""; FS = "\n" }
                  { types = ""; uris = ""; suites = ""
                    for (i = 1; i <= NF; i++) {
                      if ($i ~ /^Types:/) types = $i
                      if ($i ~ /^URIs:/) uris = $i
                      if ($i ~ /^Suites:/) suites = $i
                      if ($i ~ /^Enabled: *no/) types = "" }
                    if (types ~ /[ \t]deb([ \t]|$)/ && suites !~ /-security/ && uris != "") {
                      split(uris, u, /[ \t]+/); print u[2] } }' "$f"
           done
           [[ -f /etc/apt/sources.list ]] &&
             awk '$1 == "deb" { i = 2; if ($2 ~ /^\[/) { while ($i !~ /\]$/) i++; i++ }
                                if ($(i+1) !~ /-security/) print $i }' /etc/apt/sources.list
         } 2>/dev/null | grep -E '^(https?|file)://' | grep -v -e '-security' | head -n 1)
  [[ -n $uri ]] && echo "${uri%/}"
}

suite=${1:-}
case $suite in
  mirror) debian_mirror || { echo "torch-root: no Debian archive in this machine's apt sources" >&2; exit 1; }; exit 0 ;;
  sid)
    # libtorch 2.14.1, Python 3.14, GCC 16, CMake 4.3. sid's index here is a fixed snapshot whose
    # Release file is past its Valid-Until date.
    packages=(libtorch-dev python3-torch g++ cmake ninja-build make libgtest-dev libyaml-0-2 libmd0 ccache
              python3-scikit-build-core python3-pip python3-venv)
    aptopts=('Acquire::Check-Valid-Until "false"') ;;
  trixie)
    # libtorch 2.6.0, Python 3.13, GCC 14, CMake 3.31.
    packages=(libtorch-dev python3-torch g++ cmake ninja-build make libgtest-dev libyaml-0-2 libmd0 ccache
              python3-scikit-build-core python3-pip python3-venv)
    aptopts=('Acquire::Check-Valid-Until "false"') ;;
  ''|-h|--help) usage ;;
  *) echo "torch-root: unknown suite '$suite' (sid, trixie)" >&2; exit 2 ;;
esac
shift
# What the tests run inside: the compiler and build tools of the plugin tests, PyTorch for C++ and
# Python, GoogleTest (the test projects' C++ tests), the libraries an opgen built on the host
# links (libyaml, libmd; others, such as mimalloc whose soname differs, are copied from the host),
# and what builds and installs a wheel (scikit-build-core, pip, venv: the wheel tests). Only ever add
# to the lists: a package added is installed into a root made before (see ensure).
recipe="$suite ${packages[*]}"
upper=$(tr '[:lower:]' '[:upper:]' <<<"$suite")
root_var=OPGEN_${upper}_ROOT
root=${!root_var:-${XDG_CACHE_HOME:-$HOME/.cache}/opgen/$suite-root}
root=${root%/}
stamp=$root/.opgen-root
added=$root/.opgen-root-added
reason_file=$root.unavailable
log_file=$root.log

skip() {  # prints the reason, remembers it for `check`, exits 77
  echo "torch-root: skipped: $*" >&2
  mkdir -p "$(dirname "$reason_file")" && echo "$*" >"$reason_file"
  exit 77
}

# The root is there, made for this suite (its stamp: "SUITE PACKAGE..."), whatever its packages.
made() { [[ -f $stamp && $(cut -d' ' -f1 "$stamp") == "$suite" ]]; }
# The packages of the list that the root lacks: neither made with nor installed since, one a line.
missing_packages() {
  comm -23 <(printf '%s\n' "${packages[@]}" | sort -u) \
           <({ cut -d' ' -f2- "$stamp" | tr ' ' '\n'; cat "$added" 2>/dev/null || true; } | sort -u)
}
ready() { made && [[ -z $(missing_packages) ]]; }

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

# mmdebstrap into DIR; its whole output goes to the log. Returns mmdebstrap's status.
debootstrap_into() {
  local dir=$1 mirror=$2 opts=() o
  for o in "${aptopts[@]}"; do opts+=(--aptopt="$o"); done
  mmdebstrap --variant=apt "${opts[@]}" --include="$(IFS=,; echo "${packages[*]}")" \
    "$suite" "$dir" "$mirror" >>"$log_file" 2>&1
}

# apt's and mmdebstrap's own error lines from the log (what --quiet used to hide), at most 15; from
# line FROM on (default: the whole log).
log_errors() {
  tail -n "+${1:-1}" "$log_file" |
    grep -E '^(E|W|Err|Ign):|Failed to fetch|Hash Sum mismatch|Could not|Unable to|Temporary failure|Connection|404|mmdebstrap failed|error' |
    grep -v '^W: .*Valid-Until' | tail -n 15 || true
}
download_failed() {  # FROM: whether the log from line FROM on says a download failed
  tail -n "+$1" "$log_file" | grep -qE 'Failed to fetch|download failed|Hash Sum mismatch|Connection|Temporary failure|Could not'
}

# The packages of the list that the root made earlier lacks, installed into it with its own apt
# (apt-get update and install inside the root, through `enter`), with the log and the one retry of
# the making. Under the lock of `ensure`. The root keeps working for the tests running in it meanwhile:
# packages are only added.
add_packages() {
  local missing start=$SECONDS try from
  mapfile -t missing < <(missing_packages)
  echo "torch-root: installing ${missing[*]} into the $suite root in $root (added to its package list; log: $log_file)" >&2
  for try in 1 2; do
    touch "$log_file"
    from=$(($(wc -l <"$log_file") + 1))
    echo "== apt-get install ${missing[*]} into the $suite root (try $try)" >>"$log_file"
    if (cd / && enter /usr/bin/env DEBIAN_FRONTEND=noninteractive /bin/sh -c \
          'apt-get update && apt-get install -y --no-install-recommends "$@" && apt-get clean' sh "${missing[@]}") \
          >>"$log_file" 2>&1; then
      printf '%s\n' "${missing[@]}" >>"$added"
      rm -f "$reason_file"
      echo "torch-root: installed ${missing[*]} into the $suite root in $((SECONDS - start)) s" >&2
      return 0
    fi
    if ((try == 1)) && download_failed "$from"; then
      echo "torch-root: a download failed; trying once more:" >&2
      log_errors "$from" | sed 's/^/  /' >&2
      continue
    fi
    break
  done
  echo "torch-root: apt-get could not install ${missing[*]} into the $suite root; apt said:" >&2
  log_errors "$from" | sed 's/^/  /' >&2
  echo "torch-root: the whole log: $log_file" >&2
  return 1
}

ensure() {
  if ready; then
    usable && { echo "$root"; return; }
    echo "torch-root: the $suite root in $root is there but unusable (its tools or PyTorch do not run); making it again" >&2
    rm -f "$stamp"
  fi
  [[ $(id -u) == 0 ]] || skip "making the Debian $suite root needs root (mmdebstrap, chroot)"
  command -v mmdebstrap >/dev/null || skip "mmdebstrap is not installed (apt-get install mmdebstrap)"
  local mirror
  mirror=$(debian_mirror) ||
    skip "no Debian archive in this machine's apt sources (/etc/apt/sources.list.d/*.sources, /etc/apt/sources.list); set OPGEN_DEBIAN_MIRROR"
  mkdir -p "$(dirname "$root")"
  exec 9>"$root.lock"
  flock 9  # another test may be making it right now
  ready && { echo "$root"; return; }
  if ! curl -fsS -o /dev/null --max-time 30 "$mirror/dists/$suite/Release" 2>/dev/null &&
     ! wget -q -O /dev/null --timeout=30 "$mirror/dists/$suite/Release" 2>/dev/null; then
    skip "the Debian mirror $mirror (from this machine's apt sources) cannot be reached, so the $suite root cannot be made"
  fi
  # Made before with fewer packages: install those added to the list, keep the rest.
  if made && usable; then
    add_packages || exit 1
    echo "$root"
    return
  fi
  echo "torch-root: making the $suite root in $root (PyTorch from Debian $suite, about 2 GB; 4-9 minutes, once; log: $log_file)" >&2
  local start=$SECONDS tmp try
  rm -rf "$root" "$root".new.*
  : >"$log_file"
  for try in 1 2; do
    tmp=$(mktemp -d "$root.new.XXXXXX")
    echo "== mmdebstrap $suite (try $try) from $mirror" >>"$log_file"
    debootstrap_into "$tmp" "$mirror" && break
    rm -rf "$tmp"
    tmp=
    # A download that failed half-way (a reset connection, a mirror syncing) usually works the second time.
    if ((try == 1)) && download_failed 1; then
      echo "torch-root: a download failed; trying once more:" >&2
      log_errors | sed 's/^/  /' >&2
      continue
    fi
    break
  done
  if [[ -z $tmp ]]; then
    echo "torch-root: mmdebstrap failed to make the $suite root; apt and mmdebstrap said:" >&2
    log_errors | sed 's/^/  /' >&2
    echo "torch-root: the whole log: $log_file" >&2
    exit 1
  fi
  # The files live under /usr; the top-level links to them come from base-files or mmdebstrap's
  # merged-/usr step. Where one is missing (a root without /sbin failed every test once), make it.
  local d
  for d in bin sbin lib lib64; do
    [[ -e $tmp/$d || -L $tmp/$d || ! -d $tmp/usr/$d ]] || ln -s "usr/$d" "$tmp/$d"
  done
  if ! usable -v "$tmp"; then
    echo "torch-root: mmdebstrap made $tmp, but its tools or PyTorch do not run in it (above); its /sbin: $(ls -ld "$tmp/sbin")" >&2
    rm -rf "$tmp"
    exit 1
  fi
  echo "$recipe" >"$tmp/.opgen-root"
  mv "$tmp" "$root"
  rm -f "$reason_file"
  echo "torch-root: made the $suite root in $((SECONDS - start)) s" >&2
  echo "$root"
}

check() {
  ready && return 0
  if made; then
    echo "skipped: the $suite root ($root) lacks $(missing_packages | tr '\n' ' ')of its package list; install them with tool/scripts/torch-root.sh $suite ensure" >&2
  elif [[ -f $reason_file ]]; then
    echo "skipped: the $suite root (PyTorch runtime) is not there: $(cat "$reason_file")" >&2
  else
    echo "skipped: the $suite root (PyTorch runtime) is not there ($root); make it with tool/scripts/torch-root.sh $suite ensure" >&2
  fi
  exit 77
}

# An opgen built on the host runs in the root when the shared libraries it links are there: the
# ones the root lacks (mimalloc's soname differs between Debian releases) are copied from the host
# into the root's /usr/local/lib.
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
  enter "$@"
}

# Runs CMD [ARG]... in the root (as `run` says), whatever its stamp; does not return.
enter() {
  # A private mount namespace needs "/" to be a mount point; in a chroot or some containers it is
  # not ("cannot change root filesystem propagation"): then the namespace keeps the propagation it
  # inherits, and `inside` unmounts what it mounted before it returns.
  local err err2
  if err=$(unshare --mount --propagation private true 2>&1); then
    exec unshare --mount --propagation private "$self" "$suite" _inside private "$PWD" "$@"
  elif err2=$(unshare --mount --propagation unchanged true 2>&1); then
    exec unshare --mount --propagation unchanged "$self" "$suite" _inside shared "$PWD" "$@"
  else
    echo "torch-root: cannot make a mount namespace here, so the $suite root cannot be entered: $err; $err2" >&2
    exit 1
  fi
}

# In the mount namespace of `run`: mount, enter, run.
inside() {
  local mode=$1 cwd=$2 b
  shift 2
  local binds=(/proc /dev /tmp "$project")
  if [[ -n ${OPGEN_ROOT_BINDS:-} ]]; then
    IFS=: read -r -a more <<<"$OPGEN_ROOT_BINDS"
    binds+=("${more[@]}")
  fi
  local mounted=()
  for b in "${binds[@]}"; do
    [[ -e $b ]] || continue
    b=$(realpath "$b")
    mountpoint -q "$root$b" 2>/dev/null && continue  # a bind of a folder above it brought it
    mkdir -p "$root$b"
    mount --rbind "$b" "$root$b"
    mounted+=("$root$b")
  done
  # The root's own PATH and Python; the tests' OPGEN_* settings pass through.
  local env=(HOME=/root PATH=/usr/local/bin:/usr/bin:/bin LANG=C.UTF-8)
  while IFS='=' read -r -d '' name value; do
    [[ $name == OPGEN_* || $name == CTEST_* ]] && env+=("$name=$value")
  done < <(env -0)
  if [[ $mode == private ]]; then
    exec chroot "$root" /usr/bin/env -i "${env[@]}" /bin/sh -c 'cd "$0" && exec "$@"' "$cwd" "$@"
  fi
  # Mounts may reach the namespace we came from: take them down again, whatever the command does.
  local status=0 i
  trap 'for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do umount -R -l "${mounted[i]}" 2>/dev/null; done' EXIT
  trap 'exit 143' TERM INT
  chroot "$root" /usr/bin/env -i "${env[@]}" /bin/sh -c 'cd "$0" && exec "$@"' "$cwd" "$@" || status=$?
  exit "$status"
}

case ${1:-} in
  ensure) ensure ;;
  check) check ;;
  path) echo "$root" ;;
  _inside) shift; inside "$@" ;;
  run) shift; [[ $# -gt 0 ]] || { echo "torch-root.sh $suite run: no command" >&2; exit 2; }; run "$@" ;;
  *) usage ;;
esac
