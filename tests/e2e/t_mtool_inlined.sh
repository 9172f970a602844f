#!/bin/sh
# memspy mtool on loops written in static functions that the compiler inlines into their one
# caller (tests/e2e/progs/mtool_inlined.c, and its Fortran twin with internal procedures):
# every block of either loop carries the call's line in the caller, so samples placed by the
# outermost frame's line credited the loops to the caller's call line (MEMSPY_MTOOL_OUTERMOST=1
# still does: checked below). Placed by the inlined frame's scope and lines (gcc) or by the
# plain copy's block labels (clang), each loop is a timed mobject of its own, named after its
# function at its own lines, the gather's overhead large, the L1 chain's small.
# matrix: gcc:-O2 clang:-O2
. "$1/tests/e2e/lib.sh"
command -v llvm-mca-14 >/dev/null || { echo "skip: llvm-mca-14 not installed (scripts/deps.sh)"; exit 77; }
PROGS=$SRC_DIR/tests/e2e/progs

# inlined_checks LANG JSON SOURCE CALLER: the two loops timed on their own, at their own lines
inlined_checks() {
  lang=$1 json=$2 src=$3 caller=$4
  line_of() { grep -n "$1" "$src" | head -1 | cut -d: -f1; }
  gl=$(line_of GATHER_LOOP) dl=$(line_of DENSE_LOOP) cl=$(line_of CALL_GATHER)
  g="[.mtool.mobjects[] | select(.kind == \"loop\" and (.function | test(\"^gather, inlined into $caller\$\")))]"
  d="[.mtool.mobjects[] | select(.kind == \"loop\" and (.function | test(\"^dense, inlined into $caller\$\")) and .line == $dl + 1)]"
  check "$lang: the gather loop is a timed mobject named after gather, at its own lines ($gl-$((gl + 1)))" "$json" \
    "$g | length == 1 and (.[0] | .timable and (.file | test(\"mtool_inlined.(c|f90)\$\")) and .line >= $gl and .end_line <= $gl + 1)"
  check "$lang: the gather loop's overhead is computed and large (> 100%), above the dense chain's" "$json" \
    "($g[0].overhead > 1.0) and ($g[0].extra_cycles_per_memop > 0) and ($g[0].overhead > $d[0].overhead)"
  check "$lang: the dense chain's inner loop is a timed mobject at its own line ($((dl + 1))), its overhead small (< 50%)" "$json" \
    "$d | length == 1 and (.[0] | .timable and (.overhead | fabs) < 0.5)"
  check "$lang: no loop is named at the calls' lines in $caller, none untimable for its lines" "$json" \
    "[.mtool.mobjects[] | select(.kind == \"loop\" and ((.function == \"$caller\" and .line >= $cl) or (.warnings | any(test(\"not separable\")))))] | length == 0"
  check "$lang: at least 95% of memory operations measured" "$json" ".mtool.covered_memops >= 0.95"
}

cc_build inl "$PROGS/mtool_inlined.c"
"$MEMSPY" mtool --json c.json -o c.txt -- ./inl 8000000 20000 >c.out
cat c.txt
inlined_checks C c.json "$PROGS/mtool_inlined.c" main
MEMSPY_MTOOL_OUTERMOST=1 "$MEMSPY" mtool --json old.json -o old.txt -- ./inl 8000000 20000 >old.out
check "C, placed by the outermost frame (before): no loop is named after gather" old.json \
  "[.mtool.mobjects[] | select(.kind == \"loop\" and (.function | test(\"gather\")))] | length == 0"
ok_if "the program's output is the same" cmp c.out old.out

"$BUILD_DIR/bin/memspy-c++" $OPT -x c++ -o inlxx "$PROGS/mtool_inlined.c"
"$MEMSPY" mtool --json x.json -o x.txt -- ./inlxx 8000000 20000 >x.out
inlined_checks C++ x.json "$PROGS/mtool_inlined.c" main

# gfortran inlines an internal procedure called once (gcc's build of the matrix only)
if [ "$CC_NAME" = gcc ] && command -v gfortran >/dev/null; then
  MEMSPY_FC=gfortran "$BUILD_DIR/bin/memspy-fortran" $OPT -o inlf "$PROGS/mtool_inlined.f90"
  "$MEMSPY" mtool --json f.json -o f.txt -- ./inlf 8000000 20000 >f.out
  inlined_checks Fortran f.json "$PROGS/mtool_inlined.f90" mtool_inlined
fi
finish
