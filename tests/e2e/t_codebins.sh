#!/bin/sh
# Code bins by loop and by line (--code-granularity) from the plugin's loop records: a
# function with two loop nests (STREAM's shape) becomes one bin per nest, named by function
# and lines, each with its share of the stall (the second streams 3 times as much: about 3/4);
# a loop must hold --loop-share of its function's stall to be a bin of its own.
# matrix: gcc:-O0 gcc:-O2
. "$1/tests/e2e/lib.sh"
cc_build loops2 "$SRC_DIR/tests/e2e/progs/loops2.c"

# JQ: the loop bins of main that hold stall, as {name, lo, hi, share} (at -O0 the outer loop
# of the second nest is a bin of its own too, with the dozen references of its counter's stack
# slot and no miss: the inner loop, its body, holds the nest's stall)
LOOPS='.totals.stall_cycles as $t | [.code[] | select(.name | startswith("main:loop@")) |
  (.name | capture("@(?<a>[0-9]+)(-(?<b>[0-9]+))?")) as $c |
  {name, lo: ($c.a | tonumber), hi: (($c.b // $c.a) | tonumber), share: (.stall_cycles / $t)}] |
  map(select(.share > 0.01))'

run_memspy l.json --code-granularity loop -- ./loops2
check "loop: two loop bins in main" l.json "$LOOPS | length == 2"
check "loop: the first loop (lines 13-14) holds about a quarter of the stall" l.json \
  "$LOOPS | map(select(.lo <= 14 and .hi >= 14 and .hi <= 14)) | length == 1 and .[0].share > 0.15 and .[0].share < 0.35"
check "loop: the second nest (its body at line 17) holds about three quarters" l.json \
  "$LOOPS | map(select(.lo <= 17 and .hi >= 17)) | length == 1 and .[0].share > 0.65 and .[0].share < 0.85"
check "loop: the bins' lines are their first lines" l.json \
  '[.code[] | select(.name | startswith("main:loop@")) | (.name | capture("@(?<a>[0-9]+)").a | tonumber) == .line] | all'

run_memspy s.json --code-granularity loop --loop-share 90 -- ./loops2
check "loop-share 90: no loop holds 90% of main's stall, so main is one bin" s.json \
  '[.code[] | select(.name | startswith("main"))] | map(.name) == ["main"]'

run_memspy n.json --code-granularity line -- ./loops2
check "line: main:17 is a bin and the largest" n.json '.code[0].name == "main:17"'

run_memspy f.json -- ./loops2
check "function (default): main is one bin" f.json '[.code[] | select(.name | startswith("main"))] | map(.name) == ["main"]'

expect_fail "a bad granularity is a usage error naming the choices" "none of function, loop, line" \
  "$MEMSPY" run --code-granularity loops -- ./loops2
expect_fail "a share above 100 is a usage error" "not a percentage (0..100)" \
  "$MEMSPY" run --loop-share 120 -- ./loops2
# OpenMP regions: gcc's outlined main._omp_fn.N named after the construct and its line, from
# the plugin's region records (t_omp_names: the same under clang, more constructs).
cc_build omp_regions -fopenmp "$SRC_DIR/tests/e2e/progs/omp_regions.c"
OMP_NUM_THREADS=2 run_memspy o.json -- ./omp_regions
check "omp: the combined construct is 'main: omp parallel for @10'" o.json \
  '.code | any(.name == "main: omp parallel for @10")'
check "omp: a parallel region holding an omp for is 'main: omp parallel @13'" o.json \
  '.code | any(.name == "main: omp parallel @13")'
check "omp: no outlined function name is left" o.json '[.code[] | select(.name | test("_omp_fn"))] | length == 0'
OMP_NUM_THREADS=2 run_memspy ol.json --code-granularity loop -- ./omp_regions
check "omp, loop: the loops are main's, by line (main:loop@12, main:loop@16)" ol.json \
  '[.code[].name] | index("main:loop@12") != null and index("main:loop@16") != null'
# The names come from the compiler, not the source: the same with the source deleted.
cp "$SRC_DIR/tests/e2e/progs/omp_regions.c" gone.c
"$BUILD_DIR/bin/memspy-cc" $OPT -fopenmp -o gone gone.c
rm gone.c
OMP_NUM_THREADS=2 run_memspy g.json -- ./gone
check "omp, no source: the same names ('main: omp parallel for @10', 'main: omp parallel @13')" g.json \
  '[.code[].name | select(test(": omp "))] | sort == ["main: omp parallel @13", "main: omp parallel for @10"]'
finish
