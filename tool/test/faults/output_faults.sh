#!/usr/bin/env bash
# What opgen promises about its output files, under faults (ctest: faults.*, see ../CMakeLists.txt):
#
#   output_faults.sh full-disk OPGEN SOURCE_DIR [TORCHGEN_REF]
#       On a small tmpfs that the run fills: exit status 1, one error line, every file as it was
#       (content, inode, time), no temporary file; the same into a new folder: no file at all.
#   output_faults.sh read-only OPGEN SOURCE_DIR [TORCHGEN_REF]
#       On a read-only tmpfs: exit status 1, one error line, files as they were.
#   output_faults.sh kill OPGEN SOURCE_DIR [TORCHGEN_REF] [ROUNDS]
#       kill -9 at random moments while a run rewrites a folder: every file is then whole (the old
#       version or the new one); the next run leaves no temporary file and the right files.
#   output_faults.sh kill-steps OPGEN SOURCE_DIR
#       kill -9 at every step of `opgen library` rewrites that add and remove operators (strace
#       kills it at its Nth rename, unlink or rmdir, for every N up to the run's last): whenever the
#       stamp is new, the folder holds exactly the new files (nothing of a removed operator is
#       left), so a build that sees a new stamp need not run opgen again; either way the next run
#       leaves exactly the new files. Without strace: exit 77.
#
# Each for `opgen library`, `opgen backend`, `opgen python`, `opgen gen` and `opgen autograd --python`
# (the last four read torchgen 2.14.1's ATen or templates from the reference, TORCHGEN_REF; without it
# only `opgen library` is tested). Mounting needs root: without it, the first two exit with 77 (skipped), saying why.
set -euo pipefail

mode=${1:?usage: output_faults.sh full-disk|read-only|kill|kill-steps OPGEN SOURCE_DIR [TORCHGEN_REF] [ROUNDS]}
opgen=${2:?missing OPGEN}
source_dir=${3:?missing SOURCE_DIR}
ref=${OPGEN_TORCHGEN_REF:-${4:-}}
rounds=${5:-4}

work=$(mktemp -d "${TMPDIR:-/tmp}/opgen-faults.XXXXXX")
mounts=()
cleanup() {
  for m in "${mounts[@]}"; do umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 1' TERM INT  # (ctest's timeout, ^C) so that the mounts go too

fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "skipped: $*"; exit 77; }

# --- Inputs: two versions, a and b, of each product's inputs, whose outputs differ ---------------

products=(library)
mkdir -p "$work/in/library"
cp "$source_dir/test_projects/vision/ops.yaml" "$source_dir/test_projects/vision/tags.yaml" \
   "$source_dir/test_projects/vision/fake.py" "$work/in/library/"
mv "$work/in/library/ops.yaml" "$work/in/library/a.yaml"
{ cat "$work/in/library/a.yaml"; printf '\n- func: vision::faults_extra(Tensor self) -> Tensor\n'; } > "$work/in/library/b.yaml"

aten=""
if [[ -n $ref && -x $ref ]] && root=$("$ref" root 2>/dev/null) && [[ -d $root/torchgen/packaged/ATen ]]; then
  aten=$root/torchgen/packaged/ATen
  products+=(backend python gen autograd)
  extra='- func: faults_extra(Tensor self, Tensor other) -> Tensor
  variants: function, method
  dispatch:
    CPU: faults_extra
'
  for v in a b; do
    mkdir -p "$work/in/gen/$v/native"
    ln -s "$aten/templates" "$work/in/gen/$v/templates"
    cp "$aten/native/tags.yaml" "$work/in/gen/$v/native/"
  done
  cp "$aten/native/native_functions.yaml" "$work/in/gen/a/native/"
  { cat "$aten/native/native_functions.yaml"; printf '\n%s' "$extra"; } > "$work/in/gen/b/native/native_functions.yaml"
  mkdir -p "$work/in/backend"
  cp "$source_dir/tool/test/data/backend_conformance/keys.yaml" "$work/in/backend/a.yaml"
  grep -v '^  - topk' "$work/in/backend/a.yaml" > "$work/in/backend/b.yaml"
  mkdir -p "$work/in/python/a" "$work/in/python/b"
  py=$source_dir/tool/test/data/python_conformance
  for v in a b; do cp "$py/tags.yaml" "$py/deprecated.yaml" "$work/in/python/$v/"; done
  cp "$py/pyops.yaml" "$work/in/python/a/ops.yaml"
  { cat "$py/pyops.yaml"; printf '\n- func: faults_extra(Tensor self) -> Tensor\n  variants: function, method\n'; } \
    > "$work/in/python/b/ops.yaml"
  # opgen autograd on the same operators: an AUTOGRAD_DIR of its own (one formula, the reference's templates).
  for v in a b; do
    mkdir -p "$work/in/autograd/$v"
    cp "$work/in/python/$v/ops.yaml" "$py/tags.yaml" "$py/deprecated.yaml" "$work/in/autograd/$v/"
    printf '%s\n' '- name: ones2_like(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor' \
      '  self: zeros_like(grad)' >"$work/in/autograd/$v/derivatives.yaml"
    ln -s "$root/torchgen/packaged/autograd/templates" "$work/in/autograd/$v/templates"
  done
else
  echo "note: no reference torchgen (TORCHGEN_REF '$ref'): only opgen library is tested"
fi

# run PRODUCT VERSION OUT: opgen's command for that product and input version, writing below OUT.
command_for() {
  local product=$1 v=$2 out=$3
  case $product in
    library) echo "$opgen" library "$work/in/library/$v.yaml" -o "$out" --backend CPU --python-module \
               --python-fakes "$work/in/library/fake.py" --per-operator-headers --stamp "$out/stamp" \
               --depfile "$out/opgen.d" ;;
    backend) echo "$opgen" backend -s "$work/in/backend/$v.yaml" -o "$out" --source-path "$aten" --include-prefix= \
               --stamp "$out/stamp" --depfile "$out/opgen.d" ;;
    python) echo "$opgen" python --native-functions "$work/in/python/$v/ops.yaml" \
               --templates "$root/torchgen/packaged/autograd/templates" \
               --deprecated "$work/in/python/$v/deprecated.yaml" -o "$out" ;;
    gen) echo "$opgen" gen -s "$work/in/gen/$v" -d "$out/aten" --aoti-install-dir "$out/aoti" \
               -o "$out/deps.cmake" ;;
    autograd) echo "$opgen" autograd --python --comment-dir templates "$work/in/autograd/$v/ops.yaml" \
               "$work/in/autograd/$v/tags.yaml" "$out" "$work/in/autograd/$v" ;;
  esac
}
run() { $(command_for "$@") >"$work/stdout" 2>"$work/stderr"; }

# Every file below a folder with its inode, modification time, size and checksum.
snapshot() {
  (cd "$1" && find . -type f -printf '%p %i %T@ %s\n' | sort && find . -type f -print0 | sort -z | xargs -0 -r md5sum)
}
temporaries() { find "$1" -name '.opgen.*.tmp' | sort; }

# The run failed as promised: status 1, one error line matching PATTERN, nothing else on stderr.
expect_one_error() {
  local what=$1 status=$2 pattern=$3
  [[ $status == 1 ]] || fail "$what: exit status $status, expected 1; stderr: $(cat "$work/stderr")"
  local lines
  lines=$(wc -l < "$work/stderr")
  [[ $lines == 1 ]] || fail "$what: $lines lines on stderr, expected one error line:
$(cat "$work/stderr")"
  grep -Eq "^[^ ]+: error: .*$pattern" "$work/stderr" || fail "$what: unexpected error: $(cat "$work/stderr")"
}

mount_tmpfs() {  # mount_tmpfs DIR SIZE
  mkdir -p "$1"
  if ! mount -t tmpfs -o "size=$2" opgen-faults "$1" 2>"$work/mount.err"; then
    skip "cannot mount a tmpfs ($(cat "$work/mount.err")); these tests need root"
  fi
  mounts+=("$1")
}

# --- full-disk -----------------------------------------------------------------------------------

full_disk() {
  local product=$1 status
  mkdir -p "$work/sizes"
  run "$product" b "$work/sizes/$product" || fail "$product: the run into $work/sizes failed: $(cat "$work/stderr")"
  local bytes
  bytes=$(du -sb "$work/sizes/$product" | cut -f1)
  local mnt=$work/mnt-$product
  mount_tmpfs "$mnt" $((bytes * 3 + 4 * 1024 * 1024))
  run "$product" a "$mnt/out" || fail "$product: the first run failed: $(cat "$work/stderr")"
  local before
  before=$(snapshot "$mnt/out")
  # Fill the file system but for 8 KiB (two pages): far less than the new files need.
  dd if=/dev/zero of="$mnt/filler" bs=1M status=none 2>/dev/null || true
  truncate -s -8K "$mnt/filler"

  status=0; run "$product" b "$mnt/out" || status=$?
  expect_one_error "$product (rewrite on a full disk)" "$status" "No space left on device"
  [[ $(snapshot "$mnt/out") == "$before" ]] || fail "$product: files changed by the failed run"
  [[ -z $(temporaries "$mnt") ]] || fail "$product: temporary files left: $(temporaries "$mnt")"

  status=0; run "$product" b "$mnt/new" || status=$?
  expect_one_error "$product (new folder on a full disk)" "$status" "No space left on device"
  [[ -z $(find "$mnt/new" -type f 2>/dev/null) ]] || fail "$product: files left in a new folder: $(find "$mnt/new" -type f | head)"

  # With room again, the same run succeeds and leaves nothing behind.
  rm "$mnt/filler"
  run "$product" b "$mnt/out" || fail "$product: the run after the disk was freed failed: $(cat "$work/stderr")"
  [[ -z $(temporaries "$mnt") ]] || fail "$product: temporary files left: $(temporaries "$mnt")"
  echo "ok: $product: a full disk changed no file ($(wc -l <<<"$before") lines of snapshot, $bytes bytes of output)"
}

# --- read-only -----------------------------------------------------------------------------------

read_only() {
  local product=$1 status
  local mnt=$work/ro-$product
  mount_tmpfs "$mnt" 256M
  run "$product" a "$mnt/out" || fail "$product: the first run failed: $(cat "$work/stderr")"
  local before
  before=$(snapshot "$mnt/out")
  mount -o remount,ro "$mnt" || skip "cannot remount read-only"
  status=0; run "$product" b "$mnt/out" || status=$?
  expect_one_error "$product (read-only folder)" "$status" "Read-only file system"
  status=0; run "$product" b "$mnt/new" || status=$?
  expect_one_error "$product (new folder on a read-only file system)" "$status" "Read-only file system"
  mount -o remount,rw "$mnt"
  [[ $(snapshot "$mnt/out") == "$before" ]] || fail "$product: files changed by the failed run"
  echo "ok: $product: a read-only folder gives one error line"
}

# --- kill ----------------------------------------------------------------------------------------

now_ms() { date +%s%3N; }

# The files below OUT (relative paths) that are not byte for byte as in REF (missing ones left out).
# The stamp, the depfile and the output lists name their folder, so they differ between folders.
differing() {
  local ref=$1 out=$2
  diff -rq -x '.opgen.*.tmp' -x stamp -x opgen.d -x '*.cmake' "$ref" "$out" | sed -n \
    -e "s|^Files $ref/\(.*\) and $out/.* differ\$|\1|p" \
    -e "s|^Only in $out/\(.*\): \(.*\)\$|\1/\2|p" -e "s|^Only in $out: \(.*\)\$|\1|p" | sort || true
}
# Every file below OUT is whole: byte for byte its version in folder A or in folder B. Prints the
# first that is neither.
all_whole() {
  local bad
  bad=$(comm -12 <(differing "$2" "$1") <(differing "$3" "$1") | head -1)
  [[ -z $bad ]] || { echo "$bad"; return 1; }
}
# Every file of REF is in OUT with the same bytes. Prints the first difference.
matches() {
  local out=$1 ref=$2 bad
  bad=$(diff -rq -x '.opgen.*.tmp' -x stamp -x opgen.d -x '*.cmake' "$ref" "$out" | grep -v "^Only in $out" | head -1 || true)
  [[ -z $bad ]] || { echo "$bad"; return 1; }
}

kill_runs() {
  local product=$1
  local refs=$work/refs-$product out=$work/kill-$product/out
  run "$product" a "$refs/a" || fail "$product: $(cat "$work/stderr")"
  run "$product" b "$refs/b" || fail "$product: $(cat "$work/stderr")"
  run "$product" a "$out" || fail "$product: $(cat "$work/stderr")"
  # How long a rewrite takes: kills land anywhere in it.
  local t0 span
  t0=$(now_ms); run "$product" b "$out" || fail "$product: $(cat "$work/stderr")"; span=$(( $(now_ms) - t0 + 20 ))
  local v=a leftover=0 i bad
  for ((i = 0; i < rounds; i++)); do
    local delay=$(( RANDOM % span ))
    $(command_for "$product" "$v" "$out") >/dev/null 2>&1 &
    local pid=$!
    sleep "$(printf '%d.%03d' $((delay / 1000)) $((delay % 1000)))"
    kill -9 "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    bad=$(all_whole "$out" "$refs/a" "$refs/b") || fail "$product: after kill -9 at ${delay} ms, $bad is neither version"
    [[ -n $(temporaries "$out") ]] && leftover=$((leftover + 1))
    run "$product" "$v" "$out" || fail "$product: the run after kill -9 at ${delay} ms failed: $(cat "$work/stderr")"
    [[ -z $(temporaries "$out") ]] || fail "$product: temporary files left after the run that followed kill -9 at ${delay} ms: $(temporaries "$out" | head -3)"
    bad=$(matches "$out" "$refs/$v") || fail "$product: after kill -9 at ${delay} ms and a normal run, $bad is wrong"
    v=$([[ $v == a ]] && echo b || echo a)
  done
  echo "ok: $product: $rounds runs killed within ${span} ms ($leftover left temporary files, all removed by the next run)"
}

# --- kill-steps ----------------------------------------------------------------------------------

# The differences between folders REF and OUT, extra files included (the stamp and depfile aside).
exactly() { diff -rq -x stamp -x opgen.d "$1" "$2" | head -3 || true; }

kill_steps() {
  command -v strace >/dev/null || skip "strace is not installed (apt-get install strace)"
  local refs=$work/steps-refs out=$work/steps/out
  run library a "$refs/a" || fail "library: $(cat "$work/stderr")"
  run library b "$refs/b" || fail "library: $(cat "$work/stderr")"
  local kills=0 from to call n status bad counts=""
  for from in a b; do
    to=$([[ $from == a ]] && echo b || echo a)
    for call in rename renameat renameat2 unlink unlinkat rmdir; do
      for ((n = 1; ; n++)); do
        rm -rf "$out"
        run library "$from" "$out" || fail "library: $(cat "$work/stderr")"
        touch -d '-1 hour' "$out/stamp"
        local before
        before=$(stat -c %Y "$out/stamp")
        # (in a subshell whose stderr is gone: bash's "Killed" line too)
        status=$(exec 2>/dev/null; strace -f -o /dev/null -e trace="$call" -e inject="$call:signal=KILL:when=$n" \
          $(command_for library "$to" "$out") >/dev/null; echo $?)
        ((status == 0)) && break  # the run has fewer such calls: all of them were tried
        kills=$((kills + 1))
        if [[ $(stat -c %Y "$out/stamp") != "$before" ]]; then
          bad=$(exactly "$refs/$to" "$out")
          [[ -z $bad ]] || fail "$from -> $to, killed at $call #$n: the stamp is new, yet the folder is not the new one: $bad"
        fi
        run library "$to" "$out" || fail "$from -> $to, killed at $call #$n: the next run failed: $(cat "$work/stderr")"
        bad=$(exactly "$refs/$to" "$out")
        [[ -z $bad ]] || fail "$from -> $to, killed at $call #$n: after the next run: $bad"
        [[ -z $(temporaries "$out") ]] || fail "$from -> $to, killed at $call #$n: temporary files left: $(temporaries "$out" | head -3)"
      done
      ((n > 1)) && counts+=" $from->$to $call: $((n - 1));"
    done
  done
  ((kills > 0)) || fail "strace killed no run"
  echo "ok: library: killed at each of $kills steps of rewrites that add and remove an operator:$counts"
}

[[ $mode == kill-steps ]] && { kill_steps; exit 0; }

# OPGEN_FAULT_PRODUCTS="gen python" limits the run to those products.
[[ -n ${OPGEN_FAULT_PRODUCTS:-} ]] && read -r -a products <<<"$OPGEN_FAULT_PRODUCTS"
for product in "${products[@]}"; do
  case $mode in
    full-disk) full_disk "$product" ;;
    read-only) read_only "$product" ;;
    kill) kill_runs "$product" ;;
    *) fail "unknown mode $mode" ;;
  esac
done
