#!/bin/sh
# Data the user recognizes: a file the program maps is mmap:FILE, an anonymous mapping is
# named like a heap allocation, the heap buffer held by the global pointer `frame` is `frame`
# (the pointer itself is `&frame`), a const table is a named global, and a name that two
# bins share is an error listing them in show, rename and combine.
. "$1/tests/e2e/lib.sh"
cc_build names "$SRC_DIR/tests/e2e/progs/names.c"
head -c 65536 /dev/zero | tr '\0' '\1' >input.dat
run_memspy r.json --record rec -- ./names input.dat

check "the mapped file is one bin named mmap:input.dat, 65536 bytes mapped once" r.json \
  '[.data[] | select(.name == "mmap:input.dat")] | length == 1 and .[0].kind == "heap"
   and .[0].objects == 1 and .[0].bytes == 65536'
check "its full name carries the mmap call's path" r.json \
  '.data[] | select(.name == "mmap:input.dat") | .full_name | test("^main:[0-9]+>mmap:input\\.dat$")'
check "every byte of the file is read from its bin (65536 bytes)" r.json \
  "$JQ_DEFS"' cell("main"; "mmap:input.dat") | .reads > 0 and .writes == 0'
check "the anonymous mapping is named by its destination, double*.scratch, 65536 bytes" r.json \
  '.data[] | select(.name == "double*.scratch") | .kind == "heap" and .objects == 1 and .bytes == 65536'
check "its 8192 doubles are written in main" r.json \
  "$JQ_DEFS"' cell("main"; "double*.scratch").writes as $w | $w == 8192 or $w == 4096 or $w == 2048'
check "the heap buffer held by the global pointer frame is named frame" r.json \
  '.data[] | select(.name == "frame") | .kind == "heap" and .bytes == 4096'
check "the pointer variable itself is &frame, an 8-byte global" r.json \
  '.data[] | select(.name == "&frame") | .kind == "global" and .bytes == 8'
check "no frame#2: the heap object kept its plain name" r.json '[.data[].name] | index("frame#2") == null'
expect "memspy fullname frame is the heap buffer" "$("$MEMSPY" fullname frame | sed 's/:[0-9]*>/>/')" "main>frame"
"$MEMSPY" show --data frame >show.txt
expect "show --data frame shows the buffer" "$(head -1 show.txt)" "DETAILED OUTPUT: frame in all code"
"$MEMSPY" show --data 'main:*>frame' >show_full.txt
ok_if "show --data frame is the display of the heap bin's full name" cmp show.txt show_full.txt
ok_if "show --data '&frame' shows the pointer" "$MEMSPY" show --data '&frame'

# A const table (.rodata): a global bin named after the variable, read by main.
check "the const table is the global lookup (256 bytes)" r.json \
  '[.data[] | select(.name | test("lookup"))] | length == 1 and .[0].name == "lookup" and .[0].kind == "global" and .[0].bytes == 256'
check "main reads lookup (64 entries at least once: 16 lines or more of reads, no writes)" r.json \
  "$JQ_DEFS"' cell("main"; "lookup") | .reads >= 16 and .writes == 0'
"$BUILD_DIR/bin/rt_rawcheck" rec/profile.raw bins >bins.txt
ok_if "the raw profile has the global bin lookup" grep -qx '[0-9]* 1 lookup' bins.txt
ok_if "the raw profile has the file mapping's bin with its path" grep -q "^[0-9]* 4 $WORK/input.dat\$" bins.txt

# Unnamed read-only bytes are named by the file mapped read-only: the string literal's bytes
# are in the program's .rodata, const:names (read-only data, kind global); what is left is
# named by mapping (the vDSO's header), and `--data other` breaks it down by mapping.
check "the string literal's bytes are const:names, the program's read-only data" r.json \
  "$JQ_DEFS"' cell("main"; "const:names").reads > 0'
check "its full name is the program's path, its kind global" r.json \
  '.data[] | select(.name == "const:names") | .full_name == "const:'"$WORK"'/names" and .kind == "global"'
check "the vDSO's header is other:[vdso]: 4 byte reads by main" r.json \
  "$JQ_DEFS"' cell("main"; "other:[vdso]").reads == 4 and (.data[] | select(.name == "other:[vdso]") | .kind == "other")'
"$MEMSPY" show --data other >other.txt
ok_if "show --data other breaks other down by mapping" grep -q "^  other:\[vdso\]: " other.txt
# Two allocation statements that give the same name: the name lists both, in every command.
check "two statements named char*.buf are char*.buf@first_pass and char*.buf@second_pass (the functions that tell them apart; neither keeps the plain name)" r.json \
  '[.data[].name | select(startswith("char*.buf"))] | sort == ["char*.buf@first_pass", "char*.buf@second_pass"]'
expect_fail "show --data with a shared name lists the bins" "char*.buf@second_pass" "$MEMSPY" show --data 'char*.buf'
expect_fail "the list says how many bins share it" "'char*.buf' is the name of 2 data bins" \
  "$MEMSPY" show --data 'char*.buf'
expect_fail "rename with a shared name lists the bins" "char*.buf@second_pass" "$MEMSPY" rename 'char*.buf' buffer
expect_fail "combine with a shared name lists the bins" "char*.buf@second_pass" "$MEMSPY" combine both 'char*.buf'
ok_if "the bins' own names still work" "$MEMSPY" show --data 'char*.buf@second_pass'
ok_if "so do globs" "$MEMSPY" combine both 'char*.buf*'
# An anonymous mapping that mremap moves and grows, then munmap cuts in two: still one bin.
cc_build remap "$SRC_DIR/tests/e2e/progs/remap.c"
run_memspy m.json -- ./remap
check "mremap keeps the mapping's bin: char*.area, one object, 256 KiB" m.json \
  '[.data[] | select(.name == "char*.area")] | length == 1 and .[0].objects == 1 and .[0].bytes == 262144'
check "every access of main to the mapping is in char*.area (none in other)" m.json \
  "$JQ_DEFS"' codeid("main") as $m | [.data[] | select(.kind == "other") | .id] as $o
   | ([.bins[] | select(.code == $m and (.data as $d | $o | index($d)))] | length == 0)
     and (cell("main"; "char*.area").refs >= 720896 / 16)'

# The C library's copy when realloc moves a block is the program's traffic to that block.
cc_build grow "$SRC_DIR/tests/e2e/progs/grow.c"
run_memspy g.json -- ./grow
expect "realloc moved the block" "$(cut -d' ' -f2- g.json.out)" "moved"
check "the block is one bin, int*.v, through malloc and realloc" g.json \
  '[.data[] | select(.kind == "heap" and .name != "heap:headers")] | length == 1 and .[0].name == "int*.v" and .[0].objects == 1'
# malloc's bookkeeping: the size word written by malloc and by realloc's new chunk, read by
# realloc's free of the old chunk and by free, and the free list's links written at both frees
check "malloc's headers are heap:headers: 2 size-word reads, 2 size-word and 2 link writes by main" g.json \
  "$JQ_DEFS"' (.data[] | select(.name == "heap:headers") | .kind == "heap")
   and (cell("main"; "heap:headers") | .reads == 2 and .writes == 4)'
check "the C library's own blocks (stdout's buffer) add no header traffic: main is the only code" g.json \
  '[.code[].name] == ["main"]'
# 16 int writes (4 vector writes with clang -O2) and the copy: 2 lines read, 2 lines written
check "realloc's copy adds 2 line reads and 2 line writes to (main, int*.v)" g.json \
  "$JQ_DEFS"' cell("main"; "int*.v") | (.writes == 18 or .writes == 6) and (.reads == 18 or .reads == 6 or .reads == 2)'

# Bad input: a stripped program still runs and is named as far as it can be, and the run
# says what is missing and why.
cp names names_stripped && strip names_stripped
run_memspy s.json -- ./names_stripped input.dat
check "a stripped program: the note says which names are missing and why" s.json \
  '.run.notes | any(test("names_stripped has no debug information and no symbol table \\(stripped\\)"))'
check "a stripped program: its mapped file is still mmap:input.dat" s.json \
  '.data | any(.name == "mmap:input.dat" and .bytes == 65536)'
check "a stripped program: its unnamed data are named by mapping" s.json \
  '.data | any(.name == "other:names_stripped")'
cp names names_nodebug && strip --strip-debug names_nodebug
run_memspy n.json -- ./names_nodebug input.dat
check "no debug information: the note says so; the heap buffer is still frame (the plugin's records), the pointer &frame" n.json \
  '(.run.notes | any(test("names_nodebug has no debug information \\(built without -g\\)")))
   and (.data | any(.name == "frame" and .kind == "heap" and .bytes == 4096))
   and (.data | any(.name == "&frame" and .kind == "global"))'
finish
