/* The plain-access instrumentation hooks emitted by gcc and clang with -fsanitize=thread.
 * Each records one access attributed to its return address (the instrumented pc). */
#include "rt.h"

#define PC() ((uintptr_t)__builtin_return_address(0))

#define SIZED_HOOKS(prefix, n)                                                            \
    void __tsan_##prefix##read##n(void *addr) { ms_record((uintptr_t)addr, n, 0, PC()); } \
    void __tsan_##prefix##write##n(void *addr) { ms_record((uintptr_t)addr, n, MS_EV_WRITE, PC()); }

SIZED_HOOKS(, 1)
SIZED_HOOKS(, 2)
SIZED_HOOKS(, 4)
SIZED_HOOKS(, 8)
SIZED_HOOKS(, 16)
SIZED_HOOKS(unaligned_, 2)
SIZED_HOOKS(unaligned_, 4)
SIZED_HOOKS(unaligned_, 8)
SIZED_HOOKS(unaligned_, 16)
SIZED_HOOKS(volatile_, 1)
SIZED_HOOKS(volatile_, 2)
SIZED_HOOKS(volatile_, 4)
SIZED_HOOKS(volatile_, 8)
SIZED_HOOKS(volatile_, 16)
SIZED_HOOKS(unaligned_volatile_, 2)
SIZED_HOOKS(unaligned_volatile_, 4)
SIZED_HOOKS(unaligned_volatile_, 8)
SIZED_HOOKS(unaligned_volatile_, 16)

/* gcc: packed or unaligned fields, struct copies, wide vectors. */
void __tsan_read_range(void *addr, unsigned long size) { ms_record_range((uintptr_t)addr, size, 0, PC()); }
void __tsan_write_range(void *addr, unsigned long size) { ms_record_range((uintptr_t)addr, size, MS_EV_WRITE, PC()); }

/* C++: storing an object's vtable pointer (constructors) and reading it (virtual calls). */
void __tsan_vptr_update(void **vptr_p, void *new_val)
{
    (void)new_val;
    ms_record((uintptr_t)vptr_p, sizeof(void *), MS_EV_WRITE, PC());
}
void __tsan_vptr_read(void **vptr_p) { ms_record((uintptr_t)vptr_p, sizeof(void *), 0, PC()); }
