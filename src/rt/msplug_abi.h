/* The plain-C ABI between memspy's compiler plugins (src/cc/plugin/) and the runtime (src/rt/
 * plugin.c). Instrumented code never calls the runtime per access: it appends words to a
 * thread-local buffer and calls the runtime only at function entry/exit and when the buffer is
 * full.
 *
 * Buffer: __memspy_buf, an initial-exec thread-local array of 1 + MSPLUG_BUF_WORDS words.
 * Word 0 holds the number of words used; the records follow from word 1. Instrumented code
 * appends one GROUP per run of accesses in a basic block with no call between them:
 *
 *     reserve: n = buf[0]; if (n > MSPLUG_BUF_WORDS - k) { __memspy_flush(); n = 0; }
 *     buf[1 + n] = (uint64_t)&sites[first]         -- the group header: its first site
 *     buf[2 + n + j] = address words of site j      -- one per access, two or three per copy
 *     buf[0] = n + k                                 -- committed once, after the last record
 *
 * The group's sites are consecutive entries of a static site table (one per instrumented
 * function) and the last one has MSPLUG_F_LAST. Every site reads a fixed number of words
 * (msplug_site_words). Because the header is a pointer into the module's own table, records
 * need no module id and a program has no limit on its number of sites.
 *
 * Sites: {pc, info}. info packs the access size (bytes, bits 0-31), the kind (bits 32-39) and
 * flags (bits 48-63). pc is 0 in the object file: each instrumented access carries an inline-asm
 * label whose address (+1, so that symbolization of "pc - 1" lands on the access, as for a
 * return address) and its site's address are emitted as a pair into the section
 * MSPLUG_PCS_SECTION; a constructor per translation unit hands the module's section to
 * __memspy_register_pcs, which writes each pc into its site. */
#ifndef MEMSPY_MSPLUG_ABI_H
#define MEMSPY_MSPLUG_ABI_H

#include <stdint.h>

#define MSPLUG_ABI_VERSION 1u
#define MSPLUG_BUF_WORDS 4096u
/* At most this many words in one group (the plugin splits longer runs). */
#define MSPLUG_GROUP_MAX_WORDS 192u

/* Site kinds: how many words a site reads from the buffer and what it records. */
enum {
    MSPLUG_K_READ = 1,         /* 1 word: address; a read of size bytes (address 0: none, a masked-off lane) */
    MSPLUG_K_WRITE = 2,        /* 1 word: address; a write of size bytes (address 0: none) */
    MSPLUG_K_ATOMIC_LOAD = 3,  /* 1 word: an atomic load (a read) */
    MSPLUG_K_ATOMIC_STORE = 4, /* 1 word: an atomic store (a write) */
    MSPLUG_K_ATOMIC_RMW = 5,   /* 1 word: read-modify-write (exchange, fetch-op, compare-exchange) */
    MSPLUG_K_COPY = 6,         /* 2 words: dst, src; memcpy/memmove or a large aggregate copy of size */
    MSPLUG_K_COPY_VAR = 7,     /* 3 words: dst, src, length (size is 0) */
    MSPLUG_K_SET = 8,          /* 1 word: dst; memset or a large aggregate clear of size */
    MSPLUG_K_SET_VAR = 9,      /* 2 words: dst, length */
};

#define MSPLUG_F_LAST 1u /* the last site of its group */

#define MSPLUG_INFO(size, kind, flags) ((uint64_t)(uint32_t)(size) | (uint64_t)(kind) << 32 | (uint64_t)(flags) << 48)
#define MSPLUG_INFO_SIZE(info) ((uint32_t)(info))
#define MSPLUG_INFO_KIND(info) ((uint32_t)((info) >> 32) & 0xffu)
#define MSPLUG_INFO_FLAGS(info) ((uint32_t)((info) >> 48))

typedef struct {
    uint64_t pc;   /* filled by __memspy_register_pcs; 0 if the compiler dropped the label */
    uint64_t info; /* MSPLUG_INFO(size, kind, flags) */
} msplug_site;

/* Words a site of this kind reads from the buffer (0 for an unknown kind). */
static inline uint32_t msplug_site_words(uint32_t kind)
{
    switch (kind) {
    case MSPLUG_K_COPY_VAR: return 3;
    case MSPLUG_K_COPY:
    case MSPLUG_K_SET_VAR: return 2;
    case MSPLUG_K_READ:
    case MSPLUG_K_WRITE:
    case MSPLUG_K_ATOMIC_LOAD:
    case MSPLUG_K_ATOMIC_STORE:
    case MSPLUG_K_ATOMIC_RMW:
    case MSPLUG_K_SET: return 1;
    default: return 0;
    }
}

/* The section of (pc + 1, site address) pairs, and the symbols the linker defines around it. */
#define MSPLUG_PCS_SECTION "__memspy_pcs"
typedef struct {
    uint64_t pc, site;
} msplug_pc_pair;

/* Names of the runtime's symbols, as the plugin emits them. */
#define MSPLUG_SYM_BUF "__memspy_buf"
#define MSPLUG_SYM_FLUSH "__memspy_flush"
#define MSPLUG_SYM_ENTRY "__memspy_func_entry"
#define MSPLUG_SYM_EXIT "__memspy_func_exit"
#define MSPLUG_SYM_REGISTER "__memspy_register_pcs"
#define MSPLUG_SYM_REGISTER_LLVM "__memspy_register_llvm"

#ifndef MSPLUG_NO_DECLS
/* The calling thread's buffer (initial-exec: a %fs-relative access, no call). */
extern __thread uint64_t __memspy_buf[1 + MSPLUG_BUF_WORDS] __attribute__((tls_model("initial-exec")));
/* The buffer is full: hand its records to the runtime (or drop them when not profiling);
 * on return buf[0] == 0. */
void __memspy_flush(void);
/* Function entry (caller_ra: the function's return address) and exit: the shadow call stack. */
void __memspy_func_entry(void *caller_ra);
void __memspy_func_exit(void);
/* A constructor per instrumented translation unit: the module's (pc, site) pairs. */
void __memspy_register_pcs(const msplug_pc_pair *begin, const msplug_pc_pair *end);
/* The same for a module of the LLVM pass plugin (the run's notes name the plugin). */
void __memspy_register_llvm(const msplug_pc_pair *begin, const msplug_pc_pair *end);
#endif

#endif
