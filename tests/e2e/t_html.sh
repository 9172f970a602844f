#!/bin/sh
# memspy html: the blocked matrix multiply's report opened in headless Chromium. The page
# opens the detail of the top-left matrix cell by clicking it (report.html#cell=0,0); the
# detail panel must name (BlkMultiply, double*.Y) and show the numbers of the text detailed
# display. Screenshots of the matrix and the detail are saved (into $MEMSPY_SCREENSHOT_DIR
# when set, e.g. docs/). Skips only when Chromium is not installed.
# matrix: gcc:-O2
. "$1/tests/e2e/lib.sh"
need_chromium

cc_build blkmatmul "$SRC_DIR/examples/blkmatmul/blkmatmul.c"
run_memspy r.json --preset memspy92 -- ./blkmatmul 295 64
run_memspy r32.json --preset memspy92 -- ./blkmatmul 295 32
"$MEMSPY" html r.json.result -o report.html
"$MEMSPY" html --diff r.json.result r32.json.result -o diff.html
"$MEMSPY" report r.json.result --code BlkMultiply --data 'double*.Y' >detail.txt

browser 'report.html#cell=0,0' --dump-dom >dom.html
browser 'diff.html' --dump-dom >diffdom.html
browser 'report.html' --window-size=1280,1000 --screenshot="$WORK/html-matrix.png" >/dev/null
browser 'report.html#cell=0,0' --window-size=1280,1900 --screenshot="$WORK/html-detail.png" >/dev/null

# The text of an element of the dumped DOM with a data-k attribute (its value div or cell).
stat_value() { sed -n 's/.*data-k="'"$1"'"><div class="label">[^<]*<\/div><div class="value">\([^<]*\)<.*/\1/p' dom.html; }
text_value() { sed -n "s/^ *$1: //p" detail.txt | head -1; }

ok_if "the detail panel is shown" grep -q '<section id="detail" class="card detail">' dom.html
ok_if "its data bin is double*.Y" grep -q 'id="detail-data">double\*\.Y<' dom.html
ok_if "its code segment is BlkMultiply" grep -q 'id="detail-code">BlkMultiply<' dom.html
ok_if "the clicked cell is marked" grep -q 'class="cell selected"' dom.html
for pair in "stall:Memory Stall Time in bin" "stall-share:Percentage of Total Memory Stall Time" \
            "miss-share:Percentage of Total Misses" "miss-rate:Miss Rate" "ref-share:Percentage of Total Refs"; do
    key=${pair%%:*} label=${pair#*:}
    html=$(stat_value "$key") text=$(text_value "$label")
    ok_if "$label: '$html' in the page, '$text' in the text display" test -n "$html" -a "$html" = "$text"
done
for pair in "repl:Repl Miss" "capacity:  -Capacity" "conflict:  -Conflict" "l1-cold:1st Ref Miss"; do
    key=${pair%%:*} label=${pair#*:}
    case $key in repl|capacity|conflict) key=l1-$key ;; esac
    html=$(row_value "$key") text=$(sed -n "s/^$label: //p" detail.txt | head -1)
    ok_if "$label: '$html' in the page, '$text' in the text display" test -n "$html" -a "$html" = "$text"
done
top_evictor=$(sed -n 's/^  bin \(.*\): \(.*\)$/\1 \2/p' detail.txt | head -1)
page_evictor=$(grep -o '<span class="name">[^<]*</span><span class="track"><span class="fill" style="[^"]*"></span></span><span class="num">[^<]*<' dom.html |
    head -1 | sed 's/<span class="name">\([^<]*\)<.*<span class="num">\([^<]*\)</\1 \2/')
ok_if "top cause of replacements: '$page_evictor' in the page, '$top_evictor' in the text" \
    test -n "$page_evictor" -a "$page_evictor" = "$top_evictor"
ok_if "the source view shows blkmatmul.c" grep -q '<option value="[0-9]*">[^<]*blkmatmul\.c' dom.html
ok_if "no source file is missing" sh -c '! grep -q "<h3>Source files not available</h3>" dom.html'
ok_if "the hottest source line holds most of the stall" \
    grep -Eq 'class="share">(9[0-9]|[6-8][0-9])\.[0-9]%' dom.html
ok_if "the page loads nothing from the network" sh -c '! grep -Eq "(src|href)=\"(https?:)?//" report.html'
ok_if "diff page: first row is (BlkMultiply, double*.Y), better" \
    grep -q '<tbody><tr class="better"><td class="names"><span class="bin" title="[^"]*">BlkMultiply</span> × <span class="bin" title="[^"]*">double\*\.Y</span>' diffdom.html
for png in html-matrix.png html-detail.png; do
    ok_if "screenshot $png saved" test "$(wc -c <"$png")" -gt 20000
    [ -n "${MEMSPY_SCREENSHOT_DIR:-}" ] && cp "$png" "$MEMSPY_SCREENSHOT_DIR/"
done
finish
