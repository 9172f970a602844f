#!/bin/sh
# memspy run's progress line: on a terminal (a pty from script(1)) a run of a few seconds
# shows "refs simulated" updates overwritten in place and erased at the end; a short run and
# a run whose stderr is not a terminal show nothing.
# matrix: gcc:-O2
. "$1/tests/e2e/lib.sh"
command -v script >/dev/null || { echo "skip: script (util-linux) not installed"; exit 77; }
cc_build blkmatmul "$SRC_DIR/examples/blkmatmul/blkmatmul.c"

ESC=$(printf '\033')
CR=$(printf '\r')

# About 6 s of simulation (N=800: 1.0G references at under 200M/s).
script -qec "'$MEMSPY' run --preset memspy92 --no-report -- ./blkmatmul 800 64" /dev/null </dev/null >pty.txt
expect "the program ran" "$(grep -c 'N=800 B=64' pty.txt)" 1
# (the program's own output may land between two updates, splitting them over two lines)
expect "progress on a terminal: references, rate, elapsed" \
  "$(grep -q "${CR}memspy: [0-9.]*[KMG]\{0,1\} refs simulated, [0-9.]*[KMG]\{0,1\} refs/s, [0-9]*:[0-9][0-9] elapsed${ESC}\[K" pty.txt && echo shown)" shown
expect "the count grows between updates" \
  "$(tr '\r' '\n' <pty.txt | awk '/refs simulated/ { n++; v[n] = $2 } END { print (n >= 2 && v[n] != v[1]) ? "grows" : "flat (" n " updates)" }')" grows
expect "the line is erased at the end" "$(grep -c "${CR}${ESC}\[K" pty.txt)" 1

# A run of a few milliseconds: far below the 2 s threshold even on a loaded machine.
script -qec "'$MEMSPY' run --preset memspy92 --no-report -- ./blkmatmul 16 8" /dev/null </dev/null >short.txt
expect "a short run shows no progress" "$(grep -c 'refs simulated' short.txt)" 0

"$MEMSPY" run --preset memspy92 --no-report -- ./blkmatmul 500 64 >out.txt 2>err.txt
expect "stderr not a terminal: no progress" "$(grep -c 'refs simulated' err.txt)" 0
expect "... and no control characters" "$(grep -c "$CR\|$ESC" err.txt)" 0
finish
