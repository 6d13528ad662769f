#!/usr/bin/env bash
# Installs everything arec needs to build, test and demo on Debian 12 (run as root). When all
# packages are already installed it returns at once, without touching apt.
set -euo pipefail

# libclang-rt-14-dev holds clang's TSan and libFuzzer runtimes: only recommended by clang, and
# recommendations are not installed here. libcurl4-openssl-dev, libprotobuf-dev and
# protobuf-compiler are the push transport's (docs/fleet.md, "Dependencies").
packages=(
  cmake ninja-build g++ clang libclang-rt-14-dev pkg-config
  liburing-dev libzstd-dev libelf-dev libarchive-dev libasio-dev libgtest-dev libbenchmark-dev
  liblzma-dev xz-utils binutils  # MiniDebugInfo: <lzma.h> (liblzma is dlopen'ed), and the tests' xz/objcopy
  libdebuginfod-dev debuginfod curl  # debuginfod: <elfutils/debuginfod.h>; the tests' server
  libcurl4-openssl-dev libprotobuf-dev protobuf-compiler  # fleet/ and export/ (docs/fleet.md)
  linux-perf hotspot zstd util-linux python3
  iputils-ping  # perf's probe test workload: a probe on libc's inet_pton under ping -6 ::1
  # arec export (docs/export.md, "Dependencies"): profile.proto, gzip, ELF/DWARF, and the two
  # pprof readers the tests check the output with (Go's pprof, npm's pprof-format).
  zlib1g-dev libdw-dev golang-go nodejs
  # arec report's page is opened in headless Chromium by its tests (docs/report.md, "Tests").
  chromium
  # A real JVM writing its perf map at exit (tests/e2e/export_java_jit_test.cpp, docs/symbols.md).
  openjdk-17-jdk-headless
)

# The tests' second decoders, from the npm registry, in a directory of their own (see
# tests/e2e/export_test.cpp, which fails, not skips, when one is missing): npm's pprof-format for
# pprof, protobufjs (with long.js, for exact 64-bit times) for OTLP requests.
node_modules_dir=${AREC_TEST_NODE_DIR:-/usr/local/lib/arec-test-node}
node_decoders=(pprof-format@2.3.2 protobufjs@8.8.1 long@5.3.2)
node_decoder_installed() {  # NAME@VERSION
  local manifest="$node_modules_dir/node_modules/${1%@*}/package.json"
  [[ -f "$manifest" ]] && grep -q "\"version\": \"${1##*@}\"" "$manifest"
}
install_node_decoder() {
  local wanted=()
  for decoder in "${node_decoders[@]}"; do
    node_decoder_installed "$decoder" || wanted+=("$decoder")
  done
  ((${#wanted[@]} == 0)) && return 0
  echo "install-deps: installing ${wanted[*]} into $node_modules_dir"
  # Debian's nodejs comes without npm; a nodejs that bundles npm conflicts with Debian's npm.
  command -v npm > /dev/null || apt-get install -y --no-install-recommends npm
  mkdir -p "$node_modules_dir"
  npm install --silent --no-audit --no-fund --prefix "$node_modules_dir" "${node_decoders[@]}"
}

missing=()
for package in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${db:Status-Status}' "$package" 2>/dev/null || true)
  [[ "$status" == installed ]] || missing+=("$package")
done

if ((${#missing[@]} == 0)); then
  echo "install-deps: all ${#packages[@]} packages already installed"
  install_node_decoder
  exit 0
fi

if ((EUID != 0)); then
  echo "install-deps: missing ${missing[*]}; run this script as root" >&2
  exit 1
fi

echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update
apt-get install -y --no-install-recommends "${missing[@]}"
install_node_decoder
