#!/bin/sh
# Install the Debian packages memspy needs, only those missing.
#   sh scripts/deps.sh        what building and running memspy needs (make, make demo)
#   sh scripts/deps.sh test   plus what the test suite and benchmarks use (make check, bench)
#   sh scripts/deps.sh format only clang-format-14 (make format)
# Another apt/dpkg holding the package lock is waited for (up to MEMSPY_APT_WAIT seconds,
# default 600), with a message; the installation's output goes to a log file and one summary
# line is printed (the log's tail on failure).
set -e
# libomp-14-dev: clang -fopenmp (LLVM's OpenMP runtime, with OMPT for multithreaded profiles).
# gcc-N-plugin-dev: the headers memspy's GCC plugin is built against (N: the installed gcc).
# llvm-14-dev: the headers and CMake package memspy's LLVM pass plugin and memspy-mcdeps (the
# registers and latencies of loops' chains for memspy mtool) are built against.
# llvm-14: llvm-mca and llvm-objdump, MTOOL's ideal-memory cycles per block (memspy mtool).
GCC_MAJOR=$(gcc -dumpversion 2>/dev/null | cut -d. -f1)
PKGS="cmake make gcc g++ clang gfortran pkg-config libdw-dev libelf-dev libjansson-dev
zlib1g-dev libzstd-dev libsqlite3-dev libomp-14-dev llvm-14 gcc-${GCC_MAJOR:-12}-plugin-dev llvm-14-dev"
# valgrind: callgrind_annotate and Cachegrind; jq: the e2e assertions; autoconf/automake: the
# build-system test; chromium: the HTML report's browser test; util-linux: script(1), unshare
# (the full-disk test's tmpfs); sqlite3: holding a lock on the run database in the tests;
# clang-format-14: the formatting check (CTest format).
TEST_PKGS="valgrind jq binutils autoconf automake chromium util-linux sqlite3 clang-format-14"
[ "${1:-}" = test ] && PKGS="$PKGS $TEST_PKGS"
[ "${1:-}" = format ] && PKGS="clang-format-14"
missing=""
for p in $PKGS; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO=sudo
wait_s=${MEMSPY_APT_WAIT:-600}
log=${TMPDIR:-/tmp}/memspy-deps.log
: >"$log"
apt="$SUDO env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=0 -q -y"
# apt_step ARGS: run apt-get ARGS into the log; while another package manager holds a lock,
# say so once and try again every 5 s, up to wait_s seconds.
apt_step() {
  waited=0
  until $apt "$@" >>"$log" 2>&1; do
    if grep -q 'Could not get lock\|Unable to acquire the dpkg frontend lock\|Unable to lock' "$log" &&
       [ "$waited" -lt "$wait_s" ]; then
      [ "$waited" -eq 0 ] && echo "memspy: another package manager holds the package lock; waiting up to ${wait_s}s" >&2
      sleep 5; waited=$((waited + 5)); : >"$log"
      continue
    fi
    echo "memspy: package installation failed (apt-get $1); the end of $log:" >&2
    tail -n 20 "$log" >&2
    exit 1
  done
}
echo "memspy: installing missing Debian packages:$missing (full log: $log)" >&2
apt_step update
apt_step install $missing
echo "memspy: installed$missing" >&2
