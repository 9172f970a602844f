#!/bin/sh
# Carnival's WT Map of a program that synchronises through its own wrappers (pigz's yarn:
# wait_for_/possess_; pbzip2's safe_mutex_lock/safe_cond_wait): every wait is at the wrapper's
# one call of pthread_cond_wait, so before, two waits as different as "the main thread waits
# for the worker's result" and "the worker waits for the next job" were one point (here
# `semaphore wait_for`, at its sem_wait), with neither object named, and an inlined wrapper called from two
# functions gave two rows reading the same `lock lock_it LINE`. Now a point is also split by
# the data bin that holds its object and names it (`on done`), and a point in an inlined
# function says where it was called (tests/e2e/progs/sync_wrappers.c).
# matrix: gcc:-O2 clang:-O2
. "$1/tests/e2e/lib.sh"
PROG="$SRC_DIR/tests/e2e/progs/sync_wrappers.c"
cc_build sw "$PROG" -pthread
run_memspy r.json -- ./sw
expect "the program's output" "$(cat r.json.out)" "600.0 65616.5 40"
WAIT=$(grep -n 'sem_wait(&l->sem)' "$PROG" | cut -d: -f1)
LOCK=$(grep -n 'pthread_mutex_lock(m)' "$PROG" | cut -d: -f1)
check "two semaphore points at wait_for's one sem_wait (line $WAIT), one per lock: done and jobs, 20 waits each" \
  r.json "[.waiting.sources[] | select(.kind == \"semaphore\")] | length == 2 and all(.function == \"wait_for\" and
   .line == $WAIT and .instances == 20) and ([.[].object_name] | sort) == [\"done\", \"jobs\"]"
check "the main thread waits longer for done than the worker for jobs (the worker works twice as long)" r.json \
  '[.waiting.sources[] | select(.kind == "semaphore")] |
   (.[] | select(.object_name == "done") | .cycles) > 1.2 * (.[] | select(.object_name == "jobs") | .cycles)'
check "the inlined lock_it (line $LOCK) is one point per caller, main and worker, each on table_mu" r.json \
  "[.waiting.sources[] | select(.kind == \"lock\" and .function == \"lock_it\" and .line == $LOCK)] |
   ([.[].via_function] | sort) == [\"main\", \"worker\"] and all(.object_name == \"table_mu\" and .via_line > 0)"
check "the non-inlined wrapper's points have no caller" r.json \
  '[.waiting.sources[] | select(.function == "wait_for") | .via_function] | all(. == null)'
# The text WT Map and the stored run say the same.
"$MEMSPY" report --waiting >wt.txt
ok_if "report --waiting: 'on done' under wait_for's row" grep -q '^ *on done$' wt.txt
ok_if "report --waiting: lock_it 'called from worker'" grep -q 'on table_mu, called from worker sync_wrappers.c:' wt.txt
"$MEMSPY" report --json >stored.json
check "the stored run reads back its points' objects and callers" stored.json \
  "$(jq -c '[.waiting.sources[] | {object_name, via_function, via_line}]' r.json) as \$w |
   [.waiting.sources[] | {object_name, via_function, via_line}] == \$w"
"$MEMSPY" show --wait wait_for >detail.txt
ok_if "show --wait wait_for: both objects" sh -c 'grep -q "^  on done$" detail.txt && grep -q "^  on jobs$" detail.txt'
finish
