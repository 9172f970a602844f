/* Allocation destinations recorded by memspy's GCC plugin (MS_RAW_DESTS): for each call whose
 * pointer result the compiler saw stored or returned, a text record of where it goes (the
 * format is in msplug_abi.h). Each module's records are one section, __memspy_dests, that every
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

void __memspy_register_dests(const char *begin, const char *end)
{
    if (!begin || begin >= end) return;
    lock();
    uint32_t i = 0;
    while (i < nranges && ranges[i].begin != begin) i++;
    if (i == nranges && nranges < MAX_MODULES) {
        ranges[nranges].begin = begin;
        ranges[nranges].end = end;
        __atomic_store_n(&nranges, nranges + 1, __ATOMIC_RELEASE);
    }
    unlock();
}

/* Calls f on each record of every registered module. */
static void each_record(void (*f)(const char *rec, void *arg), void *arg)
{
    uint32_t n = __atomic_load_n(&nranges, __ATOMIC_ACQUIRE);
    for (uint32_t i = 0; i < n; i++)
        for (const char *p = ranges[i].begin; p < ranges[i].end;) {
            size_t len = 0; /* no strnlen: the runtime interposes the string functions */
            while (p + len < ranges[i].end && p[len]) len++;
            if (len && len <= 65535 && p + len < ranges[i].end) f(p, arg);
            p += len + 1;
        }
}

static void count_record(const char *rec, void *arg)
{
    (void)rec;
    (*(uint32_t *)arg)++;
}

static void put_record(const char *rec, void *arg) { ms_raw_put_str(arg, rec); }

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
