#!/bin/sh
# Capture by memspy's plugins (gcc plugin; llvm plugin with clang): cost and accuracy, at -O2
# and at -O3 -march=x86-64-v3; both plugins version functions (plain and counting copies).
#  1. Cost of the instrumentation alone (the memspy-cc binary run without `memspy run`: the
#     plugin's records fill the buffer and are dropped; the TSan hooks return at once), against
#     the native binary built with the same flags: median of RUNS (default 5) wall times.
#     Also the same plugin binary with the runtime active (MEMSPY_RAW_DIR set, as under
#     `memspy run`) in MEMSPY_MODE=time (versioned functions run their uninstrumented copies:
#     MTOOL's timing run) and MEMSPY_MODE=count (block counts, no access simulated).
#  2. Data references memspy counts in the kernel function (plugin path, `memspy run`) against
#     Cachegrind's Dr + Dw for the same function of the native binary (same flags).
# usage: sh bench/capture/run.sh [BUILD_DIR] [RUNS]   -> two markdown tables on stdout
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
. "$ROOT/bench/lib.sh"
bench_init cap "${1:-}"
RUNS=${2:-5}

# NAME SOURCE FUNCTION TIMING-ARGS / COUNTING-ARGS
cases() {
    echo "matmul bench/kernels/matmul.c multiply 384:1 256:1"
    echo "spmv bench/kernels/spmv.c spmv 200000:16:5 100000:16:2"
    echo "stencil bench/kernels/stencil.c sweep 2048:20 1024:4"
}
levels() {
    echo "-O2"
    echo "-O3 -march=x86-64-v3"
}
# The compilers (clang rows need clang and memspy's llvm plugin).
compilers() {
    echo gcc
    [ -f "$BUILD/lib/memspy/memspy_llvm.so" ] && command -v clang >/dev/null && echo clang
    return 0
}

pct() { awk -v a="$1" -v b="$2" 'BEGIN { if (b == 0) print "inf"; else printf "%+.2f", 100.0 * (a - b) / b }'; }

echo "| program | compiler | flags | native s | plugin capture alone | -fsanitize=thread hooks alone | MEMSPY_MODE=time | MEMSPY_MODE=count |"
echo "|---|---|---|---:|---:|---:|---:|---:|"
mkdir -p "$WORK/raw"
compilers | while read -r cc; do
levels | while read -r flags; do
    cases | while read -r name src fn targs cargs; do
        targs=$(echo "$targs" | tr : ' ')
        $cc $flags -g -o "$WORK/$name.native" "$ROOT/$src"
        MEMSPY_CC=$cc "$BUILD/bin/memspy-cc" $flags -o "$WORK/$name.plugin" "$ROOT/$src"
        MEMSPY_CC=$cc MEMSPY_INSTRUMENT=tsan "$BUILD/bin/memspy-cc" $flags -o "$WORK/$name.tsan" "$ROOT/$src"
        : >"$WORK/n"; : >"$WORK/p"; : >"$WORK/t"; : >"$WORK/tm"; : >"$WORK/cm"
        i=0
        while [ $i -lt "$RUNS" ]; do
            (cd "$WORK" && seconds "./$name.native" $targs) >>"$WORK/n"
            (cd "$WORK" && seconds "./$name.plugin" $targs) >>"$WORK/p"
            (cd "$WORK" && seconds "./$name.tsan" $targs) >>"$WORK/t"
            (cd "$WORK" && export MEMSPY_RAW_DIR="$WORK/raw" MEMSPY_MODE=time && seconds "./$name.plugin" $targs) >>"$WORK/tm"
            (cd "$WORK" && export MEMSPY_RAW_DIR="$WORK/raw" MEMSPY_MODE=count && seconds "./$name.plugin" $targs) >>"$WORK/cm"
            i=$((i + 1))
        done
        n=$(median <"$WORK/n"); p=$(median <"$WORK/p"); t=$(median <"$WORK/t")
        tm=$(median <"$WORK/tm"); cm=$(median <"$WORK/cm")
        awk -v name="$name" -v cc="$cc" -v f="$flags" -v n="$n" -v p="$p" -v t="$t" -v tm="$tm" -v cm="$cm" 'BEGIN {
            printf "| %s | %s | %s | %.3f | %.2fx | %.2fx | %.2fx | %.2fx |\n", name, cc, f, n, p / n, t / n, tm / n, cm / n }'
    done
done
done

echo
echo "| program | compiler | flags | function | Cachegrind Dr+Dw | memspy references | diff |"
echo "|---|---|---|---|---:|---:|---:|"
compilers | while read -r cc; do
levels | while read -r flags; do
    cases | while read -r name src fn targs cargs; do
        cargs=$(echo "$cargs" | tr : ' ')
        $cc $flags -g -o "$WORK/$name.native" "$ROOT/$src"
        MEMSPY_CC=$cc "$BUILD/bin/memspy-cc" $flags -o "$WORK/$name.plugin" "$ROOT/$src"
        (cd "$WORK" && valgrind --tool=cachegrind --cache-sim=yes --cachegrind-out-file="$name.cg" \
            "./$name.native" $cargs >/dev/null 2>&1)
        cg=$(awk -v want="$fn" '
            /^events:/ { for (i = 2; i <= NF; i++) col[$i] = i - 1 }
            /^fn=/ { f = substr($0, 4); infn = (f == want || index(f, want ".") == 1); next }
            /^[0-9]/ && infn { n += $(col["Dr"]+1) + $(col["Dw"]+1) }
            END { print n + 0 }' "$WORK/$name.cg")
        (cd "$WORK" && "$BUILD/bin/memspy" run --no-report --result "$name.result" --json "$name.json" \
            -- "./$name.plugin" $cargs >/dev/null)
        ms=$(jq -r --arg fn "$fn" '[.code[] | select(.name == $fn) | .refs] | add // 0' "$WORK/$name.json")
        echo "| $name | $cc | $flags | $fn | $cg | $ms | $(pct "$ms" "$cg")% |"
    done
done
done
