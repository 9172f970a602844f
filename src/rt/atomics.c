/* The atomic-operation hooks. With -fsanitize=thread the compiler replaces every atomic
 * operation by one of these calls, so they must PERFORM the operation (with the requested
 * memory order, mapped to one valid for the operation) and record it: a load is a read, a
 * store a write, a read-modify-write a read and a write, a failed compare-exchange a read.
 * 128-bit operations (clang -mcx16) are done with cmpxchg16b loops.
 *
 * When streams are recorded, an operation with an order stronger than relaxed is also an
 * ATOMIC synchronisation event (format/stream.h) with its address, order and MS_ATOMIC_*
 * flags, stamped from the process-wide sync sequence: a store before it writes (the release
 * point; the event follows its write in the stream), a load or read-modify-write after it read
 * (the acquire point; the event precedes its accesses). A load that read another thread's
 * release store thus has the larger seq, and the replay orders it after that store
 * (docs/design-threads.md, "Atomics"). A read-modify-write's release part is stamped after the
 * operation too (it cannot be stamped atomically with it): a load of another thread racing
 * with it may miss its edge. A read-modify-write (exchange, compare-exchange) first drains the
 * thread's pending plugin records, before it takes effect (rt.h, ms_plug_sync_ready): a thread
 * that sees its effect may exit the process at once, and records drained after it were lost
 * to the exit flush when the drain was still under way (a plain store drains in its WRITE, a
 * load publishes nothing).
 *
 * Spin-waits are collapsed here, at record time: an ordered load of the same address that
 * returns the same value as the thread's previous one, with only a spin iteration's plain
 * accesses recorded since (MS_ATOMIC_SPIN_BODY_MAX), is not recorded, and those accesses are
 * dropped; the load that finally sees a new value carries
 * MS_ATOMIC_SPIN. The replay then replays the spin as one acquire that waits until the
 * awaited release, not as the recorded number of iterations. The compiler plugins route their
 * ordered atomics here too (docs/plugin.md): the thread's pending plugin records are drained
 * before the spin test, and a collapsed iteration's block executions are counted in the totals
 * but not as WORK of the stream (the timed replay counts the spin as waiting, not as work). */
#include "rt.h"
#include "../format/stream.h"

#define PC() ((uintptr_t)__builtin_return_address(0))

/* The tsan interface passes C11 memory orders as 0..5, the same values as __ATOMIC_*. */
static inline int order_any(int mo) { return mo >= __ATOMIC_RELAXED && mo <= __ATOMIC_SEQ_CST ? mo : __ATOMIC_SEQ_CST; }
static inline int order_load(int mo)
{
    mo = order_any(mo);
    return mo == __ATOMIC_RELEASE ? __ATOMIC_RELAXED : mo == __ATOMIC_ACQ_REL ? __ATOMIC_ACQUIRE : mo;
}
static inline int order_store(int mo)
{
    mo = order_any(mo);
    return (mo == __ATOMIC_CONSUME || mo == __ATOMIC_ACQUIRE || mo == __ATOMIC_ACQ_REL) ? __ATOMIC_RELEASE : mo;
}
/* Failure order of a compare-exchange: no release part, no stronger than success. */
static inline int order_fail(int success, int fail)
{
    success = order_any(success);
    fail = order_load(fail);
    if (success == __ATOMIC_RELAXED || success == __ATOMIC_RELEASE) return __ATOMIC_RELAXED;
    if (success != __ATOMIC_SEQ_CST && fail == __ATOMIC_SEQ_CST) return __ATOMIC_ACQUIRE;
    return fail;
}

/* The thread's last recorded ordered load (spin-wait detection): address, value, and the
 * thread's event count and buffer right after it was recorded. */
static __thread struct {
    uintptr_t addr;
    uint64_t value;
    const void *data;
    uint32_t nev;
    int spun; /* unchanged loads were left out since */
} spin __attribute__((tls_model("initial-exec")));

/* Record the ATOMIC event of an operation on a with the (valid) order mo. */
static inline void atomic_event(const volatile void *a, int mo, unsigned flags)
{
    if (MS_UNLIKELY(ms_streams_mode) && mo != __ATOMIC_RELAXED)
        ms_sync_event(MS_SYNC_ATOMIC, (uint64_t)(uintptr_t)a, (unsigned)mo | flags, 0); /* site: its access's */
}

/* Whether the thread's events since its last ordered load (at most MS_ATOMIC_SPIN_BODY_MAX)
 * are all plain accesses: a spin iteration's body. The load's own read (the event before them)
 * must still be there (no flush since). */
static inline int spin_body_only(uint32_t nev)
{
    const ms_thread_data *d = ms_tls.data;
    if (spin.data != d || !d || nev < spin.nev || nev - spin.nev > MS_ATOMIC_SPIN_BODY_MAX || spin.nev == 0) return 0;
    const ms_event *own = &d->ev[spin.nev - 1];
    if (own->addr != spin.addr || own->bin == MS_EV_SYNC_BIN || (own->size_flags & MS_EV_WRITE)) return 0;
    for (uint32_t i = spin.nev; i < nev; i++)
        if (d->ev[i].bin == MS_EV_SYNC_BIN) return 0;
    return 1;
}

/* An ordered load of a that returned v: 1 if it repeats the thread's previous load (same
 * address and value, nothing recorded since) and is left out; else records its ATOMIC event. */
static inline int spin_repeat(const volatile void *a, int mo, uint64_t v)
{
    if (MS_LIKELY(!ms_streams_mode) || mo == __ATOMIC_RELAXED) return 0;
    if (MS_LIKELY(ms_tls.mode == MS_T_READY)) ms_plug_sync(); /* plugin code: the iteration's records */
    uintptr_t addr = (uintptr_t)a;
    int body = spin.addr == addr && spin_body_only(ms_tls.nev);
    /* a spin iteration's block executions (plugin code) stay in the totals but are not WORK of
     * the stream, whether the load repeats or ends the spin: the previous load's event emitted
     * the work before it, so the pending counts are the iteration's */
    if (body && ms_tls.data->blk_npending) ms_blocks_fold(ms_tls.data);
    if (body && spin.value == v) {
        ms_tls.nev = spin.nev; /* drop the iteration's accesses */
        spin.spun = 1;
        return 1;
    }
    unsigned flags = MS_ATOMIC_READ;
    if (spin.addr == addr) flags |= (spin.value != v ? MS_ATOMIC_CHANGED : 0) | (spin.spun ? MS_ATOMIC_SPIN : 0);
    atomic_event(a, mo, flags);
    return 0;
}

/* After an ordered load's read was recorded: remember it for spin_repeat. */
static inline void spin_note(const volatile void *a, int mo, uint64_t v)
{
    if (MS_LIKELY(!ms_streams_mode) || mo == __ATOMIC_RELAXED) return;
    spin.addr = (uintptr_t)a;
    spin.value = v;
    spin.data = ms_tls.data;
    spin.nev = ms_tls.nev;
    spin.spun = 0;
}

#define READ(a, n) ms_record((uintptr_t)(a), n, 0, pc)
#define WRITE(a, n) ms_record((uintptr_t)(a), n, MS_EV_WRITE, pc)
#define RMW(a, n) (READ(a, n), WRITE(a, n))

#define RMW_HOOK(bits, T, op)                                             \
    T __tsan_atomic##bits##_fetch_##op(volatile T *a, T v, int mo)        \
    {                                                                     \
        uintptr_t pc = PC();                                              \
        ms_plug_sync_ready(); /* before the operation takes effect */     \
        T old = __atomic_fetch_##op(a, v, order_any(mo));                 \
        atomic_event(a, order_any(mo), MS_ATOMIC_READ | MS_ATOMIC_WRITE); \
        RMW(a, bits / 8);                                                 \
        return old;                                                       \
    }

#define ATOMIC_HOOKS(bits, T)                                                                                  \
    T __tsan_atomic##bits##_load(const volatile T *a, int mo)                                                  \
    {                                                                                                          \
        uintptr_t pc = PC();                                                                                   \
        T v = __atomic_load_n(a, order_load(mo));                                                              \
        if (spin_repeat(a, order_load(mo), v)) return v;                                                       \
        READ(a, bits / 8);                                                                                     \
        spin_note(a, order_load(mo), v);                                                                       \
        return v;                                                                                              \
    }                                                                                                          \
    void __tsan_atomic##bits##_store(volatile T *a, T v, int mo)                                               \
    {                                                                                                          \
        uintptr_t pc = PC();                                                                                   \
        WRITE(a, bits / 8);                                                                                    \
        atomic_event(a, order_store(mo),                                                                       \
                     MS_ATOMIC_WRITE | (__atomic_load_n(a, __ATOMIC_RELAXED) != v ? MS_ATOMIC_CHANGED : 0));   \
        __atomic_store_n(a, v, order_store(mo));                                                               \
    }                                                                                                          \
    T __tsan_atomic##bits##_exchange(volatile T *a, T v, int mo)                                               \
    {                                                                                                          \
        uintptr_t pc = PC();                                                                                   \
        ms_plug_sync_ready();                                                                                  \
        T old = __atomic_exchange_n(a, v, order_any(mo));                                                      \
        atomic_event(a, order_any(mo), MS_ATOMIC_READ | MS_ATOMIC_WRITE | (old != v ? MS_ATOMIC_CHANGED : 0)); \
        RMW(a, bits / 8);                                                                                      \
        return old;                                                                                            \
    }                                                                                                          \
    RMW_HOOK(bits, T, add)                                                                                     \
    RMW_HOOK(bits, T, sub)                                                                                     \
    RMW_HOOK(bits, T, and)                                                                                     \
    RMW_HOOK(bits, T, or)                                                                                      \
    RMW_HOOK(bits, T, xor)                                                                                     \
    RMW_HOOK(bits, T, nand)                                                                                    \
    static int cas##bits(volatile T *a, T *c, T v, int weak, int mo, int fmo, uintptr_t pc)                    \
    {                                                                                                          \
        T expected = *c;                                                                                       \
        ms_plug_sync_ready();                                                                                  \
        int ok = __atomic_compare_exchange_n(a, c, v, weak, order_any(mo), order_fail(mo, fmo));               \
        atomic_event(a, ok ? order_any(mo) : order_fail(mo, fmo),                                              \
                     ok ? MS_ATOMIC_READ | MS_ATOMIC_WRITE | (expected != v ? MS_ATOMIC_CHANGED : 0)           \
                        : MS_ATOMIC_READ);                                                                     \
        READ(a, bits / 8);                                                                                     \
        if (ok) WRITE(a, bits / 8);                                                                            \
        return ok;                                                                                             \
    }                                                                                                          \
    int __tsan_atomic##bits##_compare_exchange_strong(volatile T *a, T *c, T v, int mo, int fmo)               \
    {                                                                                                          \
        return cas##bits(a, c, v, 0, mo, fmo, PC());                                                           \
    }                                                                                                          \
    int __tsan_atomic##bits##_compare_exchange_weak(volatile T *a, T *c, T v, int mo, int fmo)                 \
    {                                                                                                          \
        return cas##bits(a, c, v, 1, mo, fmo, PC());                                                           \
    }                                                                                                          \
    T __tsan_atomic##bits##_compare_exchange_val(volatile T *a, T c, T v, int mo, int fmo)                     \
    {                                                                                                          \
        cas##bits(a, &c, v, 0, mo, fmo, PC());                                                                 \
        return c;                                                                                              \
    }

ATOMIC_HOOKS(8, uint8_t)
ATOMIC_HOOKS(16, uint16_t)
ATOMIC_HOOKS(32, uint32_t)
ATOMIC_HOOKS(64, uint64_t)

/* ---- 128-bit: every operation is a cmpxchg16b (as libatomic does on x86-64) ---- */

typedef unsigned __int128 u128;
#define CX16 __attribute__((target("cx16")))

CX16 static u128 cas128(volatile u128 *a, u128 expected, u128 desired)
{
    return __sync_val_compare_and_swap((u128 *)a, expected, desired);
}

/* Atomically replace *a by op(old, v); returns old. */
#define RMW128(a, v, expr)                                            \
    do {                                                              \
        u128 old = cas128(a, 0, 0), cur;                              \
        for (;;) {                                                    \
            u128 new_value = (expr);                                  \
            if ((cur = cas128(a, old, new_value)) == old) return old; \
            old = cur;                                                \
        }                                                             \
    } while (0)

#define RMW128_HOOK(op, expr)                                               \
    CX16 u128 __tsan_atomic128_fetch_##op(volatile u128 *a, u128 v, int mo) \
    {                                                                       \
        uintptr_t pc = PC();                                                \
        (void)mo;                                                           \
        RMW(a, 16);                                                         \
        RMW128(a, v, expr);                                                 \
    }

CX16 u128 __tsan_atomic128_load(const volatile u128 *a, int mo)
{
    uintptr_t pc = PC();
    (void)mo;
    READ(a, 16);
    return cas128((volatile u128 *)a, 0, 0);
}

CX16 void __tsan_atomic128_store(volatile u128 *a, u128 v, int mo)
{
    uintptr_t pc = PC();
    (void)mo;
    WRITE(a, 16);
    u128 old = cas128(a, 0, 0), cur;
    while ((cur = cas128(a, old, v)) != old) old = cur;
}

RMW128_HOOK(add, old + v)
RMW128_HOOK(sub, old - v)
RMW128_HOOK(and, old &v)
RMW128_HOOK(or, old | v)
RMW128_HOOK(xor, old ^ v)
RMW128_HOOK(nand, ~(old &v))

CX16 u128 __tsan_atomic128_exchange(volatile u128 *a, u128 v, int mo)
{
    uintptr_t pc = PC();
    (void)mo;
    RMW(a, 16);
    RMW128(a, v, v);
}

CX16 static int cas128_hook(volatile u128 *a, u128 *c, u128 v, uintptr_t pc)
{
    u128 seen = cas128(a, *c, v);
    int ok = seen == *c;
    READ(a, 16);
    if (ok) WRITE(a, 16);
    *c = seen;
    return ok;
}

CX16 int __tsan_atomic128_compare_exchange_strong(volatile u128 *a, u128 *c, u128 v, int mo, int fmo)
{
    (void)mo, (void)fmo;
    return cas128_hook(a, c, v, PC());
}
CX16 int __tsan_atomic128_compare_exchange_weak(volatile u128 *a, u128 *c, u128 v, int mo, int fmo)
{
    (void)mo, (void)fmo;
    return cas128_hook(a, c, v, PC());
}
CX16 u128 __tsan_atomic128_compare_exchange_val(volatile u128 *a, u128 c, u128 v, int mo, int fmo)
{
    (void)mo, (void)fmo;
    cas128_hook(a, &c, v, PC());
    return c;
}

/* Fences only order: nothing to record. */
void __tsan_atomic_thread_fence(int mo) { __atomic_thread_fence(order_any(mo)); }
void __tsan_atomic_signal_fence(int mo) { __atomic_signal_fence(order_any(mo)); }
