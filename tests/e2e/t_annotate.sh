#!/bin/sh
# memspy annotate: blkmatmul's inner statement carries the largest share of the stall, its
# per-line numbers are the run's, and shading appears only when asked for (or on a terminal).
# matrix: gcc:-O0 gcc:-O2 clang:-O2
. "$1/tests/e2e/lib.sh"
SRC="$SRC_DIR/examples/blkmatmul/blkmatmul.c"
cc_build blkmatmul "$SRC"
run_memspy r.json --preset memspy92 -- ./blkmatmul 295 64

"$MEMSPY" annotate r.json blkmatmul.c --color never >plain.txt
hot=$(grep -n 'Z\[(size_t)i \* N + j\] = Z\[(size_t)i \* N + j\] + r \* Y' "$SRC" | cut -d: -f1)
# Annotated lines: "REFS MISSES STALL SHARE% LINE  source"; the line with the largest share.
top=$(awk '$4 ~ /%$/ { s = $4; sub(/%/, "", s); if (s + 0 > best) { best = s + 0; line = $5 } } END { print line }' plain.txt)
expect "the Z = Z + r * Y line has the largest stall share" "$top" "$hot"
expect "its references are the run's per-line references" \
  "$(awk -v l="$hot" '$5 == l { print $1 }' plain.txt)" \
  "$(value r.json '[.lines[] | select(.line == '"$hot"') | .refs] | add')"
expect "its L1 misses and stall too" \
  "$(awk -v l="$hot" '$5 == l { print $2, $3 }' plain.txt)" \
  "$(value r.json '[.lines[] | select(.line == '"$hot"')] | "\(map(.misses) | add) \(map(.stall_cycles) | add)"')"
expect "every source line is shown" "$(grep -c '' plain.txt)" "$(($(grep -c '' "$SRC") + 3))"
expect "--color never: no escape sequences" "$(grep -c "$(printf '\033')" plain.txt)" 0
"$MEMSPY" annotate r.json "$SRC" >auto.txt
expect "--color auto into a pipe: no escape sequences" "$(grep -c "$(printf '\033')" auto.txt)" 0
"$MEMSPY" annotate r.json examples/blkmatmul/blkmatmul.c --color always >color.txt
expect "--color always: the lines with stall are shaded" "$(grep -c "$(printf '\033')\[48;5;" color.txt)" \
  "$(awk '$4 ~ /%$/' plain.txt | wc -l)"
expect "--color always: the hot line has the darkest shade" \
  "$(grep -c "$(printf '\033')\[48;5;88m.*r \* Y\[" color.txt)" 1

status=0; "$MEMSPY" annotate r.json nosuch.c >/dev/null 2>err.txt || status=$?
expect "an unknown file is an error" "$status" 2
expect "... that lists the run's files" "$(grep -c 'blkmatmul.c' err.txt)" 1
finish
