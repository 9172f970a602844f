#!/bin/sh
# memspy export: the callgrind export read by valgrind's own callgrind_annotate gives exactly
# the run's numbers (program totals and the BlkMultiply function, self and inclusive: main's
# inclusive costs are the totals; t_export_calls checks the call graph's rule); the CSV rows
# sum to the run's totals; the JSON export is the result itself.
# matrix: gcc:-O0 gcc:-O2 clang:-O2
. "$1/tests/e2e/lib.sh"
command -v callgrind_annotate >/dev/null || { echo "skip: callgrind_annotate (valgrind) not installed"; exit 77; }
cc_build blkmatmul "$SRC_DIR/examples/blkmatmul/blkmatmul.c"
run_memspy r.json --preset memspy92 -- ./blkmatmul 295 64

# expect DESCRIPTION ACTUAL EXPECTED

"$MEMSPY" export r.json --format callgrind -o cg.out
callgrind_annotate --show=Refs,L1m,Stall --threshold=100 cg.out >cg.txt 2>cg.err
expect "callgrind_annotate reads the export without warnings" "$(cat cg.err)" ""
# "77,713,622 (100.0%) 2,944,245 (100.0%) 147,212,250 (100.0%)  PROGRAM TOTALS" -> "77713622 2944245 147212250"
numbers() { grep -E "$1" cg.txt | head -1 | sed 's/([^)]*)//g; s/,//g' | awk '{ print $1, $2, $3 }'; }
expect "program totals: Refs L1m Stall" "$(numbers 'PROGRAM TOTALS')" \
  "$(value r.json '"\(.totals.refs) \(.totals.misses) \(.totals.stall_cycles)"')"
expect "BlkMultiply: Refs L1m Stall" "$(numbers ':BlkMultiply$')" \
  "$(value r.json '.code[] | select(.name == "BlkMultiply") | "\(.refs) \(.misses) \(.stall_cycles)"')"
expect "Stall is the first event, so callgrind_annotate sorts by it" \
  "$(callgrind_annotate --threshold=100 cg.out 2>/dev/null | sed -n 's/^Event sort order: *\([A-Za-z]*\).*/\1/p')" Stall
expect "every event is named" "$(grep -c '^event: ' cg.out)" "$(grep '^events:' cg.out | wc -w | awk '{ print $1 - 1 }')"
expect "the annotated source shows the Z = Z + r * Y line" \
  "$(grep -c 'Z\[(size_t)i \* N + j\] = Z' cg.txt)" 1
# the call graph (docs/guide.md, "The call graph in KCachegrind"): main's inclusive costs are
# the run's, and BlkMultiply, called by main only and calling nothing (but min at -O0), includes
# only its own
callgrind_annotate --inclusive=yes --show=Refs,L1m,Stall --threshold=100 cg.out >incl.txt 2>incl.err
expect "callgrind_annotate --inclusive=yes reads the export without warnings" "$(cat incl.err)" ""
inclusive() { grep -E "$1" incl.txt | head -1 | sed 's/([^)]*)//g; s/,//g' | awk '{ print $1, $2, $3 }'; }
expect "main's inclusive Refs L1m Stall are the program totals" "$(inclusive ':main$')" \
  "$(value r.json '"\(.totals.refs) \(.totals.misses) \(.totals.stall_cycles)"')"
if [ "$OPT" = -O0 ]; then
  # at -O0 BlkMultiply calls min (not inlined), whose parameters are loads and stores of its
  # stack slots: its inclusive costs are its own plus min's
  expect "BlkMultiply's inclusive costs are its own and min's" "$(inclusive ':BlkMultiply$')" \
    "$( (numbers ':BlkMultiply$'; numbers ':min$') | awk '{ a += $1; b += $2; c += $3 } END { print a, b, c }')"
else
  expect "BlkMultiply's inclusive costs are its own" "$(inclusive ':BlkMultiply$')" "$(numbers ':BlkMultiply$')"
fi

"$MEMSPY" export r.json --format csv >r.csv
# csv_sum COLUMN: the column's sum over all rows, the column found by its header name.
csv_sum() { awk -F, -v col="$1" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == col) c = i; next } { s += $c } END { print c ? s : "no column " col }' r.csv; }
expect "CSV: one row per cell" "$(($(wc -l <r.csv) - 1))" "$(value r.json '.bins | length')"
expect "CSV refs sum to the total" "$(csv_sum refs)" "$(value r.json .totals.refs)"
expect "CSV L1 misses sum to the total" "$(csv_sum L1_misses)" "$(value r.json .totals.misses)"
expect "CSV L1 capacity misses sum to the total" "$(csv_sum L1_capacity)" "$(value r.json .totals.causes.capacity)"
expect "CSV stall sums to the total" "$(csv_sum stall)" "$(value r.json .totals.stall_cycles)"
expect "CSV (BlkMultiply, double*.Y) row" \
  "$(awk -F, '$1 == "BlkMultiply" && $2 == "double*.Y" { print $5 }' r.csv)" \
  "$(value r.json "$JQ_DEFS"' cell("BlkMultiply"; "double*.Y").refs')"

"$MEMSPY" export r.json --format json -o e.json
jq -S . e.json >e.sorted
jq -S . r.json >r.sorted
expect "JSON export equals the result" "$(cmp -s e.sorted r.sorted && echo same)" same

status=0; "$MEMSPY" export r.json --format xml >/dev/null 2>err.txt || status=$?
expect "an unknown format is a usage error" "$status" 2
expect "... that names the formats" "$(grep -c 'json, csv or callgrind' err.txt)" 1
finish
