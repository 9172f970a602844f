#!/bin/sh
# memspy-cc puts the plugin's -fplugin= / -fpass-plugin= before the user's options (gcc takes
# -fplugin-arg-memspy_gcc-* only after it) and its other flags after them, so that no user
# option undoes the instrumentation. Each of these once did (tests/e2e/progs/dests.c):
#   -gno-column-info (gcc): no allocation record matched a call's position, every heap bin
#     was heap@dests.c:LINE;
#   -gsplit-dwarf: a compile+link's .dwo files went with memspy-cc's temporary directory, so
#     grid and rows[] lost their names;
#   -fno-var-tracking-assignments, -fno-var-tracking (gcc -O2): no debug bindings, aligned lost;
#   -flegacy-pass-manager (clang 14): the pass plugin never ran (8 references, the interposed
#     functions' only).
# Each now gives the heap bins and the reference count of the plain build.
# matrix: gcc:-O2 clang:-O2
. "$1/tests/e2e/lib.sh"
need_plugin
cp "$SRC_DIR/tests/e2e/progs/dests.c" .
cc_build base dests.c
run_memspy base.json -- ./base
heap='[.data[] | select(.kind == "heap" and .name != "heap:headers")] | map(.name | sub("#[0-9]+$"; "")) | unique'
want='["double*.A","double*.B","double*.aligned","grid","long*.counts","rows[]","s.x","s.y"]'
check "the plain build names every heap bin" base.json "$heap == $want"
refs=$(value base.json .totals.refs)
case "$CC_NAME" in
    gcc) flags="-gno-column-info -gsplit-dwarf -fno-var-tracking-assignments -fno-var-tracking" ;;
    clang) flags="-gno-column-info -gsplit-dwarf -flegacy-pass-manager" ;;
esac
i=0
for f in $flags; do
    i=$((i + 1))
    cc_build "p$i" dests.c "$f"
    run_memspy "p$i.json" -- "./p$i"
    check "$f: the same heap bins ($want)" "p$i.json" "$heap == $want"
    check "$f: the same $refs references" "p$i.json" ".totals.refs == $refs"
done
expect "no .dwo file left behind or lost: none in the build directory" "$(ls *.dwo 2>/dev/null | wc -l)" 0
finish
