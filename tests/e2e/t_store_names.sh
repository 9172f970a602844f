#!/bin/sh
# A heap block held in a local, then stored into a named place, is named after the place (issue
# 12): an arena whose AllocateNewBlock keeps each block in its member vector and returns it, as
# leveldb's (`char *result = new char[n]; blocks_.push_back(result); return result;`):
# `blocks_[]`, from both of AllocateFallback's calls (told apart by the clash's suffixes), not
# `char*.result` nor the callers' `p` (before: `char*.p@Arena::AllocateNewBlock`, `p.blocks_[]`,
# `p.kBlockSize@...`, `result`); the vector's own storage `blocks_`, not `result.blocks_` nor
# `alloc_ptr_`; `Item *it = new Item; items.push_back(it)`: `items[]` (before: `Item*.it`); a
# struct member assigned from a local, `g->cells = cells`: `g.cells` (before: `double*.cells`); a
# global assigned from a local: `last_item` (before: `Item*.q` at -O0). Locals that stay
# locals keep their names: `double*.Y` (never stored), `Ring*.r` (stored only into its own
# block, `r->next = r`), `grid*.g`, and an object linked into an intrusive list (`o->next =
# all_objs; all_objs = o;`) in the function that allocates and uses it: `Obj*.o`, not the head
# `all_objs`; a local pointer declared before the statement that stores the block in it
# (`double *w; ... w = malloc(...)`) is typed like a declared one, `double*.w` (before: `w`,
# which read as a global). Sources deleted after the build.
# matrix: gcc:-O0 gcc:-O2 clang:-O0 clang:-O2
. "$1/tests/e2e/lib.sh"
need_plugin
cp "$SRC_DIR/tests/e2e/progs/store_names.cc" .
"$BUILD_DIR/bin/memspy-c++" $OPT -o sn store_names.cc
rm store_names.cc
run_memspy s.json -- ./sn 1000
# 1000 arena bytes + 3 large ones + 2 * (0 + ... + 999) + 3 * 1000 for r + 0 + ... + 999 twice
# + 0 + ... + 99 from the list
expect "store_names ran" "$(cat s.json.out)" "store_names ran: 2006953"
check "the arena's blocks are blocks_[]: 16 blocks of 4096 bytes and 3 of 2000, in bins named blocks_[] (a suffix per caller)" s.json \
    '[.data[] | select(.kind == "heap" and (.name | test("^blocks_\\[\\]($|@|#)")))] |
     (map(.objects) | add) == 19 and (map(.bytes) | add) == 71536'
check "the 16 blocks of the small allocations are one bin, through AllocateFallback and AllocateNewBlock" s.json \
    '[.data[] | select(.kind == "heap" and (.name | test("^blocks_\\[\\]")) and .objects == 16 and .bytes == 65536)] |
     length == 1 and (.[0].full_name | test("^main:[0-9]+>Arena::Allocate:[0-9]+>Arena::AllocateFallback:[0-9]+>Arena::AllocateNewBlock:[0-9]+>blocks_\\[\\]"))'
check "main writes the small blocks 1000 times" s.json \
    "$JQ_DEFS"' [.data[] | select(.kind == "heap" and (.name | test("^blocks_\\[\\]")) and .objects == 16) | .name] as $n |
     (cell("main"; $n[0]) | .writes == 1000)'
check "the arena's vector storage keeps the vector's name" s.json \
    '[.data[] | select(.kind == "heap" and (.name | test("^blocks_($|@)")))] | length >= 1 and
     ([.[].objects] | add) == 6'
for b in "items[] 1000 64000" "last_item 1000 64000" "g.cells 1 8000" "double*.Y 1 8000" "Ring*.r 1 64" "grid*.g 1 16" "Obj*.o 100 6400" "double*.w 1 128"; do
    set -- $b
    check "$1: $2 objects of $3 bytes in all, one bin" s.json \
        '[.data[] | select(.name == "'"$1"'")] | length == 1 and .[0].kind == "heap" and .[0].objects == '"$2"' and .[0].bytes == '"$3"
done
check "items[] and last_item are written by main 1000 times each" s.json \
    "$JQ_DEFS"' (cell("main"; "items[]") | .writes == 1000) and (cell("main"; "last_item") | .writes == 1000)'
check "g.cells is read 1000 times by cell_sum" s.json "$JQ_DEFS"' cell("cell_sum"; "g.cells") | .reads == 1000'
check "no heap bin is named after a local that only carried its pointer" s.json \
    '[.data[] | select(.kind == "heap") | .name | select(test("result|^char\\*|^Item\\*|^p\\.|\\.p$|^double\\*\\.cells|alloc_ptr_|all_objs|^w$"))] | length == 0'
finish
