#!/bin/sh
# Process changes (docs/processes.md, guarantees P1-P5): a vfork child that calls _exit or
# execs, a forked child that runs profiled code, posix_spawn, and exec of a program without
# memspy's runtime, of a profiled program and of one that does not exist. In every case memspy
# returns the program's exit status, the program's own references are stored whole (the heap
# writes tests/e2e/progs/procs.c makes: 4096 per fill of its array), children's references
# never mix into the parent's run, and no scratch directory is left.
# matrix: gcc:-O0 gcc:-O2 clang:-O2
. "$1/tests/e2e/lib.sh"
cc_build procs "$SRC_DIR/tests/e2e/progs/procs.c"
mkdir scratch
export TMPDIR="$WORK/scratch"

HEAP_WRITES='[.data[] | select(.kind == "heap" and .name != "heap:headers") | .id] as $h | [.bins[] | select(.data as $d | $h | index($d)) | .writes] | add // 0'

# proc HOW STATUS HEAP_WRITES: memspy's status, then the stored run's heap writes.
proc() {
    how=$1 want=$2 writes=$3
    set +e
    ./procs "$how" >native.out 2>/dev/null
    native=$?
    "$MEMSPY" run --json "$how.json" --no-report -- ./procs "$how" >"$how.out" 2>"$how.err"
    got=$?
    set -e
    expect "$how: status of the program, native and under memspy" "$native $got" "$want $want"
    if ! cmp -s native.out "$how.out"; then
        echo "FAIL - $how: stdout differs under memspy"; FAILS=$((FAILS + 1))
    fi
    if [ ! -s "$how.json" ]; then
        echo "FAIL - $how: no run stored"; sed 's/^/       /' "$how.err"; FAILS=$((FAILS + 1)); return
    fi
    check "$how: $writes heap writes of the program (got $(value "$how.json" "$HEAP_WRITES"))" "$how.json" \
      "($HEAP_WRITES) == $writes"
    expect "$how: no scratch directory left" "$(ls scratch)" ""
}

proc plain 0 4096
check "plain: complete, a run of its own" plain.json '(.run.incomplete | not) and .run.parent_run == null'
# P1: a vfork child shares the parent's memory until it execs or exits; it leaves the
# parent's profile alone.
proc vfork_exit 0 8192
check "vfork_exit: complete, exit status 0" vfork_exit.json '(.run.incomplete | not) and .run.exit == {kind: "normal", value: 0}'
proc vfork_exec 0 8192
check "vfork_exec: complete" vfork_exec.json '.run.incomplete | not'
# P2: a forked child's references (its own 1024-element array) are not the parent's.
proc fork 0 8192
check "fork: complete" fork.json '.run.incomplete | not'
proc spawn 0 8192
check "spawn: complete" spawn.json '.run.incomplete | not'
# P3: exec of a program without the runtime: the statistics before it are kept, noted, and the
# status is the new program's.
proc exec_plain 7 4096
check "exec_plain: exit kind exec, status 7" exec_plain.json '.run.exit == {kind: "exec", value: 7}'
check "exec_plain: the exec is noted" exec_plain.json \
  'any(.run.notes[]; . == "the program executed /bin/sh: references after the exec are not in this run")'
check "exec_plain: not incomplete" exec_plain.json '.run.incomplete | not'
# P4: exec of a profiled program: a new run named after it, linked to the first.
last_run() { "$MEMSPY" runs | awk '$1 ~ /^[0-9]+$/ { n = $1 } END { print n + 0 }'; }
before=$(last_run)
proc exec_self 5 2048
check "exec_self: the run names the new program" exec_self.json '.run.program == "'"$WORK"'/procs"'
expect "exec_self: two runs stored" "$(last_run)" $((before + 2))
check "exec_self: its parent is the run of the first image" exec_self.json ".run.parent_run == $((before + 1))"
"$MEMSPY" export --format json -o first.json $((before + 1))
check "exec_self: the first image's run kept its 4096 writes" first.json "($HEAP_WRITES) == 4096"
check "exec_self: the first image's run ended by exec, complete" first.json \
  '.run.exit.kind == "exec" and .run.program == "./procs" and (.run.incomplete | not) and .run.parent_run == null'
# P5: an exec that fails changes nothing: the program goes on, profiled.
proc exec_missing 6 8192
check "exec_missing: complete, status 6" exec_missing.json '(.run.incomplete | not) and .run.exit.value == 6'
# A profiled child's run never stands in for the program's: killed by SIGKILL, the program
# leaves no profile, and memspy says so instead of storing the child's.
expect_fail "child_then_kill: no profile, SIGKILL named" "SIGKILL ends a program before it can write one" \
    "$MEMSPY" run --json child.json --no-report -- ./procs child_then_kill
ok_if "child_then_kill: nothing stored" test ! -s child.json
expect "child_then_kill: no scratch directory left" "$(ls scratch)" ""
finish
