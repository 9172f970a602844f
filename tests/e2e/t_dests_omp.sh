#!/bin/sh
# An OpenMP program with two parallel loops in one function (tests/e2e/progs/omp_two_loops.c),
# the source deleted before the run: the arrays main allocates are double*.x and double*.y
# (from the plugins' records), 800000 bytes each, and both loops' code bins (the outlined
# regions, in source order) reference them by those names: the first writes x and y, the
# second only reads them.
. "$1/tests/e2e/lib.sh"
need_openmp
cp "$SRC_DIR/tests/e2e/progs/omp_two_loops.c" .
cc_build omp omp_two_loops.c -fopenmp
rm omp_two_loops.c
OMP_NUM_THREADS=2 run_memspy r.json -- ./omp

check "the arrays are double*.x and double*.y, 800000 bytes each" r.json \
  '[.data[] | select(.kind == "heap" and (.name | test("^double"))) | [.name, .bytes]] | sort ==
   [["double*.x", 800000], ["double*.y", 800000]]'
# the regions' code bins, from the plugins' region records: "main: omp parallel for @LINE"
REGIONS='[.code[] | select(.name | test("^main: omp parallel for @[0-9]+$"))
          | {id, line: (.name | capture("@(?<l>[0-9]+)$").l | tonumber)}] | sort_by(.line)'
check "two code bins, one per parallel loop, at the pragmas' lines (15, 21)" r.json "$REGIONS"' | map(.line) == [15, 21]'
for arr in x y; do
  check "the first loop writes double*.$arr, the second only reads it" r.json \
    "$JQ_DEFS"' dataid("double*.'$arr'") as $d | ('"$REGIONS"') as $r |
     ([.bins[] | select(.code == $r[0].id and .data == $d)][0] | .writes > 0) and
     ([.bins[] | select(.code == $r[1].id and .data == $d)][0] | .reads > 0 and .writes == 0)'
done
# the OpenMP runtime's own blocks (libomp under clang: 66 of them, none 1% of the stall) are one
# bin per entry point the program called (heap:LIBRARY:ENTRY, docs/guide.md), not one per site
check "the OpenMP runtime's blocks: at most 2 bins, one per entry point, no #N or @ suffix" r.json \
  '[.data[].name | select(test("^heap:lib(g)?omp"))] | length <= 2 and all(test("[#@]") | not)'
if [ "$CC_NAME" = clang ]; then
    check "clang: libomp's blocks behind main's __kmpc_fork_call calls are one bin of 66 blocks" r.json \
      '.data[] | select(.name == "heap:libomp.so.5:__kmpc_fork_call") | .objects == 66'
fi
finish
