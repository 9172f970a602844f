#!/bin/sh
# Issue 11: the stored result (--result, memspy-run-PID.result, the run database) is
# proportional to the program's bins, not to the length of its names. The same C++ program
# is built twice, its namespace 150 and then 300 characters long: every frame of every call
# path (std::map and std::vector internals included) names it. The stored result (version 4,
# one line) keeps each distinct name once in its "names" table -- function and file names,
# data bins, the frames of call paths -- so that doubling the namespace grows it by what the
# table grows and nothing else (the --json report, names inline and indented for tools and
# people, repeats them); `memspy import`, `report` and `show` give the same names as the
# report; the database and the raw profile hardly grow with the names (under 1%).
# matrix: gcc:-O2 clang:-O2
. "$1/tests/e2e/lib.sh"
need_plugin
ns() { printf 'ns_%0*d' "$1" 0 | tr 0 x; }
NS1=$(ns 150)
NS2=$(ns 300)
"$BUILD_DIR/bin/memspy-c++" $OPT -DNS="$NS1" -o p150 "$SRC_DIR/tests/e2e/progs/longnames.cc"
ok_if "a 300-character namespace builds (the plugin's asm text was cut at 512 bytes)" \
    "$BUILD_DIR/bin/memspy-c++" $OPT -DNS="$NS2" -o p300 "$SRC_DIR/tests/e2e/progs/longnames.cc"
run_memspy s.json --record rec-s -- ./p150
run_memspy l.json --record rec-l -- ./p300

# occurrences of the namespace NS in FILE / in the names table and the findings' sentences
count() { grep -o "$1" "$2" | wc -l; }
in_table() { jq -r '.names[], (.findings[] | .text, .advice // empty, .whatif // empty)' "$2" | grep -o "$1" | wc -l; }
# bytes of the names table and of the findings (their sentences quote names)
table_bytes() { jq '[.names[] | utf8bytelength] | add' "$1"; }
findings_bytes() { jq -c .findings "$1" | wc -c; }

for r in s l; do
    f=$r.json.result
    NS=$([ $r = s ] && echo "$NS1" || echo "$NS2")
    check "$r: the stored result is version 4, names through its table" "$f" \
        '.version == 4 and (.code[0].name | type) == "number" and (.data | all(.full_name | type != "string"))'
    expect "$r: the stored result is one line (not indented)" "$(wc -l <"$f")" 1
    check "$r: each name is in the table once" "$f" '(.names | length) == (.names | unique | length)'
    expect "$r: the namespace is written only in the table (and the findings' sentences)" \
        "$(count "$NS" "$f")" "$(in_table "$NS" "$f")"
    check "$r: the --json report keeps its contract (version 3, names inline)" $r.json \
        '.version == 3 and (.code[0].name | type) == "string" and (.data[0].full_name | type) == "string"'
    # a clash suffix names a function (FUNCTION or FUNCTION:LINE), never a piece of a template
    # argument list: the call path's frames end at FUNCTION:LINE, not at the digits of Tag<1>
    check "$r: no clash suffix cut inside a template name" $r.json \
        '[.data[].name | select(test("@[ >,]"))] | length == 0'
done
expect "the two builds have the same bins" "$(jq -c '[.bins[] | [.code, .data]]' s.json.result | md5sum)" \
    "$(jq -c '[.bins[] | [.code, .data]]' l.json.result | md5sum)"

S1=$(wc -c <s.json.result) S2=$(wc -c <l.json.result)
T1=$(table_bytes s.json.result) T2=$(table_bytes l.json.result)
F1=$(findings_bytes s.json.result) F2=$(findings_bytes l.json.result)
J1=$(wc -c <s.json) J2=$(wc -c <l.json)
GROWTH=$(((S2 - S1) - (T2 - T1) - (F2 - F1)))
echo "     stored $S1 -> $S2 bytes, its names table $T1 -> $T2, the --json report $J1 -> $J2"
# what is left besides the table and the findings differs only by numbers' digits (timings)
ok_if "doubling the namespace grows the stored result by its names table only (other growth: $GROWTH bytes)" \
    test "$GROWTH" -lt 256 -a "$GROWTH" -gt -256
ok_if "the report repeats the names the stored result keeps once ($((J2 - J1)) > 1.3 x $((S2 - S1)) bytes)" \
    test $((10 * (J2 - J1))) -gt $((13 * (S2 - S1)))
# bytes per record (cells, lines, bins, blocks, loops, calls, code parts) besides the names:
# their counters objects, ~370 bytes at -O2 with gcc 12; 600 leaves room for another compiler
RECORDS=$(jq '[.bins, .lines, .code, .data, .blocks, .loops, .calls, .code_parts] | map(length) | add' l.json.result)
PER=$(((S2 - T2 - F2) / RECORDS))
ok_if "the stored result is $PER bytes per record ($RECORDS records) besides its names (< 600)" test "$PER" -lt 600

# the database keeps the stored form compressed: the names' length does not show
B1=$(sqlite3 "$MEMSPY_DB" 'SELECT length(model) FROM runs WHERE id = 1')
B2=$(sqlite3 "$MEMSPY_DB" 'SELECT length(model) FROM runs WHERE id = 2')
ok_if "the database's copy grows by under 1% ($B1 -> $B2 bytes)" test $((100 * B2)) -lt $((101 * B1))
R1=$(wc -c <rec-s/profile.raw) R2=$(wc -c <rec-l/profile.raw)
# addresses, not names; but for the text of a destination record per allocation site: types
# and paths cut at 160 characters by both plugins (MSPLUG_DEST_TEXT_MAX), and clang's records
# name the callee by its mangled name (2,700 bytes more for the 300-character namespace: 1.2%)
ok_if "the raw profile grows by under 2% ($R1 -> $R2 bytes)" test $((100 * R2)) -lt $((102 * R1))

# the same names everywhere: the report, the stored file, the database, an import of the file
names='[.code[] | [.name, .file]], [.data[] | [.name, .full_name, .site]], .files'
"$MEMSPY" report --json l.json.result >from_file.json
"$MEMSPY" report --json 2 >from_db.json
"$MEMSPY" import l.json.result >import.out
expect "import stores the file as run 3" "$(cat import.out)" "l.json.result: stored as run 3 in $MEMSPY_DB"
"$MEMSPY" report --json 3 >from_import.json
for got in from_file from_db from_import; do
    expect "$got: the report of the stored run is the run's --json report, byte for byte" \
        "$(md5sum <$got.json)" "$(md5sum <l.json)"
    expect "$got: the same names" "$(jq -c "$names" $got.json | md5sum)" "$(jq -c "$names" l.json | md5sum)"
done
"$MEMSPY" show l.json >show_report.txt
"$MEMSPY" show l.json.result >show_file.txt
"$MEMSPY" show 3 >show_import.txt
ok_if "show prints the long names" grep -qF "xxxxx::Tag<1> > >::allocate" show_file.txt
ok_if "show: the stored file as the report" cmp show_report.txt show_file.txt
ok_if "show: the imported run as the report" cmp show_report.txt show_import.txt
finish
