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

# --hot: only the hottest lines with their context, the rest elided; without FILE, the whole run.
"$MEMSPY" annotate r.json blkmatmul.c --hot 1 --context 1 --color never >hot.txt
# Shown lines: "[numbers] LINE  source" (context lines keep their numbers); "..." stands for the rest.
shown=$(awk '$1 ~ /^[0-9]+$/ { print ($4 ~ /%$/) ? $5 : $1 }' hot.txt | tr '\n' ' ')
expect "--hot 1 --context 1: the hot line and the lines around it" "$shown" "$((hot - 1)) $hot $((hot + 1)) "
expect "--hot 1: the hottest shown is the hot line" \
  "$(awk '$4 ~ /%$/ { s = $4; sub(/%/, "", s); if (s + 0 > best) { best = s + 0; line = $5 } } END { print line }' hot.txt)" "$hot"
expect "--hot 1: the other lines are elided" "$(grep -c '^ *\.\.\.$' hot.txt)" 2
"$MEMSPY" annotate --hot 3 --context 0 --color never >run_hot.txt
expect "--hot 3 without FILE (latest run): three lines" "$(awk '$4 ~ /%$/' run_hot.txt | wc -l)" 3
expect "... the hottest first file is blkmatmul.c" "$(head -1 run_hot.txt | grep -c 'blkmatmul.c$')" 1
expect "... and the hot line is among them" "$(awk -v l="$hot" '$4 ~ /%$/ && $5 == l' run_hot.txt | wc -l)" 1
status=0; "$MEMSPY" annotate --hot 0 blkmatmul.c >/dev/null 2>&1 || status=$?
expect "--hot 0 is refused" "$status" 2

status=0; "$MEMSPY" annotate r.json nosuch.c >/dev/null 2>err.txt || status=$?
expect "an unknown file is an error" "$status" 2
expect "... that lists the run's files" "$(grep -c 'blkmatmul.c' err.txt)" 1
finish
