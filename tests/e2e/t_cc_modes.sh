#!/bin/sh
# memspy-cc/memspy-c++/memspy-fortran in every build mode: compile-only then link-only, mixed
# source+object, two sources, a -shared library used by an executable, C++ and Fortran; objects
# must be instrumented, executables must carry memspy's runtime and never libtsan.
# matrix: gcc:-O0 gcc:-O2 clang:-O0 clang:-O2
. "$1/tests/e2e/cc_fixture/common.sh"
cp "$FIXTURE/main.c" "$FIXTURE/util.c" "$FIXTURE/hello.cpp" "$FIXTURE/alloc.f90" \
  "$FIXTURE/totals.f90" .
SUM=sum=15150

# Compile only, then link only.
"$BIN/memspy-cc" $OPT -c main.c -o main.o
"$BIN/memspy-cc" $OPT -c util.c
expect_instrumented main.o util.o
expect_accesses_recorded util.o
"$BIN/memspy-cc" main.o util.o -o linked
expect_runtime_linked linked
expect_output $SUM ./linked

# Mixed: a source and an object in one command; -o first.
"$BIN/memspy-cc" -o mixed $OPT main.c util.o
expect_runtime_linked mixed
expect_output $SUM ./mixed

# Two sources in one command, with the user's own -fsanitize=thread (must not pull libtsan).
"$BIN/memspy-cc" $OPT -fsanitize=thread main.c util.c -o two
expect_runtime_linked two
expect_output $SUM ./two

# -MD in a compile+link writes OUTPUT.d, naming OUTPUT, as the compiler alone would.
"$BIN/memspy-cc" $OPT -MD main.c util.c -o depprog
grep -q '^depprog: .*util.c' depprog.d || fail "depprog.d: $(head -1 depprog.d 2>&1)"

# The link line never carries -fsanitize=thread or the plugin; compile lines always carry one.
MEMSPY_CC_VERBOSE=1 "$BIN/memspy-cc" $OPT main.c util.c -o verbose 2>verbose.log
[ "$(grep -Ec '^memspy-cc: .* (-fsanitize=thread|-fplugin=[^ ]*memspy_gcc.so|-fpass-plugin=[^ ]*memspy_llvm.so) .* -c .*\.c -o ' verbose.log)" = 2 ] ||
  fail "expected 2 instrumented compile steps in: $(cat verbose.log)"
grep '^memspy-cc: .*--whole-archive' verbose.log | grep -Eq 'fsanitize|fplugin' &&
  fail "link step has -fsanitize or -fplugin: $(cat verbose.log)"

# A -shared library (no runtime inside, hooks left undefined) used by an executable.
"$BIN/memspy-cc" $OPT -fPIC -shared util.c -o libutil.so
nm -D libutil.so | grep -Eq ' U __(tsan|memspy)_func_entry$' || fail "libutil.so: hooks not undefined"
nm --defined-only libutil.so | grep -q __memspy_runtime_v1 && fail "libutil.so contains the runtime"
readelf -d libutil.so | grep NEEDED | grep -q tsan && fail "libutil.so links libtsan"
"$BIN/memspy-cc" $OPT main.c -L. -lutil -Wl,-rpath,"$WORK" -o shared
expect_runtime_linked shared
nm -D shared | grep -q ' T __tsan_func_entry$' || fail "shared: hooks not exported to libraries"
nm -D shared | grep -q ' T __memspy_func_entry$' || fail "shared: plugin hooks not exported to libraries"
nm -D shared | grep -q ' B __memspy_buf$' || fail "shared: plugin buffer not exported to libraries"
expect_output $SUM ./shared

# Response file.
printf '%s -c util.c -o "util rsp.o"\n' "$OPT" >args.rsp
"$BIN/memspy-cc" @args.rsp
expect_instrumented "util rsp.o"

# C++: new/delete, virtual calls, exceptions.
"$BIN/memspy-c++" $OPT -c hello.cpp -o hello.o
expect_instrumented hello.o
"$BIN/memspy-c++" hello.o -o hello_linked
expect_runtime_linked hello_linked
expect_output 102 ./hello_linked
"$BIN/memspy-c++" $OPT hello.cpp -o hello
expect_output 102 ./hello

# Fortran: ALLOCATE, array assignment, a module compiled first (module files in -J dir).
if [ "$HAVE_FORTRAN" = yes ]; then
  mkdir mods
  "$BIN/memspy-fortran" $OPT -J mods -c totals.f90 2>fortran.log
  "$BIN/memspy-fortran" $OPT -J mods -c alloc.f90 -o alloc.o 2>>fortran.log
  [ -s fortran.log ] && fail "gfortran warned: $(cat fortran.log)"
  expect_instrumented totals.o alloc.o
  "$BIN/memspy-fortran" alloc.o totals.o -o alloc_linked
  expect_runtime_linked alloc_linked
  expect_output 5050 ./alloc_linked
  rm -r mods/*
  "$BIN/memspy-fortran" $OPT -J mods totals.f90 alloc.f90 -o alloc
  [ -f mods/totals.mod ] || fail "module file not written to -J directory"
  expect_output 5050 ./alloc
else
  echo "note: Fortran not tested with $CC_FAMILY"
fi

# Queries and -E pass through untouched.
[ "$("$BIN/memspy-cc" -dumpmachine)" = "$($MEMSPY_CC -dumpmachine)" ] || fail "-dumpmachine differs"
[ "$("$BIN/memspy-cc" -E -dM -DUSER_MARK main.c)" = "$($MEMSPY_CC -E -dM -DUSER_MARK main.c)" ] ||
  fail "-E output differs from the compiler's"

# Errors: exit 2 with a memspy-cc message.
expect_error() {
  pattern=$1
  shift
  status=0
  "$@" 2>err.log || status=$?
  [ $status = 2 ] || fail "$*: exit status $status, expected 2"
  grep -q "^memspy-cc: .*$pattern" err.log || fail "$*: message '$(cat err.log)'"
}
expect_error 'static is not supported' "$BIN/memspy-cc" -static main.c util.c -o static
expect_error 'address cannot be combined' "$BIN/memspy-cc" -fsanitize=address -c main.c
expect_error 'memory cannot be combined' "$BIN/memspy-cc" -fsanitize=undefined,memory -c main.c
expect_error 'libmemspy_rt.a not found' env MEMSPY_LIBDIR="$WORK/none" "$BIN/memspy-cc" main.o util.o
expect_error "compiler 'no-such-cc' not found" env MEMSPY_CC=no-such-cc "$BIN/memspy-cc" -c main.c
# Compiling alone does not need the runtime (the -fsanitize=thread path needs no file of
# memspy's); the plugin path needs the plugin and names it when it is missing.
MEMSPY_INSTRUMENT=tsan MEMSPY_LIBDIR="$WORK/none" "$BIN/memspy-cc" $OPT -c util.c -o alone.o
if [ -f "$LIBDIR/memspy_gcc.so" ] && [ "$CC_FAMILY" = gcc ]; then
  expect_error "plugin $WORK/none/memspy_gcc.so cannot be read" env MEMSPY_LIBDIR="$WORK/none" "$BIN/memspy-cc" -c util.c
fi
if [ -f "$LIBDIR/memspy_llvm.so" ] && [ "$CC_FAMILY" = clang ]; then
  expect_error "plugin $WORK/none/memspy_llvm.so cannot be read" env MEMSPY_LIBDIR="$WORK/none" "$BIN/memspy-cc" -c util.c
fi

# The compiler's failure status comes back, and nothing is left behind.
echo 'int broken(void) { return }' >broken.c
status=0
"$BIN/memspy-cc" $OPT broken.c main.c -o never 2>/dev/null || status=$?
[ $status = 1 ] || fail "broken source: exit status $status, expected 1"
[ -e never ] && fail "broken build produced an executable"
expect_no_leftovers
echo "PASS"
