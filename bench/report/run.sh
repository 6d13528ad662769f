#!/usr/bin/env bash
# bench/report/run.sh [BUILD_DIR]: the report page of a 1 M sample / 100 k stack profile:
# how long arec takes to write it, its size (and gzipped), and in headless Chromium its first
# paint, a search, a zoom and the JS heap (3 runs each); then the same with time buckets
# (--timed). Numbers: docs/performance.md, "arec report's page".
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${1:-$root/build}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
for variant in "" --timed; do
  for run in 1 2 3; do "$build/bench/arec_report_page_bench" "$dir/page.html" $variant; done
  echo "{\"bytes\":$(stat -c %s "$dir/page.html"),\"gzipped\":$(gzip -c "$dir/page.html" | wc -c)}"
  node "$root/bench/report/page_timings.cjs" "$dir/page.html" 3
done
