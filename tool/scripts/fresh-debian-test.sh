#!/usr/bin/env bash
# The README's commands on a fresh machine, as a new user meets them: makes a minimal Debian 12
# (bookworm) root with only git and ca-certificates, clones this repository's HEAD into it with
# ../shared beside it, and runs `tool/scripts/dev.sh example` and then `tool/scripts/dev.sh test` in it
# (which install what they need, make the PyTorch roots inside it and run every test). It passes when
# both pass: dev.sh test itself fails on a failed test and on a test skipped for a reason the README
# does not list. Slow (about an hour on 2 cores: the packages, opgen, the two PyTorch roots, the
# suite): run it by hand, not in every CI run.
#
#   tool/scripts/fresh-debian-test.sh [WORK]     (root needed; WORK default: /var/tmp/opgen-fresh)
#
# WORK/root is the minimal root (made again at every run), WORK/run.log what the run printed. The
# repository is cloned from HEAD: commit what you want tested. The root runs in a mount namespace
# of its own, so nothing stays mounted afterwards; its "/" is not a mount point, as in a chroot.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
project=$(cd "$here/../.." && pwd)
shared=$(cd "$project/.." && pwd)/shared
work=${1:-/var/tmp/opgen-fresh}

[[ $(id -u) == 0 ]] || { echo "fresh-debian-test: needs root (mmdebstrap, chroot, mount)" >&2; exit 2; }
command -v mmdebstrap >/dev/null || { echo "fresh-debian-test: needs mmdebstrap (apt-get install mmdebstrap)" >&2; exit 2; }
[[ -d $shared ]] || echo "fresh-debian-test: no $shared: the conformance tests will be skipped (and the run fail)" >&2
mirror=$("$here/torch-root.sh" mirror)
root=$work/root

if [[ ${2:-} != _inside ]]; then
  rm -rf "$root"
  mkdir -p "$work"
  start=$SECONDS
  echo "fresh-debian-test: making a minimal Debian 12 root in $root from $mirror" >&2
  mmdebstrap --variant=apt --include=git,ca-certificates bookworm "$root" "$mirror" >"$work/mmdebstrap.log" 2>&1 ||
    { tail -n 20 "$work/mmdebstrap.log" >&2; exit 1; }
  echo "fresh-debian-test: root made in $((SECONDS - start)) s; cloning $(git -C "$project" rev-parse --short HEAD)" >&2
  mkdir -p "$root/work/shared"
  git clone -q "$project" "$root/work/opgen"
  cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
  exec unshare --mount --propagation private "$0" "$work" _inside
fi

# In a private mount namespace: the kernel file systems and ../shared (read-only, as CI has it).
mount -t proc proc "$root/proc"
mount --rbind /dev "$root/dev"
mount --rbind /sys "$root/sys"
mount -t tmpfs tmpfs "$root/tmp"
if [[ -d $shared ]]; then
  mount --bind "$shared" "$root/work/shared"
  mount -o remount,bind,ro "$root/work/shared"
fi
status=0
chroot "$root" /usr/bin/env -i HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 \
  /bin/bash -c 'set -e; cd /work/opgen
                s=$SECONDS; tool/scripts/dev.sh example; echo "fresh-debian-test: dev.sh example passed in $((SECONDS - s)) s"
                s=$SECONDS; tool/scripts/dev.sh test; echo "fresh-debian-test: dev.sh test passed in $((SECONDS - s)) s"' \
  2>&1 | tee "$work/run.log" || status=$?
((status == 0)) && echo "fresh-debian-test: passed" || echo "fresh-debian-test: FAILED (log: $work/run.log)"
exit "$status"
