#!/bin/sh
# Blocks a function stores in a member of a struct it returns by value (issue 12): `r.start =
# malloc(n); return r;`, named after the caller's variable and the member (`b.start`), not the
# callee's local (`r.start`, `r[]`) nor the site. Three shapes of return: a small struct in
# registers (clang: `{ i8*, i64 }`, loaded whole from the local at -O0, built by insertvalue at
# -O1 and up), the same from a static function (clang -O2 returns the pointer alone), and a
# large struct in memory (the sret argument, which is the callee's `r` at clang -O0). Before,
# clang -O0 named them `r[]`, `r.start` and `r.start@make_local`, and clang -O2 the first `r[]`.
# Sources deleted after the build.
# matrix: gcc:-O0 gcc:-O2 clang:-O0 clang:-O1 clang:-O2 clang:-O3
. "$1/tests/e2e/lib.sh"
need_plugin
cp "$SRC_DIR/tests/e2e/progs/struct_returns.c" .
cc_build sr struct_returns.c
rm struct_returns.c
run_memspy r.json -- ./sr
expect "struct_returns ran: 1024 ones, 512 twos, 256 threes" "$(cat r.json.out)" "2816"
for b in "b.start make_buf 65536 1024" "l.start make_local 32768 512" "g.start make_big 16384 256"; do
    set -- $b
    check "$1: one block of $3 bytes from $2, main writes and reads it $4 times" r.json \
        "$JQ_DEFS"' ([.data[] | select(.name == "'"$1"'")] | length == 1 and .[0].kind == "heap" and .[0].objects == 1 and
          .[0].bytes == '"$3"') and (cell("main"; "'"$1"'") | .writes == '"$4"' and .reads == '"$4"')'
    check "$1's full name goes through $2" r.json \
        '.data[] | select(.name == "'"$1"'") | .full_name | test("^main:[0-9]+>'"$2"':[0-9]+>'"$1"'$")'
done
check "no heap bin is named after the callee's local or by site" r.json \
    '[.data[] | select(.kind == "heap" and .name != "heap:headers") | .name] | sort == ["b.start", "g.start", "l.start"]'
finish
