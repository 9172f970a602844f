#!/bin/sh
# Carnival's WT Map has one row per synchronisation point (code location), however many times
# it is reached: an OpenMP region run in a loop gives its team a new object (the region
# instance) every round, and each round was a point of its own (4 fork rows and 4 barrier
# rows for one pragma). Under clang the fork is placed at the program's call into libomp
# (OMPT's codeptr_ra), not at libomp's code or the outlined body's last access.
# matrix: gcc:-O2 clang:-O2
. "$1/tests/e2e/lib.sh"
cc_build fr "$SRC_DIR/tests/e2e/progs/fork_rounds.c" -fopenmp
line=$(grep -n 'pragma omp parallel for' "$SRC_DIR/tests/e2e/progs/fork_rounds.c" | cut -d: -f1)
OMP_NUM_THREADS=3 run_memspy r.json -- ./fr 4
check "one fork point, at main's parallel region (line $line), with all 8 waits (4 rounds x 2 workers)" r.json \
  "[.waiting.sources[] | select(.kind == \"fork\")] | length == 1 and .[0].function == \"main\" and
   .[0].line == $line and .[0].instances == 8"
check "the fork is the largest waiting point: the serial loop runs while the team waits" r.json \
  '.waiting.sources | max_by(.cycles) | .kind == "fork"'
check "one implicit-barrier point for the region" r.json \
  "[.waiting.sources[] | select(.kind == \"barrier\" and .function == \"main\")] | length == 1"
finish
