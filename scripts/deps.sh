#!/bin/sh
# Install the Debian packages memspy needs, only those missing.
#   sh scripts/deps.sh        what building and running memspy needs (make, make demo)
#   sh scripts/deps.sh test   plus what the test suite and benchmarks use (make check, bench)
set -e
# libomp-14-dev: clang -fopenmp (LLVM's OpenMP runtime, with OMPT for multithreaded profiles).
# gcc-N-plugin-dev: the headers memspy's GCC plugin is built against (N: the installed gcc).
GCC_MAJOR=$(gcc -dumpversion 2>/dev/null | cut -d. -f1)
PKGS="cmake make gcc g++ clang gfortran pkg-config libdw-dev libelf-dev libjansson-dev
zlib1g-dev libzstd-dev libsqlite3-dev libomp-14-dev gcc-${GCC_MAJOR:-12}-plugin-dev"
# valgrind: callgrind_annotate and Cachegrind; jq: the e2e assertions; autoconf/automake: the
# build-system test; chromium: the HTML report's browser test; util-linux: script(1).
TEST_PKGS="valgrind jq binutils autoconf automake chromium util-linux"
[ "${1:-}" = test ] && PKGS="$PKGS $TEST_PKGS"
missing=""
for p in $PKGS; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "memspy: installing missing Debian packages:$missing" >&2
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO=sudo
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing >&2
