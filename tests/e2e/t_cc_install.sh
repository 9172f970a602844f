#!/bin/sh
# `cmake --install` (with --prefix, and with DESTDIR) installs the wrappers with working
# symlinks, the runtime, memspy-mcdeps and the man page; the installed wrappers find the
# installed runtime.
# matrix: gcc:-O2
. "$1/tests/e2e/cc_fixture/common.sh"
[ -x "$BUILD_DIR/bin/memspy" ] || { echo "SKIP: memspy not built, cmake --install would fail"; exit 77; }
cp "$FIXTURE/main.c" "$FIXTURE/util.c" "$FIXTURE/hello.cpp" .
unset MEMSPY_LIBDIR # the installed wrapper must find its own runtime

# expect_installed ROOT: the layout under ROOT (the prefix as seen on disk).
expect_installed() {
  root=$1
  [ -x "$root/bin/memspy-cc" ] && [ ! -L "$root/bin/memspy-cc" ] || fail "$root/bin/memspy-cc"
  for alias in memspy-c++ memspy-fortran; do
    [ "$(readlink "$root/bin/$alias")" = memspy-cc ] || fail "$root/bin/$alias is not a symlink to memspy-cc"
  done
  for f in lib/memspy/libmemspy_rt.a lib/memspy/memspy-dynamic.list share/man/man1/memspy-cc.1; do
    [ -f "$root/$f" ] || fail "$root/$f not installed"
  done
  # memspy-mcdeps (built with llvm-14-dev) beside the runtime, where memspy looks for it
  if [ -x "$BUILD_DIR/lib/memspy/memspy-mcdeps" ]; then
    [ -x "$root/lib/memspy/memspy-mcdeps" ] || fail "$root/lib/memspy/memspy-mcdeps not installed"
  fi
}

# expect_wrappers_work ROOT: C and C++ programs built with the installed wrappers run, linked
# with the runtime found next to them.
expect_wrappers_work() {
  root=$1
  MEMSPY_CC_VERBOSE=1 "$root/bin/memspy-cc" $OPT main.c util.c -o "$root/prog" 2>verbose.log
  grep -q -- "--whole-archive $root/lib/memspy/libmemspy_rt.a " verbose.log ||
    fail "installed wrapper did not use the installed runtime: $(cat verbose.log)"
  expect_runtime_linked "$root/prog"
  expect_output sum=15150 "$root/prog"
  "$root/bin/memspy-c++" $OPT hello.cpp -o "$root/hello"
  expect_output 102 "$root/hello"
}

cmake --install "$BUILD_DIR" --prefix "$WORK/prefix" >install.log 2>&1 || fail "install: $(cat install.log)"
expect_installed "$WORK/prefix"
expect_wrappers_work "$WORK/prefix"

DESTDIR="$WORK/stage" cmake --install "$BUILD_DIR" --prefix /opt/memspy >install.log 2>&1 ||
  fail "DESTDIR install: $(cat install.log)"
expect_installed "$WORK/stage/opt/memspy"
expect_wrappers_work "$WORK/stage/opt/memspy"
expect_no_leftovers
echo "PASS"
