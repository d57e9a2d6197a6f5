#!/usr/bin/env bash
# Benchmark: opgen against the reference torchgen on the full ATen run (per-operator headers),
# `opgen python` against torchgen's Python bindings (gen_python_functions) on ATen, and `opgen autograd`
# against `python -m torchgen.packaged.autograd.gen_autograd` on ATen.
# Not a test: run it by hand, on an idle machine, after building (tool/scripts/dev.sh example).
#
#   tool/bench/bench.sh [RUNS] [all|aten|python|autograd]
#       RUNS defaults to 3; prints median wall times, the ratio and peak RSS of each part (default: all)
#
# Environment: OPGEN (default build/tool/opgen), TORCHGEN_REF (default ../shared/reference/torchgen-ref).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
runs=${1:-3}
part=${2:-all}
opgen=${OPGEN:-build/tool/opgen}
ref=${TORCHGEN_REF:-../shared/reference/torchgen-ref}
[[ -x $opgen ]] || { echo "bench: $opgen not built (run tool/scripts/dev.sh example)" >&2; exit 2; }
[[ -x $ref ]] || { echo "bench: the reference runner $ref is missing" >&2; exit 2; }
root=$("$ref" root)
src=$root/torchgen/packaged/ATen
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Run the script when nothing was deleted on the file system in the last six minutes: ext4 without a
# journal (as here) skips inodes deleted in the last minute (six while their inode table block is
# not written back) when it allocates new ones, which makes creating the 7162 files 15-50x slower
# after a large deletion (an earlier bench's cleanup, a test suite's temporary folders), for either
# generator.
#
# run NAME CMD...: wall seconds, peak RSS (KiB) and CPU seconds (user + system, all threads) of one
# run, appended to $work/NAME.times. Before it:
# - sync, and before a run that creates thousands of files (NAME not *_warm) a pause (BENCH_SETTLE
#   seconds, default 3): writing back earlier runs' files otherwise slows the creation of new ones;
# - half a second of busy loop on every core: on this VM a CPU that has been idle runs the next few
#   hundred milliseconds of work 20-40% slower (a warm opgen run measured 0.21-0.23 s back to back,
#   0.26-0.33 s after one idle second), which would count against a short run, not a long one.
spin() { timeout 0.5 sh -c 'while :; do :; done' || true; }
run() {
  local name=$1; shift
  sync
  [[ $name == *_warm ]] || sleep "${BENCH_SETTLE:-3}"
  for ((c = 1; c < $(nproc); c++)); do spin & done
  spin
  wait
  /usr/bin/time -f "%e %M %U %S" -o "$work/t" "$@" >/dev/null 2>"$work/err" || { cat "$work/err" >&2; exit 1; }
  awk '{printf "%s %s %.2f\n", $1, $2, $3 + $4}' "$work/t" >>"$work/$name.times"
}

median() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
stat() { # NAME -> "median_seconds peak_rss_mib median_cpu_seconds"
  local s m c
  s=$(cut -d' ' -f1 "$work/$1.times" | median)
  m=$(cut -d' ' -f2 "$work/$1.times" | sort -n | tail -1)
  c=$(cut -d' ' -f3 "$work/$1.times" | median)
  echo "$s $((m / 1024)) $c"
}

# table TITLE REFERENCE COLD WARM [LABEL NAME]...: one row per run NAME (median wall, peak RSS,
# median CPU), then the wall-time speed-up of COLD and WARM over REFERENCE.
table() {
  local title=$1 reference=$2 cold=$3 warm=$4 s m c
  shift 4
  echo "$title"
  printf '  %-34s %8s %10s %9s\n' "" "wall" "peak RSS" "CPU"
  while (($#)); do
    read -r s m c < <(stat "$2")
    printf '  %-34s %6s s %6s MiB %7s s\n' "$1" "$s" "$m" "$c"
    shift 2
  done
  awk -v r="$(stat "$reference" | cut -d' ' -f1)" -v c="$(stat "$cold" | cut -d' ' -f1)" \
      -v w="$(stat "$warm" | cut -d' ' -f1)" \
      'BEGIN {printf "  speed-up (wall): %.1fx (empty folder), %.1fx (nothing changed)\n", r / c, r / w}'
}

if [[ $part == all || $part == aten ]]; then
flags=(--per-operator-headers)
# Every run writes into folders of its own (deleting a run's files is left to the end).
for ((i = 0; i < runs; i++)); do
  run reference "$ref" aten "$work/ref$i" "${flags[@]}"
  run opgen_cold "$opgen" gen -s "$src" -d "$work/opgen$i/aten" --aoti-install-dir "$work/opgen$i/aoti" "${flags[@]}"
  run opgen_warm "$opgen" gen -s "$src" -d "$work/opgen$i/aten" --aoti-install-dir "$work/opgen$i/aoti" "${flags[@]}"
  run opgen_parse "$opgen" parse "$src/native/native_functions.yaml" -o "$work/model.json"
done
diff -r "$work/ref0" "$work/opgen0" >/dev/null || echo "bench: warning: opgen's output differs from the reference's" >&2

table "$(printf 'ATen, --per-operator-headers, %d files, median of %d runs on %d cores' \
        "$(find "$work/ref0" -type f | wc -l)" "$runs" "$(nproc)")" reference opgen_cold opgen_warm \
  "torchgen 2.14.1 (reference)" reference \
  "opgen gen (empty output folder)" opgen_cold \
  "opgen gen (nothing changed)" opgen_warm \
  "opgen parse (model only)" opgen_parse
fi

if [[ $part == all || $part == python ]]; then
  pk=$root/torchgen/packaged
  py_args=(--native-functions "$pk/ATen/native/native_functions.yaml" --tags "$pk/ATen/native/tags.yaml"
           --deprecated "$pk/autograd/deprecated.yaml" --templates "$pk/autograd/templates")
  for ((i = 0; i < runs; i++)); do
    run py_reference "$ref" python-bindings "$work/pyref$i"
    run py_cold "$opgen" python "${py_args[@]}" -o "$work/pyopgen$i"
    run py_warm "$opgen" python "${py_args[@]}" -o "$work/pyopgen$i"
  done
  diff -r "$work/pyref0" "$work/pyopgen0" >/dev/null || echo "bench: warning: opgen python's output differs from the reference's" >&2
  table "$(printf 'Python bindings of ATen, %d files, median of %d runs on %d cores' \
          "$(find "$work/pyref0" -type f | wc -l)" "$runs" "$(nproc)")" py_reference py_cold py_warm \
    "torchgen 2.14.1 (reference)" py_reference \
    "opgen python (empty output folder)" py_cold \
    "opgen python (nothing changed)" py_warm
fi

if [[ $part == all || $part == autograd ]]; then
  pk=$root/torchgen/packaged
  ag_in=("$pk/ATen/native/native_functions.yaml" "$pk/ATen/native/tags.yaml")
  for ((i = 0; i < runs; i++)); do
    mkdir -p "$work/agref$i"
    run ag_reference "$ref" python -m torchgen.packaged.autograd.gen_autograd "${ag_in[@]}" "$work/agref$i" "$pk/autograd"
    run ag_cold "$opgen" autograd "${ag_in[@]}" "$work/agopgen$i" "$pk/autograd"
    run ag_warm "$opgen" autograd "${ag_in[@]}" "$work/agopgen$i" "$pk/autograd"
  done
  diff -r "$work/agref0" "$work/agopgen0" >/dev/null || echo "bench: warning: opgen autograd's output differs from the reference's" >&2
  table "$(printf 'gen_autograd on ATen, %d files, median of %d runs on %d cores' \
          "$(find "$work/agref0" -type f | wc -l)" "$runs" "$(nproc)")" ag_reference ag_cold ag_warm \
    "torchgen 2.14.1 (gen_autograd)" ag_reference \
    "opgen autograd (empty output folder)" ag_cold \
    "opgen autograd (nothing changed)" ag_warm
fi
