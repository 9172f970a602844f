#!/bin/sh
# The same program and input give identical statistics run after run (address-space
# randomization is turned off for the profiled program; big arrays live in mmap'd memory,
# whose placement would otherwise move the L2/L3 set mapping).
# matrix: gcc:-O2 clang:-O2
. "$1/tests/e2e/lib.sh"
cc_build spmv "$SRC_DIR/bench/kernels/spmv.c"
run_memspy a.json --preset x86 -- ./spmv 50000 8 1
run_memspy b.json --preset x86 -- ./spmv 50000 8 1
jq -S 'del(.run)' a.json >a.norm
jq -S 'del(.run)' b.json >b.norm
if cmp -s a.norm b.norm; then echo "ok   - two runs give identical statistics"; else
  echo "FAIL - two runs differ:"; diff a.norm b.norm | head -20; FAILS=$((FAILS + 1)); fi
check "the run has L3 misses to compare" a.json '.totals.levels[2].misses > 10000'
finish
