#!/bin/sh
# CC=memspy-cc as a drop-in compiler for plain make (objects + static archive), CMake (shared
# library + executable) and autotools (configure probes, depcomp); each program must run.
# matrix: gcc:-O2 clang:-O0
. "$1/tests/e2e/cc_fixture/common.sh"
CC="$BIN/memspy-cc"
SUM=sum=15150

# Plain make.
mkdir plain
cp "$FIXTURE/main.c" "$FIXTURE/util.c" "$FIXTURE/plain.mk" plain/
make -s -C plain -f plain.mk CC="$CC" CFLAGS="$OPT" >make.log 2>&1 || fail "make: $(cat make.log)"
expect_instrumented plain/main.o plain/util.o
expect_runtime_linked plain/prog
expect_output $SUM plain/prog

# CMake.
if command -v cmake >/dev/null; then
  mkdir cmk
  cp "$FIXTURE/main.c" "$FIXTURE/util.c" "$FIXTURE/CMakeLists.txt" cmk/
  CC="$CC" cmake -S cmk -B cmk/build -DCMAKE_C_FLAGS="$OPT" >cmake.log 2>&1 ||
    fail "cmake configure: $(cat cmake.log)"
  cmake --build cmk/build >>cmake.log 2>&1 || fail "cmake build: $(cat cmake.log)"
  expect_runtime_linked cmk/build/prog
  nm -D cmk/build/libutil.so | grep -Eq ' U __(tsan_read|memspy_buf)' || fail "libutil.so not instrumented"
  expect_output $SUM cmk/build/prog
else
  echo "note: cmake not installed, CMake build not tested"
fi

# Autotools.
if command -v autoreconf >/dev/null && command -v automake >/dev/null; then
  mkdir auto
  cp "$FIXTURE/main.c" "$FIXTURE/util.c" "$FIXTURE/configure.ac" "$FIXTURE/Makefile.am" auto/
  (cd auto && autoreconf -i && ./configure CC="$CC" CFLAGS="$OPT" && make) >auto.log 2>&1 ||
    fail "autotools: $(tail -40 auto.log)"
  grep -q '^checking whether the C compiler works... yes' auto.log || fail "configure probe"
  expect_instrumented auto/main.o auto/util.o
  expect_runtime_linked auto/prog
  expect_output $SUM auto/prog
else
  echo "SKIP: autoconf/automake not installed (scripts/deps.sh installs them)"
  exit 77
fi
expect_no_leftovers
echo "PASS"
