/* The per-thread shadow call stack, fed by __tsan_func_entry/__tsan_func_exit and the
 * plugin's __memspy_func_entry/__memspy_func_exit. It gives
 * every heap allocation its call path and every stack address its owning frame.
 *
 * Frame addresses: each frame records the frame address of its func_entry hook, which lies
 * just below the function's locals. Stack addresses grow down, so the owner of a stack
 * address is the innermost frame whose caller's recorded frame lies above it.
 *
 * longjmp skips func_exit calls, so stale frames (recorded deeper than the current frame
 * address) are popped first, only when the hook runs on this thread's own stack (a handler
 * on a sigaltstack must not wipe the stack). On entry every frame below the hook's frame is
 * stale. On exit the exiting function's own frame may lie below the hook's frame (gcc
 * tail-calls __tsan_func_exit after its epilogue), so a frame is stale there only if the
 * frame of its caller lies below the hook's frame too.
 * A frame address cannot tell a live frame from a sibling abandoned by longjmp whose frame
 * lay above the new callee's, so the longjmp family is interposed (longjmp.c) and the next
 * entry or allocation pops down to the live frame of the function it runs in. */
#include "rt.h"
#include <sys/mman.h>

#define INITIAL_FRAMES 1024u

/* Double the shadow stack (mmap). The old array stays mapped: another thread may be reading
 * it (ms_stack_bin_other), and all of them together are less than twice the last. The
 * capacity is published after the array, so a reader never sees more room than it has.
 * Returns 0 or -1. */
static int grow(ms_thread *t)
{
    uint32_t cap = t->frames_cap ? t->frames_cap * 2 : INITIAL_FRAMES;
    ms_frame *frames = ms_map(cap * sizeof *frames);
    if (!frames) return -1;
    if (t->frames) ms_memcpy(frames, t->frames, t->depth * sizeof *frames);
    __atomic_store_n(&t->frames, frames, __ATOMIC_RELEASE);
    __atomic_store_n(&t->frames_cap, cap, __ATOMIC_RELEASE);
    return 0;
}

/* Pop frames left behind by longjmp: at entry (keep = 0) every frame recorded below the
 * hook's frame address; at exit (keep = 1) those whose caller's frame is below it too. */
MS_HOT void drop_stale(ms_thread *t, uintptr_t here, uint32_t keep)
{
    if (MS_UNLIKELY(here - t->stack_lo >= t->stack_span)) return;
    /* At entry a recorded frame at the hook's own address is a sibling abandoned by longjmp
     * (a live caller's hook frame always lies strictly above its callee's). */
    while (t->depth > keep && t->frames[t->depth - 1 - keep].frame < here + (keep == 0)) t->depth--;
}

void ms_shadow_stack_resync(ms_thread *t, uintptr_t live_pc)
{
    t->longjmp_pending = 0;
    uintptr_t fn = ms_function_start(live_pc);
    if (!fn) return;
    uint32_t d = t->depth;
    while (d > 0 && ms_function_start(t->frames[d - 1].pc) != fn) d--;
    if (d > 0) t->depth = d; /* else the live function has no frame: keep what we have */
}

/* Push {callee pc, call site, frame address} for an instrumented function's entry hook. The
 * calling thread's pending plugin records are resolved first, with the frames they saw. */
MS_HOT void frame_push(uintptr_t pc, uintptr_t caller_ra, uintptr_t here)
{
    ms_thread *t = &ms_tls;
    if (!ms_thread_can_record(t)) return;
    ms_plug_sync();
    drop_stale(t, here, 0);
    if (MS_UNLIKELY(t->longjmp_pending)) ms_shadow_stack_resync(t, caller_ra - 1);
    if (MS_UNLIKELY(t->depth == t->frames_cap) && grow(t) < 0) return;
    ms_frame *f = &t->frames[t->depth];
    f->pc = pc;
    f->call_ra = caller_ra;
    f->frame = here;
    f->saved_fp = *(const uintptr_t *)here; /* the hook's saved frame pointer: the function's */
    f->cfa = 0;
    f->vars = NULL;
    f->var_lo = 0;
    f->var_span = UINTPTR_MAX;
    f->bin = 0;
    /* in focus: a named function, or called while its caller was in focus (a named loop) */
    f->focus = MS_UNLIKELY(ms_focus_active) &&
                       ((t->depth && (t->frames[t->depth - 1].focus & MS_FOCUS_NOW)) || ms_focus_contains(pc))
                   ? MS_FOCUS_NOW | MS_FOCUS_FRAME
                   : 0;
    __asm__ volatile("" ::: "memory"); /* a signal handler must see a complete frame */
    t->depth++;
}

/* Pop the function's frame at its exit hook (after resolving its pending plugin records). */
MS_HOT void frame_pop(uintptr_t here)
{
    ms_thread *t = &ms_tls;
    if (!ms_thread_can_record(t)) return;
    ms_plug_sync();
    drop_stale(t, here, 1);
    if (t->depth) t->depth--;
}

/* Instrumented function entry (-fsanitize=thread). */
void __tsan_func_entry(void *caller_ra)
{
    frame_push((uintptr_t)__builtin_return_address(0), (uintptr_t)caller_ra, (uintptr_t)__builtin_frame_address(0));
}

/* Instrumented function exit (-fsanitize=thread). */
void __tsan_func_exit(void) { frame_pop((uintptr_t)__builtin_frame_address(0)); }

/* The same for plugin-instrumented functions (msplug_abi.h). */
void __memspy_func_entry(void *caller_ra)
{
    frame_push((uintptr_t)__builtin_return_address(0), (uintptr_t)caller_ra, (uintptr_t)__builtin_frame_address(0));
}

void __memspy_func_exit(void) { frame_pop((uintptr_t)__builtin_frame_address(0)); }

uint32_t ms_stack_bin_slow(ms_thread *t, uintptr_t addr)
{
    uint32_t i = t->depth;
    if (i == 0) return 0;
    i--;
    while (i > 0 && t->frames[i - 1].frame < addr) i--;
    ms_frame *f = &t->frames[i];
    if (f->bin && addr - f->var_lo < f->var_span) return f->bin;
    uintptr_t lo, hi;
    uint32_t bin = ms_stack_var_bin(t, f, t->stack_lo + t->stack_span, addr, &lo, &hi, 1);
    if (bin) {
        f->var_lo = lo;
        f->var_span = hi - lo;
        f->bin = bin;
    }
    return bin;
}

uint32_t ms_stack_bin_other(ms_thread *t, const ms_thread *owner, const ms_thread_data *owner_data, uintptr_t addr,
                            ms_other_frame *found)
{
    uint32_t cap = __atomic_load_n(&owner->frames_cap, __ATOMIC_ACQUIRE);
    const ms_frame *frames = __atomic_load_n(&owner->frames, __ATOMIC_ACQUIRE);
    uint32_t i = __atomic_load_n(&owner->depth, __ATOMIC_ACQUIRE);
    if (i > cap) i = cap;
    if (i == 0 || !frames) return 0;
    i--;
    while (i > 0 && __atomic_load_n(&frames[i - 1].frame, __ATOMIC_RELAXED) < addr) i--;
    /* a copy of the owner's frame (it may change meanwhile: checked by the caller's cache) */
    ms_frame copy = { 0 };
    copy.pc = __atomic_load_n(&frames[i].pc, __ATOMIC_RELAXED);
    copy.call_ra = __atomic_load_n(&frames[i].call_ra, __ATOMIC_RELAXED);
    copy.frame = __atomic_load_n(&frames[i].frame, __ATOMIC_RELAXED);
    copy.saved_fp = __atomic_load_n(&frames[i].saved_fp, __ATOMIC_RELAXED);
    uintptr_t stack_hi =
        __atomic_load_n(&owner->stack_lo, __ATOMIC_RELAXED) + __atomic_load_n(&owner->stack_span, __ATOMIC_RELAXED);
    uintptr_t lo = 0, hi = UINTPTR_MAX;
    uint32_t bin = copy.pc ? ms_stack_var_bin(t, &copy, stack_hi, addr, &lo, &hi, 0) : 0;
    /* The function's own addresses lie above its hook frame, up to its caller's: (frame,
     * caller], within the variable's (or the gap's) range. (Below the innermost hook frame
     * are callees without hooks: not remembered.) */
    uintptr_t frame = copy.frame;
    if (bin && addr > frame) {
        uintptr_t caller = i ? __atomic_load_n(&frames[i - 1].frame, __ATOMIC_RELAXED) : UINTPTR_MAX - 1;
        uintptr_t from = frame + 1 > lo ? frame + 1 : lo, to = caller + 1 < hi ? caller + 1 : hi;
        *found = (ms_other_frame){ owner, owner_data, &owner->nev, from, to, frame, copy.pc, i, bin };
    }
    return bin;
}
