#!/bin/sh
# Interrupts at random moments (docs/processes.md, guarantees I1-I3): SIGINT to memspy and its
# process group (as timeout and the terminal's Ctrl-C deliver it), SIGINT, SIGTERM, SIGHUP or
# SIGQUIT to memspy alone (forwarded to the program). Each run: memspy returns the program's status
# (128 + the signal), the run is stored, marked incomplete with the signal as its reason, and
# it kept its references when the program had run for 0.5 s or more; no scratch directory is
# left. Single-threaded with and without the simulator thread (the signal then often lands in
# a flush, inside the runtime), and with threads (streams replayed after the program ended).
# Then SIGKILL to memspy: the program dies too and nothing is left behind (I4).
# matrix: gcc:-O2
. "$1/tests/e2e/lib.sh"
cc_build spin "$SRC_DIR/tests/e2e/progs/spin.c" -pthread
mkdir scratch
export TMPDIR="$WORK/scratch"
ulimit -c 0   # SIGQUIT would dump core

# A random delay in [lo, lo + span) milliseconds, printed as seconds.
random_delay() {
    r=$(od -An -N2 -tu2 /dev/urandom | tr -d ' ')
    ms=$(( $1 + r % $2 ))
    printf '%d.%03d\n' $((ms / 1000)) $((ms % 1000))
}

signum() { case $1 in HUP) echo 1 ;; INT) echo 2 ;; QUIT) echo 3 ;; TERM) echo 15 ;; esac; }

# interrupt RUN SIGNAL DELAY_MS_LO DELAY_MS_SPAN [spin args]
interrupt() {
    run=$1 sig=$2 lo=$3 span=$4; shift 4
    delay=$(random_delay "$lo" "$span")
    group=no
    [ "$sig" = gINT ] && group=yes
    set +e
    if [ "$sig" = gINT ]; then   # to memspy and its process group, like Ctrl-C
        sig=INT
        timeout --preserve-status -s INT "$delay" "$MEMSPY" run --json "$run.json" --no-report -- ./spin "$@" \
            >/dev/null 2>"$run.err"
        got=$?
    else   # to memspy alone (a background job of a script starts with SIGINT and SIGQUIT ignored)
        env --default-signal=INT,QUIT "$MEMSPY" run --json "$run.json" --no-report -- ./spin "$@" >/dev/null 2>"$run.err" &
        pid=$!
        sleep "$delay"
        kill -s "$sig" "$pid"
        wait "$pid"
        got=$?
    fi
    set -e
    n=$(signum "$sig")
    what="$run: SIG$sig after ${delay}s"
    expect "$what: memspy returns the program's status" "$got" $((128 + n))
    # On a loaded machine the signal may come while memspy or the program is still starting:
    # nothing gathered, said so (the window itself is tested below, held open by a locked database).
    if [ ! -s "$run.json" ] && grep -qE 'before (.* started: nothing ran|memspy.s runtime started in it)' "$run.err"; then
        echo "ok   - $what: came before the program ran: $(cat "$run.err" | tail -1)"
        EARLY=$((EARLY + 1))
        expect "$what: no scratch directory left" "$(ls scratch)" ""
        return
    fi
    if [ ! -s "$run.json" ]; then
        echo "FAIL - $what: no run stored"; sed 's/^/       /' "$run.err"; FAILS=$((FAILS + 1)); return
    fi
    check "$what: stored incomplete, the signal its reason" "$run.json" \
      ".run.incomplete and (.run.incomplete_reason | test(\"signal $n\")) and .run.exit.kind == \"signal\" and .run.exit.value == $n"
    ms=$(( ${delay%.*} * 1000 + $(echo "${delay#*.}" | sed 's/^0*//;s/^$/0/') ))
    if [ "$ms" -ge 500 ]; then
        check "$what: references kept ($(value "$run.json" .totals.refs))" "$run.json" '.totals.refs > 0'
        check "$what: no note of dropped counters" "$run.json" '[.run.notes[] | select(test("counters could not be read"))] | length == 0'
    fi
    [ "$sig:$group" = INT:yes ] || check "$what: notes that memspy passed the signal on" "$run.json" \
      "any(.run.notes[]; . == \"memspy passed SIG$sig on to the program\")"
    left=$(ls scratch)
    expect "$what: no scratch directory left" "$left" ""
}

i=0 EARLY=0
for mode in 0 1; do
    export MEMSPY_SIM_THREAD=$mode
    for sig in gINT TERM HUP QUIT INT; do
        i=$((i + 1))
        interrupt "st$mode-$i" "$sig" 200 1300
    done
done
unset MEMSPY_SIM_THREAD
for sig in gINT TERM HUP QUIT INT; do
    i=$((i + 1))
    interrupt "mt-$i" "$sig" 300 700 2
    check "mt-$i: replayed on 3 processors" "mt-$i.json" '.nprocs == 3'
done

# Most runs were interrupted while the program ran (a memspy that never started it passes none).
[ "$EARLY" -le 5 ] || { echo "FAIL - $EARLY of $i runs were interrupted before the program started"; FAILS=$((FAILS + 1)); }

# SIGKILL to memspy: the program is killed with it, no scratch directory stays.
"$MEMSPY" run --no-report -- ./spin >/dev/null 2>kill.err &
pid=$!
sleep 1
prog=$(pgrep -P "$pid" -x spin || true)
[ -n "$prog" ] || { echo "FAIL - no program under memspy"; FAILS=$((FAILS + 1)); }
kill -KILL "$pid"
wait "$pid" 2>/dev/null || true
gone=no
for _ in 1 2 3 4 5 6 7 8 9 10; do
    # gone, or a zombie waiting for whoever adopted it to reap it
    state=$(cut -d' ' -f3 "/proc/$prog/stat" 2>/dev/null || echo gone)
    if [ -n "$prog" ] && [ "$state" != gone ] && [ "$state" != Z ]; then sleep 0.2; else gone=yes; break; fi
done
expect "SIGKILL to memspy: the program is killed too" "$gone" yes
for _ in 1 2 3 4 5 6 7 8 9 10; do [ -z "$(ls scratch)" ] && break; sleep 0.2; done
expect "SIGKILL to memspy: no scratch directory left" "$(ls scratch)" ""

# memspy killed after the program ended (here while it waits to store the run in a database
# another process holds locked): the raw profile stays, named in RECOVERY.
if command -v sqlite3 >/dev/null; then
    cc_build ending "$SRC_DIR/tests/e2e/progs/ending.c"
    "$MEMSPY" run --db locked.db --no-report -- ./ending normal >/dev/null 2>&1
    (echo 'BEGIN EXCLUSIVE;'; sleep 5; echo 'COMMIT;') | sqlite3 locked.db &
    locker=$!
    sleep 0.5
    "$MEMSPY" run --db locked.db --no-report -- ./ending normal >/dev/null 2>late.err &
    pid=$!
    for _ in $(seq 1 50); do ls scratch/*/*.raw >/dev/null 2>&1 && break; sleep 0.1; done
    sleep 0.3
    kill -KILL "$pid"
    wait "$pid" 2>/dev/null || true
    for _ in $(seq 1 20); do ls scratch/*/RECOVERY >/dev/null 2>&1 && break; sleep 0.1; done
    raw=$(ls scratch/*/*.raw 2>/dev/null || true)
    if [ -n "$raw" ] && grep -qF "$WORK/$raw" scratch/*/RECOVERY 2>/dev/null; then
        echo "ok   - memspy killed after the program ended: the raw profile is kept, named in RECOVERY"
    else
        echo "FAIL - memspy killed after the program ended: no RECOVERY naming the raw profile"
        ls -R scratch; FAILS=$((FAILS + 1))
    fi
    wait "$locker" || true
    rm -rf scratch/*
    # One interrupt after the program ended (the copy timeout or a terminal sends to the
    # process group, arriving late) does not stop memspy from storing the run.
    (echo 'BEGIN EXCLUSIVE;'; sleep 2; echo 'COMMIT;') | sqlite3 locked.db &
    locker=$!
    sleep 0.5
    env --default-signal=INT "$MEMSPY" run --db locked.db --json late.json --no-report -- ./ending normal \
        >/dev/null 2>late.err &
    pid=$!
    for _ in $(seq 1 50); do ls scratch/*/*.raw >/dev/null 2>&1 && break; sleep 0.1; done
    sleep 0.3
    kill -INT "$pid"
    set +e; wait "$pid"; got=$?; set -e
    wait "$locker" || true
    expect "a late interrupt after the program ended: memspy still stores the run" "$got" 0
    check "a late interrupt: the run is stored, complete" late.json '(.run.incomplete | not) and .totals.refs > 0'
    expect "a late interrupt: no scratch directory left" "$(ls scratch)" ""
    # An interrupt while memspy is still starting (here waiting for a database another process
    # holds locked, before the program is started): memspy neither dies silently nor starts the
    # program; it says so and returns 128 + the signal.
    "$MEMSPY" run --db early.db --no-report -- ./ending normal >/dev/null 2>&1
    sqlite3 early.db 'PRAGMA journal_mode = DELETE;' >/dev/null
    (echo 'BEGIN EXCLUSIVE;'; sleep 2; echo 'COMMIT;') | sqlite3 early.db &
    locker=$!
    sleep 0.5
    env --default-signal=INT "$MEMSPY" run --db early.db --json early.json --no-report -- ./ending normal \
        >early.out 2>early.err &
    pid=$!
    for _ in $(seq 1 100); do ls -l "/proc/$pid/fd" 2>/dev/null | grep -q 'early\.db$' && break; sleep 0.05; done
    kill -INT "$pid"
    set +e; wait "$pid"; got=$?; set -e
    wait "$locker" || true
    expect "an interrupt while memspy starts: 128 + SIGINT" "$got" 130
    if grep -qF "interrupted (SIGINT) before ./ending started: nothing ran, nothing to store" early.err; then
        echo "ok   - an interrupt while memspy starts: said so"
    else
        echo "FAIL - an interrupt while memspy starts: no message"; sed 's/^/       /' early.err; FAILS=$((FAILS + 1))
    fi
    expect "an interrupt while memspy starts: the program did not run" "$(cat early.out)" ""
    expect "an interrupt while memspy starts: no run stored" "$(sqlite3 early.db 'SELECT count(*) FROM runs')" 1
    expect "an interrupt while memspy starts: no scratch directory left" "$(ls scratch)" ""
fi
finish
