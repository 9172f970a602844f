#!/bin/sh
# OpenMP programs built with memspy-cc -fopenmp: gcc's code runs on libgomp (its GOMP entry
# points are interposed), clang's on libomp (the runtime is an OMPT tool). A 3-thread region
# with a static loop, a critical section, a named one and an omp lock must show, per thread,
# exactly: the master's CREATEs of the pool threads and FORK(region, 3); BEGIN(region, 3) in
# every team member; the loop's BARRIER; the ACQUIRE/RELEASE pairs; the region's final BARRIER.
# Output and exit status are those of the run without the runtime.
# matrix: gcc:-O0 gcc:-O2 clang:-O0 clang:-O2
. "$1/tests/e2e/lib.sh"
RT="$SRC_DIR/tests/e2e/rt"
. "$RT/threads_lib.sh"
cc_build rt_omp "$RT/rt_omp.c" -fopenmp
./rt_omp >native.txt
record rt_omp - MEMSPY_THREADS=1
expect "same output" "$(cat out.txt)" "$(cat native.txt)"
expect "one stream per thread" "$(ls rec | tr '\n' ' ')" "thread-0.zst thread-1.zst thread-2.zst "

# Exactly these events: the OpenMP runtime's own pthread mutexes and condition variables
# (libomp's start-up handshakes, timing-dependent) are not recorded.
master="0: CREATE 0x1 0;0: CREATE 0x2 0;0: FORK 0x1 3;"
case "$CC_NAME" in
    gcc) crit="0x1" named=x1 lock=x2 ;;   # libgomp: unnamed critical = MS_SYNC_UNNAMED_CRITICAL
    clang) crit=x1 named=x2 lock=x3 ;;    # libomp (OMPT): every critical section has an address
esac
member() {
    echo "$1: BEGIN 0x1 3;$1: BARRIER 0x1 3;$1: ACQUIRE $crit 0;$1: RELEASE $crit 0;$1: ACQUIRE $named 0;\
$1: RELEASE $named 0;$1: ACQUIRE $lock 0;$1: RELEASE $lock 0;$1: BARRIER 0x1 3;"
}
expect "team events" "$(sync_events 0 1 2)" "$master$(member 0)$(member 1)$(member 2)"

# Without MEMSPY_THREADS the first parallel region switches to threads mode.
record rt_omp -
"$BUILD_DIR/bin/rt_rawcheck" raw/*.raw 8 >check.out
expect "switch at the first region" "$(sed -n 3p check.out)" "streams $WORK/rec threads 3"
expect "switch: same team events" "$(sync_events 0 1 2)" "$master$(member 0)$(member 1)$(member 2)"

# A program whose only OpenMP call is the region itself still gets its OpenMP library.
cc_build only_par "$SRC_DIR/tests/e2e/progs/omp_only_parallel.c" -fopenmp
set +e
OMP_NUM_THREADS=3 ./only_par >only_native.txt 2>&1; rc_native=$?
OMP_NUM_THREADS=3 "$MEMSPY" run --no-report --json only.json -- ./only_par >only_run.txt 2>&1; rc_run=$?
set -e
expect "a region-only OpenMP program runs natively" "$rc_native $(cat only_native.txt)" "0 hits=1"
expect "... and under memspy" "$rc_run $(grep -c '^hits=1$' only_run.txt)" "0 1"
[ "$FAILS" -eq 0 ] || exit 1
