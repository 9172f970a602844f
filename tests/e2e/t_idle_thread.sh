#!/bin/sh
# Carnival's classes among the threads that work, and apart an idle thread's waiting
# (tests/e2e/progs/idle_thread.c): a watchdog that waits on a condition for the whole run (as
# pbzip2's terminator thread, 34% of its waiting) and a main thread that only starts and joins
# the workers did no work of their own; their waiting was "load imbalance" (the watchdog's late
# path, main's few accesses before it signals, differed from its own in nothing), which misled.
# Now it is class idle_thread; the 3 workers' unequal work (1, 2 and 3 shares) still makes the
# barrier's waiting load imbalance. In JSON, the text WT Map, show --wait and the HTML page.
# matrix: gcc:-O2 clang:-O2
. "$1/tests/e2e/lib.sh"
PROG="$SRC_DIR/tests/e2e/progs/idle_thread.c"
cc_build it "$PROG" -pthread
run_memspy r.json -- ./it
expect "the program's output" "$(cat r.json.out)" "442426.0"
CONDL=$(grep -n 'pthread_cond_wait(&stop_cv' "$PROG" | cut -d: -f1)
BARL=$(grep -n 'pthread_barrier_wait(&bar)' "$PROG" | cut -d: -f1)
COND=".waiting.sources[] | select(.kind == \"cond\" and .function == \"watchdog\" and .line == $CONDL)"
BAR=".waiting.sources[] | select(.kind == \"barrier\" and .function == \"worker\" and .line == $BARL)"
check "two idle processors (main, the watchdog), three working ones" r.json \
  '[.waiting.profile[] | select(.waiting > 0 or .compute > 0) | .idle] | sort == [false, false, false, true, true]'
check "the watchdog's wait (line $CONDL) is one instance, over 30% of all waiting, all idle_thread, no load imbalance" \
  r.json "$COND"' | .instances == 1 and .cycles > 0.3 * '"$(jq .waiting.total_cycles r.json)"' and
   .classes.idle_thread == .cycles and .classes.load_imbalance == 0'
check "main's joins are idle_thread too" r.json \
  '[.waiting.sources[] | select(.kind == "join" and .function == "main")] | length > 0 and all(.classes.idle_thread == .cycles)'
check "the workers' barrier (line $BARL): 2 waits, > 95% load imbalance, no idle_thread" r.json \
  "$BAR"' | .instances == 2 and .classes.load_imbalance > 0.95 * .cycles and .classes.idle_thread == 0'
check "the classes add up to each point's cycles" r.json \
  '[.waiting.sources[] | .classes.load_imbalance + .classes.insufficient_parallelism + .classes.communication +
    .classes.idle_thread == .cycles] | all'
# The text WT Map, show --wait, the stored run and the HTML page say the same.
"$MEMSPY" report --waiting >wt.txt
ok_if "report --waiting: an IT column, the watchdog's row 100.0% in it" \
  grep -Eq "^ *[0-9]+  cond +watchdog idle_thread.c:$CONDL .* 0\.0% +0\.0% +0\.0% +100\.0% " wt.txt
ok_if "report --waiting: the processor table marks the idle threads" sh -c "[ \$(grep -c 'idle thread\$' wt.txt) = 2 ]"
"$MEMSPY" show --wait "watchdog:$CONDL" >detail.txt
ok_if "show --wait: idle_thread 100%, load_imbalance 0" sh -c \
  'grep -Eq "^  idle_thread +[0-9]+ cycles 100\.0%" detail.txt && grep -Eq "^  load_imbalance +0 cycles +0\.0%" detail.txt'
"$MEMSPY" report --json >stored.json
check "the stored run reads back the classes and the idle processors" stored.json \
  "$(jq -c '[.waiting.sources[] | .classes], [.waiting.profile[] | .idle]' r.json | jq -sc .) as \$w |
   [[.waiting.sources[] | .classes], [.waiting.profile[] | .idle]] == \$w"
"$MEMSPY" html r.json.result -o report.html
ok_if "the HTML page's WT Map has the idle thread column and the class" \
  sh -c "grep -q \"'idle thread'\" report.html && grep -q 'idle_thread' report.html"
finish
