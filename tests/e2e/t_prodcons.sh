#!/bin/sh
# Producer/consumer through a ring buffer (Carnival 2.2). Findings: with one consumer, the
# buffer's dominant pattern is single-producer/single-consumer; with one producer and three
# consumers that all read every item, single-producer/multiple-consumer. Either way the
# buffer's invalidations are mostly true sharing (whole line-sized items are written and read).
# Some are false sharing: the slot's sequence flag is checked under the mutex, and the replay
# grants locks in its own order (ccSIM's semantics), so a consumer may start reading an item
# the producer is still writing piecewise (clang -O2 writes it in 16-byte stores). How often
# depends on how many times each thread's condition-variable loop went round, i.e. on the OS
# schedule while recording: the streams differ from run to run, so the threshold leaves room.
# matrix: gcc:-O0 gcc:-O2 clang:-O0 clang:-O2 clang:-O3
. "$1/tests/e2e/lib.sh"
cc_build prodcons "$SRC_DIR/examples/prodcons/prodcons.c" -pthread
run_memspy one.json --preset memspy92 -- ./prodcons 1 4000
run_memspy three.json --preset memspy92 -- ./prodcons 3 4000
for run in one three; do
  grep -q "items=4000 sum=1599172 ok" "$run.json.out" ||
    { echo "FAIL - prodcons $run: program output changed"; cat "$run.json.out"; exit 1; }
done

DEFS="$JQ_DEFS"'
def dominant($n): dataid($n) as $i | .patterns[] | select(.data == $i or .data == $n) |
  .patterns | max_by(.share);
def inv($n): .data[] | select(.name == $n) | .invalidations;
'
check "1 consumer: 2 processors" one.json '.nprocs == 2'
check "3 consumers: 4 processors" three.json '.nprocs == 4'
check "1 consumer: the buffer's dominant pattern is single-producer/single-consumer (> 50%)" one.json \
  "$DEFS"' dominant("q.buffer") | .pattern == "single-producer/single-consumer" and .share > 0.5'
check "3 consumers: the buffer's dominant pattern is single-producer/multiple-consumer (> 50%)" three.json \
  "$DEFS"' dominant("q.buffer") | .pattern == "single-producer/multiple-consumer" and .share > 0.5'
# clang -O0 through memspy's llvm plugin: every local lives in memory and is seen (as in the
# native -O0 binary: ~10x the references of the ThreadSanitizer path, which skips locals), so
# the producer writes an item over a much longer stretch of the replay's time and consumers
# overlap it more: false sharing then exceeds true sharing. Only the true sharing is checked.
for run in one three; do
  if [ "$CC_NAME:$OPT" = clang:-O0 ] && grep -q 'memspy llvm plugin' "$run.json"; then
    check "$run: the buffer has over 1000 true-sharing invalidations" "$run.json" \
      "$DEFS"' inv("q.buffer") | .true_sharing > 1000'
  else
    check "$run: the buffer has over 1000 invalidations, mostly true sharing" "$run.json" \
      "$DEFS"' inv("q.buffer") | .true_sharing > 1000 and .true_sharing > .false_sharing'
  fi
done
finish
