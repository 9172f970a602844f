#!/bin/sh
# A program that defines functions and variables named like the runtime's internal ones
# (tests/e2e/progs/own_rtnames.c: ms_map, ms_dump, ms_config_parse_text, ms_sys) and like the
# libelf and libdw functions it calls (elf_begin, dwarf_tag): the runtime that memspy-cc links
# has every internal ms_* symbol local (CMakeLists.txt) and calls libelf and libdw through
# private bindings (src/rt/dwlib.h), so the program links (before, "multiple definition of
# `ms_map'"), its functions receive its own calls only (before, the runtime's elf_begin call
# went to the program's), and the runtime keeps its own: the run completes, the global table
# is found in the program's symbol table (libelf) and profiled under its name.
# matrix: gcc:-O0 gcc:-O2 clang:-O2
. "$1/tests/e2e/lib.sh"
cc_build own "$SRC_DIR/tests/e2e/progs/own_rtnames.c"
./own >native.out
set +e
"$MEMSPY" run --no-report --json r.json -- ./own >memspy.out 2>run.err
st=$?
set -e
expect "memspy run exits 0" "$st" 0
expect "the program's output is its own (9 + 2 calls of its own functions)" "$(cat memspy.out)" \
  "own calls=9 elf=2 len=4 sum=98280"
expect "the same as natively" "$(cat memspy.out)" "$(cat native.out)"
# 8 passes over 4096 doubles, one read each (or 2 doubles a vector read at -O2)
check "table: a global bin of 4096 doubles" r.json '.data[] | select(.name == "table") | .kind == "global" and .bytes == 32768'
check "table: 32768 reads by ms_map, or 16384 vector ones" r.json \
  "$JQ_DEFS"' cell("ms_map"; "table") | .reads == 32768 or .reads == 16384'
expect "the executable's global ms_* symbols are the program's four (the runtime's are local)" \
  "$(nm -g --defined-only own | awk '$3 ~ /^ms_/ { print $3 }' | sort | tr '\n' ' ')" \
  "ms_config_parse_text ms_dump ms_map ms_sys "
expect "no internal ms_* symbol in the executable's dynamic symbol table" "$(nm -D --defined-only own | grep -c ' ms_')" 0
finish
