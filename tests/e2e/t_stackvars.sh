#!/bin/sh
# Stack variables by name: main's array read by a callee is stack:main.table; main's scalar k
# and array partial, shared by the two threads of an OpenMP region, are one bin each of the
# owner's frame for both threads (NPB CG's k), never `other`; what no variable covers (the
# compiler's block of shared pointers) stays stack:main.
. "$1/tests/e2e/lib.sh"
need_openmp
cc_build stackvars "$SRC_DIR/tests/e2e/progs/stackvars.c" -fopenmp
run_memspy r.json -- ./stackvars
expect "the program's output" "$(cat r.json.out)" "32640 200 9"
region=$(jq -r '.code[] | select(.name | contains("omp parallel")) | .name' r.json)

if [ "$CC_NAME" = clang ]; then
  # clang's versioned copies allocate main's arrays dynamically (a location list, no fixed
  # offset from the frame): main's frame is one bin
  check "clang: total reads main's table in stack:main (256 loads, 128 vectorised)" r.json \
    "$JQ_DEFS"' cell("total"; "stack:main").reads as $r | $r == 256 or $r == 128'
  finish
fi

check "total reads main's array table by name: 256 loads (128 vectorised) in stack:main.table" r.json \
  "$JQ_DEFS"' cell("total"; "stack:main.table").reads as $r | $r == 256 or $r == 128'
check "main writes table in stack:main.table (256 stores, 128 vectorised)" r.json \
  "$JQ_DEFS"' cell("main"; "stack:main.table").writes as $w | $w == 256 or $w == 128'
check "k is one bin, stack:main.k, with both threads' 2 x 100 atomic updates" r.json \
  "$JQ_DEFS"' cell("'"$region"'"; "stack:main.k") | .reads == 200 and .writes == 200'
check "partial is one bin, stack:main.partial, with both threads' 64 updates (32 vectorised)" r.json \
  "$JQ_DEFS"' cell("'"$region"'"; "stack:main.partial") | (.reads == 64 and .writes == 64) or (.reads == 32 and .writes == 32)'
check "the region touches nothing unnamed" r.json \
  "$JQ_DEFS"' codeid("'"$region"'") as $w | [.data[] | select(.kind == "other") | .id] as $o
   | [.bins[] | select(.code == $w and (.data as $d | $o | index($d)))] | length == 0'
if [ "$OPT" = -O0 ]; then
  # at -O0 every local lives in its stack slot: main's and total's other locals (i, argc, the
  # region's own frame...) are bins too, each named by its variable or frame
  check "the bins of main's frame are its variables, and main for the rest (-O0: all its locals)" r.json \
    '[.data[].name | select(startswith("stack:"))] as $n | (["stack:main", "stack:main.k", "stack:main.partial",
     "stack:main.table", "stack:main.i", "stack:total.i", "stack:total.s"] - $n) == []'
else
  check "the bins of main's frame are its variables, and main for the rest" r.json \
    '[.data[].name | select(startswith("stack:"))] | sort == ["stack:main", "stack:main.k", "stack:main.partial", "stack:main.table"]'
fi

# Bad input: without debug information the frame has no variables: one bin per function
# (at -O0 the region's and total's frames are bins too), and the run's note says which names
# are missing and why.
cp stackvars stackvars_nodebug && strip --strip-debug stackvars_nodebug
run_memspy n.json -- ./stackvars_nodebug
total=$(jq -r '.code[] | select(.name | startswith("total")) | .name' n.json) # total.constprop.0 at -O2
check "no debug information: main's frame is stack:main, every reference of $total to it there" n.json \
  "$JQ_DEFS"' ([.data[].name | select(startswith("stack:") and (startswith("stack:main: omp parallel @") | not))]
    - ["stack:total"] == ["stack:main"])
   and (cell("'"$total"'"; "stack:main").reads as $r | $r == 256 or $r == 128)'
check "no debug information: the note says stack frames are named without their variables" n.json \
  '.run.notes | any(test("stackvars_nodebug has no debug information \\(built without -g\\).*stack frames by function without their variables"))'
finish
