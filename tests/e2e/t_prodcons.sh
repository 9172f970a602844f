#!/bin/sh
# Producer/consumer through a ring buffer (Carnival 2.2). Findings: with one consumer, the
# buffer's dominant pattern is single-producer/single-consumer; with one producer and three
# consumers that all read every item, single-producer/multiple-consumer; the buffer's
# invalidations are true sharing (whole line-sized items are written and read).
# With the mutex and condition variables (the default handoff) some invalidations are false
# sharing: the slot's sequence flag is checked under the mutex, and the replay grants locks in
# its own order (ccSIM's semantics), so a consumer that found its item filled without waiting
# in the recorded run (no COND_WAIT in its stream) may read it in the replay while the producer
# is still writing it piecewise. How often depends on the OS schedule while recording: on a
# loaded machine the producer runs ahead, the consumer seldom waits (1,000-1,400 waits of
# 4,000 instead of ~2,300) and false sharing can exceed true sharing (seen: 6,238 false,
# 3,099 true, gcc -O0, one consumer, beside a busy loop on its CPU). So those runs assert the
# patterns and the true sharing alone, and the true-sharing finding is asserted exactly on the
# semaphore handoff (`sem`), whose streams, and so statistics, are the same whatever the
# schedule (the same numbers every run, loaded or not, every compiler and level).
# matrix: gcc:-O0 gcc:-O2 clang:-O0 clang:-O2 clang:-O3
. "$1/tests/e2e/lib.sh"
cc_build prodcons "$SRC_DIR/examples/prodcons/prodcons.c" -pthread
run_memspy one.json --preset memspy92 -- ./prodcons 1 4000
run_memspy three.json --preset memspy92 -- ./prodcons 3 4000
# The semaphore runs use the default (set-associative) hierarchy: in memspy92's direct-mapped
# cache the consumers' stacks and the buffer conflict or not depending on where the heap and
# the thread stacks land (the runtime's size and its own early allocations move them: 9,993
# invalidations instead of 11,991, the other 1,998 lines evicted by Consume's locals first).
run_memspy one_sem.json -- ./prodcons 1 4000 sem
run_memspy three_sem.json -- ./prodcons 3 4000 sem
for run in one three one_sem three_sem; do
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
for run in one three; do
  check "$run: the buffer has over 1000 true-sharing invalidations" "$run.json" \
    "$DEFS"' inv("q.buffer") | .true_sharing > 1000'
done
# Semaphores: every item but the first of each of the 4 slots invalidates each consumer's copy
# of its slot's line (3,996 per consumer), and at the end free() writes its list pointer into
# the buffer's first line (one more per consumer); nothing else does.
check "1 consumer, semaphores: 3997 invalidations of the buffer, all true sharing" one_sem.json \
  "$DEFS"' inv("q.buffer") | .true_sharing == 3997 and .false_sharing == 0'
check "3 consumers, semaphores: 11991 invalidations of the buffer, all true sharing" three_sem.json \
  "$DEFS"' inv("q.buffer") | .true_sharing == 11991 and .false_sharing == 0'
check "1 consumer, semaphores: single-producer/single-consumer (> 50%)" one_sem.json \
  "$DEFS"' dominant("q.buffer") | .pattern == "single-producer/single-consumer" and .share > 0.5'
check "3 consumers, semaphores: single-producer/multiple-consumer (> 50%)" three_sem.json \
  "$DEFS"' dominant("q.buffer") | .pattern == "single-producer/multiple-consumer" and .share > 0.5'
finish
