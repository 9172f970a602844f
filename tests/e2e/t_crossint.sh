#!/bin/sh
# Cross-interference: a and b fit in the cache together but map onto the same sets.
# Finding: each array's replacements are caused mostly by the other, and they are conflict
# misses, not capacity; padding b removes them.
# matrix: gcc:-O0 gcc:-O2 clang:-O0 clang:-O2 clang:-O3
. "$1/tests/e2e/lib.sh"
cc_build crossint "$SRC_DIR/examples/crossint/crossint.c"
run_memspy r.json --preset memspy92 -- ./crossint 200
run_memspy p.json --preset memspy92 -- ./crossint pad 200

for pair in "a b" "b a"; do
  set -- $pair
  check "double*.$1 in Axpy: replacements caused mostly by double*.$2 (> 80%)" r.json \
    "$JQ_DEFS"' dataid("double*.'$2'") as $o | cell("Axpy"; "double*.'$1'") | evicted_share($o) > 0.80'
  check "double*.$1 in Axpy: conflict, not capacity (conflict > 90% of replacements)" r.json \
    "$JQ_DEFS"' cell("Axpy"; "double*.'$1'") | .causes.conflict > 0.9 * repl and .misses > 1000'
done
check "padding cuts the misses more than 10x" r.json \
  "(.totals.misses) > 10 * $(value p.json .totals.misses)"
check "finding: a conflicts with b (cross-interference), b with a" r.json \
  '[.findings[] | select(.kind == "cross-interference") | [.data_name, (.evictor as $e | $e)]] | length == 2'
check "finding: the evictor of a is b" r.json \
  '.findings[] | select(.data_name == "double*.a") | .evictor as $e | .cause == "conflict" and $e != .data'
finish
