/* The native call path of an allocation made inside uninstrumented code (a library built
 * without memspy, libstdc++, the C library): the shadow stack ends at the innermost
 * instrumented function, so the frames between it and the allocation's site are found by
 * unwinding the machine stack with libgcc's unwinder (through the .eh_frame that stripped
 * libraries keep; libgcc_s is opened and its functions looked up when the runtime starts,
 * before the program's first allocation, so that its mapping never moves the program's). Each thread remembers the paths it found, keyed by the site, the innermost
 * instrumented frame and the stack depth below it, with where on the stack each return
 * address was: the next allocation there takes the remembered path when the stack holds the
 * same return addresses at those places (a helper called from two places of one function
 * differs there), and unwinds otherwise. The places are x86-64's (the return address just
 * below the caller's CFA); elsewhere every such allocation unwinds. */
#include "rt.h"
#include <dlfcn.h>
#include <unwind.h>

#define MAX_WALK 64

typedef _Unwind_Reason_Code (*backtrace_fn)(_Unwind_Trace_Fn, void *);
typedef _Unwind_Ptr (*get_ip_fn)(struct _Unwind_Context *);
typedef _Unwind_Word (*get_cfa_fn)(struct _Unwind_Context *);

static backtrace_fn unwind_backtrace;
static get_ip_fn unwind_get_ip;
static get_cfa_fn unwind_get_cfa;
static int unwind_state; /* 0 not tried, 1 ready, -1 unavailable */

/* Look libgcc's unwinder up (busy mode held by the caller). */
static int unwinder_ready(void)
{
    int state = __atomic_load_n(&unwind_state, __ATOMIC_ACQUIRE);
    if (state) return state > 0;
    void *lib = dlopen("libgcc_s.so.1", RTLD_NOW | RTLD_LOCAL);
    if (lib) {
        unwind_backtrace = (backtrace_fn)dlsym(lib, "_Unwind_Backtrace");
        unwind_get_ip = (get_ip_fn)dlsym(lib, "_Unwind_GetIP");
        unwind_get_cfa = (get_cfa_fn)dlsym(lib, "_Unwind_GetCFA");
    }
    state = lib && unwind_backtrace && unwind_get_ip && unwind_get_cfa ? 1 : -1;
    __atomic_store_n(&unwind_state, state, __ATOMIC_RELEASE);
    return state > 0;
}

void ms_native_path_init(void) { (void)unwinder_ready(); }

typedef struct {
    uintptr_t ip[MAX_WALK], cfa[MAX_WALK];
    int n;
} walk;

static _Unwind_Reason_Code collect(struct _Unwind_Context *ctx, void *arg)
{
    walk *w = arg;
    if (w->n == MAX_WALK) return _URC_END_OF_STACK;
    w->ip[w->n] = (uintptr_t)unwind_get_ip(ctx);
    w->cfa[w->n] = (uintptr_t)unwind_get_cfa(ctx);
    w->n++;
    return _URC_NO_REASON;
}

/* Unwind from here into slot (found afresh), sp: ms_native_path's frame address. */
static void unwind_into(uintptr_t site_pc, uintptr_t inner, uintptr_t sp, ms_native_slot *slot)
{
    walk w;
    w.n = 0;
    slot->n = 0;
    uint8_t prev = ms_busy_begin();
    if (unwinder_ready()) unwind_backtrace(collect, &w);
    ms_busy_end(prev);
    int i = 0;
    while (i < w.n && w.ip[i] != site_pc) i++;
    if (i >= w.n) return;
    int first = i + 1, last = -1; /* w.ip[first..last]: the frames outside the site */
    for (int j = first; j < w.n; j++) {
        if (inner && ms_function_start(w.ip[j]) == inner) {
            last = j;
            break;
        }
        if (!inner) last = j;
    }
    if (last < first) return;
    int count = last - first + 1, keep_inner = count, skip = 0;
    if (count > MS_MAX_NATIVE_PATH) { /* keep the innermost and the outermost frames */
        keep_inner = MS_MAX_NATIVE_PATH / 2;
        skip = count - MS_MAX_NATIVE_PATH;
    }
    for (int j = first; j <= last; j++) {
        if (j - first >= keep_inner && j - first < keep_inner + skip) continue;
        slot->path[slot->n] = w.ip[j];
        /* x86-64: frame j's return address was pushed just below its callee's CFA, which is
         * what libgcc's context for frame j reports while its ip is j's */
        uintptr_t at = w.cfa[j] - sizeof(uintptr_t);
        slot->slot[slot->n++] = at > sp && at - sp < UINT32_MAX ? (uint32_t)(at - sp) : 0;
    }
}

/* Whether the stack holds slot's return addresses at its places (sp: this call's frame). */
static int same_path(const ms_native_slot *slot, uintptr_t sp)
{
#if defined(__x86_64__)
    for (uint16_t i = 0; i < slot->n; i++)
        if (!slot->slot[i] || *(const uintptr_t *)(sp + slot->slot[i]) != slot->path[i]) return 0;
    return 1;
#else
    (void)slot;
    (void)sp;
    return 0;
#endif
}

static uint64_t mix(uint64_t h, uint64_t v)
{
    return (h ^ (v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2))) * 0xff51afd7ed558ccdull;
}

__attribute__((noinline)) uint16_t ms_native_path(ms_thread *t, uintptr_t site_pc, uint64_t *path)
{
    uintptr_t inner = t->depth ? ms_function_start(t->frames[t->depth - 1].pc) : 0;
    if (!site_pc || (t->depth && (!inner || ms_function_start(site_pc) == inner))) return 0;
    uintptr_t sp = (uintptr_t)__builtin_frame_address(0);
    uintptr_t call_ra = t->depth ? t->frames[t->depth - 1].call_ra : 0;
    uintptr_t sp_off = t->depth ? t->frames[t->depth - 1].frame - sp : sp;
    uint64_t h = mix(mix(mix(site_pc, call_ra), sp_off), t->depth);
    /* two ways: a helper called from two places of one function keeps both paths */
    ms_native_slot *ways = &t->data->native_cache[(h >> 11) & (MS_NATIVE_SLOTS - 2)];
    ms_native_slot *slot = NULL;
    for (int w = 0; w < 2 && !slot; w++)
        if (ways[w].site == site_pc && ways[w].call_ra == call_ra && ways[w].sp_off == sp_off &&
            ways[w].frame_depth == t->depth && same_path(&ways[w], sp))
            slot = &ways[w];
    if (!slot) {
        slot = &ways[ways[0].site && !ways[1].site ? 1 : 0];
        if (ways[0].site && ways[1].site) { /* both taken: the older goes, the newer moves up */
            ways[1] = ways[0];
            slot = &ways[0];
        }
        slot->site = site_pc;
        slot->call_ra = call_ra;
        slot->sp_off = sp_off;
        slot->frame_depth = t->depth;
        unwind_into(site_pc, inner, sp, slot);
    }
    for (uint16_t i = 0; i < slot->n; i++) path[i] = slot->path[i];
    return slot->n;
}
