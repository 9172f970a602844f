#!/bin/sh
# test_rt_regions with the region table's own code (src/rt/regions.c) built with
# ThreadSanitizer, the rest of the runtime from BUILD_DIR's archive: a plain load or store
# left on the lock-free read side, or a write the readers can see unordered, is a reported
# race (TSan treats the seqlock's fences as no-ops, so it may report a false race there; none
# is left). Exit 77 (skipped) where this machine's cc cannot build with ThreadSanitizer.
# usage: sh tests/tsan/t_regions.sh SRC_DIR BUILD_DIR
set -u
SRC_DIR=$1 BUILD_DIR=$2
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
if ! cc -std=gnu11 -O1 -g -fsanitize=thread -Wno-tsan -D_GNU_SOURCE -DMEMSPY_RUNTIME=1 -I"$SRC_DIR/src" \
    -I"$SRC_DIR/tests/unit" $(pkg-config --cflags libdw) "$SRC_DIR/tests/unit/test_rt_regions.c" \
    "$SRC_DIR/src/rt/regions.c" "$BUILD_DIR/rt/libmemspy_rt_objects.a" $(pkg-config --libs libdw libelf) \
    -lpthread -o "$WORK/t" 2>"$WORK/err"; then
    echo "skipped: cc cannot build with ThreadSanitizer here"
    cat "$WORK/err"
    exit 77
fi
# TSan needs a low-entropy address layout on newer kernels (setarch -R where there is one)
run=""
setarch -R true 2>/dev/null && run="setarch -R"
TSAN_OPTIONS="halt_on_error=1 exitcode=66" $run "$WORK/t"
