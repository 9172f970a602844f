#!/bin/sh
# memspy mtool's fixed costs (issue 13 item 4): a second `memspy mtool` of the same binary runs
# llvm-mca not at all (the CPU list, the blocks' costs and the model check's chains come from
# the cache under $XDG_CACHE_HOME/memspy), nor times the chains on the core again (their
# latencies are cached per machine and CPU) and gets the same model cycles; a program that calls
# into libc gets its own functions as mobjects and call edges between them, the library's
# code in none (it is not symbolized). Only executed blocks go to llvm-mca, and the cache is
# incremental: a run that executes a function the first did not costs that function's blocks
# alone (MEMSPY_BLOCKCOST_DUMP lists the blocks llvm-mca is given).
# matrix: gcc:-O2
. "$1/tests/e2e/lib.sh"
command -v llvm-mca-14 >/dev/null || { echo "skip: llvm-mca-14 not installed (scripts/deps.sh)"; exit 77; }

# llvm-mca-14 through a wrapper that counts its runs
real=$(command -v llvm-mca-14)
mkdir bin
printf '#!/bin/sh\necho run >>"%s/mca.log"\nexec "%s" "$@"\n' "$WORK" "$real" >bin/llvm-mca-14
chmod +x bin/llvm-mca-14
export PATH="$WORK/bin:$PATH"
: >mca.log

cat >prog.c <<'EOF'
#include <stdio.h>
#include <stdlib.h>
__attribute__((noinline)) static double parse(const char *s, long n)
{
    double x = 0;
    for (long i = 0; i < n; i++) x += strtod(s, NULL) * 1e-9; /* libc's code */
    return x;
}
__attribute__((noinline)) static double dense(const double *a, long n)
{
    double x = 1;
    for (long i = 0; i < n; i++) x = x * a[i & 511] + 0.5;
    return x;
}
__attribute__((noinline)) static double cold(long n)
{
    double x = 0;
    for (long i = 1; i < n; i++) x += 1.0 / (double)i;
    return x;
}
int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 1000000;
    double a[512], c = argc > 2 ? cold(atol(argv[2])) : 0; /* cold: run only when asked */
    for (int i = 0; i < 512; i++) a[i] = 0.5 + i * 1e-6;
    printf("%g %g %g\n", parse("3.25", n), dense(a, 40 * n), c);
    return 0;
}
EOF
cc_build prog prog.c -g

MEMSPY_BLOCKCOST_DUMP=1 "$MEMSPY" mtool --json first.json -- ./prog 1000000 >first.out 2>first.err
first=$(wc -l <mca.log)
costed1=$(grep -c '^memspy: block at' first.err || true)
"$MEMSPY" mtool --json second.json -- ./prog 1000000 >second.out 2>second.err
second=$(($(wc -l <mca.log) - first))
ok_if "the first run runs llvm-mca ($first times)" test "$first" -ge 1
ok_if "the second run of the same binary runs llvm-mca 0 times (ran $second)" test "$second" -eq 0
ok_if "the model check's cycles are the same from the cache" \
  test "$(jq -c '[.mtool.core_check[].model_cycles]' first.json)" = "$(jq -c '[.mtool.core_check[].model_cycles]' second.json)"
ok_if "the core check's chain latencies come from the cache (measured once per machine and CPU)" \
  test "$(jq -c '[.mtool.core_check[].core_cycles]' first.json)" = "$(jq -c '[.mtool.core_check[].core_cycles]' second.json)"
ok_if "the cache holds them, one chain a line" test "$(cat cache/memspy/core-*.txt | wc -l)" -eq "$(jq '.mtool.core_check | length' first.json)"
check "the procedures are the program's own (no libc function)" second.json \
  '[.mtool.mobjects[] | select(.kind == "procedure") | .function] | sort == ["dense", "main", "parse"]'
check "main's inclusive time holds its callees' (the call edges main -> parse, dense)" second.json \
  '[.mtool.mobjects[] | select(.kind == "procedure")] as $p | ($p | map(select(.function == "main")) | .[0]) as $m |
   ($p | map(select(.function != "main") | .inclusive_estimated_s) | add) as $c |
   $m.inclusive_estimated_s >= $c and $c > 0'

# a run that also executes cold: llvm-mca once (its new blocks), the cached blocks not again
MEMSPY_BLOCKCOST_DUMP=1 "$MEMSPY" mtool --json third.json -- ./prog 1000000 1000000 >third.out 2>third.err
third=$(($(wc -l <mca.log) - first - second))
costed3=$(grep -c '^memspy: block at' third.err || true)
ok_if "the first run costs its executed blocks ($costed1)" test "$costed1" -ge 3
ok_if "cold's blocks were not costed by the first run, which did not execute them: the third costs them ($costed3)" \
  test "$costed3" -ge 1
ok_if "the third run costs only the blocks the cache lacks ($costed3 of more than $costed1)" test "$costed3" -lt "$costed1"
ok_if "the third run runs llvm-mca once, for those blocks (ran $third)" test "$third" -eq 1
check "cold is a procedure of the third run" third.json '[.mtool.mobjects[] | select(.kind == "procedure") | .function] | index("cold") != null'
finish
