#!/bin/sh
# The program's output and exit status are unchanged under memspy; a program that crashes,
# aborts, calls _exit or is killed still leaves its statistics, marked incomplete.
# matrix: gcc:-O0 gcc:-O2 clang:-O2
. "$1/tests/e2e/lib.sh"
cc_build ending "$SRC_DIR/tests/e2e/progs/ending.c"

# expect HOW STATUS INCOMPLETE
expect_ending() {
    how=$1 want=$2 incomplete=$3
    set +e
    ./ending "$how" >native.out 2>/dev/null
    native=$?
    "$MEMSPY" run --json "$how.json" --result "$how.result" -o "$how.txt" -- ./ending "$how" >"$how.out" 2>"$how.err"
    got=$?
    set -e
    if [ "$got" -ne "$want" ] || [ "$native" -ne "$want" ]; then
        echo "FAIL - $how: exit status native $native, under memspy $got, expected $want"; FAILS=$((FAILS + 1)); return
    fi
    if ! cmp -s native.out "$how.out"; then
        echo "FAIL - $how: stdout differs under memspy"; FAILS=$((FAILS + 1)); return
    fi
    echo "ok   - $how: same stdout, exit status $got"
    check "$how: incomplete is $incomplete" "$how.json" ".run.incomplete == $incomplete"
    check "$how: the heap array's 4096 writes in main were kept" "$how.json" \
      "$JQ_DEFS"' cell("main"; "double*.work").writes == 4096'
    check "$how: work array is a heap bin named double*.work" "$how.json" '.data | any(.name == "double*.work")'
}
expect_ending normal 0 false
expect_ending exit3 3 false
expect_ending segv 139 true
expect_ending abort 134 true
expect_ending _exit 4 true
expect_ending kill 143 true
grep -q "signal 11" segv.err || { echo "FAIL - no message naming the signal"; FAILS=$((FAILS + 1)); }
# Whether the simulation runs in the program's thread or on memspy's simulator thread, which
# a crash must drain (src/rt/pipeline.c), nothing already counted is lost.
for t in 0 1; do
    echo "# MEMSPY_SIM_THREAD=$t"
    MEMSPY_SIM_THREAD=$t; export MEMSPY_SIM_THREAD
    expect_ending segv 139 true
    expect_ending _exit 4 true
    expect_ending kill 143 true
done
unset MEMSPY_SIM_THREAD
finish
