#!/bin/sh
# memspy's LLVM pass plugin (the default path of memspy-cc for clang): it sees the optimised
# code. Findings: a vectorised loop at -O3 -mavx2 makes exactly one reference per 32-byte
# vector; gathers are one reference per lane and masked stores one per vector
# (-march=x86-64-v3); a 128 KiB local array, a const table and an atomic counter are data bins
# with the exact reference counts; a constant-size memcpy is counted once whether clang
# expands it inline or calls libc; MEMSPY_INSTRUMENT=tsan, -flto and a clang of another
# version give the -fsanitize=thread path (with a note), and objects of both paths link.
# matrix: clang:-O3
. "$1/tests/e2e/lib.sh"
[ -f "$BUILD_DIR/lib/memspy/memspy_llvm.so" ] || { echo "skip: memspy's llvm plugin not built"; exit 77; }
grep -qw avx2 /proc/cpuinfo || { echo "skip: no AVX2 on this CPU"; exit 77; }
K="$SRC_DIR/tests/e2e/progs/plugin_kernels.c"
cc_build k "$K" -mavx2
# cells CODE DATA: .reads and .writes of the bins of code CODE and data DATA, summed.
cells() { printf '%s' "$JQ_DEFS"' [cell("'$1'"; "'$2'")] | {reads: sum(.reads), writes: sum(.writes), misses: sum(.misses)}'; }

run_memspy vec.json -- ./k vec 10
check "the run names the llvm plugin" vec.json '.run.notes | any(startswith("instrumentation: memspy llvm plugin"))'
check "axpy: 10 x 1024 32-byte vector loads of xs, exactly" vec.json "$(cells axpy xs)"' | .reads == 10240 and .writes == 0'
check "axpy: 10 x 1024 vector loads and stores of ys, exactly" vec.json "$(cells axpy ys)"' | .reads == 10240 and .writes == 10240'

# 16384 longs: 4096 32-byte stores, then 4096 32-byte loads per pass
run_memspy local.json -- ./k local 3
check "local_sum: its 128 KiB local array is seen (4096 vector stores, 3 x 4096 loads)" local.json \
  "$(cells local_sum stack:local_sum)"' | .writes == 4096 and .reads == 12288'
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
check "copies: memcpy of 4096 bytes (a libc call) counted once per call: 20 x 64 line refs" copy.json \
  "$(cells copies big_dst)"' | .writes == 1280 and .reads == 0'
check "copies: its source read 20 x 64 times, plus the 20 byte stores" copy.json \
  "$(cells copies big_src)"' | .reads == 1280 and .writes == 20'
check "copies: memcpy of 48 bytes (inline) counted once per call" copy.json \
  "$(cells copies small_dst)"' | .writes == 20 and .reads == 0'
check "copies: its source read 20 times" copy.json "$(cells copies small_src)"' | .reads == 20'

# Gathers (a CPU model with fast gathers: x86-64-v3's generic tuning scalarises them) and
# masked stores.
cc_build g "$SRC_DIR/tests/e2e/progs/gather.c" -march=skylake
ok_if "gsum is compiled with gathers" sh -c 'objdump -d g | grep -q vpgather'
run_memspy g.json -- ./g
check "gsum: 4096 gathered reads of x, one per lane" g.json "$(cells gsum x)"' | .reads == 4096 and .writes == 0'
check "gsum: idx read as 1024 16-byte loads" g.json "$(cells gsum idx)"' | .reads == 1024'
check "msum: masked gathers: 1024 reads of x, masked-off lanes not counted" g.json "$(cells msum x)"' | .reads == 1024'
cc_build m "$SRC_DIR/tests/e2e/progs/masked.c" -march=x86-64-v3
ok_if "cond is compiled with masked stores" sh -c 'objdump -d m | grep -q vmaskmov'
run_memspy m.json -- ./m 992
check "cond: 124 32-byte loads of a" m.json "$(cells cond a)"' | .reads == 124'
check "cond: 124 masked 32-byte stores of b, masked lanes included" m.json "$(cells cond b)"' | .writes == 124'

# The fallback, forced: clang's ThreadSanitizer pass drops 32-byte accesses (nothing of axpy).
MEMSPY_INSTRUMENT=tsan cc_build kt "$K" -mavx2
run_memspy tsan.json -- ./kt vec 10
check "MEMSPY_INSTRUMENT=tsan: the run names ThreadSanitizer hooks" tsan.json \
  '.run.notes | any(startswith("instrumentation: ThreadSanitizer"))'

# -flto: a one-line note and the fallback.
"$BUILD_DIR/bin/memspy-cc" $OPT -flto -c "$K" -o lto.o 2>lto.err
ok_if "-flto: a note naming the fallback" grep -q "note: -flto: using -fsanitize=thread instrumentation instead of memspy's llvm plugin" lto.err

# A clang of another version: a one-line note and the fallback.
cat >oldclang <<'SH'
#!/bin/sh
[ "$1" = -dumpversion ] && { echo 13.0.0; exit 0; }
exec clang "$@"
SH
chmod +x oldclang
MEMSPY_CC="$WORK/oldclang" "$BUILD_DIR/bin/memspy-cc" $OPT -o ko "$K" 2>old.err
ok_if "another clang version: a note naming both versions" grep -q "is clang 13.0.0, memspy's plugin was built for clang" old.err
expect "another clang version: the note is one line" "$(wc -l <old.err | tr -d ' ')" 1
run_memspy old.json -- ./ko table 100
check "another clang version: the program uses ThreadSanitizer hooks" old.json \
  '.run.notes | any(startswith("instrumentation: ThreadSanitizer"))'
expect_fail "MEMSPY_INSTRUMENT=plugin with another clang version: an error" "was built for clang" \
  env MEMSPY_INSTRUMENT=plugin MEMSPY_CC="$WORK/oldclang" "$BUILD_DIR/bin/memspy-cc" -c "$K" -o x.o

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
check "mixed objects: both instrumentations named" mixed.json '.run.notes | any(contains("llvm plugin and ThreadSanitizer"))'
check "mixed objects: total's 1000 scalar reads of v (TSan object)" mixed.json "$(cells total v)"' | .reads == 1000'
check "mixed objects: main's stores of v seen (plugin object)" mixed.json "$(cells main v)"' | .writes >= 250'
finish
