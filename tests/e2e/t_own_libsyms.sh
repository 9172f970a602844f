#!/bin/sh
# A program that defines functions named like those the runtime itself calls in zlib and zstd
# (crc32, here with another signature; ZSTD_compressStream2, ZSTD_isError): the runtime binds
# its own from the system's libraries (src/rt/syslib.c), so the recording neither crashes, nor
# stops, nor is profiled as the program's work; the program's output is its own.
# matrix: gcc:-O2 clang:-O2
. "$1/tests/e2e/lib.sh"
cc_build own "$SRC_DIR/tests/e2e/progs/own_libsyms.c"
./own >native.out
set +e
"$MEMSPY" run --no-report --json r.json -- ./own >memspy.out 2>run.err
st=$?
set -e
expect "memspy run exits 0" "$st" 0
expect "the program's output is its own (its functions called once, by itself)" "$(cat memspy.out)" "$(cat native.out)"
expect "no recording stopped" "$(grep -c 'recording' run.err)" 0
check "four processors, one per thread" r.json '.nprocs == 4'
check "no code bin of the program's zstd functions (the runtime never called them)" r.json \
  '[.code[].name] | map(select(test("ZSTD"))) | length == 0'
check "its crc32 is the program's one call: 7 characters and a counter, under 12 references" r.json \
  '[.code[] | select(.name == "crc32") | .refs] | length == 1 and .[0] < 12'
# 4 threads x 4 passes x 16384 doubles, a load and a store each, two doubles a vector access
check "work: 262144 vector references, or 524288 scalar ones" r.json \
  '.code[] | select(.name == "work") | .refs == 262144 or .refs == 524288'
[ "$FAILS" -eq 0 ] || exit 1
