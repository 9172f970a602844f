#!/bin/sh
# A program that defines functions and variables named like the runtime's internal ones
# (tests/e2e/progs/own_rtnames.c: ms_map, ms_dump, ms_config_parse_text, ms_sys) and like the
# libelf and libdw functions it calls (elf_begin, dwarf_tag): the runtime that memspy-cc links
# has every internal ms_* symbol local (CMakeLists.txt) and calls libelf and libdw through
# private bindings (src/rt/dwlib.h), so the program links (before, "multiple definition of
# `ms_map'"), its functions receive its own calls only (before, the runtime's elf_begin call
# went to the program's), and the runtime keeps its own: the run completes, the global table
# is found in the program's symbol table (libelf) and profiled under its name. Built with
# -rdynamic, the program exports its elf_nextscn (which finds no section): libdw, loaded with
# its own scope first (RTLD_DEEPBIND), still calls libelf's, so main's stack array keeps its DWARF
# name; bound in the global scope (MEMSPY_DW_GLOBAL=1, as before) it called the program's and
# the name was lost (gcc: clang -O2 gives the array no fixed location).
# matrix: gcc:-O0 gcc:-O2 clang:-O2
. "$1/tests/e2e/lib.sh"
cc_build own "$SRC_DIR/tests/e2e/progs/own_rtnames.c"
./own >native.out
set +e
"$MEMSPY" run --no-report --json r.json -- ./own >memspy.out 2>run.err
st=$?
set -e
expect "memspy run exits 0" "$st" 0
expect "the program's output is its own (9 + 3 calls of its own functions)" "$(cat memspy.out)" \
  "own calls=9 elf=3 len=4 sum=98280 window=130816"
expect "the same as natively" "$(cat memspy.out)" "$(cat native.out)"
# 8 passes over 4096 doubles, one read each (or 2 doubles a vector read at -O2)
check "table: a global bin of 4096 doubles" r.json '.data[] | select(.name == "table") | .kind == "global" and .bytes == 32768'
check "table: 32768 reads by ms_map, or 16384 vector ones" r.json \
  "$JQ_DEFS"' cell("ms_map"; "table") | .reads == 32768 or .reads == 16384'
expect "the executable's global ms_* symbols are the program's four (the runtime's are local)" \
  "$(nm -g --defined-only own | awk '$3 ~ /^ms_/ { print $3 }' | sort | tr '\n' ' ')" \
  "ms_config_parse_text ms_dump ms_map ms_sys "
expect "no internal ms_* symbol in the executable's dynamic symbol table" "$(nm -D --defined-only own | grep -c ' ms_')" 0
# clang -O2 gives main's array no fixed frame location (t_stackvars): its name is gcc's only
[ "$CC_NAME" = gcc ] || finish
check "main's stack array named from the DWARF" r.json '.data[] | select(.name == "stack:main.window") | .refs > 0'

cc_build own_dyn "$SRC_DIR/tests/e2e/progs/own_rtnames.c" -rdynamic
expect "-rdynamic: the program exports its elf_nextscn" "$(nm -D --defined-only own_dyn | awk '$3 == "elf_nextscn"' | wc -l)" 1
set +e
"$MEMSPY" run --no-report --json dyn.json -- ./own_dyn >dyn.out 2>dyn.err
st=$?
MEMSPY_DW_GLOBAL=1 "$MEMSPY" run --no-report --json global.json -- ./own_dyn >/dev/null 2>&1
set -e
expect "-rdynamic: memspy run exits 0" "$st" 0
expect "-rdynamic: the program's output is its own" "$(cat dyn.out)" "$(cat native.out)"
check "-rdynamic: libdw's calls of elf_nextscn went to libelf: main's stack array keeps its name" dyn.json \
  '.data[] | select(.name == "stack:main.window") | .refs > 0'
check "-rdynamic, libdw bound in the global scope: the program's elf_nextscn answered, the name is lost" global.json \
  '[.data[] | select(.name == "stack:main.window")] | length == 0'
finish
