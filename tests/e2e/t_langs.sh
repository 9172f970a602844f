#!/bin/sh
# longjmp, C++ new + exceptions, and Fortran ALLOCATE: bins and call paths stay right.
# matrix: gcc:-O0 gcc:-O2 clang:-O0 clang:-O2
. "$1/tests/e2e/lib.sh"
cc_build unwind "$SRC_DIR/tests/e2e/progs/unwind.c"
run_memspy c.json -- ./unwind
check "after longjmp the call path is main > alloc_after only" c.json \
  '.data[] | select(.name == "double*.after") | .full_name | test("^main:[0-9]+>alloc_after:[0-9]+>double\\*\\.after$")'
check "100 writes into after, in alloc_after" c.json \
  "$JQ_DEFS"' cell("alloc_after"; "double*.after").writes == 100'

"$BUILD_DIR/bin/memspy-c++" $OPT -o unwindxx "$SRC_DIR/tests/e2e/progs/unwind.cc"
run_memspy x.json -- ./unwindxx
check "C++: new Node() named Node*.made" x.json '.data | any(.name == "Node*.made" and .kind == "heap" and .bytes == 64)'
check "C++: after exceptions the call path is main > make_node" x.json \
  '.data[] | select(.name == "Node*.made") | .full_name | test("^main:[0-9]+>make_node:[0-9]+>Node\\*\\.made$")'
# (its own stack frame aside: at -O0 clang's plugin also sees the stores of its parameters)
check "C++: a member function's code bin is stats::Accumulator::add, 100 writes" x.json \
  '[.code[] | select(.name == "stats::Accumulator::add") | .id] as $c | ($c | length) == 1 and
   [.data[] | select(.name | startswith("stack:")) | .id] as $st |
   ([.bins[] | select(.code == $c[0]) | select([.data] | inside($st) | not) | .writes] | add) == 100'
check "C++: the vector's storage is one heap bin of 8000 bytes allocated from main" x.json \
  '[.data[] | select(.kind == "heap" and .bytes == 8000 and (.full_name | startswith("main:")))] | length == 1'
check "C++: std::vector<double> samples(1000) is named vector<double>.samples" x.json \
  '.data | any(.name == "vector<double>.samples" and .bytes == 8000)'

if [ "$CC_NAME" = gcc ]; then
  MEMSPY_FC=gfortran "$BUILD_DIR/bin/memspy-fortran" $OPT -o alloc "$SRC_DIR/tests/e2e/progs/alloc.f90"
  run_memspy f.json -- ./alloc
  check "Fortran: allocate(field(...)) is a heap bin named field" f.json \
    '.data | any(.name == "field" and .kind == "heap" and .bytes == 320000)'
  # 40000 element stores, or 20000 16-byte vector stores where gcc vectorised (-O2 on the
  # plugin path, which sees the code after vectorisation)
  check "Fortran: every element of field written" f.json \
    '(.data[] | select(.name == "field") | .id) as $f | [.bins[] | select(.data == $f) | .writes] | add >= 20000'
fi
finish
