#!/bin/sh
# Names of patterns found on real programs (issue 12), with the sources deleted after the build
# (names come from the plugins' records and DWARF, never from the source text):
# - leveldb: std::string growth allocated by libstdc++ (_M_mutate, a library without DWARF) on
#   behalf of a member the program appends to is named after that member (`data_`, `rep_`),
#   not `heap:libstdc++.so.6:...::_M_mutate#5` (both compilers at both levels: clang -O0's
#   call of the library's `append`, a declaration without debug information, is a member
#   function's by its first parameter's class, t_member_names);
# - zstd's ZSTDMT_getBuffer: `void* start = malloc(...); buffer.start = start; return buffer;`
#   is named after where the caller keeps the returned struct (`dstBuff.start`), not
#   `void*.start` (-O2, and gcc -O0: the struct is returned through a copy into a temporary,
#   `D.2948 = buffer; return D.2948;`; clang -O0 loads the local whole into the `{ i8*, i64 }`
#   it returns: before, `void*.start`; more shapes in t_struct_names);
# - leveldb's crc32c tables, const arrays in an anonymous namespace: `store::kTable`, not
#   `store::` (the demangled symbol cut at "(anonymous namespace)");
# - floating-point constants that -O0 code loads from .rodata are read-only data of the
#   program (`const:fpconst`), not `_IO_stdin_used` (the 4-byte symbol whose 16-byte granule
#   they share) nor `other:fpconst`;
# - `memspy run --focus` takes an OpenMP region by the name its code bin has
#   (`main: omp parallel for @21`), with gcc's outlined main._omp_fn.N and clang's
#   .omp_outlined. alike: only the second loop's references are simulated.
# matrix: gcc:-O0 gcc:-O2 clang:-O0 clang:-O2
. "$1/tests/e2e/lib.sh"
need_plugin
cp "$SRC_DIR/tests/e2e/progs/string_growth.cc" "$SRC_DIR/tests/e2e/progs/struct_return.c" \
    "$SRC_DIR/tests/e2e/progs/fpconst.c" .
"$BUILD_DIR/bin/memspy-c++" $OPT -o sg string_growth.cc
cc_build sr struct_return.c
cc_build fp fpconst.c
rm string_growth.cc struct_return.c fpconst.c

# --- leveldb's string growth ---
run_memspy s.json -- ./sg
expect "string_growth ran" "$(cat s.json.out)" "9466202"
# (gcc's DWARF names it with its namespace, from the symbol; clang's by its own name)
T=$([ "$CC_NAME" = gcc ] && echo store::kTable || echo kTable)
check "the anonymous namespace's const table is $T (leveldb's crc32c tables were leveldb::crc32c::#N), 16 reads by main" s.json \
    "$JQ_DEFS"' (.data[] | select(.name == "'"$T"'") | .kind == "global" and .bytes == 1024) and
     (cell("main"; "'"$T"'") | .reads == 16)'
check "no name ends in ::" s.json '[.data[].name | select(endswith("::"))] | length == 0'
check "no bin name ends in #N" s.json '[.data[].name | select(test("#[0-9]+$"))] | length == 0'
check "the constructor's string is data_: 15 blocks (each growth), 3276715 bytes in all" s.json \
    '.data[] | select(.name == "data_") | .kind == "heap" and .objects == 15 and .bytes == 3276715'
check "its full name goes through the library: Gen::Gen's append, then _M_mutate (libstdc++.so.6)" s.json \
    '.data[] | select(.name == "data_") | .full_name | test("^main:[0-9]+>Gen::Gen:[0-9]+>.*_M_mutate \\(libstdc\\+\\+\\.so\\.6\\)>data_$")'
check "the member function's string is rep_: 16 blocks, 3276766 bytes" s.json \
    '.data[] | select(.name == "rep_") | .kind == "heap" and .objects == 16 and .bytes == 3276766'
check "main reads data_ every 64 bytes (16385 reads) and rep_ 4 times (62500 reads)" s.json \
    "$JQ_DEFS"' (cell("main"; "data_") | .reads == 16385) and (cell("main"; "rep_") | .reads == 62500)'
check "no block of the program's strings is named after the library (but a local's 101 bytes)" s.json \
    '[.data[] | select(.name | startswith("heap:libstdc++")) | .bytes] | all(. <= 101)'

# --- zstd's buffer returned by value ---
run_memspy r.json -- ./sr
expect "struct_return ran (its blocks are fresh pages: srcBuff reads zeros)" "$(cat r.json.out)" "-524288"
check "the first buffer is dstBuff.start, 1 MiB, written by main (16384 writes)" r.json \
    "$JQ_DEFS"' (.data[] | select(.name == "dstBuff.start") | .objects == 1 and .bytes == 1048576) and
     (cell("main"; "dstBuff.start") | .writes == 16384 and .reads == 16384)'
check "the second is srcBuff.start, 512 KiB, 8192 reads" r.json \
    "$JQ_DEFS"' (.data[] | select(.name == "srcBuff.start") | .objects == 1 and .bytes == 524288) and
     (cell("main"; "srcBuff.start") | .reads == 8192)'
check "no heap bin is named after the callee's local (void*.start)" r.json \
    '[.data[] | select(.kind == "heap") | .name | select(test("start") and (test("^(dst|src)Buff\\.start$") | not))] | length == 0'

# --- -O0's floating-point constants ---
run_memspy f.json -- ./fp
expect "fpconst ran" "$(cat f.json.out)" "1500.000"
check "no reference lands in _IO_stdin_used" f.json \
    "$JQ_DEFS"' [.data[] | select(.name == "_IO_stdin_used") | .id] as $ids | [.bins[] | select(.data as $d | $ids | index($d))] | length == 0'
check "nothing is other" f.json '[.data[] | select(.kind == "other")] | length == 0'
if [ "$OPT" = -O0 ]; then
    check "the two constants (0.999, 1.5) are const:fp, read-only data: 200000 reads by main" f.json \
        "$JQ_DEFS"' (.data[] | select(.name == "const:fp") | .kind == "global") and
         (cell("main"; "const:fp") | .reads == 200000 and .writes == 0)'
    check "its full name is the program's path" f.json \
        '.data[] | select(.name == "const:fp") | .full_name == "const:'"$WORK"'/fp"'
fi

# --- --focus on an OpenMP region by its name ---
printf 'int main(void) { return 0; }\n' >probe.c
if "$MEMSPY_CC" -fopenmp -o probe probe.c 2>/dev/null; then
    cc_build omp2 "$SRC_DIR/tests/e2e/progs/omp_two_loops.c" -fopenmp
    OMP_NUM_THREADS=2 run_memspy o.json --focus 'main: omp parallel for @21' -- ./omp2
    expect "omp_two_loops ran" "$(cat o.json.out)" "666656666700000"
    check "focus on the second loop: it reads x and y once each (100000 reads each), writes neither" o.json \
        "$JQ_DEFS"' (cell("main: omp parallel for @21"; "double*.x") | .reads == 100000 and .writes == 0) and
         (cell("main: omp parallel for @21"; "double*.y") | .reads == 100000 and .writes == 0)'
    check "nothing of the first loop is simulated" o.json \
        '[.code[].name | select(. == "main: omp parallel for @15")] | length == 0'
    check "the note names the region as the focus" o.json \
        '[.run.notes[] | select(startswith("focus: only main: omp parallel for @21 "))] | length == 1'
fi
finish
