#!/bin/sh
# memspy's GCC plugin (the default path of memspy-cc for gcc): it sees the optimised code.
# Findings: a vectorised loop at -O3 -mavx2 makes exactly one reference per 32-byte vector;
# a 128 KiB local array, a const table and an atomic counter are data bins with the exact
# reference counts; a constant-size memcpy is counted once whether gcc inlines it or calls
# libc; MEMSPY_INSTRUMENT=tsan and a gcc of another version give the -fsanitize=thread path
# (with a note), and objects of both paths link into one program.
# matrix: gcc:-O3
. "$1/tests/e2e/lib.sh"
[ -f "$BUILD_DIR/lib/memspy/memspy_gcc.so" ] || { echo "skip: memspy's gcc plugin not built"; exit 77; }
grep -qw avx2 /proc/cpuinfo || { echo "skip: no AVX2 on this CPU"; exit 77; }
K="$SRC_DIR/tests/e2e/progs/plugin_kernels.c"
cc_build k "$K" -mavx2
# cells CODE DATA: .reads and .writes of the bins of code CODE and data DATA, summed.
cells() { printf '%s' "$JQ_DEFS"' [cell("'$1'"; "'$2'")] | {reads: sum(.reads), writes: sum(.writes), misses: sum(.misses)}'; }

run_memspy vec.json -- ./k vec 10
check "the run names the plugin" vec.json '.run.notes | any(startswith("instrumentation: memspy gcc plugin"))'
check "axpy: 10 x 1024 32-byte vector loads of xs, exactly" vec.json "$(cells axpy xs)"' | .reads == 10240 and .writes == 0'
check "axpy: 10 x 1024 vector loads and stores of ys, exactly" vec.json "$(cells axpy ys)"' | .reads == 10240 and .writes == 10240'

# 16384 longs: 4096 32-byte stores; gcc keeps the rest of the work in registers (Cachegrind
# counts 4100 writes in the native binary: the 4 others are register saves)
run_memspy local.json -- ./k local 3
check "local_sum: its 128 KiB local array is seen (4096 vector stores)" local.json \
  "$(cells local_sum stack:local_sum)"' | .writes == 4096 and .reads >= 4096'
check "local_sum: every line of the array misses L1 at least once" local.json \
  "$(cells local_sum stack:local_sum)"' | .misses >= 2048'

run_memspy table.json -- ./k table 1000
check "chase: 1000 reads of the const table" table.json "$(cells chase table)"' | .reads == 1000 and .writes == 0'

run_memspy atomic.json -- ./k atomic 500
check "bump: 500 atomic read-modify-writes of counter" atomic.json "$(cells bump counter)"' | .reads == 500 and .writes == 500'
# relaxed atomics stay inline sites with their memory order in the site table (site_dump.c,
# built without the plugin, reads the tables: "kind order" for a relaxed load and a relaxed
# fetch-add); the ordered ones (a release store, an acquire load, a seq_cst fetch-add, an
# acq_rel compare-exchange) call the runtime's atomic hooks, which record their ATOMIC events
"$MEMSPY_CC" $OPT -c -o site_dump.o "$SRC_DIR/tests/e2e/progs/site_dump.c"
cc_build atomic_orders "$SRC_DIR/tests/e2e/progs/atomic_orders.c" site_dump.o
expect "relaxed atomic sites carry their memory order" "$(./atomic_orders | sort | tr '\n' ' ')" "3 0 5 0 "
expect "ordered atomics call the runtime's hooks" \
  "$(objdump -d atomic_orders | awk '/<ops>:/,/^$/' | grep -o 'call.*<__tsan_atomic[^>]*>' | sed 's/.*<//; s/>//' | tr '\n' ' ')" \
  "__tsan_atomic64_store __tsan_atomic64_load __tsan_atomic64_fetch_add __tsan_atomic64_compare_exchange_val "

run_memspy copy.json -- ./k copy 20
# a range counts one reference per cache line it touches: 4096 bytes = 64 lines, 48 bytes = 1
check "copies: memcpy of 4096 bytes (a libc call) counted once per call: 20 x 64 line refs" copy.json \
  "$(cells copies big_dst)"' | .writes == 1280 and .reads == 0'
check "copies: its source read 20 x 64 times, plus the 20 byte stores" copy.json \
  "$(cells copies big_src)"' | .reads == 1280 and .writes == 20'
check "copies: memcpy of 48 bytes (inline) counted once per call" copy.json \
  "$(cells copies small_dst)"' | .writes == 20 and .reads == 0'
check "copies: its source read 20 times" copy.json "$(cells copies small_src)"' | .reads == 20'

# gfortran: array syntax, vectorised at -O3 -mavx2: 1024 vectors each of x, y and z per call.
if command -v gfortran >/dev/null; then
  "$BUILD_DIR/bin/memspy-fortran" $OPT -mavx2 -o arr "$SRC_DIR/tests/e2e/progs/arraysyntax.f90"
  run_memspy arr.json -- ./arr 10
  check "gfortran array syntax: add makes exactly 3 x 1024 x 10 vector references" arr.json \
    '.code[] | select(.name == "add") | .refs == 30720'
fi

# The fallback, forced: the same kernel scalarised by -fsanitize=thread (4 x the references).
MEMSPY_INSTRUMENT=tsan cc_build kt "$K" -mavx2
run_memspy tsan.json -- ./kt vec 10
check "MEMSPY_INSTRUMENT=tsan: the run names ThreadSanitizer hooks" tsan.json \
  '.run.notes | any(startswith("instrumentation: ThreadSanitizer"))'
check "MEMSPY_INSTRUMENT=tsan: axpy's 40960 scalar reads of xs" tsan.json "$(cells axpy xs)"' | .reads == 40960'

# A gcc of another version: a one-line note and the fallback.
cat >oldgcc <<'SH'
#!/bin/sh
[ "$1" = -dumpfullversion ] && { echo 11.0.0; exit 0; }
exec gcc "$@"
SH
chmod +x oldgcc
MEMSPY_CC="$WORK/oldgcc" "$BUILD_DIR/bin/memspy-cc" $OPT -o ko "$K" 2>old.err
ok_if "another gcc version: a note naming both versions" grep -q "is GCC 11.0.0, memspy's plugin was built for GCC" old.err
expect "another gcc version: the note is one line" "$(wc -l <old.err | tr -d ' ')" 1
run_memspy old.json -- ./ko table 100
check "another gcc version: the program uses ThreadSanitizer hooks" old.json \
  '.run.notes | any(startswith("instrumentation: ThreadSanitizer"))'
expect_fail "MEMSPY_INSTRUMENT=plugin with another gcc version: an error" "was built for GCC" \
  env MEMSPY_INSTRUMENT=plugin MEMSPY_CC="$WORK/oldgcc" "$BUILD_DIR/bin/memspy-cc" -c "$K" -o x.o
expect_fail "a bad MEMSPY_INSTRUMENT: an error" "MEMSPY_INSTRUMENT must be" \
  env MEMSPY_INSTRUMENT=bogus "$BUILD_DIR/bin/memspy-cc" -c "$K" -o x.o
# The plugin rejects options it does not know, naming them.
set +e
gcc -fplugin="$BUILD_DIR/lib/memspy/memspy_gcc.so" -fplugin-arg-memspy_gcc-bogus -c "$K" -o x.o 2>bogus.err
set -e
ok_if "an unknown plugin option is an error naming it" grep -q "unknown option.*memspy_gcc-bogus" bogus.err
# memspy-cc loads the plugin before the user's options, so the plugin's own options pass through.
"$BUILD_DIR/bin/memspy-cc" -fplugin-arg-memspy_gcc-verbose -O2 -c "$K" -o x.o 2>verbose.err
ok_if "memspy-cc passes -fplugin-arg-memspy_gcc-verbose to the plugin" grep -q "sites" verbose.err

# Mixed objects: one translation unit through the plugin, one through -fsanitize=thread.
cat >mixed_main.c <<'SH'
#include <stdio.h>
double v[1000];
double total(void);
int main(void) { for (int i = 0; i < 1000; i++) v[i] = i; printf("%g\n", total()); return 0; }
SH
cat >mixed_sum.c <<'SH'
extern double v[1000];
__attribute__((noinline)) double total(void) { double s = 0; for (int i = 0; i < 1000; i++) s += v[i]; return s; }
SH
"$BUILD_DIR/bin/memspy-cc" -O2 -c mixed_main.c -o mixed_main.o
MEMSPY_INSTRUMENT=tsan "$BUILD_DIR/bin/memspy-cc" -O2 -c mixed_sum.c -o mixed_sum.o
"$BUILD_DIR/bin/memspy-cc" mixed_main.o mixed_sum.o -o mixed
run_memspy mixed.json -- ./mixed
check "mixed objects: both instrumentations named" mixed.json '.run.notes | any(contains("plugin and ThreadSanitizer"))'
check "mixed objects: total's 1000 scalar reads of v (TSan object)" mixed.json "$(cells total v)"' | .reads == 1000'
check "mixed objects: main's stores of v seen (plugin object)" mixed.json "$(cells main v)"' | .writes >= 500'
finish
