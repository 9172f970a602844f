/* The longjmp family, interposed so that the shadow call stack can be resynchronised: a
 * longjmp skips the func_exit hooks of every frame it abandons. We only flag the thread;
 * the next func_entry or allocation pops down to the live frame (shadowstack.c). The real
 * functions are looked up when memspy activates (runtime.c) or, failing that, on first use.
 * C++ exceptions do the same to plugin-instrumented code (its exit hooks are not run by the
 * unwinder, unlike -fsanitize=thread's cleanups): entering a catch handler
 * (__cxa_begin_catch) flags the thread the same way. */
#include "rt.h"
#include <dlfcn.h>

typedef void (*jump_fn)(void *env, int val);

static jump_fn real_longjmp, real_siglongjmp, real__longjmp, real_longjmp_chk;

static jump_fn lookup(jump_fn *slot, const char *name)
{
    jump_fn fn = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
    if (!fn) {
        uint8_t prev = ms_busy_begin();
        fn = (jump_fn)dlsym(RTLD_NEXT, name);
        ms_busy_end(prev);
        __atomic_store_n(slot, fn, __ATOMIC_RELEASE);
    }
    return fn;
}

void ms_longjmp_init(void)
{
    lookup(&real_longjmp, "longjmp");
    lookup(&real_siglongjmp, "siglongjmp");
    lookup(&real__longjmp, "_longjmp");
    lookup(&real_longjmp_chk, "__longjmp_chk");
}

static void mark(void)
{
    if (!ms_rt_on) return;
    /* The plugin records made before the jump, with the frames they saw (plugin.c). */
    if (ms_tls.mode == MS_T_READY) ms_plug_sync();
    ms_tls.longjmp_pending = 1;
}

#define JUMP(name, slot)                                    \
    __attribute__((noreturn)) void name(void *env, int val) \
    {                                                       \
        mark();                                             \
        lookup(&slot, #name)(env, val);                     \
        __builtin_unreachable();                            \
    }

JUMP(longjmp, real_longjmp)
JUMP(siglongjmp, real_siglongjmp)
JUMP(_longjmp, real__longjmp)
JUMP(__longjmp_chk, real_longjmp_chk)

typedef void *(*catch_fn)(void *exception);
static catch_fn real_begin_catch;

/* The C++ runtime's entry into a catch handler (the handler's function is live again). */
void *__cxa_begin_catch(void *exception)
{
    mark();
    catch_fn fn = __atomic_load_n(&real_begin_catch, __ATOMIC_ACQUIRE);
    if (!fn) {
        uint8_t prev = ms_busy_begin();
        fn = (catch_fn)dlsym(RTLD_NEXT, "__cxa_begin_catch");
        ms_busy_end(prev);
        __atomic_store_n(&real_begin_catch, fn, __ATOMIC_RELEASE);
    }
    return fn(exception);
}
