/* Atomic operations of every memory order, for the compiler plugins' record of each atomic
 * site's order (msplug_abi.h: MSPLUG_F_ORDER), printed by site_dump.c. */
#include <stdatomic.h>
#include <stdio.h>

void dump_atomic_sites(void);

_Atomic long a;

__attribute__((noinline)) long ops(long v)
{
    atomic_store_explicit(&a, v, memory_order_release);
    long x = atomic_load_explicit(&a, memory_order_acquire);
    atomic_fetch_add_explicit(&a, x, memory_order_relaxed);
    atomic_fetch_add(&a, 1); /* seq_cst */
    long e = 0;
    atomic_compare_exchange_strong_explicit(&a, &e, 5, memory_order_acq_rel, memory_order_acquire);
    return atomic_load_explicit(&a, memory_order_relaxed);
}

int main(int argc, char **argv)
{
    (void)argv;
    long r = ops(argc);
    dump_atomic_sites();
    return r < 0;
}
