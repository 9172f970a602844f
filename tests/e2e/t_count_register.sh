#!/bin/sh
# The counting copy keeps the buffer's count in a register (docs/plugin.md, Versioning): its
# block counts stay exact where the count meets memory: calls (a callee appends after the
# caller's words), exceptions (the landing pad reloads the count the throwing callee advanced),
# a full buffer (a loop of 150,000 iterations without a call flushes from the register). At -O0
# the count stays in memory (docs/plugin.md): the -O0 cases check that path.
# MEMSPY_MODE=count gives every block the capture run's count, and the same output (the
# references it records are libstdc++'s, through the runtime's string functions).
# matrix: gcc:-O0 gcc:-O2 clang:-O0 clang:-O2 clang:-O3
. "$1/tests/e2e/lib.sh"
N=3000
"$BUILD_DIR/bin/memspy-c++" $OPT -o count_eh "$SRC_DIR/tests/e2e/progs/count_eh.cc"
run_memspy c.json -- ./count_eh $N
MEMSPY_MODE=count run_memspy n.json -- ./count_eh $N
expect "the program's output (sum, exceptions caught with their loop, the long loop's sum)" \
  "$(cat n.json.out)" "$(cat c.json.out)"
expect "exceptions caught, with their loop (1000 throws)" "$(cut -d' ' -f2 c.json.out)" "2000"
check "count mode: every block's count equals the capture run's" n.json \
  "[.blocks[].count] == $(jq -c '[.blocks[].count]' c.json)"
check "count mode: the long loop fills the buffer (150,000 iterations, unrolled 8 times at most: a block of it 18,750 times at least)" n.json \
  "[.blocks[].count] | max >= 18750"
finish
