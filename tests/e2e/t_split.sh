#!/bin/sh
# Spatial utilisation and the layout advice it supports (docs/simulator.md, "Spatial
# utilisation"; docs/guide.md): an array of structs {double x, y, z, w; char name[32]} whose
# hot loop reads only x uses 8 of the 64 bytes of each L1 line it fetches (12.5%), and the
# advice is to split the structure; two parallel arrays read at the same index every eighth
# element use 12.5% each, and the advice is to merge them into one array of structs. Both
# fixes made by hand and run for real cut the hot loop's misses as the advice says: the
# split by 8 (a line holds 8 x's, not 1), the merge by 2 (one line per index, not two).
# Utilisation is kept only with --utilisation (a slower simulator path): without it the same
# statistics and no utilisation fields, and the advice says which command would measure it;
# `memspy resim --utilisation` on a recording made without it gives the split advice.
# matrix: gcc:-O2 clang:-O2
. "$1/tests/e2e/lib.sh"
P="$SRC_DIR/tests/e2e/progs"
cc_build aos "$P/split_aos.c"
cc_build soa "$P/split_aos.c" -DSOA
cc_build par "$P/merge_par.c"
cc_build aosm "$P/merge_par.c" -DAOS
cc_build two "$P/split_two.c"

# cell CODE DATA FIELD: that cell's field (data bins by name suffix)
cell() { jq -r --arg c "$2" --arg d "$3" '.code as $cs | .data as $ds | [.bins[] |
    select($cs[.code].name == $c and ($ds[.data].name | endswith($d)))][0].'"$4" "$1"; }

run_memspy plain.json --preset x86 --record rec -- ./aos
check "without --utilisation: no utilisation fields" plain.json \
  '(.totals | has("utilisation") | not) and ([.bins[] | has("l1_fetched_bytes")] | any | not) and (.config | has("utilisation") | not)'
check "without --utilisation: the advice on recs says how to measure it (resim of a recording needs its directory)" plain.json \
  '[.findings[] | select(.advice | test("its elements are structures: if sum_x uses only some of their fields, splitting the structure may do more \\(`memspy run --utilisation --preset x86 -- \\./aos` measures"))] | length >= 1'
"$MEMSPY" resim --utilisation --json resim.json -o resim.txt rec >resim.out 2>&1 ||
    { echo "FAIL - resim --utilisation"; cat resim.out; FAILS=$((FAILS + 1)); }
check "resim --utilisation: the split advice, sum_x at 12.5%" resim.json \
  '.config.utilisation == true and ([.findings[] | select(.advice | test("^split the structure of [^ ]*recs: sum_x \\(split_aos.c:[0-9]+\\) uses only x \\(12.5%"))] | length >= 1)'
expect "resim --utilisation: the same misses, causes and stall as without it" \
  "$(jq -c '.totals | [.misses, .causes, .stall_cycles]' resim.json)" "$(jq -c '.totals | [.misses, .causes, .stall_cycles]' plain.json)"
"$MEMSPY" resim --json replain.json -o replain.txt rec >/dev/null 2>&1
check "resim without --utilisation: the hint names the resim command" replain.json \
  '[.findings[] | select((.whatif // "") | test("^memspy resim --utilisation .*rec$"))] | length >= 1'

run_memspy aos.json --preset x86 --utilisation -- ./aos
check "aos: sum_x uses 12.5% of the bytes of recs's lines it fetches" aos.json \
  '.code as $c | .data as $d | [.bins[] | select($c[.code].name == "sum_x" and ($d[.data].name | endswith("recs")))][0]
   | .utilisation > 0.12 and .utilisation < 0.13 and .l1_fetched_bytes > 0'
check "aos: the bin's utilisation is below 20% too" aos.json \
  '[.data[] | select(.name | endswith("recs"))][0].utilisation < 0.2'
check "aos: the top finding advises splitting the structure used in sum_x" aos.json \
  '[.findings[] | select(.advice | test("^split the structure of [^ ]*recs: sum_x \\(split_aos.c:[0-9]+\\) uses only x \\(12.5% of each L1 line"))] | length >= 1'
check "aos: the cell names the field it uses (DWARF members)" aos.json \
  '.code as $c | [.bins[] | select($c[.code].name == "sum_x")][0].fields == "x"'
grep -q "split the structure" aos.json.txt && echo "ok   - aos: the report's ADVICE shows the split" ||
    { echo "FAIL - aos: no split advice in the report"; FAILS=$((FAILS + 1)); }
"$MEMSPY" show aos.json.result --code sum_x --data 'rec*.recs' >show.lst 2>&1 || true
grep -q "L1 Utilisation: 12.5%" show.lst && echo "ok   - show: L1 Utilisation 12.5% in the detailed display" ||
    { echo "FAIL - show: no utilisation line"; head -20 show.lst; FAILS=$((FAILS + 1)); }

run_memspy soa.json --preset x86 --utilisation -- ./soa
aos_m=$(cell aos.json sum_x recs misses); soa_m=$(cell soa.json sum_x xs misses)
if [ "$soa_m" -gt 0 ] && [ $((soa_m * 7)) -lt "$aos_m" ]; then
    echo "ok   - split by hand: sum_x misses $aos_m -> $soa_m (about 8 times fewer)"
else echo "FAIL - split by hand: sum_x misses $aos_m -> $soa_m"; FAILS=$((FAILS + 1)); fi
check "soa: sum_x now uses nearly all it fetches" soa.json \
  '.code as $c | .data as $d | [.bins[] | select($c[.code].name == "sum_x")][0].utilisation > 0.95'

run_memspy par.json --preset x86 --utilisation -- ./par
check "par: dot uses 12.5% of x's and of y's lines" par.json \
  '.code as $c | .data as $d | [.bins[] | select($c[.code].name == "dot") | .utilisation] | length == 2 and all(. > 0.12 and . < 0.13)'
check "par: the advice is to merge x and y into one array of structs" par.json \
  '[.findings[] | select(.advice | test("^merge double\\*\\.[xy] and double\\*\\.[xy] into one array of structs"))] | length >= 1'

run_memspy aosm.json --preset x86 --utilisation -- ./aosm
par_m=$(jq '.code as $c | [.bins[] | select($c[.code].name == "dot") | .misses] | add' par.json)
aosm_m=$(cell aosm.json dot xy misses)
if [ "$aosm_m" -gt 0 ] && [ $((aosm_m * 19)) -le $((par_m * 10)) ] && [ $((aosm_m * 21)) -ge $((par_m * 10)) ]; then
    echo "ok   - merge by hand: dot misses $par_m -> $aosm_m (half)"
else echo "FAIL - merge by hand: dot misses $par_m -> $aosm_m"; FAILS=$((FAILS + 1)); fi
run_memspy two.json --preset x86 --utilisation -- ./two
check "two: the advice names both fields sum uses, 37.5% of each line (two 32-byte elements a line)" two.json \
  '[.findings[] | select(.advice | test("^split the structure of [^ ]*accs: sum \\(split_two.c:[0-9]+\\) uses only sum_x and n \\(37.5% of each L1 line"))] | length >= 1'
finish
