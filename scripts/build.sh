#!/usr/bin/env bash
# Configures and builds arec with its tests: scripts/build.sh [BUILD_DIR] [EXTRA CMAKE ARGS...]
# BUILD_DIR defaults to build/, the build type to RelWithDebInfo (override with
# -DCMAKE_BUILD_TYPE=...). JOBS sets ninja's parallelism (default: all CPUs).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_dir=${1:-build}
shift $(($# > 0 ? 1 : 0))
[[ "$build_dir" == /* ]] || build_dir="$root/$build_dir"

cmake -S "$root" -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@"
ninja -C "$build_dir" -j "${JOBS:-$(nproc)}"
