#!/bin/sh
# A struct of arrays allocated in a constructor-like function (make_soa: s->x = calloc(...))
# called from two places, once through a wrapper: the compiler plugin's records name each array
# by the variable the caller keeps the struct in and the member (particles.x, grid.y), and
# the structs by those variables; the source is deleted before the run. Both plugins: clang's
# typed-pointer IR stores through the malloc'd i8* that only a cast of it is bound to `s`.
# matrix: gcc:-O0 gcc:-O2 clang:-O0 clang:-O2
. "$1/tests/e2e/lib.sh"
cp "$SRC_DIR/tests/e2e/progs/soa_ctor.c" .
cc_build soa soa_ctor.c
rm soa_ctor.c
run_memspy r.json -- ./soa
check "the arrays are particles.x, particles.y, grid.x, grid.y; the structs soa*.particles, soa*.grid" r.json \
  '[.data[] | select(.kind == "heap" and .name != "heap:headers") | [.name, .bytes]] | sort ==
   [["grid.x", 24000], ["grid.y", 24000], ["particles.x", 16000], ["particles.y", 16000],
    ["soa*.grid", 24], ["soa*.particles", 24]]'
check "grid's arrays keep the wrapper in their call path" r.json \
  '[.data[] | select(.name == "grid.x") | .full_name | test("^main:[0-9]+>make_field:[0-9]+>make_soa:[0-9]+>grid.x$")] == [true]'
finish
