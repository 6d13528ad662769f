#!/bin/sh
# export_bench: how long `arec export` takes to turn a large recording with call graphs into
# folded stacks and into pprof, next to the usual perf route, `perf script | a collapse` (awk,
# in the manner of FlameGraph's stackcollapse-perf.pl, which Debian does not package), and
# perf's own conversion `perf data convert --to-json`, with peak memory (max RSS) of each.
#
#   bench/export_bench.sh [BUILD_DIR] [SECONDS] [fp|dwarf]
#
# fp (the default): records system-wide at 10 kHz with frame-pointer call graphs and two
# hot_pair workers for SECONDS. dwarf: records hot_pair_without_fp for SECONDS at 4 kHz with
# --call-graph dwarf (8 KB of stack per sample), which both exporters unwind themselves. Then
# runs each exporter once on the warm page cache and prints wall seconds, CPU seconds (user +
# system, all processes of a pipeline: what counts on a busy machine), samples per CPU second
# and max RSS (the largest process).
set -eu

build=${1:-build}
seconds=${2:-10}
mode=${3:-fp}
arec="$build/arec"
hot_pair="$build/tests/hot_pair"
[ "$mode" = dwarf ] && hot_pair="$build/tests/hot_pair_without_fp"
work=$(mktemp -d "${TMPDIR:-/tmp}/arec-export-bench-XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM

[ -x "$arec" ] || { echo "export_bench: $arec not built" >&2; exit 1; }
[ -x "$hot_pair" ] || { echo "export_bench: $hot_pair not built" >&2; exit 1; }

input="$work/rec.data"
if [ "$mode" = dwarf ]; then
  recorded="arec -F 4000 --call-graph dwarf -- hot_pair_without_fp, ${seconds}s"
  "$arec" -q -F 4000 --call-graph dwarf -o "$input" -- "$hot_pair" $((seconds * 1000))
else
  recorded="arec -a -g -F 10000, ${seconds}s"
  "$hot_pair" $((seconds * 1000)) & w1=$!
  "$hot_pair" $((seconds * 1000)) & w2=$!
  "$arec" -q -a -g -F 10000 -o "$input" --duration "$seconds"
  wait $w1 $w2 || true
fi
samples=$(perf script -i "$input" -F tid 2>/dev/null | wc -l)
echo "input: $(du -sb "$input" | cut -f1) bytes, $samples samples ($recorded)"

# The collapse: a sample is a header line then one "ADDR SYM+OFF (DSO)" line per frame, leaf
# first, ended by an empty line; prints "comm;root;...;leaf count" lines.
collapse='
/^\S/ { comm = $1; n = 0; next }
/^\s*$/ { if (n) { s = comm; for (i = n; i >= 1; i--) s = s ";" f[i]; c[s]++ } n = 0; next }
{ sym = $2; sub(/\+0x[0-9a-f]+$/, "", sym); f[++n] = sym }
END { for (s in c) print s, c[s] }'

run() {
  name=$1; shift
  start=$(date +%s.%N)
  /usr/bin/time -f "%M %U %S" -o "$work/rss" sh -c "$*" > /dev/null 2> "$work/err" || {
    echo "$name: failed: $(tail -3 "$work/err")"; return 0; }
  end=$(date +%s.%N)
  set -- $(tail -1 "$work/rss")
  awk -v n="$name" -v s="$start" -v e="$end" -v k="$samples" -v r="$1" -v u="$2" -v y="$3" \
    'BEGIN { t = e - s; c = u + y; printf "%-30s %6.2f s wall %6.2f s CPU %8.0f samples/CPU s  max RSS %6.1f MB\n", n, t, c, k / c, r / 1024 }'
}

run "arec export --format=folded" "'$arec' export -q --format=folded -i '$input' -o '$work/out.folded'"
run "arec export (pprof)" "'$arec' export -q -i '$input' -o '$work/out.pb.gz'"
run "perf script | awk collapse" "perf script -i '$input' -F comm,ip,sym 2>/dev/null | awk '$collapse' > '$work/perf.folded'"
run "perf data convert --to-json" "perf data convert -i '$input' --to-json '$work/out.json' --force"
