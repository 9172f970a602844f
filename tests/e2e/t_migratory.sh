#!/bin/sh
# Migratory sharing: a one-line record updated read-modify-write under a mutex by 4 threads in
# turn. Findings: the record's dominant access pattern is migratory (> 50% of its coherence
# misses); its invalidations are true sharing, made with the lock held.
# matrix: gcc:-O0 gcc:-O2 clang:-O0 clang:-O2 clang:-O3
. "$1/tests/e2e/lib.sh"
cc_build migratory "$SRC_DIR/examples/migratory/migratory.c" -pthread
run_memspy r.json --preset memspy92 -- ./migratory 4 2000
grep -q "threads=4 deposits=8000 balance=767997 largest=111" r.json.out ||
  { echo "FAIL - program output changed"; cat r.json.out; exit 1; }

DEFS="$JQ_DEFS"'
def bin_patterns($n): dataid($n) as $i | .patterns[] | select(.data == $i or .data == $n);
def inv($n): .data[] | select(.name == $n) | .invalidations;
'
check "4 processors" r.json '.nprocs == 4 and (.threads | length) == 4'
check "account: over 1000 communication misses" r.json \
  "$DEFS"' bin_patterns("account") | .communication_misses > 1000'
check "account: the dominant pattern is migratory (> 50%)" r.json \
  "$DEFS"' bin_patterns("account") | .patterns | max_by(.share) | .pattern == "migratory" and .share > 0.5'
check "account: > 90% of its invalidations true sharing, with the lock held" r.json \
  "$DEFS"' inv("account") | (.true_sharing + .false_sharing) as $t |
   $t > 1000 and .true_sharing > 0.9 * $t and .with_lock > 0.9 * $t'
finish
