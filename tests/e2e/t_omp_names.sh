#!/bin/sh
# OpenMP regions as code bins named from the compiler's records, never from the source: each
# function gcc (PARENT._omp_fn.N) or clang (.omp_outlined., .omp_task_entry.) outlines is
# "FUNCTION: omp CONSTRUCT @LINE", the function the construct is written in, the construct
# ("parallel for" only for the combined construct) and the pragma's line; the same names under
# both compilers, with the source deleted before the run (tests/e2e/progs/omp_kinds.c).
# matrix: gcc:-O0 gcc:-O2 clang:-O0 clang:-O2
. "$1/tests/e2e/lib.sh"
need_openmp
cp "$SRC_DIR/tests/e2e/progs/omp_kinds.c" .
cc_build kinds omp_kinds.c -fopenmp
rm omp_kinds.c
OMP_NUM_THREADS=2 run_memspy r.json -- ./kinds

check "four region bins: kernel's parallel for, main's parallel sections, parallel and task" r.json \
  '[.code[].name | select(test(": omp "))] | sort ==
   ["kernel: omp parallel for @10", "main: omp parallel @25", "main: omp parallel sections @17", "main: omp task @29"]'
check "no outlined function's name is left" r.json \
  '[.code[].name | select(test("_omp_fn|omp_outlined|omp_task_entry"))] | length == 0'
check "the regions' own stack frames are theirs: stack:REGION, one bin each (no #N), no outlined name" r.json \
  '[.data[].name | select(test("^stack:"))] | all(test("_omp_fn|omp_outlined|omp_task_entry|#") | not) and
   (map(select(test("^stack:(main|kernel): omp "))) | length >= 1)'
check "the task region reads all of b: 200000 reads" r.json \
  "$JQ_DEFS"' cell("main: omp task @29"; "b") | .reads == 200000 and .writes == 0'
check "kernel's region makes every write of a (100000 or more)" r.json \
  "$JQ_DEFS"' cell("kernel: omp parallel for @10"; "a").writes as $w | $w >= 100000 and
   $w == (datacells("a") | sum(.writes))'
check "the sections region makes every write of b and reads a" r.json \
  "$JQ_DEFS"' cell("main: omp parallel sections @17"; "b").writes as $w | $w > 0 and
   $w == (datacells("b") | sum(.writes)) and (cell("main: omp parallel sections @17"; "a") | .reads > 0)'
OMP_NUM_THREADS=2 run_memspy l.json --code-granularity loop -- ./kinds
check "loop granularity: every loop is named after its function, never an outlined one" l.json \
  '[.code[].name | select(test(":loop@"))] | length > 0 and all(test("^(main|kernel):loop@[0-9]+(-[0-9]+)?$"))'
# C++: a member function's region is named after the qualified function; a nested region after
# the function it is written in
cp "$SRC_DIR/tests/e2e/progs/omp_cxx.cpp" .
"$BUILD_DIR/bin/memspy-c++" $OPT -g -fopenmp -o cxx omp_cxx.cpp
rm omp_cxx.cpp
OMP_NUM_THREADS=2 run_memspy c.json -- ./cxx
# (the outer region of the nested pair only forks the inner one: no reference of its own at -O2)
check "C++: 'ns::Grid::fill: omp parallel for @11', 'main: omp parallel for @23' (and 'main: omp parallel @21')" c.json \
  '[.code[].name | select(test(": omp "))] | sort - ["main: omp parallel @21"] ==
   ["main: omp parallel for @23", "ns::Grid::fill: omp parallel for @11"]'
# Fortran (gfortran): the combined construct as written, "parallel do"
if [ "$CC_NAME" = gcc ] && command -v gfortran >/dev/null; then
    cp "$SRC_DIR/tests/e2e/progs/omp_kinds.f90" .
    MEMSPY_FC=gfortran "$BUILD_DIR/bin/memspy-fortran" $OPT -g -fopenmp -o fkinds omp_kinds.f90
    rm omp_kinds.f90
    OMP_NUM_THREADS=2 run_memspy f.json -- ./fkinds
    check "Fortran: 'p: omp parallel do @10' and 'p: omp parallel @16'" f.json \
      '[.code[].name | select(test(": omp "))] | sort == ["p: omp parallel @16", "p: omp parallel do @10"]'
fi
finish
