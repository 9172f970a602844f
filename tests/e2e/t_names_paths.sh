#!/bin/sh
# Names of patterns found on real programs (issue 12), with the sources deleted after the build:
# - an out-parameter (xz's lzma_lzma_encoder_create(void **coder_ptr, ...) called as
#   create(&lz->coder, ...)): the block is named after the caller's argument (`lz.coder`), not
#   the parameter (`coder_ptr`); a function that passes its own out-parameter on gives way to
#   its caller's argument (`void*.table`, main's local pointer);
# - a header's static const table included by two files (zstd's BIT_mask): the second copy is
#   named after its file (`bit_mask@unit_decompress.c`), not `bit_mask#2`, the first too
#   (`bit_mask@unit_compress.c`: none keeps the plain name);
# - bins of one name are told apart by the function where their paths part
#   (`char*.buf@concat`, as Lua's TString@luaV_concat was TString@luaV_concat:666; the first
#   by where its path parts from the second's, `char*.buf@parse`), by the
#   line only where two of one function would clash (`char*.buf@run:36`, `char*.buf@run:37`);
# - a block stored in a `uint8_t *` member of an array element through a cursor (xz's
#   `thr->in = lzma_alloc(...)`, thr = &coder->threads[i]) is no slot named by a type: `thr.in`
#   (-O0; at -O2 the cursor is gone: `coder[]`), not the allocator's local `ptr`.
# matrix: gcc:-O0 gcc:-O2 clang:-O0 clang:-O2
. "$1/tests/e2e/lib.sh"
need_plugin
for f in outparam.c clash_lines.c unit_table.h unit_compress.c unit_decompress.c byte_slot.c; do
    cp "$SRC_DIR/tests/e2e/progs/$f" .
done
cc_build op outparam.c
cc_build cl clash_lines.c
cc_build ut unit_compress.c unit_decompress.c
cc_build bs byte_slot.c
rm outparam.c clash_lines.c unit_table.h unit_compress.c unit_decompress.c byte_slot.c

# --- out-parameters ---
run_memspy o.json -- ./op
expect "outparam ran (memset 1: 4096 + 2048 reads)" "$(cat o.json.out)" "6144"
check "the block create() allocates into *coder_ptr for encoder_init's &lz->coder is lz.coder, 256 KiB, 4096 reads by main" o.json \
    "$JQ_DEFS"' (.data[] | select(.name == "lz.coder") | .kind == "heap" and .objects == 1 and .bytes == 262144) and
     (cell("main"; "lz.coder") | .reads == 4096)'
check "its full name goes main > encoder_init > coder_create" o.json \
    '.data[] | select(.name == "lz.coder") | .full_name | test("^main:[0-9]+>encoder_init:[0-9]+>coder_create:[0-9]+>lz.coder$")'
check "the one table_create passes on is main's table (a local pointer: void*.table), 128 KiB, 2048 reads" o.json \
    "$JQ_DEFS"' (.data[] | select(.name == "void*.table") | .kind == "heap" and .bytes == 131072) and
     (cell("main"; "void*.table") | .reads == 2048)'
check "no heap bin is named after a parameter (coder_ptr, table_ptr)" o.json \
    '[.data[] | select(.kind == "heap") | .name | select(test("_ptr"))] | length == 0'

# --- a header's static const table in two files ---
run_memspy u.json -- ./ut
expect "unit tables ran" "$(cat u.json.out)" "2152995574"
check "bit_mask@unit_compress.c and bit_mask@unit_decompress.c, 128 bytes each, 1000 reads each" u.json \
    "$JQ_DEFS"' ([.data[] | select(.name == "bit_mask@unit_compress.c" or .name == "bit_mask@unit_decompress.c") | select(.kind == "global" and .bytes == 128)] | length == 2) and
     (datacells("bit_mask@unit_compress.c") | sum(.reads) == 1000) and (datacells("bit_mask@unit_decompress.c") | sum(.reads) == 1000)'
check "no bin name ends in #N" u.json '[.data[].name | select(test("#[0-9]+$"))] | length == 0'

# --- clash suffixes: the function, the line only within one function ---
run_memspy c.json -- ./cl
expect "clash_lines ran" "$(cat c.json.out)" "961"
for pair in "char*.buf@parse:4096" "char*.buf@concat:12288" "char*.buf@tostring:8192" "char*.buf@run:36:16384" \
    "char*.buf@run:37:20480"; do
    name=${pair%:*} bytes=${pair##*:}
    check "$name: one block of $bytes bytes" c.json \
        '.data[] | select(.name == "'"$name"'") | .kind == "heap" and .objects == 1 and .bytes == '"$bytes"
done
check "no name has a line but run's two" c.json \
    '[.data[].name | select(test(":[0-9]+$"))] | sort == ["char*.buf@run:36", "char*.buf@run:37"]'

# --- a byte pointer in an element reached through a cursor ---
run_memspy b.json -- ./bs
expect "byte_slot ran" "$(cat b.json.out)" "1024"
check "the block is thr.in, 64 KiB, 1024 writes by main" b.json \
    "$JQ_DEFS"' (.data[] | select(.name == "thr.in") | .kind == "heap" and .bytes == 65536) and
     (cell("main"; "thr.in") | .writes == 1024)'
check "no heap bin is named after the allocator's local (ptr)" b.json \
    '[.data[] | select(.kind == "heap") | .name | select(test("ptr"))] | length == 0'
finish
