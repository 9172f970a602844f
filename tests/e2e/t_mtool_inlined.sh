#!/bin/sh
# memspy mtool on loops written in static functions inlined into their one caller
# (tests/e2e/progs/mtool_inlined.c): every block of either loop carries the call's line in
# main, so samples placed by the outermost frame's line credited the loops to main's call line
# (MEMSPY_MTOOL_OUTERMOST=1 still does: the loop named "main" on line 40, checked below). Placed
# by the inlined frame's scope and lines, each loop is a timed mobject of its own, named after
# its function and at its own lines, the gather's overhead large and first, the L1 chain's
# small. C and C++, gcc and clang; gfortran with an internal procedure.
# matrix: gcc:-O2 clang:-O2
. "$1/tests/e2e/lib.sh"
command -v llvm-mca-14 >/dev/null || { echo "skip: llvm-mca-14 not installed (scripts/deps.sh)"; exit 77; }
SRC=$SRC_DIR/tests/e2e/progs/mtool_inlined.c
line_of() { grep -n "$1" "$SRC" | head -1 | cut -d: -f1; }
GATHER=$(line_of GATHER_LOOP) DENSE=$(line_of DENSE_LOOP) CALL=$(line_of CALL_GATHER)

# inlined_checks LANG JSON: the two loops timed on their own, at their own lines
inlined_checks() {
  lang=$1 json=$2
  g="[.mtool.mobjects[] | select(.kind == \"loop\" and (.function | test(\"^gather, inlined into main\")))]"
  d="[.mtool.mobjects[] | select(.kind == \"loop\" and (.function | test(\"^dense, inlined into main\")) and .line == $DENSE + 1)]"
  check "$lang: the gather loop is a timed mobject named after gather, at its own lines ($GATHER-$((GATHER + 1)))" "$json" \
    "$g | length == 1 and (.[0] | .timable and (.file | test(\"mtool_inlined.c\$\")) and .line >= $GATHER and .end_line <= $GATHER + 1)"
  check "$lang: the gather loop's overhead is computed and large (> 100%), above the dense chain's" "$json" \
    "($g[0].overhead > 1.0) and ($g[0].extra_cycles_per_memop > 0) and ($g[0].overhead > $d[0].overhead)"
  check "$lang: the dense chain's inner loop is a timed mobject at its own line ($((DENSE + 1))), its overhead small (< 50%)" "$json" \
    "$d | length == 1 and (.[0] | .timable and (.overhead | fabs) < 0.5)"
  check "$lang: no loop is named at the calls' lines in main, none untimable for its lines" "$json" \
    "[.mtool.mobjects[] | select(.kind == \"loop\" and ((.function == \"main\" and .line >= $CALL) or (.warnings | any(test(\"not separable\")))))] | length == 0"
  check "$lang: at least 95% of memory operations measured" "$json" ".mtool.covered_memops >= 0.95"
}

cc_build inl "$SRC"
"$MEMSPY" mtool --json c.json -o c.txt -- ./inl 8000000 20000 >c.out
cat c.txt
inlined_checks C c.json
MEMSPY_MTOOL_OUTERMOST=1 "$MEMSPY" mtool --json old.json -o old.txt -- ./inl 8000000 20000 >old.out
check "C, placed by the outermost frame (before): the gather loop is named main, at the call's line" old.json \
  "[.mtool.mobjects[] | select(.kind == \"loop\" and (.function | test(\"gather\")))] | length == 0"
cmp c.out old.out >/dev/null && echo "ok   - the program's output is the same"

"$BUILD_DIR/bin/memspy-c++" $OPT -x c++ -o inlxx "$SRC"
"$MEMSPY" mtool --json x.json -o x.txt -- ./inlxx 8000000 20000 >x.out
inlined_checks C++ x.json
finish
