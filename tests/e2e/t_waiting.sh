#!/bin/sh
# Carnival's waiting-time analysis on the timed replay (--interleave timed), 4 threads
# (tests/e2e/progs/waiting.c): the diagnosis per synchronisation point, from JSON.
#   imbalance: thread 0 runs crunch() 4x as long before a barrier -> load imbalance, explained
#              by crunch's loop;
#   serial:    the main thread runs setup() while the workers wait -> insufficient
#              parallelism, explained by setup, whose cold misses are no communication;
#   lock:      one mutex around update() -> the lock's waiting is contention;
#   balanced:  imbalance's work split evenly (the fix in docs/guide.md) -> almost no waiting;
#   comm:      the same work on every thread, thread 0 summing rows the others have just
#              written -> the barrier after the sums is communication (its coherence misses),
#              and so is the one before them (the writers' upgrades of the lines it read).
# Both plugins record the block counts (WORK events) the compute time comes from.
# matrix: gcc:-O0 gcc:-O2 clang:-O2
. "$1/tests/e2e/lib.sh"
cc_build waiting "$SRC_DIR/tests/e2e/progs/waiting.c" -pthread
for m in imbalance serial lock balanced comm; do
    run_memspy $m.json --interleave timed -- ./waiting $m
    grep -q "mode=$m" $m.json.out || { echo "FAIL - program output changed"; cat $m.json.out; exit 1; }
done

TOP='.waiting.sources | max_by(.cycles)'
# A synchronisation point is where the program calls the synchronisation (the call's return
# address, recorded by the runtime's wrapper), whatever the compiler did with the code before it.
PROG="$SRC_DIR/tests/e2e/progs/waiting.c"
bar_line() { grep -n 'pthread_barrier_wait' "$PROG" | sed -n "$1p" | cut -d: -f1; }
LOCK_LINE=$(grep -n 'pthread_mutex_lock(&mu)' "$PROG" | cut -d: -f1)
check "imbalance: the barrier is worker's call of pthread_barrier_wait, line $(bar_line 1)" imbalance.json \
  "$TOP"' | .function == "worker" and (.file | endswith("waiting.c")) and .line == '"$(bar_line 1)"
check "serial: the barrier at line $(bar_line 2)" serial.json "$TOP"' | .function == "worker" and .line == '"$(bar_line 2)"
check "lock: the lock at worker's pthread_mutex_lock, line $LOCK_LINE" lock.json \
  "$TOP"' | .function == "worker" and .line == '"$LOCK_LINE"
check "comm: the barrier after the sums at line $(bar_line 4), the one before them at line $(bar_line 3)" comm.json \
  '[.waiting.sources[] | select(.kind == "barrier") | .line] | sort == ['"$(bar_line 3), $(bar_line 4)"']'
check "imbalance: timed, exact block counts, 4 processors" imbalance.json \
  '.interleave == "timed" and .waiting.approximate == false and (.waiting.profile | length) == 4'
check "imbalance: the barrier holds > 95% of the waiting" imbalance.json \
  "$TOP"' | .kind == "barrier" and .share > 0.95 and .instances == 3'
check "imbalance: > 90% of it load imbalance" imbalance.json \
  "$TOP"' | .classes.load_imbalance > 0.9 * .cycles'
# The extra work in iterations: the explanation counts executions of the loop's blocks, and a
# compiler may put several iterations in one (clang -O2 unrolls crunch's loop by 2: a block
# with 2 references of v run 35000 times, and a remainder block outside the loop that even
# trip counts never run; gcc one iteration per block, 70000 times; at -O0 the loop's header
# reads i and n from their stack slots too: the body is the block with the most memory
# operations). The iterations per execution of the loop's body are the run's 70000 iterations (40000 +
# 3 x 10000) over its executions.
check "imbalance: explained by crunch's loop, 3 x 30000 extra iterations" imbalance.json \
  '(.names | index("crunch")) as $f
   | ([.blocks[] | select(.function == $f and .loop != null and .memops > 0)] | max_by(.memops)) as $b
   | 70000 % $b.count == 0 and
   ('"$TOP"' | .explanation[0] | .function == "crunch" and (.loop | startswith("crunch:loop@")) and
    .extra_count * (70000 / $b.count) == 90000)'
check "imbalance: one class of paths, the 3 waits, led by crunch's loop" imbalance.json \
  "$TOP"' | (.paths | length) == 1 and .paths[0].instances == 3 and .paths[0].function == "crunch" and
   (.paths[0].loop | startswith("crunch:loop@"))'
check "imbalance: thread 0 computes 4x, the others wait about 3/4 of the time" imbalance.json \
  '.waiting.profile as $p | $p[0].compute > 3.5 * $p[1].compute and
   ([$p[1:][] | .waiting / (.compute + .stall + .waiting + .sync)] | min) > 0.6'

w1=$(jq .waiting.total_cycles imbalance.json)
check "balanced (the fix): under 1% of the imbalanced run's waiting ($w1)" balanced.json \
  ".waiting.total_cycles < 0.01 * $w1"

check "serial: the barrier holds > 95% of the waiting" serial.json \
  "$TOP"' | .kind == "barrier" and .share > 0.95'
# setup's stall is cold misses on data only thread 0 touches: insufficient parallelism with
# its compute, not communication (which takes coherence misses or data from another processor)
check "serial: > 99% of it insufficient parallelism, < 0.1% communication" serial.json \
  "$TOP"' | .classes.insufficient_parallelism > 0.99 * .cycles and .classes.communication < 0.001 * .cycles'
check "serial: explained by setup, with the stall of its cold misses" serial.json \
  "$TOP"' | .explanation[0].function == "setup" and .explanation[0].extra_cycles > 100000 and
   .explanation[0].stall_cycles > 0.5 * .extra_stall'

check "lock: the mutex in update holds > 90% of the waiting" lock.json \
  "$TOP"' | .kind == "lock" and .share > 0.9 and .instances > 100'
check "lock: all of it contention" lock.json \
  "$TOP"' | .classes.communication == .cycles'
check "lock: the holder's extra work is update's loop" lock.json \
  "$TOP"' | .explanation[0].function == "update"'
check "lock: every processor waits over half of its time" lock.json \
  '[.waiting.profile[] | .waiting / (.compute + .stall + .waiting + .sync)] | min > 0.5'

AFTER='(.waiting.sources[] | select(.line == '"$(bar_line 4)"'))'
BEFORE='(.waiting.sources[] | select(.line == '"$(bar_line 3)"'))'
check "comm: the barriers after and before the sums hold > 99.9% of the waiting, 60 waits each (20 rounds x 3)" \
  comm.json "[$AFTER, $BEFORE] | length == 2 and (map(.share) | add) > 0.999 and
   all(.[]; .kind == \"barrier\" and .function == \"worker\" and .instances == 60)"
check "comm: after the sums > 99% communication, explained by the stall at sum's line, no extra work" comm.json \
  "$AFTER"' | .classes.communication > 0.99 * .cycles and
   (.explanation[0] | .function == "sum" and .extra_count == 0 and .stall_cycles > 0)'
# The writers then rewrite rows thread 0 has read: each line a write to a read-only copy, an
# upgrade (no miss) that invalidates thread 0's copy and stalls the shared L3's directory.
check "comm: before the sums > 99% communication: the stall of fill's upgrades, no extra work" comm.json \
  "$BEFORE"' | .classes.communication > 0.99 * .cycles and
   (.explanation[0] | .function == "fill" and .extra_count == 0 and .stall_cycles > 0)'
FILL_LINE=$(grep -n 'row\[i\] = (double)(i + r)' "$PROG" | cut -d: -f1)
check "comm: fill's writes take 19 rounds x 64 lines back from thread 0 (1216 invalidations sent)" comm.json \
  '[.lines[] | select(.line == '"$FILL_LINE"') | .inval.sent] | add == 1216'
# The timed clocks advance by each reference's stall as the counters have it: the serving
# level's latency, the directory's for an upgrade, remote memory's with two nodes.
check "comm: the processors' stall in the timed profile sums to the counters' stall cycles" comm.json \
  '([.waiting.profile[].stall] | add) == .totals.stall_cycles and .totals.stall_cycles > 0'
SUM_LINE=$(grep -n 's += row\[i\]' "$SRC_DIR/tests/e2e/progs/waiting.c" | cut -d: -f1)
check "comm: sum's misses are thread 0's, 20 x 64 lines: 1088 invalidation, 192 cold (its first sum of each row)" \
  comm.json '[.lines[] | select(.line == '"$SUM_LINE"')] | (map(.misses) | add) == 1280 and
   (map(.causes.invalidation) | add) == 1088 and (map(.causes.cold) | add) == 192'

# The stored run reads back with its waiting analysis; the text reports name the diagnosis.
"$MEMSPY" report --json 1 >stored.json
check "imbalance: the stored run's waiting reads back unchanged" stored.json \
  "$(jq -c .waiting imbalance.json) as \$w | .waiting == \$w"
"$MEMSPY" report --waiting 2 >wt.txt
grep -Eq '^ +1  barrier .*setup:loop@' wt.txt ||
  { echo "FAIL - report --waiting: the barrier explained by setup's loop first"; cat wt.txt; FAILS=$((FAILS + 1)); }
"$MEMSPY" show --wait '#1' 1 >show.txt
grep -Eq 'load_imbalance +[0-9]+ cycles +(9[0-9]|100)\.[0-9]%' show.txt && grep -q ' crunch waiting.c:' show.txt ||
  { echo "FAIL - show --wait #1: load imbalance > 90%, crunch"; cat show.txt; FAILS=$((FAILS + 1)); }
if "$MEMSPY" show --wait nowhere 1 >/dev/null 2>err.txt || ! grep -q "no synchronisation point matches" err.txt; then
    echo "FAIL - show --wait nowhere: an error naming the problem"; FAILS=$((FAILS + 1))
fi

# Without block counts (the fallback instrumentation), in the default order: compute estimated
# per reference, the result marked approximate and the run's notes say so; the barrier still
# dominates, and no executions explain it (with the shared L3 the late thread's extra memory
# stall may: it takes the misses to memory on the data the others then find in L3).
MEMSPY_INSTRUMENT=tsan cc_build waiting_nowork "$SRC_DIR/tests/e2e/progs/waiting.c" -pthread
run_memspy nowork.json -- ./waiting_nowork imbalance
check "no block counts, the default order (timed): the run's note says the compute time is unknown" nowork.json \
  '.interleave == "timed" and
   ([.run.notes[] | select(test("no block counts .* compute time is unknown .* 2 cycles per reference; the waiting-time analysis is approximate"))] | length == 1)'
grep -q "compute time is unknown" nowork.json.txt ||
  { echo "FAIL - the text report shows the note"; FAILS=$((FAILS + 1)); }
check "no block counts: approximate, per-reference compute, no extra executions explain it" nowork.json \
  '.waiting.approximate == true and (.waiting.work_cost | test("per reference")) and
   (.waiting.sources | max_by(.cycles) | .kind == "barrier" and .share > 0.9 and
    all(.explanation[]; .extra_count == 0 and .extra_cycles == 0 and .loop == null))'
"$MEMSPY" report --waiting 6 | grep -q "APPROXIMATE" ||
  { echo "FAIL - report --waiting: approximate result not marked"; FAILS=$((FAILS + 1)); }

# A kept recording re-simulated: interleaved (no waiting analysis), then timed again (the
# recorded order by default) gives the run's waiting exactly.
run_memspy rec.json --interleave timed --record rec -- ./waiting imbalance
"$MEMSPY" resim --interleave interleaved --json ril.json -o ril.txt rec
check "resim --interleave interleaved: no waiting analysis" ril.json '.interleave == "interleaved" and .waiting == null'
"$MEMSPY" resim --json rt.json -o rt.txt rec
t0=$(jq .waiting.total_cycles rec.json)
check "resim of a timed recording is timed and gives the run's waiting ($t0 cycles)" rt.json \
  ".interleave == \"timed\" and .waiting.total_cycles == $t0"

# Determinism: the same recording gives the same waiting analysis.
run_memspy again.json --interleave timed -- ./waiting lock
t1=$(jq .waiting.total_cycles lock.json) t2=$(jq .waiting.total_cycles again.json)
check "lock: a second run gives the same waiting cycles ($t1)" again.json "$t1 == $t2 and $t1 > 0"

# Two nodes (processor p on node p / 2, a unit's home its number mod 2), remote memory 400
# cycles: the timed clocks take the remote latency as the counters do.
run_memspy numa.json --interleave timed --nodes 2 --remote-latency 400 -- ./waiting comm
check "comm, two nodes: the processors' timed stall sums to the counters', with remote misses" numa.json \
  '.config.nodes == 2 and .totals.remote_misses > 0 and ([.waiting.profile[].stall] | add) == .totals.stall_cycles'
finish
