#!/bin/sh
# A heap block stored through a pointer to a member of another object: xz's lz_encoder_init
# stores `mf->hash = lzma_alloc_zero(...)` with mf = &coder->mf. Once gcc inlines the callee,
# the store's address is the caller's pointer plus the member's offset (a MEM_REF at a constant
# offset); it was named as an element (`coder[].hash`). It is the member: `mf.hash` as the
# callee writes it (or the caller's `coder.mf.hash`), never an element, at every level, with the
# source deleted. The calloc'd coder itself is named by main's variable through the wrapper.
# matrix: gcc:-O0 gcc:-O2 gcc:-O3 clang:-O0 clang:-O2
. "$1/tests/e2e/lib.sh"
cp "$SRC_DIR/tests/e2e/progs/dests_member.c" .
cc_build member dests_member.c
rm dests_member.c
run_memspy r.json -- ./member 65536

heap='[.data[] | select(.kind == "heap" and .name != "heap:headers")]'
check "the hash table and its chain are named after the member they are stored in" r.json \
  "$heap"' | map(.name) | (index("mf.hash") != null or index("coder.mf.hash") != null) and
     (index("mf.son") != null or index("coder.mf.son") != null)'
check "no heap bin reads as an element ([])" r.json "$heap"' | map(.name | select(contains("[]"))) | length == 0'
check "mf.hash: one object of 65536 unsigned ints" r.json \
  "$heap"' | map(select(.name | test("^(coder\\.)?mf\\.hash$")))[0] | .objects == 1 and .bytes == 262144'
finish
