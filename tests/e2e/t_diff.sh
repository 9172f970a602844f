#!/bin/sh
# memspy diff: the paper's blocked matrix multiply with B=64, then B=32 (memspy92 cache).
# The smaller block fits Y's block in the cache: Y's stall in BlkMultiply falls, and that cell
# is the first row of the comparison, with a negative change.
# matrix: gcc:-O2 clang:-O2
. "$1/tests/e2e/lib.sh"
cc_build blkmatmul "$SRC_DIR/examples/blkmatmul/blkmatmul.c"
run_memspy b64.json --preset memspy92 -- ./blkmatmul 295 64
run_memspy b32.json --preset memspy92 -- ./blkmatmul 295 32
"$MEMSPY" diff --json b64.json.result b32.json.result >diff.json
"$MEMSPY" diff --top 3 b64.json.result b32.json.result >diff.txt

y64=$(value b64.json "$JQ_DEFS"' cell("BlkMultiply"; "double*.Y").stall_cycles')
y32=$(value b32.json "$JQ_DEFS"' cell("BlkMultiply"; "double*.Y").stall_cycles')
check "Y's stall in BlkMultiply falls ($y64 -> $y32)" diff.json "$y32 < $y64"
check "the first cell is (BlkMultiply, double*.Y)" diff.json \
  '.cells[0].code.name == "BlkMultiply" and .cells[0].data.name == "double*.Y"'
check "its change is the difference of the two runs, negative" diff.json \
  ".cells[0].stall_change == $y32 - $y64 and .cells[0].stall_change < 0"
check "both runs' stall, refs and causes are in the row" diff.json \
  ".cells[0].a.stall_cycles == $y64 and .cells[0].b.stall_cycles == $y32 and (.cells[0].a.causes | has(\"capacity\"))"
check "rows are sorted by absolute change in stall" diff.json \
  '[.cells[].stall_change | fabs] as $c | $c == ($c | sort | reverse)'
check "the bins of both runs are matched (nothing appears or vanishes)" diff.json \
  '[.cells[], .data[], .code[]] | all(.presence == "both")'
check "total change is the sum of the cells' changes" diff.json \
  '([.cells[].stall_change] | add) == .runs[1].totals.stall_cycles - .runs[0].totals.stall_cycles'
first=$(grep -A2 '^Cells, by change' diff.txt | tail -1)
case "$first" in
  *BlkMultiply*double\*.Y*-*better) echo "ok   - text: first row is (BlkMultiply, double*.Y), better" ;;
  *) echo "FAIL - text: first row is '$first'"; FAILS=$((FAILS + 1)) ;;
esac
grep -q '^Cells, by change in memory stall time (3 of ' diff.txt && echo "ok   - text: --top 3" ||
  { echo "FAIL - text: --top 3"; FAILS=$((FAILS + 1)); }
if "$MEMSPY" diff b64.json.result 2>err.txt; then echo "FAIL - one run accepted"; FAILS=$((FAILS + 1)); fi
grep -q "needs two runs" err.txt && echo "ok   - one run: usage error" || { echo "FAIL - one run message"; FAILS=$((FAILS + 1)); }

# The CI gate: B=32 against B=64 stalls far less, so a rule on growth passes (exit 0) and one
# asking for Y's misses to fall by less than 50% fails (exit 1) with the offending row.
set +e
"$MEMSPY" diff b64.json.result b32.json.result --fail-if 'stall>+5%' >gate_ok.txt; rc_ok=$?
"$MEMSPY" diff b64.json.result b32.json.result --fail-if 'stall>+5%' --fail-if 'misses@data:double*.Y<-50%' >gate.txt; rc_fail=$?
"$MEMSPY" diff --json b32.json.result b64.json.result --fail-if 'stall>+5%' >gate.json; rc_back=$?
"$MEMSPY" diff b64.json.result b32.json.result --fail-if 'stall@data:nothing>+5%' 2>gate.err; rc_bad=$?
set -e
expect "gate passes: exit 0" "$rc_ok" 0
expect "gate fails: exit 1" "$rc_fail" 1
grep -q '^  FAIL misses@data:double\*.Y<-50%: double\*.Y ' gate.txt && echo "ok   - the failing row is printed" ||
  { echo "FAIL - failing row missing"; FAILS=$((FAILS + 1)); }
expect "the reverse comparison fails the stall rule: exit 1" "$rc_back" 1
check "JSON verdict: failed, total stall before and after" gate.json \
  ".gate.passed == false and .gate.results[0].scope == \"total\" and .gate.results[0].before == $(value b32.json .totals.stall_cycles) and .gate.results[0].after == $(value b64.json .totals.stall_cycles)"
expect "a rule naming no bin: exit 2" "$rc_bad" 2
grep -q "no data bin named 'nothing'" gate.err && echo "ok   - the unknown bin is named" ||
  { echo "FAIL - unknown bin message"; FAILS=$((FAILS + 1)); }
finish
