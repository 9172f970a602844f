#!/bin/sh
# memspy mtool on a threaded program whose main thread waits while two workers compute, the
# workers made with every signal blocked (as xz's are): the timing run samples each thread on
# its own CPU-time clock with SIGPROF kept deliverable, so the workers' gather loop holds the
# measured time (with the process's ITIMER_PROF every sample fell in the main thread's wait in
# libc and nothing was timable), and the workers still read back the signal mask they set.
# matrix: gcc:-O2 clang:-O2
. "$1/tests/e2e/lib.sh"
command -v llvm-mca-14 >/dev/null || { echo "skip: llvm-mca-14 not installed (scripts/deps.sh)"; exit 77; }
cc_build thr "$SRC_DIR/tests/e2e/progs/mtool_threads.c" -pthread
./thr 8 1 >native.out
"$MEMSPY" mtool --json m.json -o m.txt -- ./thr 64 6 >m.out
check "the program finished normally (its workers saw the signal mask they set)" m.json ".mtool.incomplete == false"
loops='[.mtool.mobjects[] | select(.kind == "loop" and .timable)]'
check "the workers' gather loop is timable and has the most measured time" m.json \
  "($loops | max_by(.measured_s)).function | test(\"^gather_worker\")"
check "most of the measured time is the workers' (not the main thread's wait)" m.json \
  "([.mtool.mobjects[] | select(.kind == \"procedure\" and .function == \"gather_worker\")][0].measured_s) > 0.5 * .mtool.measured_s"
check "at least 90% of memory operations measured" m.json ".mtool.covered_memops >= 0.9"
finish
