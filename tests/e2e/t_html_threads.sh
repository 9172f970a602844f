#!/bin/sh
# memspy html on a real threaded run: examples/counters (packed, 4 OpenMP threads, false
# sharing) opened in headless Chromium. The per-processor charts must show, for every cpu, the
# numbers of the text per-processor table (memspy report --procs); clicking the top-left matrix
# cell (report.html#cell=0,0: CountEvent x long*.counts) must open a detail panel whose
# invalidation classes, causes of invalidations and access patterns are those of the text
# detailed display. A screenshot is saved (into $MEMSPY_SCREENSHOT_DIR when set, e.g. docs/).
# Skips only when Chromium is not installed or the compiler cannot build OpenMP.
# matrix: gcc:-O2
. "$1/tests/e2e/lib.sh"
need_chromium
need_openmp

export OMP_NUM_THREADS=4
cc_build counters "$SRC_DIR/examples/counters/counters.c" -fopenmp
run_memspy r.json --preset memspy92 -- ./counters packed 100000 2
"$MEMSPY" html r.json.result -o report.html
"$MEMSPY" report r.json.result --procs >procs.txt
"$MEMSPY" report r.json.result --code CountEvent --data 'long*.counts' >detail.txt

browser 'report.html#cell=0,0' --dump-dom >dom.html
browser 'report.html#cell=0,0' --window-size=1280,2600 --screenshot="$WORK/html-threads.png" >/dev/null

# The threads section of the page (up to the next section: the default timed replay adds the
# waiting-time section after it), and the number a chart's bar shows for one cpu and series.
sed -n 's/.*\(<section id="threads".*\)<section id="source".*/\1/p' dom.html | sed 's/<section id="waiting".*//' >threads.html
chart_value() { grep -o "<title>cpu $1, $2: [^<]*</title>" threads.html | sed 's/.*: \([^<]*\)<.*/\1/'; }
# Column N of cpu C's row of the text per-processor table.
procs_value() { awk -v cpu="$1" -v col="$2" '$1 == cpu && NF >= 14 { print $col }' procs.txt; }
# A row of the detail's tables: "value (percent)".
# The bars of a detail list (id): one "name percent" per line.
bar_rows() {
    sed -n 's/.*id="'"$1"'">\(.*\)/\1/p' dom.html | sed 's/<\/div><\/div>.*//' |
        grep -o '<span class="name">[^<]*</span><span class="track"><span class="fill" style="[^"]*"></span></span><span class="num">[^<]*<' |
        sed 's/<span class="name">\([^<]*\)<.*<span class="num">\([^<]*\)</\1 \2/'
}

ok_if "the threads section is shown" test -s threads.html
ok_if "the default (timed) run's page has the waiting-time section after it" grep -q '<section id="waiting"' dom.html
ok_if "it has a chart of misses and one of invalidations" \
    sh -c 'grep -q "<figcaption>L1 misses by processor</figcaption>" threads.html &&
           grep -q "<figcaption>Invalidations by class</figcaption>" threads.html'
nprocs=$(value r.json '.threads | length')
expect "one row of bars per processor in each chart" "$(grep -o '<text [^>]*text-anchor="end">cpu [0-9]*<' threads.html | wc -l)" $((2 * nprocs))
cpu=0
while [ "$cpu" -lt "$nprocs" ]; do
    for pair in "6:coherence misses" "5:uniprocessor misses" "8:true sharing, in region" \
                "9:true sharing, across regions" "10:false sharing, in region" "11:false sharing, across regions"; do
        col=${pair%%:*} series=${pair#*:}
        html=$(chart_value "$cpu" "$series") text=$(procs_value "$cpu" "$col")
        ok_if "cpu $cpu, $series: '$html' in the chart, '$text' in memspy report --procs" test -n "$html" -a "$html" = "$text"
    done
    cpu=$((cpu + 1))
done
check "the run's finding: every processor receives mostly in-region false sharing" r.json \
    'all(.threads[]; .invalidations.false_in > 0.95 * (.invalidations.true_in + .invalidations.true_across + .invalidations.false_in + .invalidations.false_across))'

ok_if "clicking the cell opens the detail panel" grep -q '<section id="detail" class="card detail">' dom.html
ok_if "its data bin is long*.counts" grep -q 'id="detail-data">long\*\.counts<' dom.html
ok_if "its code segment is CountEvent" grep -q 'id="detail-code">CountEvent<' dom.html
for pair in "inv-true:True sharing" "inv-false:False sharing" "inv-miss:Followed by a coherence miss"; do
    key=${pair%%:*} label=${pair#*:}
    html=$(row_value "$key") text=$(sed -n "s/^  $label: \([^ ]* ([^)]*)\).*/\1/p" detail.txt | head -1)
    ok_if "$label: '$html' in the page, '$text' in the text display" test -n "$html" -a "$html" = "$text"
done
ok_if "the invalidations are (almost) all false sharing" sh -c "echo '$(row_value inv-false)' | grep -Eq '\((9[5-9]|100)\.[0-9]%\)'"
bar_rows detail-inval-causes >causes.page
sed -n 's/^  \(.*\) writing bin \(.*\): [0-9.MG]* (\(.*\))$/\1 writing \2 \3/p' detail.txt >causes.text
expect "causes of invalidations: one writer per processor" "$(grep -c '^CountEvent writing long\*\.counts on cpu [0-9]' causes.page)" "$nprocs"
ok_if "causes of invalidations: the page's list is the text display's" sh -c 'test -s causes.text && cmp causes.page causes.text'
bar_rows detail-patterns >patterns.page
sed -n '/^Access Patterns/,$s/^  \([a-z/-]*\): [0-9.MG]* (\(.*\))$/\1 \2/p' detail.txt >patterns.text
ok_if "access patterns: the page's list is the text display's" sh -c 'test -s patterns.text && cmp patterns.page patterns.text'
ok_if "access patterns include multiple-producer/multiple-consumer" grep -q '^multiple-producer/multiple-consumer ' patterns.page

ok_if "screenshot html-threads.png saved" test "$(wc -c <html-threads.png)" -gt 20000
[ -n "${MEMSPY_SCREENSHOT_DIR:-}" ] && cp html-threads.png "$MEMSPY_SCREENSHOT_DIR/"
finish
