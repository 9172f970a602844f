/* Allocation destinations recorded by memspy's GCC plugin (MS_RAW_DESTS): for each call whose
 * pointer result the compiler saw stored or returned, the pc of a label before the call and a
 * text record of where the result goes (the format is in msplug_abi.h). Each module's records are one section, __memspy_dests, that every
 * constructor of the module registers (the same bounds from each of its units); the dump copies
 * the records, unread, into the raw profile. The analysis names heap bins from them. */
#include "rt.h"

#include <sched.h>

#define MAX_MODULES 256
static struct {
    const char *begin, *end;
} ranges[MAX_MODULES];
static uint32_t nranges;
static int reg_lock;

static void lock(void)
{
    while (__atomic_exchange_n(&reg_lock, 1, __ATOMIC_ACQUIRE)) sched_yield();
}
static void unlock(void) { __atomic_store_n(&reg_lock, 0, __ATOMIC_RELEASE); }

static int functions_known; /* ms_dests_focus_regions ran: modules registered later are matched at once */
static void focus_regions_of(uint32_t first, uint32_t last);

void __memspy_register_dests(const char *begin, const char *end)
{
    if (!begin || begin >= end) return;
    lock();
    uint32_t i = 0;
    int added = 0;
    while (i < nranges && ranges[i].begin != begin) i++;
    if (i == nranges && nranges < MAX_MODULES) {
        ranges[nranges].begin = begin;
        ranges[nranges].end = end;
        __atomic_store_n(&nranges, nranges + 1, __ATOMIC_RELEASE);
        added = 1;
    }
    unlock();
    if (added && __atomic_load_n(&functions_known, __ATOMIC_ACQUIRE)) focus_regions_of(i, i + 1);
}

/* Calls f on each entry (labels, record) of the registered modules first..last-1. */
static void each_record_in(uint32_t first, uint32_t last,
                           void (*f)(const msplug_dest_pc *pcs, const char *rec, void *arg), void *arg)
{
    for (uint32_t i = first; i < last; i++) {
        uintptr_t begin = (uintptr_t)ranges[i].begin, end = (uintptr_t)ranges[i].end;
        for (uintptr_t p = begin; p + sizeof(msplug_dest_pc) < end;) {
            p = begin + ((p - begin + 7) & ~(uintptr_t)7); /* the section starts 8-byte aligned */
            if (p + sizeof(msplug_dest_pc) >= end) break;
            const msplug_dest_pc *pcs = (const msplug_dest_pc *)p;
            const char *rec = (const char *)(p + sizeof(msplug_dest_pc));
            size_t len = 0; /* no strnlen: the runtime interposes the string functions */
            while ((uintptr_t)(rec + len) < end && rec[len]) len++;
            if ((uintptr_t)(rec + len) >= end) break;
            if (pcs->pc && len && len <= 65535) f(pcs, rec, arg);
            p = (uintptr_t)(rec + len + 1);
        }
    }
}

/* Calls f on each entry (labels, record) of every registered module. */
static void each_record(void (*f)(const msplug_dest_pc *pcs, const char *rec, void *arg), void *arg)
{
    each_record_in(0, __atomic_load_n(&nranges, __ATOMIC_ACQUIRE), f, arg);
}

static void focus_record(const msplug_dest_pc *pcs, const char *rec, void *arg)
{
    (void)arg;
    if (!ms_strncmp(rec, MSPLUG_OMP_RECORD "\t", sizeof MSPLUG_OMP_RECORD))
        ms_focus_omp_region(rec, (uintptr_t)pcs->pc);
}

static void focus_regions_of(uint32_t first, uint32_t last)
{
    if (ms_focus_active) each_record_in(first, last, focus_record, NULL);
}

void ms_dests_focus_regions(void)
{
    __atomic_store_n(&functions_known, 1, __ATOMIC_RELEASE);
    focus_regions_of(0, __atomic_load_n(&nranges, __ATOMIC_ACQUIRE));
}

static void count_record(const msplug_dest_pc *pcs, const char *rec, void *arg)
{
    (void)pcs;
    (void)rec;
    (*(uint32_t *)arg)++;
}

static void put_record(const msplug_dest_pc *pcs, const char *rec, void *arg)
{
    ms_raw_put_u64(arg, pcs->pc);
    ms_raw_put_u64(arg, pcs->end);
    ms_raw_put_str(arg, rec);
}

void ms_dests_put_raw(ms_raw_writer *w)
{
    uint32_t n = 0;
    each_record(count_record, &n);
    if (!n) return;
    ms_raw_section_begin(w, MS_RAW_DESTS);
    ms_raw_put_u32(w, n);
    each_record(put_record, w);
    ms_raw_section_end(w);
}
