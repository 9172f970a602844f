#!/bin/sh
# C++ and Fortran heap data named from the compiler plugins' allocation destinations with the
# sources deleted before the runs: a std::vector declared in main is vector<double>.samples (the
# object its constructor builds), a node a function fills and returns keeps its own name
# Node*.made, an arena's members allocated in its constructor are cells_ (a vector member
# initialiser) and block_, a vector member that grows by push_back in a member function is
# edges (the object push_back is called on), `new Vec3(...)` (the result passes through the
# constructor) is Vec3*.vec, and `double *raw = new double[n]`, whose every debug binding g++
# -O2 drops, is double*.raw (from what the plugin noted before the optimisers). Fortran
# allocatables (gfortran, so in the gcc runs only) are their arrays, and one ALLOCATE of two
# components (one source position, two calls) gives two bins g.u and g.v, told apart by the
# labels around each call. (clang -O2 inlines Arena's constructor: the block is a.block_.)
# matrix: gcc:-O0 gcc:-O2 clang:-O0 clang:-O2
. "$1/tests/e2e/lib.sh"
cp "$SRC_DIR/tests/e2e/progs/dests.cc" "$SRC_DIR/tests/e2e/progs/dests.f90" .
"$BUILD_DIR/bin/memspy-c++" $OPT -o destsxx dests.cc
rm dests.cc
run_memspy x.json -- ./destsxx

check "C++: std::vector<double> samples(1000) is vector<double>.samples, 8000 bytes" x.json \
  '[.data[] | select(.name == "vector<double>.samples")] | length == 1 and .[0].bytes == 8000'
check "C++: the node made and filled in make_node is Node*.made, 64 bytes" x.json \
  '[.data[] | select(.name == "Node*.made")] | length == 1 and .[0].bytes == 64'
check "C++: the arena's block is its member block_ (a.block_ where the constructor is inlined)" x.json \
  '[.data[] | select(.name == "block_" or .name == "a.block_")] | length == 1 and .[0].bytes == 4000'
check "C++: the arena's vector member is cells_ (its constructor's object), 4000 bytes" x.json \
  '[.data[] | select(.name == "cells_")] | length == 1 and .[0].bytes == 4000'
check "C++: Graph::edges, grown by 3000 push_backs (12 reallocations at least), is edges" x.json \
  '[.data[] | select(.name == "edges" or .name == "g.edges")] | length == 1 and .[0].objects >= 12'
check "C++: new Vec3(argc, 2.0, 3.0) is Vec3*.vec, 24 bytes" x.json \
  '[.data[] | select(.name == "Vec3*.vec")] | length == 1 and .[0].bytes == 24'
check "C++: new double[100 + argc] is double*.raw, 808 bytes" x.json \
  '[.data[] | select(.name == "double*.raw")] | length == 1 and .[0].bytes == 808'
check "C++: no heap bin named by site" x.json '[.data[] | select(.kind == "heap" and (.name | startswith("heap@")))] | length == 0'
[ "$CC_NAME" = gcc ] || finish
MEMSPY_FC=gfortran "$BUILD_DIR/bin/memspy-fortran" $OPT -o destsf dests.f90
rm dests.f90
run_memspy f.json -- ./destsf
check "Fortran: field, 200x200 doubles" f.json '[.data[] | select(.name == "field")] | length == 1 and .[0].bytes == 320000'
check "Fortran: w, 1000 doubles" f.json '[.data[] | select(.name == "w")] | length == 1 and .[0].bytes == 8000'
check "Fortran: allocate(g%u(n), g%v(2*n)) is g.u (4000 bytes) and g.v (8000 bytes)" f.json \
  '([.data[] | select(.name == "g.u")] | length == 1 and .[0].bytes == 4000) and
   ([.data[] | select(.name == "g.v")] | length == 1 and .[0].bytes == 8000)'
check "Fortran: main writes every element of w (1000 stores, fewer where vectorised)" f.json \
  "$JQ_DEFS"' datacells("w") | sum(.writes) >= 500'
finish
