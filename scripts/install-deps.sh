#!/usr/bin/env bash
# Installs everything arec needs to build, test and demo on Debian 12 (run as root). When all
# packages are already installed it returns at once, without touching apt.
set -euo pipefail

# libclang-rt-14-dev holds clang's TSan and libFuzzer runtimes: only recommended by clang, and
# recommendations are not installed here. libcurl4-openssl-dev, libprotobuf-dev and
# protobuf-compiler are the push transport's (docs/fleet.md, "Dependencies").
packages=(
  cmake ninja-build g++ clang libclang-rt-14-dev pkg-config
  liburing-dev libzstd-dev libelf-dev libasio-dev libgtest-dev libbenchmark-dev
  libcurl4-openssl-dev libprotobuf-dev protobuf-compiler
  linux-perf hotspot zstd util-linux python3
)

missing=()
for package in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${db:Status-Status}' "$package" 2>/dev/null || true)
  [[ "$status" == installed ]] || missing+=("$package")
done

if ((${#missing[@]} == 0)); then
  echo "install-deps: all ${#packages[@]} packages already installed"
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
