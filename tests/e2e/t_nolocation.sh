#!/bin/sh
# A call without a source location (made by GCC's ipa-split: bzip2's snocString.part.0 inlined
# into its callers at -O2) whose result is stored gets an allocation-destination record, an
# asm statement. GCC 12's final pass reads the file name of a basic asm's location without a
# null test: the plugin gave such a statement the call's unknown location and gcc crashed
# (internal compiler error: Segmentation fault, building bzip2). The statement now takes the
# function's location. Compile only: the program is cvise's reduction, not a program to run.
# matrix: gcc:-O2
. "$1/tests/e2e/lib.sh"
ok_if "memspy-cc compiles the reduced bzip2 code" \
  cc_build nolocation.o -w -c "$SRC_DIR/tests/e2e/progs/nolocation.c"
ok_if "the object has the destinations section" \
  sh -c "readelf -S nolocation.o | grep -q __memspy_dests"
finish
