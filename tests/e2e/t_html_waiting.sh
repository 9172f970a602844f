#!/bin/sh
# memspy html on a timed replay (tests/e2e/progs/waiting.c imbalance) in headless Chromium: the
# waiting-time section shows one bar row per processor split into computation / stall /
# waiting / synchronisation with the numbers of the JSON profile, and the WT Map's first row is
# the barrier (named: on bar), over 99% of the waiting, load imbalance, explained by crunch's loop.
# Skips only when Chromium is not installed.
# matrix: gcc:-O2
. "$1/tests/e2e/lib.sh"
need_chromium
cc_build waiting "$SRC_DIR/tests/e2e/progs/waiting.c" -pthread
run_memspy r.json --interleave timed -- ./waiting imbalance
"$MEMSPY" html r.json.result -o report.html
browser report.html --dump-dom >dom.html
sed -n 's/.*\(<section id="waiting".*\)<section id="source".*/\1/p' dom.html >waiting.html

ok_if "the waiting-time section is shown" test -s waiting.html
expect "one bar row per processor" "$(grep -o '<text [^>]*text-anchor="end">cpu [0-9]*<' waiting.html | wc -l)" 4
# cpu 1's waiting bar: the JSON's number as the page formats it (below 100000 as is, else in M)
w1=$(jq '.waiting.profile[1].waiting' r.json)
expect "cpu 1's waiting bar carries the profile's value" \
  "$(grep -o '<title>cpu 1, waiting: [^<]*</title>' waiting.html | sed 's/.*: \([^<]*\)<.*/\1/')" \
  "$(awk -v v="$w1" 'BEGIN { if (v < 100000) print v; else printf "%.2fM\n", v / 1e6 }')"
ok_if "the WT Map's first row: the barrier, > 99% of the waiting, load imbalance > 99%, crunch's loop" \
  grep -Eq '<td>#1</td><td>barrier</td><td>[^<]*</td><td>3</td><td>[^<]*</td><td>(99|100)\.[0-9]%</td><td>(99|100)\.[0-9]%</td>.*crunch:loop@' waiting.html
ok_if "the WT Map's first row names the barrier's object, bar" grep -q '<td>#1</td><td>barrier</td><td>worker waiting.c:[0-9]* on bar</td>' waiting.html
finish
