#!/bin/sh
# An OpenMP loop with a dynamic schedule: its iteration assignment depends on the run, and
# the result's notes say so (issue 14); the same loop with a static schedule has no such note.
# gcc: libgomp's GOMP_parallel_loop_* entry points are where the schedule is seen; clang:
# libomp's __kmpc_dispatch_init_*.
# matrix: gcc:-O0 gcc:-O2 clang:-O0 clang:-O2
. "$1/tests/e2e/lib.sh"
need_openmp
cc_build omp_sched "$SRC_DIR/tests/e2e/progs/omp_sched.c" -fopenmp
run_memspy dyn.json -- ./omp_sched dynamic
run_memspy st.json -- ./omp_sched static
check "dynamic: the program exited normally" dyn.json '.run.exit == {"kind": "normal", "value": 0} and .run.incomplete == false'
grep -q "a\[4095\]=2047.5" dyn.json.out || { echo "FAIL - program output changed"; FAILS=$((FAILS + 1)); }
check "dynamic: a note says the assignment may differ between runs" dyn.json \
  '[.run.notes[] | select(test("dynamic, guided or runtime schedules.*may differ between runs"))] | length == 1'
check "static: no such note" st.json \
  '[.run.notes[] | select(test("dynamic, guided"))] | length == 0'
finish
