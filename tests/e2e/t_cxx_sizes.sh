#!/bin/sh
# Issue 11: a small C++ program full of template names gives a result and a page proportional
# to its bins, not to its names: a function name that every block and loop of the function
# repeats is written once (the result's "names" table), and the long library headers its
# statistics reach into are embedded in the HTML page as excerpts (the lines with statistics
# and a few around them), which the page's source view shows with their own line numbers;
# `memspy diff` wraps long names, never cuts them.
# matrix: gcc:-O2
. "$1/tests/e2e/lib.sh"
need_chromium
"$BUILD_DIR/bin/memspy-c++" $OPT -o templates "$SRC_DIR/tests/e2e/progs/templates.cc"
run_memspy r.json -- ./templates
"$MEMSPY" html r.json.result -o page.html

check "blocks and loops name their functions through the names table" r.json \
  '(.names | length) > 0 and ([.blocks[].function, .loops[].function] | all(type == "number" or . == null))'
check "each name is in the table once" r.json '(.names | length) == (.names | unique | length)'
long=$(jq -r '[.names[] | select(length > 60)] | .[0] // empty' r.json)
ok_if "a long template name is there" test -n "$long"
# once in the names table, and once more where it is also a code bin's name (the code table
# names its bins), never per block or loop
as_bin=$(jq --arg l "$long" '[.code[] | select(.name == $l)] | length' r.json)
expect "a long template name is written once in the result (and as a code bin's name: $as_bin)" \
  "$(grep -oF "$long" r.json | wc -l)" $((1 + as_bin))
size=$(wc -c <r.json)
ok_if "the result stays under 300 KB ($size bytes)" test "$size" -lt 300000
psize=$(wc -c <page.html)
ok_if "the page stays under 600 KB ($psize bytes)" test "$psize" -lt 600000
ok_if "a long header is embedded as an excerpt (its line numbers given)" grep -q '"lines": \[' page.html

# the source view renders an excerpt with its own line numbers and a gap row between runs
excerpt_file=$(jq -r '[.files | to_entries[] | select(.value | test("stl_tree.h$"))][0].key // empty' r.json)
ok_if "the run has statistics in stl_tree.h" test -n "$excerpt_file"
browser "page.html#file=$excerpt_file" --dump-dom >dom.html
ok_if "the page renders its source view" grep -q 'id="source-file"' dom.html
first=$(sed -n 's/.*<tr id="L'"$excerpt_file"'-\([0-9]*\)".*/\1/p' dom.html | head -1)
ok_if "stl_tree.h's rows carry their own line numbers (line $first), not 1, 2, 3..." test "${first:-1}" -gt 1
ok_if "a gap row separates the excerpt's runs" grep -q '<tr class="gap">' dom.html

# diff prints long names on lines of their own, wrapped at the width (COLUMNS here; 100 columns
# when the output is no terminal), never cut (they were cut at 36 characters): continuation
# lines start with 6 spaces, and the pieces joined give the name
run_memspy r2.json -- ./templates
COLUMNS=60 "$MEMSPY" diff r.json.result r2.json.result --top 50 >diff.txt
longcode=$(jq -r '[.code[].name] | max_by(length)' r.json)
# joined.txt: each name block of diff.txt (a line "  NAME...", then its "      ..." lines) joined
awk '/^  [^ ]/ { if (acc != "") print acc; acc = substr($0, 3); next }
     acc != "" && /^      [^ ]/ { acc = acc substr($0, 7); next }
     { if (acc != "") print acc; acc = "" }
     END { if (acc != "") print acc }' diff.txt >joined.txt
ok_if "diff wraps the longest code name ($(printf %s "$longcode" | wc -c) characters at 60 columns)" \
  test "$(grep -cF -- "$longcode" diff.txt)" = 0
ok_if "the pieces of the longest code name joined give it whole" grep -qF -- "$longcode" joined.txt
# a wrapped block's lines: its first line and its continuation lines ("L1 miss causes" is none)
expect "the lines of wrapped names are at most 60 columns wide" \
  "$(awk '/^      [^ ]/ && !/^      L1 miss causes/ { n++; if (length($0) > 60 || length(prev) > 60) bad++ }
          { prev = $0 } END { print (n > 10 ? "" : "few ") (bad + 0) }' diff.txt)" 0
finish
