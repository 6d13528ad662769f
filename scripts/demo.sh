#!/usr/bin/env bash
# From a fresh Debian 12 machine (as root): installs the dependencies, builds arec, records a
# real profile of a test program system-wide with call graphs, shows it with perf report and
# writes its HTML page with arec report.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

bash scripts/install-deps.sh
bash scripts/build.sh build

echo
echo "== ./build/arec -a -g -- ./build/tests/hot_loop 2000"
./build/arec -a -g -- ./build/tests/hot_loop 2000

echo
echo "== perf report --stdio --no-children --sort comm,dso,sym | head -40"
# perf report exits early on SIGPIPE from head; that is not a failure of the demo.
perf report --stdio --no-children --sort comm,dso,sym 2>&1 | head -40 || true

echo
echo "== ./build/arec report   (one HTML page of the profile, for any browser, offline)"
./build/arec report

echo
echo "The profile is in $root/perf.data: open it with 'perf report', in a browser as"
echo "$root/perf.data.html, or for hotspot './build/arec convert' then 'hotspot perf.converted.data'."
