#!/bin/sh
# convert_bench: MB/s of input that `arec convert` turns into one perf.data, next to
# `perf inject -i IN -o OUT` on the same input, with peak memory (max RSS) of each.
#
#   bench/convert_bench.sh [BUILD_DIR] [SECONDS] [EXTRA ARGS FOR arec RECORD...]
#   e.g. bench/convert_bench.sh build 20 -g           one file, call graphs
#        bench/convert_bench.sh build 20 --threads=cpu -z
#
# Records a system-wide recording at 20 kHz with two hot_loop workers for SECONDS, then runs
# each converter twice: "cold" after dropping the page cache (needs root; skipped otherwise)
# and "warm". Input MB are the recording's bytes on disk (all data.N files of a directory).
set -eu

build=${1:-build}
seconds=${2:-10}
shift 2 2>/dev/null || shift $#
arec="$build/arec"
hot_loop="$build/tests/hot_loop"
work=$(mktemp -d "${TMPDIR:-/tmp}/arec-convert-bench-XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM

[ -x "$arec" ] || { echo "convert_bench: $arec not built" >&2; exit 1; }
[ -x "$hot_loop" ] || { echo "convert_bench: $hot_loop not built" >&2; exit 1; }

input="$work/rec.data"
"$hot_loop" $((seconds * 1000)) & w1=$!
"$hot_loop" $((seconds * 1000)) & w2=$!
"$arec" -q -a -F 20000 -o "$input" --duration "$seconds" "$@"
wait $w1 $w2 || true
bytes=$(du -sb "$input" | cut -f1)
echo "input: $input ($bytes bytes; arec record $*)"

drop_caches() {
  sync
  if [ -w /proc/sys/vm/drop_caches ]; then echo 3 > /proc/sys/vm/drop_caches; return 0; fi
  return 1
}

# run NAME COMMAND...: prints seconds, MB/s and max RSS of one run.
run() {
  name=$1; shift
  start=$(date +%s.%N)
  /usr/bin/time -f "%M" -o "$work/rss" "$@" > /dev/null 2> "$work/err" || {
    echo "$name: failed: $(tail -3 "$work/err")"; return 0; }
  end=$(date +%s.%N)
  awk -v n="$name" -v s="$start" -v e="$end" -v b="$bytes" -v r="$(tail -1 "$work/rss")" \
    'BEGIN { t = e - s; printf "%-28s %7.2f s  %8.1f MB/s  max RSS %6.1f MB\n", n, t, b / 1e6 / t, r / 1024 }'
}

for mode in cold warm; do
  if [ $mode = cold ] && ! drop_caches; then echo "(cold runs skipped: cannot drop caches)"; continue; fi
  run "arec convert ($mode)" "$arec" convert -q -i "$input" -o "$work/out.perf"
  [ $mode = cold ] && drop_caches
  run "arec convert -z ($mode)" "$arec" convert -q -z -i "$input" -o "$work/outz.perf"
  [ $mode = cold ] && drop_caches
  run "perf inject ($mode)" perf inject -i "$input" -o "$work/inject.perf"
done
# What the disk can do for the same bytes: read them once and write them once.
drop_caches || true
run "cat > file (disk baseline)" sh -c "cat $(find "$input" -type f | tr '\n' ' ') > '$work/copy'"
