#!/bin/sh
# Heap data named from the allocation destinations memspy's compiler plugins record, not from
# the source text: the source file is deleted before the run and every heap bin keeps its name
# (through a PolyBench-style wrapper over xmalloc: the callers' variables A and B, not ret or
# p), a posix_memalign's out-parameter by its variable (double*.aligned: a local pointer), with the debug information
# stripped too; the ThreadSanitizer fallback, which records
# none, then names them heap@FILE:LINE.
# (clang -O2 unrolls the loop of rows: four calls, four bins rows[], rows[]#2, ...)
# matrix: gcc:-O0 gcc:-O2 clang:-O0 clang:-O2
. "$1/tests/e2e/lib.sh"
cp "$SRC_DIR/tests/e2e/progs/dests.c" .
cc_build dests dests.c
run_memspy with.json -- ./dests
rm dests.c
run_memspy r.json --record rec -- ./dests

heap='[.data[] | select(.kind == "heap" and .name != "heap:headers")]'
names='map(.name | sub("#[0-9]+$"; "")) | unique == ["double*.A", "double*.B", "double*.aligned", "grid", "long*.counts", "rows[]", "s.x", "s.y"]'
check "without the source, the heap bins are A, B, s.x, s.y, counts, double*.aligned (a local pointer), rows[] and grid" r.json "$heap | $names"
check "the same names as with the source" with.json "$heap | $names"
check "double*.A: one object of 1001 doubles" r.json \
  '.data[] | select(.name == "double*.A") | .objects == 1 and .bytes == 8008'
check "rows[]: the four rows, 4 KiB each" r.json \
  '[.data[] | select(.name | startswith("rows[]"))] | (map(.objects) | add) == 4 and (map(.bytes) | add) == 16384'
check "long*.counts: 64 longs" r.json '.data[] | select(.name == "long*.counts") | .objects == 1 and .bytes == 512'
check "double*.aligned: posix_memalign's 128 doubles, named by the variable its first argument points to" r.json \
  '[.data[] | select(.name == "double*.aligned")] | length == 1 and .[0].objects == 1 and .[0].bytes == 1024'
check "grid: the global pointer's buffer, 256 doubles" r.json \
  '.data[] | select(.name == "grid") | .objects == 1 and .bytes == 2048'
check "the full name keeps the whole call path through both wrappers" r.json \
  '.data[] | select(.name == "double*.B") | .full_name | test("^main:[0-9]+>alloc_data:[0-9]+>xmalloc:[0-9]+>double\\*\\.B$")'
# (at -O0 the stack slot of alloc_data's local `ret` is a stack bin of its own: not a heap name)
check "no bin is named after the wrappers' variables" r.json \
  '[.data[] | select(.kind != "stack") | .name | select(test("ret|void"))] | length == 0'
check "main writes every element of A (1001 stores, fewer where vectorised)" r.json \
  "$JQ_DEFS"' cell("main"; "double*.A").writes >= 500'
# (the record's first field: MSPLUG_DEST_RECORD_VERSION, src/rt/msplug_abi.h)
"$BUILD_DIR/bin/rt_rawcheck" rec/profile.raw dests >dests.txt
ok_if "the raw profile holds the record of s.x = alloc_data (...)" grep -q '^2|c|dests.c|alloc_data[.a-z]*|-|1|35|11|m|[-u]*|double \*|s\.x$' dests.txt

# No line information at all (debug sections stripped): the records are found by the labels
# the plugin put around each call, and name the same bins
strip --strip-debug -o stripped dests
run_memspy s.json -- ./stripped
check "stripped of its debug information, the heap bins keep their names" s.json "$heap | $names"
check "... and double*.A its object" s.json '.data[] | select(.name == "double*.A") | .objects == 1 and .bytes == 8008'

cp "$SRC_DIR/tests/e2e/progs/dests.c" tsan.c
MEMSPY_INSTRUMENT=tsan cc_build tsan tsan.c
rm tsan.c
run_memspy t.json -- ./tsan
check "the ThreadSanitizer path records no destination: without the source, heap bins are heap@tsan.c:LINE[@CALLER|#N]" t.json \
  "$heap"' | length >= 8 and (map(.name | test("^heap@tsan\\.c:[0-9]+(@[A-Za-z_0-9:]+|#[0-9]+)?$")) | all)'
check "... and the run's notes say why (no allocation destinations recorded)" t.json \
  '.run.notes | any(test("^[0-9]+ heap bins named by allocation site") and contains("no allocation destinations recorded"))'
check "the plugin's runs have no such note" r.json '.run.notes | any(contains("named by allocation site")) | not'
finish
