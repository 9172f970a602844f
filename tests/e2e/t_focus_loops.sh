#!/bin/sh
# memspy run --focus on loops (issue 13 item 3): only the references executed inside the named
# loop (its nested loops and the functions called from it included) are simulated, exactly;
# loops are named as code bins name them (FUNC:loop@FIRST-LAST) or as memspy mtool's source
# column does (FILE:FIRST-LAST); a name that matches no loop, or several, is refused (exit 2)
# with the candidates listed. The programs' counts: tests/e2e/progs/focus_loops.c (gcc, clang,
# and as C++ with g++ or clang++) and focus_loops.f90 (gfortran, in the gcc run).
# matrix: gcc:-O2 clang:-O2
. "$1/tests/e2e/lib.sh"
need_plugin

N=1000 R=7
cc_build fl "$SRC_DIR/tests/e2e/progs/focus_loops.c"
run_memspy full.json -- ./fl $N $R

# loop_of FUNCTION K [JSON]: the name (FUNC:loop@A-B) of FUNCTION's K-th distinct source loop by
# first line in the run JSON (full.json)
loop_of() {
  jq -r --arg f "$1" --argjson k "$2" "$JQ_DEFS"'named(.loops) | map(select(.function == $f and .line > 0))
    | map({line, end_line}) | unique | sort_by(.line, -.end_line) | .[$k]
    | "\($f):loop@\(.line)" + (if .end_line > .line then "-\(.end_line)" else "" end)' "${3:-full.json}"
}
loop_a=$(loop_of two_loops 0) loop_b=$(loop_of two_loops 1)
loop_call=$(loop_of caller 0) outer=$(loop_of nest 0) inner=$(loop_of nest 1)
echo "loops: $loop_a $loop_b $loop_call $outer $inner"
src_line() { grep -n "$1" "$SRC_DIR/tests/e2e/progs/focus_loops.c" | cut -d: -f1; }
expect "two_loops' first loop starts on its for line" "${loop_a#two_loops:loop@}" "$(src_line LOOP-A)-$(($(src_line LOOP-A) + 1))"
expect "two_loops' second loop starts on its for line" "${loop_b#two_loops:loop@}" "$(src_line LOOP-B)-$(($(src_line LOOP-B) + 2))"

# refs JSON: the simulated references
refs() { value "$1" .totals.refs; }

run_memspy a.json --focus "$loop_a" -- ./fl $N $R
expect "--focus $loop_a: exactly its n loads" "$(refs a.json)" $N
run_memspy b.json --focus "$loop_b" -- ./fl $N $R
expect "--focus $loop_b: exactly its 2n x (load, load, store)" "$(refs b.json)" $((6 * N))
check "--focus on a loop: the note says which and how much was left out" b.json \
  ".run.notes | any(startswith(\"focus: only $loop_b (and what they call) simulated; about \"))"
run_memspy ab.json --focus "$loop_a" --focus "$loop_b" -- ./fl $N $R
expect "--focus on both loops: their references together" "$(refs ab.json)" $((7 * N))

# the form of memspy mtool's source column, FILE:FIRST-LAST
run_memspy file.json --focus "focus_loops.c:${loop_b#two_loops:loop@}" -- ./fl $N $R
expect "--focus FILE:FIRST-LAST names the same loop" "$(refs file.json)" $((6 * N))

# the name copied from memspy mtool's table (its source column) selects the same loop
if command -v llvm-mca-14 >/dev/null; then
  "$MEMSPY" mtool --json m.json -- ./fl 300000 100 >m.out 2>&1
  mb=$(jq -r '[.mtool.mobjects[] | select(.kind == "loop" and .function == "two_loops")] | max_by(.line)
    | "\(.file | sub(".*/"; "")):\(.line)-\(.end_line)"' m.json)
  expect "memspy mtool's source range of the loop is the run's" "$mb" "focus_loops.c:${loop_b#two_loops:loop@}"
  ok_if "the report's table shows it so" grep -qE "^loop +two_loops +$mb " m.out
  run_memspy mt.json --focus "$mb" -- ./fl 300000 100
  expect "--focus $mb (from memspy mtool): exactly the loop's references" "$(refs mt.json)" $((6 * 300000))
else
  echo "note - llvm-mca-14 not installed: memspy mtool's names not tried"
fi

# a loop that calls a function: the callee's references from inside the loop, not the call after it
run_memspy call.json --focus "$loop_call" -- ./fl $N $R
expect "--focus $loop_call: its load and store around the call, visit's 2 loads per call from the loop, not the call after it" "$(refs call.json)" $((4 * N))
run_memspy visit.json --focus visit -- ./fl $N $R
expect "--focus visit (the function): every call, the one after the loop too" "$(refs visit.json)" $((2 * N + 2))

# nested loops: the outer loop's focus holds the inner loop's references
run_memspy outer.json --focus "$outer" -- ./fl $N $R
expect "--focus $outer: the inner loop's r x n loads and its own r x (load, store)" "$(refs outer.json)" $((R * (N + 2)))
run_memspy inner.json --focus "$inner" -- ./fl $N $R
expect "--focus $inner: the inner loop's r x n loads alone" "$(refs inner.json)" $((R * N))
check "the outer loop is the inner loop's parent in the loops table" full.json \
  "$JQ_DEFS named(.loops) as \$l | [\$l[] | select(.function == \"nest\" and .depth == 2) | \$l[.parent].function] | all(. == \"nest\")"

# a function and a loop together: the union
run_memspy mix.json --focus "visit,$loop_a" -- ./fl $N $R
expect "--focus visit,$loop_a: both" "$(refs mix.json)" $((3 * N + 2))

# C++ (static functions: internal-linkage symbols, _ZL9two_loopsii.constprop.0)
"$BUILD_DIR/bin/memspy-c++" $OPT -x c++ -o flxx "$SRC_DIR/tests/e2e/progs/focus_loops.c"
run_memspy xb.json --focus "$loop_b" -- ./flxx $N $R
expect "C++: --focus $loop_b: exactly its references" "$(refs xb.json)" $((6 * N))
run_memspy xcall.json --focus "$loop_call" -- ./flxx $N $R
expect "C++: --focus $loop_call: the loop's and its callee's references" "$(refs xcall.json)" $((4 * N))
run_memspy xvisit.json --focus visit -- ./flxx $N $R
expect "C++: --focus visit (a static function)" "$(refs xvisit.json)" $((2 * N + 2))

# Fortran (gfortran, through the GCC plugin): the same two loops in a subroutine
if [ "$CC_NAME" = gcc ] && command -v gfortran >/dev/null; then
  MEMSPY_FC=gfortran "$BUILD_DIR/bin/memspy-fortran" $OPT -fno-inline -o flf "$SRC_DIR/tests/e2e/progs/focus_loops.f90"
  run_memspy ffull.json -- ./flf $N
  fa=$(loop_of two_loops_ 0 ffull.json) fb=$(loop_of two_loops_ 1 ffull.json)
  run_memspy fa.json --focus "$fa" -- ./flf $N
  expect "Fortran: --focus $fa: exactly its n loads" "$(refs fa.json)" $N
  run_memspy fb.json --focus "focus_loops.f90:${fb#two_loops_:loop@}" -- ./flf $N
  expect "Fortran: --focus on the second loop by FILE:FIRST-LAST: its 2n x (load, load, store)" "$(refs fb.json)" $((6 * N))
fi

# bad names: exit 2, the candidates listed, nothing stored
runs_before=$("$MEMSPY" runs | grep -c . || true)
expect_fail "a loop name that names no loop is refused with the candidates" "no loop of the run has that name; its loops:" \
  "$MEMSPY" run --focus two_loops:loop@1-2 -- ./fl $N $R
ok_if "the candidates are listed by the names --focus takes" grep -qF "  $loop_b  (focus_loops.c:" "$WORK/err"
expect "a refused run is not stored" "$("$MEMSPY" runs | grep -c . || true)" "$runs_before"
same=$(src_line LOOP-SAME)
expect_fail "a loop name by first line that two loops share is refused as ambiguous" "names more than one loop; say which:" \
  "$MEMSPY" run --focus "same_line:loop@$same" -- ./fl $N $R
ok_if "the ambiguous name's candidates are the two loops" test "$(grep -c "^  same_line:loop@$same" "$WORK/err")" -eq 2
expect_fail "a loop form with no line numbers is a usage error" "a loop is FUNCTION:loop@FIRST-LAST or FILE:FIRST-LAST" \
  "$MEMSPY" run --focus two_loops:loop@x -- ./fl $N $R
finish
