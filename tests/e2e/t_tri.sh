#!/bin/sh
# MemSpy section 4, sequential tri: sparse lower-triangular solve in compressed row format.
# Finding: M.nz dominates the stall and its misses are mostly first-reference (cold) misses.
# matrix: gcc:-O0 gcc:-O2 clang:-O0 clang:-O2 clang:-O3
. "$1/tests/e2e/lib.sh"
# Built from the source tree with a relative path and run elsewhere: the names still come
# from the source (found through DWARF's compilation directory).
(cd "$SRC_DIR" && "$BUILD_DIR/bin/memspy-cc" $OPT -o "$WORK/tri" examples/tri/tri.c)
run_memspy r.json --preset memspy92 -- ./tri 40000 16 400
grep -q "nnz=639864" r.json.out || { echo "FAIL - program output changed"; exit 1; }

check "M.nz is named from 'M->nz = calloc(...)'" r.json '.data | any(.name == "M.nz")'
check "M.col is named too" r.json '.data | any(.name == "M.col")'
# The finding is about the solve (MemSpy measured the solver). The setup (GenerateMatrix) is
# left out: at -O0 its stack frame and a heap array may share direct-mapped sets or not,
# depending only on where the heap starts, i.e. on the executable's size.
check "in Solve, M.nz has the largest stall of all data bins" r.json \
  "$JQ_DEFS"' codeid("Solve") as $s | dataid("M.nz") as $nz | [.bins[] | select(.code == $s)] | max_by(.stall_cycles) | .data == $nz'
check "in Solve, M.nz dominates: at least 1.5x the stall of any other data bin" r.json \
  "$JQ_DEFS"' codeid("Solve") as $s | dataid("M.nz") as $nz | [.bins[] | select(.code == $s)] | sort_by(-.stall_cycles) as $d |
   $d[0].data == $nz and $d[0].stall_cycles >= 1.5 * $d[1].stall_cycles'
check "M.nz's misses are mostly cold (> 85%)" r.json \
  "$JQ_DEFS"' datacells("M.nz") | (sum(.causes.cold) / sum(.misses)) > 0.85'
check "M.nz is read exactly nnz times, in Solve" r.json \
  "$JQ_DEFS"' cell("Solve"; "M.nz").reads == 639864'
# GenerateMatrix's -O0 stack frame and its constants conflict in the direct-mapped cache or not
# depending on where the stack and the data land (the environment's size, the runtime's size):
# the solve's first finding is what is asserted.
check "the solve's first finding: M.nz, cold misses" r.json \
  '[.findings[] | select(.code_name == "Solve")][0] | .kind == "cold" and .data_name == "M.nz"'
finish
