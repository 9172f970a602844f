#!/bin/sh
# Interrupts and `memspy mtool` (docs/processes.md): its handler is installed at once, as
# `memspy run`'s. An interrupt while memspy is still starting (here: reading a standard input
# that a pipe holds open, before the counting run) starts nothing, says so and returns
# 128 + the signal; one during the counting run is passed on to the program, and the timing
# run is then not started. No scratch directory is left. Deterministic: each interrupt is sent
# once memspy is known to be in the window (its descriptors, the counting run's environment).
# matrix: gcc:-O2
. "$1/tests/e2e/lib.sh"
cc_build spin "$SRC_DIR/tests/e2e/progs/spin.c" -pthread
mkdir scratch
export TMPDIR="$WORK/scratch"
ulimit -c 0

# 1. While memspy keeps its standard input (a FIFO whose writer, fd 3, stays open): nothing runs.
mkfifo in.fifo
exec 3<>in.fifo
# a background job of a script starts with SIGINT ignored, which memspy would keep
env --default-signal=INT "$MEMSPY" mtool --json early.json -- ./spin <in.fifo 3>&- >early.out 2>early.err &
pid=$!
for _ in $(seq 1 400); do ls -l "/proc/$pid/fd" 2>/dev/null | grep -q '/stdin$' && break; sleep 0.05; done
ls -l "/proc/$pid/fd" 2>/dev/null | grep -q '/stdin$' || { echo "FAIL - memspy mtool never read its input"; FAILS=$((FAILS + 1)); }
kill -INT "$pid"
exec 3>&-   # end of the input: memspy goes on to where it would start the program
set +e; wait "$pid"; got=$?; set -e
expect "an interrupt while memspy mtool starts: 128 + SIGINT" "$got" 130
if grep -qF "memspy mtool: interrupted (SIGINT) before ./spin started: nothing ran, nothing to store" early.err; then
    echo "ok   - an interrupt while memspy mtool starts: said so"
else
    echo "FAIL - an interrupt while memspy mtool starts: no message"; sed 's/^/       /' early.err; FAILS=$((FAILS + 1))
fi
expect "an interrupt while memspy mtool starts: the program did not run" "$(cat early.out)" ""
expect "an interrupt while memspy mtool starts: no JSON" "$(ls early.json 2>/dev/null)" ""
expect "an interrupt while memspy mtool starts: no scratch directory left" "$(ls scratch)" ""

# 2. During the counting run (spin runs until a signal ends it): SIGTERM to memspy alone is
# passed on to the counting run; the timing run does not start.
"$MEMSPY" mtool --json count.json -- ./spin </dev/null >count.out 2>count.err &
pid=$!
child=
for _ in $(seq 1 400); do
    for c in $(pgrep -P "$pid"); do
        cat "/proc/$c/environ" 2>/dev/null | tr '\0' '\n' | grep -qx 'MEMSPY_MODE=count' && child=$c
    done
    [ -n "$child" ] && break
    sleep 0.05
done
[ -n "$child" ] || { echo "FAIL - no counting run seen"; FAILS=$((FAILS + 1)); }
sleep 0.3
kill -TERM "$pid"
set +e; wait "$pid"; got=$?; set -e
expect "SIGTERM during the counting run: 128 + SIGTERM" "$got" 143
if grep -qF "memspy mtool: interrupted (SIGTERM) in or after the counting run of ./spin: the timing run did not start" count.err; then
    echo "ok   - SIGTERM during the counting run: said so"
else
    echo "FAIL - SIGTERM during the counting run: no message"; sed 's/^/       /' count.err; FAILS=$((FAILS + 1))
fi
expect "SIGTERM during the counting run: the counting run is gone" "$(kill -0 "$child" 2>/dev/null && echo alive)" ""
expect "SIGTERM during the counting run: no scratch directory left" "$(ls scratch)" ""
finish
