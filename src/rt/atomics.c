/* The atomic-operation hooks. With -fsanitize=thread the compiler replaces every atomic
 * operation by one of these calls, so they must PERFORM the operation (with the requested
 * memory order, mapped to one valid for the operation) and record it: a load is a read, a
 * store a write, a read-modify-write a read and a write, a failed compare-exchange a read.
 * 128-bit operations (clang -mcx16) are done with cmpxchg16b loops. */
#include "rt.h"

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

#define READ(a, n) ms_record((uintptr_t)(a), n, 0, pc)
#define WRITE(a, n) ms_record((uintptr_t)(a), n, MS_EV_WRITE, pc)
#define RMW(a, n) (READ(a, n), WRITE(a, n))

#define RMW_HOOK(bits, T, op)                                      \
    T __tsan_atomic##bits##_fetch_##op(volatile T *a, T v, int mo) \
    {                                                              \
        uintptr_t pc = PC();                                       \
        RMW(a, bits / 8);                                          \
        return __atomic_fetch_##op(a, v, order_any(mo));           \
    }

#define ATOMIC_HOOKS(bits, T)                                                                    \
    T __tsan_atomic##bits##_load(const volatile T *a, int mo)                                    \
    {                                                                                            \
        uintptr_t pc = PC();                                                                     \
        READ(a, bits / 8);                                                                       \
        return __atomic_load_n(a, order_load(mo));                                               \
    }                                                                                            \
    void __tsan_atomic##bits##_store(volatile T *a, T v, int mo)                                 \
    {                                                                                            \
        uintptr_t pc = PC();                                                                     \
        WRITE(a, bits / 8);                                                                      \
        __atomic_store_n(a, v, order_store(mo));                                                 \
    }                                                                                            \
    T __tsan_atomic##bits##_exchange(volatile T *a, T v, int mo)                                 \
    {                                                                                            \
        uintptr_t pc = PC();                                                                     \
        RMW(a, bits / 8);                                                                        \
        return __atomic_exchange_n(a, v, order_any(mo));                                         \
    }                                                                                            \
    RMW_HOOK(bits, T, add)                                                                       \
    RMW_HOOK(bits, T, sub)                                                                       \
    RMW_HOOK(bits, T, and)                                                                       \
    RMW_HOOK(bits, T, or)                                                                        \
    RMW_HOOK(bits, T, xor)                                                                       \
    RMW_HOOK(bits, T, nand)                                                                      \
    static int cas##bits(volatile T *a, T *c, T v, int weak, int mo, int fmo, uintptr_t pc)      \
    {                                                                                            \
        int ok = __atomic_compare_exchange_n(a, c, v, weak, order_any(mo), order_fail(mo, fmo)); \
        READ(a, bits / 8);                                                                       \
        if (ok) WRITE(a, bits / 8);                                                              \
        return ok;                                                                               \
    }                                                                                            \
    int __tsan_atomic##bits##_compare_exchange_strong(volatile T *a, T *c, T v, int mo, int fmo) \
    {                                                                                            \
        return cas##bits(a, c, v, 0, mo, fmo, PC());                                             \
    }                                                                                            \
    int __tsan_atomic##bits##_compare_exchange_weak(volatile T *a, T *c, T v, int mo, int fmo)   \
    {                                                                                            \
        return cas##bits(a, c, v, 1, mo, fmo, PC());                                             \
    }                                                                                            \
    T __tsan_atomic##bits##_compare_exchange_val(volatile T *a, T c, T v, int mo, int fmo)       \
    {                                                                                            \
        cas##bits(a, &c, v, 0, mo, fmo, PC());                                                   \
        return c;                                                                                \
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
