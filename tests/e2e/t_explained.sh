#!/bin/sh
# The bundled examples' waiting explained by the timed replay (issue 14 item 6):
#   nbf original (OpenMP, 4 threads): one `omp critical` per element of f. The critical
#     section is the waiting: a lock source at the update's line holding > 90% of the waiting,
#     all of it contention, > 1000 instances, the same cycles in a second run;
#   ptri (4 threads, built with the ThreadSanitizer hooks so that its acquire/release Ready
#     flags are recorded as ordering edges): the Ready spin is the largest waiting source, of
#     kind spin at its line in SolveRows, and the spins collapse to one load each, so a second
#     run gives the same waiting and references.
# gcc only: nbf's outlined function name and the plugin's block counts are gcc's.
# matrix: gcc:-O2
. "$1/tests/e2e/lib.sh"
cc_build nbf "$SRC_DIR/examples/nbf/nbf.c" -fopenmp
export MEMSPY_INSTRUMENT=tsan
cc_build ptri "$SRC_DIR/examples/ptri/ptri.c" -pthread
unset MEMSPY_INSTRUMENT
CRIT_LINE=$(grep -n 'f\[i\] = f\[i\] + flocal\[i\];' "$SRC_DIR/examples/nbf/nbf.c" | head -1 | cut -d: -f1)
SPIN_LINE=$(grep -n '__atomic_load_n(&s->Ready\[c\]' "$SRC_DIR/examples/ptri/ptri.c" | cut -d: -f1)
for run in 1 2; do
    run_memspy nbf$run.json --interleave timed --preset memspy92 -- ./nbf original 4096 2
    run_memspy ptri$run.json --interleave timed --preset memspy92 -- ./ptri 4 10000 4 200
    grep -q "n=10000 nnz=39990 sum(x)=24756.262919" ptri$run.json.out ||
        { echo "FAIL - ptri: program output changed"; cat ptri$run.json.out; exit 1; }
done

TOP='.waiting.sources | max_by(.cycles)'
check "nbf: the critical section at line $CRIT_LINE holds > 90% of the waiting" nbf1.json \
  "$TOP"' | .kind == "lock" and .function == "main._omp_fn.0" and .line == '"$CRIT_LINE"' and .share > 0.9 and
   .instances > 1000'
check "nbf: its waiting is all contention" nbf1.json \
  "$TOP"' | .classes.communication == .cycles'
check "nbf: exact block counts, the same waiting in a second run" nbf2.json \
  ".waiting.approximate == false and .waiting.total_cycles == $(value nbf1.json .waiting.total_cycles)"

check "ptri: the Ready spin (SolveRows:$SPIN_LINE) is the largest waiting source (> 50%)" ptri1.json \
  "$TOP"' | .kind == "spin" and .function == "SolveRows" and .line == '"$SPIN_LINE"' and .share > 0.5 and
   .instances > 10'
check "ptri: the spin waits for data, not compute: no insufficient parallelism" ptri1.json \
  "$TOP"' | .classes.insufficient_parallelism == 0 and .classes.load_imbalance + .classes.communication == .cycles'
check "ptri: the same waiting and references in a second run" ptri2.json \
  ".waiting.total_cycles == $(value ptri1.json .waiting.total_cycles) and .totals.refs == $(value ptri1.json .totals.refs)"
finish
