#!/bin/sh
# The same program and input give identical statistics run after run (address-space
# randomization is turned off for the profiled program; big arrays live in mmap'd memory,
# whose placement would otherwise move the L2/L3 set mapping).
# matrix: gcc:-O2 clang:-O2
. "$1/tests/e2e/lib.sh"
cc_build spmv "$SRC_DIR/bench/kernels/spmv.c"
# Every compared run gets an environment of one size (the same variables, values of the same
# total length): the initial stack pointer, and with it the stack's offset in a cache line,
# which the runtime keeps as on hardware, depends on it.
# envsize SIM_THREAD SIDE PAD CMD...: run CMD with those three variables set
envsize() { t=$1 s=$2 p=$3; shift 3; MEMSPY_SIM_THREAD=$t MEMSPY_WINDOW_SIDE=$s MEMSPY_TEST_PAD=$p "$@"; }
envsize "" "" xxxxxxx run_memspy a.json --preset x86 -- ./spmv 50000 8 1
envsize "" "" xxxxxxx run_memspy b.json --preset x86 -- ./spmv 50000 8 1
jq -S 'del(.run)' a.json >a.norm
jq -S 'del(.run)' b.json >b.norm
if cmp -s a.norm b.norm; then echo "ok   - two runs give identical statistics"; else
  echo "FAIL - two runs differ:"; diff a.norm b.norm | head -20; FAILS=$((FAILS + 1)); fi
check "the run has L3 misses to compare" a.json '.totals.levels[2].misses > 10000'

# The simulator thread (pipeline.c) changes no number: simulated in the flushing thread
# (MEMSPY_SIM_THREAD=0) or on its own thread (=1), with the hit window run by the flushes or
# by the thread (MEMSPY_WINDOW_SIDE), the statistics are identical.
envsize 0 "" xxxxxx run_memspy inline.json --preset x86 -- ./spmv 50000 8 1
envsize 1 flush x run_memspy flush.json --preset x86 -- ./spmv 50000 8 1
envsize 1 thread "" run_memspy thread.json --preset x86 -- ./spmv 50000 8 1
for f in inline flush thread; do jq -S 'del(.run)' $f.json >$f.norm; done
if cmp -s inline.norm flush.norm && cmp -s inline.norm thread.norm && cmp -s a.norm inline.norm; then
  echo "ok   - with and without the simulator thread, the window on either side: identical statistics"
else echo "FAIL - the simulator thread or the window's side changes the statistics:"
  diff inline.norm flush.norm | head -10; diff inline.norm thread.norm | head -10
  FAILS=$((FAILS + 1)); fi
# The plugin's drain composes its records straight into the simulator's chunks (rt.h,
# ms_direct_begin) unless MEMSPY_DIRECT=0 sends them through the event buffer and the flush:
# the statistics are identical, with the simulator thread (the window on either side) and
# without, for spmv (heap only) and tri (calls, stack variables, bins made mid-drain).
cc_build tri "$SRC_DIR/examples/tri/tri.c"
for prog in "spmv 50000 8 1" "tri 4000 16 100"; do
  name=${prog%% *}
  for mode in "0 x" "1 flush" "1 thread"; do
    for d in 1 0; do
      MEMSPY_DIRECT=$d envsize ${mode% *} ${mode#* } "" run_memspy $name.$d.json --preset x86 -- ./$prog
      jq -S 'del(.run)' $name.$d.json >$name.$d.norm
    done
    if cmp -s $name.1.norm $name.0.norm && jq -e '.totals.refs > 100000' $name.1.json >/dev/null; then
      echo "ok   - $name, MEMSPY_SIM_THREAD=${mode% *} ${mode#* }: straight into chunks or through the events, identical"
    else echo "FAIL - $name, MEMSPY_SIM_THREAD=${mode% *} ${mode#* }: the drain's direct path changes the statistics:"
      diff $name.1.norm $name.0.norm | head -10; FAILS=$((FAILS + 1)); fi
  done
done
cc_build tasks "$SRC_DIR/tests/e2e/progs/tasks.c"
MEMSPY_SIM_THREAD=1 run_memspy t1.json -- ./tasks
MEMSPY_SIM_THREAD=0 run_memspy t0.json -- ./tasks
ok_if "MEMSPY_SIM_THREAD=1: the simulator thread runs beside the program" grep -q "tasks=2" t1.json.out
ok_if "MEMSPY_SIM_THREAD=0: no simulator thread" grep -q "tasks=1" t0.json.out
check "the program's one thread is all the profile shows" t1.json '(.threads // []) | length <= 1'

finish
