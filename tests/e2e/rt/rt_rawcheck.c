/* Test helper for t_runtime_smoke.sh: reads a raw file with ms_raw_read and prints
 *   <flags> <exit_kind> <exit_value> <truncated>
 *   <reads> <writes>     summed over the contexts of the HEAP bins whose objects are BYTES bytes each
 *   streams <dir or -> threads <threads seen>
 *   note <text>          (one line per note)
 * or, as `rt_rawcheck FILE bins`, one line per bin: <id> <kind number> <name or ->;
 * or, as `rt_rawcheck FILE dests`, one line per allocation destination record (MS_RAW_DESTS,
 *   tabs shown as '|');
 * or, as `rt_rawcheck FILE calls`, one line per call edge (MS_RAW_CALLS):
 *   <caller block id> <caller block pc - 1> <callee pc> <count>
 * pcs in hex, relative to the first module's load address (addr2line-ready for a PIE). */
#include "format/raw.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: rt_rawcheck FILE BYTES|bins|calls|dests\n");
        return 2;
    }
    ms_raw raw;
    char err[256];
    if (ms_raw_read(argv[1], &raw, err, sizeof err) != 0) {
        fprintf(stderr, "rt_rawcheck: %s\n", err);
        return 1;
    }
    if (strcmp(argv[2], "calls") == 0) {
        uint64_t bias = raw.nmodules ? raw.modules[0].base : 0;
        for (size_t i = 0; i < raw.ncalls; i++) {
            const ms_raw_call *k = &raw.calls[i];
            uint64_t pc = k->caller_block < raw.nblocks ? raw.blocks[k->caller_block].pc : 0;
            printf("%u %llx %llx %llu\n", k->caller_block, (unsigned long long)(pc ? pc - 1 - bias : 0),
                   (unsigned long long)(k->callee_pc - bias), (unsigned long long)k->count);
        }
        ms_raw_free(&raw);
        return 0;
    }
    if (strcmp(argv[2], "dests") == 0) {
        for (size_t i = 0; i < raw.ndests; i++) {
            for (char *t = raw.dests[i]; *t; t++)
                if (*t == '\t') *t = '|';
            printf("%s\n", raw.dests[i]);
        }
        ms_raw_free(&raw);
        return 0;
    }
    if (strcmp(argv[2], "bins") == 0) {
        for (size_t b = 0; b < raw.nbins; b++)
            printf("%u %d %s\n", raw.bins[b].id, (int)raw.bins[b].kind, raw.bins[b].name ? raw.bins[b].name : "-");
        ms_raw_free(&raw);
        return 0;
    }
    uint64_t bytes = strtoull(argv[2], NULL, 10), reads = 0, writes = 0;
    for (size_t i = 0; i < raw.ncounters; i++) {
        const ms_raw_counter *c = &raw.counters[i];
        for (size_t k = 0; k < raw.ncontexts; k++) {
            if (raw.contexts[k].ctx != c->ctx) continue;
            for (size_t b = 0; b < raw.nbins; b++) {
                const ms_raw_bin *bin = &raw.bins[b];
                if (bin->id == raw.contexts[k].bin && bin->kind == MS_BIN_HEAP &&
                    bin->objects && bin->bytes == bytes * bin->objects) {
                    reads += c->c.reads;
                    writes += c->c.writes;
                }
            }
        }
    }
    printf("%u %u %d %d\n%llu %llu\n", raw.flags, raw.exit_kind, raw.exit_value, raw.truncated,
           (unsigned long long)reads, (unsigned long long)writes);
    printf("streams %s threads %u\n", raw.streams_dir ? raw.streams_dir : "-", raw.nthreads);
    for (size_t i = 0; i < raw.nnotes; i++) printf("note %s\n", raw.notes[i]);
    ms_raw_free(&raw);
    return 0;
}
