#!/bin/sh
# Allocation-destination records on calls the compiler merges (issue 12): four paths of `pick`
# end in the same call through a function pointer (`opener(n, out)`), which gcc -O2's
# cross-jumping made one call shared by all paths, with the `2:` label after it. Each path's
# record (`.quad 1f, 2f`) then took a later record's `2:`, or none: leveldb's util/env.cc (the
# EnvWrapper calls inlined into each other) failed to assemble ("local label 2 is not
# defined"). Every record with an end label now has its own `2:` (gcc's assembly; clang
# resolves the labels itself), the program builds, and the two blocks are named after the
# caller's variables (`char*.a`, `char*.b`: local pointers) through the out-parameter.
# matrix: gcc:-O0 gcc:-O2 clang:-O0 clang:-O2
. "$1/tests/e2e/lib.sh"
need_plugin
cp "$SRC_DIR/tests/e2e/progs/shared_calls.c" .
if [ "$MEMSPY_CC" = gcc ]; then
    "$BUILD_DIR/bin/memspy-cc" $OPT -g -S shared_calls.c -o sc.s || { echo "FAIL - memspy-cc -S"; exit 1; }
    records=$(grep -c '\.quad 1f, 2f' sc.s)
    ends=$(grep -c '^[[:space:]]*2:' sc.s)
    expect "records with an end label" "$records" "$ends"
    [ "$records" -ge 3 ] || { echo "FAIL - only $records records with an end label"; exit 1; }
fi
cc_build sc shared_calls.c
run_memspy r.json -- ./sc
expect "shared_calls ran (its three lines)" "$(grep -c -x -e one -e two -e 44 r.json.out)" "3"
for b in "char*.a 4096" "char*.b 8192"; do
    set -- $b
    check "$1: one block of $2 bytes, named through pick's out-parameter; main writes it $2 times" r.json \
        "$JQ_DEFS"' ([.data[] | select(.name == "'"$1"'")] | length == 1 and .[0].kind == "heap" and .[0].objects == 1 and
          .[0].bytes == '"$2"') and (cell("main"; "'"$1"'") | .writes == '"$2"')'
done
finish
