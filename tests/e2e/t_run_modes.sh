#!/bin/sh
# The versions of a plugin-instrumented function (docs/plugin.md, Versioning), one binary:
# MEMSPY_MODE=time runs the plain copies: no reference recorded, no block counted, the same
# output, and the copy's pcs symbolize to the same function and line (kernel's call of
# where(), whose return address the program prints: it differs from the instrumented body's,
# so the copy ran). MEMSPY_MODE=count runs the counting copies: every block's count equals
# the capture run's, no reference recorded, and the call returns outside the body.
# matrix: gcc:-O0 gcc:-O2 clang:-O0 clang:-O2
. "$1/tests/e2e/lib.sh"
N=5000
cc_build timemode "$SRC_DIR/tests/e2e/progs/timemode.c"
WHERE=$(grep -n 's += where(); /\* WHERE \*/' "$SRC_DIR/tests/e2e/progs/timemode.c" | cut -d: -f1)

run_memspy c.json -- ./timemode $N
MEMSPY_MODE=time run_memspy t.json -- ./timemode $N
expect "time mode: the program's output is the same" "$(grep sum t.json.out)" "$(grep sum c.json.out)"
check "capture mode: kernel's references recorded (2 reads and a write per iteration at least)" c.json \
  ".totals.reads + .totals.writes >= 3 * $N"
check "time mode: no reference recorded" t.json '.totals.reads + .totals.writes == 0'
check "time mode: the block and loop tables are there, no block counted" t.json \
  '(.blocks | length) > 0 and (.loops | length) > 0 and ([.blocks[].count] | add) == 0'
check "capture mode: kernel's blocks counted" c.json \
  "$JQ_DEFS [named(.blocks)[] | select(.function == \"kernel\") | .count] | add > 0"

pc_c=$(sed -n 's/^caller //p' c.json.out)
pc_t=$(sed -n 's/^caller //p' t.json.out)
if [ "$pc_c" != "$pc_t" ]; then
  echo "ok   - time mode: kernel's call of where() returns into another copy of kernel ($pc_c, $pc_t)"
else
  echo "FAIL - time mode: the same return address in both modes ($pc_c): the copy did not run"
  FAILS=$((FAILS + 1))
fi
MEMSPY_MODE=count run_memspy n.json -- ./timemode $N
expect "count mode: the program's output is the same" "$(grep sum n.json.out)" "$(grep sum c.json.out)"
check "count mode: every block's count equals the capture run's" n.json \
  "[.blocks[].count] == $(jq -c '[.blocks[].count]' c.json)"
check "count mode: no reference recorded" n.json '.totals.reads + .totals.writes == 0'
# The counting copy ran (its counts equal the capture run's, the plain copy counts nothing):
# its call returns outside the body; into a third copy, or into the plain copy's code when
# code generation merged the two copies' identical tails (the call, the epilogue: clang -O2
# once the counting copy's last words come before the call, its loop counted by a repeat word)
pc_n=$(sed -n 's/^caller //p' n.json.out)
if [ "$pc_n" != "$pc_c" ]; then
  echo "ok   - count mode: the call returns outside the body ($pc_n; the plain copy's: $pc_t)"
else
  echo "FAIL - count mode: the call returns into the body ($pc_n)"
  FAILS=$((FAILS + 1))
fi

sym() { addr2line -f -e timemode "$1" | tr '\n' ' ' | sed 's/ (discriminator [0-9]*)//; s/ $//; s|[^ ]*/||'; }
expect "capture mode: the call's pc symbolizes to kernel, timemode.c:$WHERE" "$(sym "$pc_c")" "kernel timemode.c:$WHERE"
expect "time mode: the copy's pc symbolizes to kernel, timemode.c:$WHERE" "$(sym "$pc_t")" "kernel timemode.c:$WHERE"
expect "count mode: the copy's pc symbolizes to kernel, timemode.c:$WHERE" "$(sym "$pc_n")" "kernel timemode.c:$WHERE"

finish
