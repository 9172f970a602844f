#!/bin/sh
# MemSpy Figure 1-3: blocked matrix multiply, N=295, B=64, the paper's 32 KiB cache.
# Finding: Y in BlkMultiply holds most of the stall; its misses are replacements, mostly
# caused by Y itself (self-interference).
# matrix: gcc:-O0 gcc:-O2 clang:-O0 clang:-O2 clang:-O3
. "$1/tests/e2e/lib.sh"
cc_build blkmatmul "$SRC_DIR/examples/blkmatmul/blkmatmul.c"
run_memspy r.json --preset memspy92 -- ./blkmatmul 295 64
grep -q "N=295 B=64 trace=310695.057851" r.json.out || { echo "FAIL - program output changed"; exit 1; }

check "Y is a heap bin named double*.Y" r.json '.data | any(.name == "double*.Y" and .kind == "heap")'
check "three matrices are three bins (one site, three call paths)" r.json \
  '[.data[] | select(.name | test("^double\\*\\.[XYZ]$"))] | length == 3'
check "full name carries the call path" r.json \
  "$JQ_DEFS"' .data[] | select(.name == "double*.Y") | .full_name | test("^main:[0-9]+>NewMatrix:[0-9]+>double\\*\\.Y$")'
check "(BlkMultiply, Y) is the top cell" r.json \
  "$JQ_DEFS"' (.bins | max_by(.stall_cycles)) as $top | $top.code == codeid("BlkMultiply") and $top.data == dataid("double*.Y")'
check "(BlkMultiply, Y) holds most of the stall (> 60%)" r.json \
  "$JQ_DEFS"' cell("BlkMultiply"; "double*.Y").stall_cycles / .totals.stall_cycles > 0.60'
check "Y's misses in BlkMultiply are replacements (> 95%)" r.json \
  "$JQ_DEFS"' cell("BlkMultiply"; "double*.Y") | repl / .misses > 0.95'
check "Y's replacements are caused mostly by Y itself (> 60%)" r.json \
  "$JQ_DEFS"' dataid("double*.Y") as $y | cell("BlkMultiply"; "double*.Y") | evicted_share($y) > 0.60'
# gcc instruments before vectorizing: one 8-byte read per Y[k,j], N^3 in all. clang 14 -O2
# instruments the vectorized loop: per (i, k), 4 blocks of 64 take 32 16-byte reads each and
# the last block of 39 takes 21 (vector body plus scalar tail), 149 reads.
if [ "$CC_NAME" = clang ] && [ "$OPT" != -O0 ]; then per_row=149; else per_row=295; fi
check "reads of Y in BlkMultiply: exactly N*N*$per_row" r.json \
  "$JQ_DEFS"' cell("BlkMultiply"; "double*.Y") | .reads == 295*295*'$per_row' and .writes == 0'
check "paper cache: every miss stalls 50 cycles" r.json '.totals.stall_cycles == 50 * .totals.misses'
# The headline: Y in BlkMultiply, self-interference, in the text report too.
check "finding 1: Y in BlkMultiply, self-interference, over half the stall" r.json \
  '.findings[0] | .kind == "self-interference" and .data_name == "double*.Y" and .code_name == "BlkMultiply" and .share > 0.5 and .cause == "capacity"'
grep -q '^  1\. [0-9]*% of memory stall: double\*\.Y in BlkMultiply (blkmatmul\.c:[0-9-]*), replacement misses' r.json.txt &&
  echo "ok   - the text report starts with the finding" || { echo "FAIL - text finding"; FAILS=$((FAILS + 1)); }
finish
