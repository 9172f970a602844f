/* The dump: MEMSPY_RAW_DIR/<pid>.raw, written once, at normal exit, at _exit/_Exit or from
 * a fatal-signal handler. Only async-signal-safe work on the signal path: the raw writer
 * (no malloc), readlink, open/close, and the cached module list. Recording is switched off
 * first (threads still running stop recording), then every thread's pending events are
 * flushed into the simulator or its stream without waiting for any thread, then the file is
 * written with the simulator lock held. In threads mode the file names the streams' directory
 * (MS_RAW_STREAMS): `memspy run` replays them for the counters. */
#include "rt.h"
#include "../format/raw.h"
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static char raw_dir[4096];
static int dumped, dump_done;  /* a dump started; it finished */
static pid_t dumper_tid;       /* the thread that dumps */
static char exec_target[1024]; /* the program an exec is about to start (process.c) */

void ms_dump_set_dir(const char *dir)
{
    size_t n = ms_strlen(dir);
    if (n >= sizeof raw_dir - 32) n = sizeof raw_dir - 32;
    ms_memcpy(raw_dir, dir, n);
    raw_dir[n] = 0;
}

void ms_dump_set_exec(const char *target)
{
    size_t n = ms_strlen(target);
    if (n >= sizeof exec_target) n = sizeof exec_target - 1;
    ms_memcpy(exec_target, target, n);
    exec_target[n] = 0;
}

/* "<dir>/<pid>.raw", or "<dir>/<pid>.<generation>.raw" for an image started by an exec
 * (process.c), into out. */
static void raw_path(char *out, int pid)
{
    size_t n = ms_strlen(raw_dir);
    ms_memcpy(out, raw_dir, n);
    char *p = out + n;
    *p++ = '/';
    p = ms_utoa(p, (uint64_t)pid);
    if (ms_process_generation()) {
        *p++ = '.';
        p = ms_utoa(p, ms_process_generation());
    }
    ms_memcpy(p, ".raw", 5);
}

/* One line on stderr: the raw file could not be written. */
static void report_failure(const char *path, int err)
{
    char line[4096 + 128], *p = line;
    const char *head = "memspy: cannot write raw profile ";
    const char *name = strerrorname_np(err);
    ms_memcpy(p, head, ms_strlen(head)), p += ms_strlen(head);
    ms_memcpy(p, path, ms_strlen(path)), p += ms_strlen(path);
    ms_memcpy(p, ": ", 2), p += 2;
    if (name) ms_memcpy(p, name, ms_strlen(name)), p += ms_strlen(name);
    ms_memcpy(p, " (errno ", 8), p += 8;
    p = ms_utoa(p, (uint64_t)err);
    *p++ = ')';
    *p++ = '\n';
    ssize_t rc = write(2, line, (size_t)(p - line));
    (void)rc;
}

static void put_info(ms_raw_writer *w, uint32_t exit_kind, int32_t exit_value)
{
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[n > 0 ? n : 0] = 0;
    ms_raw_section_begin(w, MS_RAW_INFO);
    ms_raw_put_u32(w, (uint32_t)ms_runtime_pid());
    ms_raw_put_u32(w, exit_kind);
    ms_raw_put_u32(w, (uint32_t)exit_value);
    ms_raw_put_u64(w, ms_runtime_start_ns());
    ms_raw_put_u64(w, ms_now_ns());
    ms_raw_put_u32(w, ms_threads_seen());
    ms_raw_put_str(w, ms_runtime_config_text());
    ms_raw_put_str(w, exe);
    ms_raw_section_end(w);
}

static void put_modules(ms_raw_writer *w)
{
    uint32_t n = ms_modules_count();
    ms_raw_section_begin(w, MS_RAW_MODULES);
    ms_raw_put_u32(w, n);
    for (uint32_t i = 0; i < n; i++) {
        const ms_module *m = ms_module_get(i);
        ms_raw_put_u64(w, m->base);
        ms_raw_put_u64(w, m->lo);
        ms_raw_put_u64(w, m->hi);
        ms_raw_put_str(w, m->path);
    }
    ms_raw_section_end(w);
}

static void put_bins(ms_raw_writer *w)
{
    uint32_t n = ms_bins_count();
    ms_raw_section_begin(w, MS_RAW_BINS);
    ms_raw_put_u32(w, n);
    for (uint32_t id = 0; id < n; id++) {
        const ms_bin *b = ms_bin_get(id);
        ms_raw_put_u32(w, id);
        ms_raw_put_u8(w, b->kind);
        switch (b->kind) {
        case MS_BIN_HEAP:
        case MS_BIN_MMAP:
            ms_raw_put_u64(w, b->pc);
            ms_raw_put_u16(w, b->depth);
            for (uint16_t i = b->depth; i > 0; i--) ms_raw_put_u64(w, b->path[i - 1]); /* outermost first */
            ms_raw_put_u64(w, b->objects);
            ms_raw_put_u64(w, b->bytes);
            ms_raw_put_u64(w, b->peak);
            if (b->kind == MS_BIN_MMAP) ms_raw_put_str(w, b->name ? b->name : "");
            break;
        case MS_BIN_TLS:
            ms_raw_put_u64(w, b->addr);
            ms_raw_put_u64(w, b->size);
            ms_raw_put_u32(w, b->module);
            ms_raw_put_str(w, b->name);
            break;
        case MS_BIN_MAPPING: ms_raw_put_str(w, b->name ? b->name : ""); break;
        case MS_BIN_GLOBAL:
            ms_raw_put_u64(w, b->addr);
            ms_raw_put_u64(w, b->size);
            ms_raw_put_u32(w, b->module);
            ms_raw_put_str(w, b->name);
            break;
        case MS_BIN_STACK: ms_raw_put_u64(w, b->pc); break;
        case MS_BIN_STACKVAR:
            ms_raw_put_u64(w, b->pc);
            ms_raw_put_str(w, b->name ? b->name : "");
            break;
        default: break;
        }
    }
    ms_raw_section_end(w);
}

/* MS_RAW_HEAP_LAYOUT: the first block of every HEAP bin (seq 0: none; a bin's kind never
 * changes, so the count holds while other threads still allocate). */
static void put_heap_layout(ms_raw_writer *w)
{
    uint32_t n = ms_bins_count(), k = 0;
    for (uint32_t id = 0; id < n; id++) k += ms_bin_get(id)->kind == MS_BIN_HEAP;
    ms_raw_section_begin(w, MS_RAW_HEAP_LAYOUT);
    ms_raw_put_u32(w, k);
    for (uint32_t id = 0; id < n; id++) {
        const ms_bin *b = ms_bin_get(id);
        if (b->kind != MS_BIN_HEAP) continue;
        ms_raw_put_u32(w, id);
        ms_raw_put_u64(w, b->first_seq);
        ms_raw_put_u64(w, b->first_addr);
        ms_raw_put_u64(w, b->first_request);
        ms_raw_put_u64(w, b->first_chunk);
        ms_raw_put_u64(w, b->mapped);
    }
    ms_raw_section_end(w);
}

static void put_contexts(ms_raw_writer *w)
{
    uint32_t n = ms_contexts_count();
    ms_raw_section_begin(w, MS_RAW_CONTEXTS);
    ms_raw_put_u32(w, n ? n - 1 : 0);
    for (uint32_t c = 1; c < n; c++) {
        uint64_t pc;
        uint32_t bin;
        ms_context_get(c, &pc, &bin);
        ms_raw_put_u32(w, c);
        ms_raw_put_u32(w, bin);
        ms_raw_put_u64(w, pc);
    }
    ms_raw_section_end(w);
}

static int counters_used(const ms_counters *c) { return c->reads || c->writes; }

static void put_counters(ms_raw_writer *w, const ms_sim *sim)
{
    uint32_t n = 0, used = 0;
    const ms_counters *c = ms_sim_counters(sim, &n);
    int nlevels = ms_sim_config(sim)->nlevels;
    for (uint32_t i = 1; i < n; i++) used += counters_used(&c[i]);
    ms_raw_section_begin(w, MS_RAW_COUNTERS);
    ms_raw_put_u32(w, (uint32_t)nlevels);
    ms_raw_put_u32(w, used);
    for (uint32_t i = 1; i < n; i++) {
        if (!counters_used(&c[i])) continue;
        ms_raw_put_u32(w, i);
        ms_raw_put_counters(w, &c[i], nlevels);
    }
    ms_raw_section_begin(w, MS_RAW_SPATIAL); /* the same records' spatial counters */
    ms_raw_put_u32(w, used);
    for (uint32_t i = 1; i < n; i++) {
        if (!counters_used(&c[i])) continue;
#define MS_SPATIAL_COUNTER(member) ms_raw_put_u64(w, c[i].member);
#include "../sim/counters.def"
        ms_raw_put_u64(w, c[i].l1_ref_bits);
    }
    ms_raw_section_end(w);
}

static void count_eviction(const ms_eviction *e, void *ud)
{
    (void)e;
    (*(uint32_t *)ud)++;
}

static void put_eviction(const ms_eviction *e, void *ud)
{
    ms_raw_writer *w = ud;
    ms_raw_put_u32(w, e->victim_ctx);
    ms_raw_put_u32(w, e->evictor_ctx);
    ms_raw_put_u32(w, e->level);
    ms_raw_put_u64(w, e->count);
}

static void put_evictions(ms_raw_writer *w, const ms_sim *sim)
{
    uint32_t n = 0;
    ms_sim_each_eviction(sim, count_eviction, &n);
    ms_raw_section_begin(w, MS_RAW_EVICTIONS);
    ms_raw_put_u32(w, n);
    ms_sim_each_eviction(sim, put_eviction, w);
    ms_raw_section_end(w);
}

/* Append s to the buffer at *p (bounded by end), NUL-terminated. */
static void append(char **p, const char *end, const char *s)
{
    size_t n = ms_strlen(s);
    if (n > (size_t)(end - *p) - 1) n = (size_t)(end - *p) - 1;
    ms_memcpy(*p, s, n);
    *p += n;
    **p = 0;
}

static void put_notes(ms_raw_writer *w, int lost_threads, int complete)
{
    char dropped[96], *p = dropped;
    uint64_t lost = ms_events_dropped();
    const char *text = " accesses could not be simulated (out of memory)";
    const char *switched = "references before the first thread were simulated on one processor; "
                           "the replay of the threads starts with empty caches";
    p = ms_utoa(p, lost);
    ms_memcpy(p, text, ms_strlen(text) + 1);
    int late_switch = ms_threads_mode_switched();
    char exec_note[sizeof exec_target + 96], *q = exec_note;
    if (exec_target[0]) {
        append(&q, exec_note + sizeof exec_note, "the program executed ");
        append(&q, exec_note + sizeof exec_note, exec_target);
        append(&q, exec_note + sizeof exec_note, ": references after the exec are not in this run");
    }
    ms_raw_section_begin(w, MS_RAW_NOTES);
    const char *instrumentation = ms_instrumentation_note(), *focus = ms_focus_note();
    int dynamic_loops = ms_omp_dynamic_loops_seen();
    ms_raw_put_u32(w, (uint32_t)((lost != 0) + (lost_threads != 0) + (late_switch != 0) + (exec_target[0] != 0) +
                                 (dynamic_loops != 0) + (focus != NULL) + (instrumentation != NULL)));
    if (lost) ms_raw_put_str(w, dropped);
    if (lost_threads && complete)
        ms_raw_put_str(w, "the program died inside the profiler: the last buffered accesses are missing");
    else if (lost_threads)
        ms_raw_put_str(w, "the program died while the simulator was busy: its counters could not be read and "
                          "are missing from this run");
    if (late_switch) ms_raw_put_str(w, switched);
    if (exec_target[0]) ms_raw_put_str(w, exec_note);
    if (dynamic_loops)
        ms_raw_put_str(w, "OpenMP loops with dynamic, guided or runtime schedules ran: which thread ran which "
                          "iterations was recorded from this run and may differ between runs, and with it the "
                          "statistics");
    if (focus) ms_raw_put_str(w, focus);
    if (instrumentation) ms_raw_put_str(w, instrumentation); /* last: the others come first */
    ms_raw_section_end(w);
}

/* MS_RAW_STREAMS: the run's events are in per-thread streams, to be replayed. */
static void put_streams(ms_raw_writer *w)
{
    if (!ms_streams_mode) return;
    ms_raw_section_begin(w, MS_RAW_STREAMS);
    ms_raw_put_str(w, ms_rec_dir());
    ms_raw_section_end(w);
}

/* The simulator lock on the signal path: not if this thread was inside the runtime (it may
 * hold it), else a bounded wait. Returns 1 if held. */
static int lock_for_signal(uint8_t interrupted_mode)
{
    if (interrupted_mode == MS_T_BUSY) return 0;
    for (int i = 0; i < 1000; i++) {
        if (ms_sim_trylock() == 0) return 1;
        struct timespec ms = { 0, 1000000 };
        nanosleep(&ms, NULL);
    }
    return 0;
}

void ms_dump(uint32_t exit_kind, int32_t exit_value, int from_signal)
{
    /* A vfork child shares this memory: it must leave the parent's runtime alone. */
    if (!ms_process_is_owner()) return;
    /* The calling thread's committed plugin records (plugin.c), while it may still record. */
    if (ms_rt_on && !from_signal && ms_tls.mode == MS_T_READY) ms_plug_sync();
    if (__atomic_load_n(&dumped, __ATOMIC_ACQUIRE) || __atomic_exchange_n(&dumped, 1, __ATOMIC_ACQ_REL)) {
        /* Another thread is dumping (a second interrupt, a thread exiting meanwhile): let it
         * finish before this one goes on to end the process. Not if it is this thread (a
         * fault inside its own dump): that would never end. */
        for (int i = 0; i < 30000 && !__atomic_load_n(&dump_done, __ATOMIC_ACQUIRE) &&
                        __atomic_load_n(&dumper_tid, __ATOMIC_RELAXED) != gettid();
             i++) {
            struct timespec ms = { 0, 1000000 };
            nanosleep(&ms, NULL);
        }
        return;
    }
    __atomic_store_n(&dumper_tid, gettid(), __ATOMIC_RELAXED);
    if (!ms_rt_on) { /* never activated */
        __atomic_store_n(&dump_done, 1, __ATOMIC_RELEASE);
        return;
    }
    uint8_t prev = ms_busy_begin();
    /* Stop every thread from recording first, then collect what each one has pending. */
    __atomic_store_n(&ms_rt_on, 0, __ATOMIC_SEQ_CST);
    if (!from_signal) ms_modules_refresh();
    int lost_threads = ms_threads_flush_all(from_signal, prev == MS_T_BUSY);
    int locked = from_signal ? lock_for_signal(prev) : (ms_sim_lock(), 1);
    /* What was handed to the simulator thread must be simulated before it is read. */
    int complete = locked && ms_pipeline_drain(from_signal ? 2000 : -1) == 0;
    int pid = (int)getpid();
    {
        char path[sizeof raw_dir + 32];
        raw_path(path, pid);
        int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (fd < 0) {
            report_failure(path, errno);
        } else {
            ms_raw_writer w;
            ms_raw_writer_begin(&w, fd,
                                exit_kind == MS_EXIT_NORMAL || exit_kind == MS_EXIT_EXEC ? 0 : MS_RAW_F_INCOMPLETE);
            put_info(&w, exit_kind, exit_value);
            put_modules(&w);
            put_bins(&w);
            put_heap_layout(&w);
            put_contexts(&w);
            ms_blocks_put_raw(&w);
            ms_sample_put_raw(&w);
            ms_calls_put_raw(&w);
            ms_dests_put_raw(&w);
            if (complete) {                     /* else another thread may be inside the simulator */
                ms_sim_finish(ms_events_sim()); /* lines still in L1: their used bytes */
                put_counters(&w, ms_events_sim());
                put_evictions(&w, ms_events_sim());
            }
            put_notes(&w, lost_threads || !complete, complete);
            put_streams(&w);
            if (ms_raw_writer_finish(&w) < 0) report_failure(path, errno ? errno : EIO);
            close(fd);
        }
    }
    if (locked) ms_sim_unlock();
    __atomic_store_n(&dump_done, 1, __ATOMIC_RELEASE);
    ms_busy_end(prev);
}
