#!/bin/sh
# Code and data of a library built without memspy, without -g and stripped: its code is named
# from its symbol table (`tbl_fill (libtbl.so)`) or by the start of its function
# (`libtbl.so+0xOFFSET`, a static function), the blocks it allocates after the library and the
# innermost function of it that has a name (`heap:libtbl.so:tbl_create`, the full name keeping
# the call path through the library), its own data by mapping (`other:libtbl.so`); never `??`.
# Not stripped, the library's .symtab names its static functions and data.
# The same over the system's libzstd (zstd's streaming-compression example).
# matrix: gcc:-O2 clang:-O2
. "$1/tests/e2e/lib.sh"
cc -O2 -fPIC -shared -o libtbl.so "$SRC_DIR/tests/e2e/progs/libtbl.c"
strip libtbl.so
cc_build libnames "$SRC_DIR/tests/e2e/progs/libnames.c" -L. -ltbl "-Wl,-rpath,$WORK"
run_memspy r.json -- ./libnames
expect "the program ran" "$(cat r.json.out)" "98371"

check "no name is ??: code, data and full names" r.json \
  '[.code[].name, .data[].name, .data[].full_name] | all(contains("??") | not)'
# (a 1 MiB block from malloc starts 16 bytes into a line: 16385 lines)
check "the exported function's memcpy is code bin tbl_fill (libtbl.so): 16385 line writes of the table" r.json \
  "$JQ_DEFS"' cell("tbl_fill (libtbl.so)"; "heap:libtbl.so:tbl_create") | .writes == 16385 and .reads == 0'
check "it reads the program's source buffer: 16385 lines, and 65 more for its first 4 KiB" r.json \
  "$JQ_DEFS"' cell("tbl_fill (libtbl.so)"; "unsigned char*.src") | .reads == 16385 + 65 and .writes == 0'
# the static copy loop has no symbol: named by the start of its function (.eh_frame_hdr)
copy=$(jq -r '[.code[].name | select(test("^libtbl\\.so\\+0x[0-9a-f]+$"))] | if length == 1 then .[0] else "none" end' r.json)
off=${copy#libtbl.so+0x}
ok_if "the static copy loop is one code bin libtbl.so+0xOFFSET ($copy)" test "$copy" != none
ok_if "its offset is where a function of libtbl.so starts (an FDE of its unwind table)" \
  sh -c "readelf --debug-dump=frames libtbl.so | grep -q 'pc=0*$off\.\.'"
check "it reads the table 4 times and writes dst 4 times: 4 x 16385 lines each" r.json \
  "$JQ_DEFS"' (cell("'"$copy"'"; "heap:libtbl.so:tbl_create") | .reads == 65540 and .writes == 0)
   and (cell("'"$copy"'"; "unsigned char*.dst") | .writes == 65540 and .reads == 0)'
check "the table the library allocated is heap:libtbl.so:tbl_create, 1 MiB" r.json \
  '.data[] | select(.name == "heap:libtbl.so:tbl_create") | .kind == "heap" and .objects == 1 and .bytes == 1048576'
check "its full name: main's call into tbl_create, then the library's static allocator" r.json \
  '.data[] | select(.name == "heap:libtbl.so:tbl_create") | .full_name
   | test("^main:[0-9]+>tbl_create \\(libtbl\\.so\\)>libtbl\\.so\\+0x[0-9a-f]+>heap:libtbl\\.so:tbl_create$")'
# a block the library allocates and returns, one per call: named after the caller's variable
check "the block tbl_head returns is unsigned char*.head, 64 KiB, one read of each line by main (1024)" r.json \
  "$JQ_DEFS"' (.data[] | select(.name == "unsigned char*.head") | .bytes == 65536 and .objects == 1) and
   (cell("main"; "unsigned char*.head") | .reads == 1024)'
check "its full name goes through the library: main's call into tbl_head, then the static allocator" r.json \
  '.data[] | select(.name == "unsigned char*.head") | .full_name
   | test("^main:[0-9]+>tbl_head \\(libtbl\\.so\\)>libtbl\\.so\\+0x[0-9a-f]+>unsigned char\\*\\.head$")'
check "tbl_head's memcpy writes it: 1024 line writes" r.json \
  "$JQ_DEFS"' cell("tbl_head (libtbl.so)"; "unsigned char*.head") | .writes == 1024'
# a library's internal blocks: one bin per entry point, but one with 1% of the stall or more
# keeps its own (tbl_scan's 1 MiB copy: 16%), the rest then "(rest)" (two 64-byte blocks)
check "tbl_scan's 1 MiB copy is heap:libtbl.so:tbl_scan, 16385 line writes by tbl_scan" r.json \
  "$JQ_DEFS"' (.data[] | select(.name == "heap:libtbl.so:tbl_scan") | .objects == 1 and .bytes == 1048576) and
   (cell("tbl_scan (libtbl.so)"; "heap:libtbl.so:tbl_scan") | .writes == 16385)'
check "its two 64-byte blocks are one bin heap:libtbl.so:tbl_scan (rest): 2 blocks, 128 bytes" r.json \
  '.data[] | select(.name == "heap:libtbl.so:tbl_scan (rest)") | .objects == 2 and .bytes == 128'
check "the library's static buffer is other:libtbl.so, 64 line writes by tbl_fill" r.json \
  "$JQ_DEFS"' cell("tbl_fill (libtbl.so)"; "other:libtbl.so") | .writes == 64'
check "the run's note names the library and what its names lack, in one line" r.json \
  '[.run.notes[] | select(test("^no debug information for libtbl\\.so: no source lines"))] | length == 1'
check "another says that the library's own loads and stores are not seen, naming it and not the program" r.json \
  '[.run.notes[] | select(test("^code built without memspy-cc \\(([^)]*, )?libtbl\\.so(, [^)]*)?\\) is seen only through")
   and (test("libnames[,)]") | not))] | length == 1'
"$MEMSPY" show --data other >other.txt
ok_if "show --data other breaks it down by mapping: the library's path" grep -q "^  other:$WORK/libtbl.so: " other.txt

# The same library not stripped (still without -g): its .symtab names the static functions
# and the static buffer; the block keeps the exported function's name (grab is local).
cc -O2 -fPIC -shared -o libtbl.so "$SRC_DIR/tests/e2e/progs/libtbl.c"
run_memspy u.json -- ./libnames
check "not stripped: the static copy loop is copy_rows (libtbl.so), 4 x 16385 line reads of the table" u.json \
  "$JQ_DEFS"' cell("copy_rows (libtbl.so)"; "heap:libtbl.so:tbl_create") | .reads == 65540'
check "not stripped: the block is still heap:libtbl.so:tbl_create, through grab (libtbl.so)" u.json \
  '.data[] | select(.name == "heap:libtbl.so:tbl_create") | .full_name
   | test("^main:[0-9]+>tbl_create \\(libtbl\\.so\\)>grab \\(libtbl\\.so\\)>heap:libtbl\\.so:tbl_create$")'
check "not stripped: the static buffer is the global last_rows, 64 line writes by tbl_fill" u.json \
  "$JQ_DEFS"' cell("tbl_fill (libtbl.so)"; "last_rows") | .writes == 64'

# zstd's streaming compression over the system's libzstd (Debian's: stripped, no DWARF)
if [ -f /usr/include/zstd.h ]; then
    cc_build zs "$SRC_DIR/tests/e2e/progs/zstd_stream.c" -lzstd
    run_memspy z.json -- ./zs 1048576
    check "zstd: no name is ??" z.json '[.code[].name, .data[].name, .data[].full_name] | all(contains("??") | not)'
    check "zstd: the top data bin is the workspace that ZSTD_compressStream2 allocated" z.json \
      '(.data | max_by(.stall_cycles) | .name) == "heap:libzstd.so.1:ZSTD_compressStream2"'
    check "zstd: its full name starts at main's call of ZSTD_compressStream2" z.json \
      '.data[] | select(.name == "heap:libzstd.so.1:ZSTD_compressStream2") | .full_name
       | test("^main:[0-9]+>ZSTD_compressStream2 \\(libzstd\\.so\\.1\\)>")'
    check "zstd: the library's code holds more than half of the stall, all of it named after libzstd.so.1" z.json \
      '([.code[] | select(.name | test("libzstd\\.so\\.1")) | .stall_cycles] | add) * 2 > .totals.stall_cycles'
else
    echo "ok   - zstd case skipped: no zstd.h"
fi
finish
