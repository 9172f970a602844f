#!/bin/sh
# The runtime alone (no memspy-cc, no memspy run): a program compiled by hand with the TSan
# hooks and linked with libmemspy_rt.a behaves identically with and without MEMSPY_RAW_DIR,
# writes a well-formed raw file, flags crashes/_exit as incomplete, and counts exactly the
# 1000 writes + 1000 reads of a loop over a malloc'd 1000-double array in its heap bin.
# matrix: gcc:-O0 gcc:-O2 clang:-O0 clang:-O2
set -eu
SRC_DIR=$1 BUILD_DIR=$2 CC=$3 OPT=$4
LIB="$BUILD_DIR/lib/memspy"
command -v "$CC" >/dev/null || { echo "skip: $CC not installed"; exit 77; }
[ -f "$LIB/libmemspy_rt.a" ] && [ -f "$LIB/libmemspy_format.a" ] || { echo "skip: libraries not built"; exit 77; }
WORK=$(mktemp -d "${TMPDIR:-/tmp}/memspy-rt.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"

case "$CC" in
    gcc) CFLAGS="-fsanitize=thread -g" ;;
    clang) CFLAGS="-fsanitize=thread -fno-sanitize-link-runtime -mllvm -tsan-instrument-read-before-write=1 -gdwarf-aranges -g -fno-vectorize -fno-slp-vectorize" ;;
esac
# gcc -O2 expands small memcpy/memset inline without hooks; memspy-cc passes -fno-builtin too.
"$CC" $OPT $CFLAGS -fno-builtin -c "$SRC_DIR/tests/e2e/rt/rt_smoke.c" -o smoke.o
"$CC" smoke.o -o smoke -Wl,--whole-archive "$LIB/libmemspy_rt.a" -Wl,--no-whole-archive \
    -Wl,--dynamic-list="$LIB/memspy-dynamic.list" -ldw -lelf -ldl -lpthread -lm
RAWCHECK="$BUILD_DIR/bin/rt_rawcheck"   # built by CMake, with the build's sanitizer flags

FAILS=0
fail() { echo "FAIL - $*"; FAILS=$((FAILS + 1)); }

# run MODE STATUS FLAGS EXIT_KIND EXIT_VALUE [N]: compare with the native run, then check the
# file: N (default 1000) reads and N writes in the heap bins of the 8000-byte arrays.
# ("native" is the same binary without MEMSPY_RAW_DIR: the inactive runtime.)
run() {
    mode=$1 want=$2 flags=$3 kind=$4 value=$5 n=${6:-1000}
    rm -rf raw && mkdir raw
    set +e
    ./smoke "$mode" >native.out 2>/dev/null; native=$?
    MEMSPY_RAW_DIR="$WORK/raw" ./smoke "$mode" >memspy.out 2>memspy.err; got=$?
    set -e
    [ "$native" -eq "$want" ] && [ "$got" -eq "$want" ] || { fail "$mode: status native $native memspy $got, want $want"; return; }
    cmp -s native.out memspy.out || { fail "$mode: stdout differs"; return; }
    # (the shell itself reports a signal death on the command's stderr)
    if grep -qvE '^(Segmentation fault|Aborted|Terminated)' memspy.err; then
        fail "$mode: runtime wrote to stderr: $(cat memspy.err)"; return
    fi
    set -- raw/*.raw
    [ "$#" -eq 1 ] && [ -f "$1" ] || { fail "$mode: expected one raw file, got: $(ls raw)"; return; }
    "$RAWCHECK" "$1" 8000 >check.out || { fail "$mode: raw file unreadable"; return; }
    [ "$(sed -n 1p check.out)" = "$flags $kind $value 0" ] || { fail "$mode: header $(sed -n 1p check.out), want $flags $kind $value 0"; return; }
    [ "$(sed -n 2p check.out)" = "$n $n" ] || { fail "$mode: heap array reads/writes $(sed -n 2p check.out), want $n $n"; return; }
    echo "ok   - $mode: status $got, same stdout, raw file flags $flags, $n reads + $n writes"
}
run loop 0 0 0 0
run exit3 3 0 0 3
run longjmp 0 0 0 0
run segv 139 1 1 11
run abort 134 1 1 6
run _exit 4 1 2 4
run kill 143 1 1 15
run threads 0 0 0 0 2000
[ "$FAILS" -eq 0 ] || exit 1
