# Helpers shared by the benchmark scripts, sourced after the caller has set ROOT.

# bench_init TAG [BUILD_DIR]: BUILD (absolute; default ROOT/build) and WORK, a scratch
# directory removed on exit.
bench_init() {
    BUILD=$(cd "${2:-$ROOT/build}" && pwd)
    WORK=$(mktemp -d "${TMPDIR:-/tmp}/memspy-$1.XXXXXX")
    trap 'rm -rf "$WORK"' EXIT
}

# seconds CMD...: wall time of one run, in seconds; a failing run stops the benchmark.
seconds() {
    s=$(date +%s.%N)
    "$@" >/dev/null 2>"$WORK/err" || { echo "failed: $*" >&2; cat "$WORK/err" >&2; exit 1; }
    e=$(date +%s.%N)
    awk -v s="$s" -v e="$e" 'BEGIN { printf "%.4f\n", e - s }'
}

# median: the median of the numbers on standard input, one per line.
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# same_json BASE_JSON NEW_JSON WHAT: say on stderr when two results differ beyond their times
# (a change meant to keep every statistic: the base build's resim against the new one's).
same_json() {
    for f in "$1" "$2"; do
        sed -E 's/"(time|wall_seconds)": [0-9.e+-]+/"\1": X/g' "$f" >"$f.n"
    done
    cmp -s "$1.n" "$2.n" || echo "$3: the resim JSON differs from the base build's" >&2
}
