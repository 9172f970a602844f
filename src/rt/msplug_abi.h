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
 * __memspy_register_pcs, which writes each pc into its site.
 *
 * Blocks (version 2). Every basic block of an instrumented function that has a statement (or
 * heads a loop) has a BLOCK DESCRIPTOR in a static per-function table (msplug_block). Each
 * execution of the block appends one BLOCK WORD, the descriptor's address with both top bits
 * set (MSPLUG_BLOCK_TAG): inside the reservation of the block's first group when no call
 * precedes that group in the block (no extra bounds check), else as a one-word group of its
 * own at the block's first statement (a counting copy's block that loops to itself: one REPEAT
 * WORD pair per execution of that loop, MSPLUG_REPEAT_TAG). The runtime counts block words per thread: exact
 * execution counts with no lock and no call on the hot path. A function with loops also has a
 * LOOP TABLE (msplug_loop_table: a header entry, then one msplug_loop per natural loop) that
 * its blocks point to. Each descriptor's pc is an asm label at the block's first statement,
 * emitted as a (pc + 1, &descriptor) pair into MSPLUG_BLOCK_PCS_SECTION; a constructor per
 * unit passes that section to __memspy_register_blocks, which fills the pcs and gives every
 * block and loop a run-global id. A versioned function's plain copy has a label at each
 * counted block's first statement too, paired with the same descriptor in
 * MSPLUG_PLAIN_PCS_SECTION (__memspy_register_plain): MTOOL costs the code the timing run
 * executes.
 *
 * Counters (version 5). A counting copy compiled with optimisation (both plugins) appends no block
 * word: it adds to the calling thread's own counter of the block, __memspy_counts[id] (id:
 * the descriptor's run-global id + 1, read from the descriptor; slot 0 takes the blocks of
 * modules not registered), loading the array's address once per call of the copy, and calling
 * __memspy_counts_init when it is still NULL (a thread's first counting copy). A block that
 * loops to itself adds its trip count on the loop's exits. The arrays belong to the runtime's
 * per-thread data (no sharing between threads, no atomics, no drain) and are summed at the
 * dump. Call words still go through the buffer.
 *
 * Direct call sites (version 6). A block's first call of another function, when its callee is
 * a link-time constant (a direct call, no function pointer), writes no call word in any version:
 * it executes exactly once per execution of its block (nothing before it in the block can leave
 * the block), so its count is the block's. Each such call is an entry {caller block descriptor,
 * callee address} (msplug_call_site) in MSPLUG_CALLS_SECTION; a constructor per unit passes the
 * module's section to __memspy_register_calls, and the runtime's dump adds each entry's block
 * count to the (caller block, callee) pair of the CALLS section, where the call words' counts
 * go. The block's later calls, and every call through a pointer, keep their call words (a
 * call before them may leave the block: longjmp, exit, an exception).
 *
 * Entry blocks counted by their calls (version 7). A function only called directly, by code
 * the plugin instruments (not visible outside its unit, its address not taken), executes its
 * entry block once per call: when that block holds no call and is no loop's header, the
 * counting copy gives it no counter, and MSPLUG_CALLS_SECTION holds {its descriptor |
 * MSPLUG_CALL_ENTRY, the function's address}: the dump sets the block's count to the sum of
 * the function's call edges (words and direct sites), in every mode (the body's words for it
 * are not added). A small function's counting copy is then its plain copy (counters'
 * CountEvent: no counter, no counter array to load). */
#ifndef MEMSPY_MSPLUG_ABI_H
#define MEMSPY_MSPLUG_ABI_H

#include <stdint.h>

/* 2: block words, block and loop tables; 3: allocation destinations; 4: repeat words; 5: the
 * counting copies' per-thread block counters; 6: the table of direct call sites; 7: entry blocks counted by their calls */
#define MSPLUG_ABI_VERSION 7u
#define MSPLUG_BUF_WORDS 4096u
/* At most this many words in one group (the plugin splits longer runs). */
#define MSPLUG_GROUP_MAX_WORDS 192u /* < 256: MSPLUG_INFO_GROUP_WORDS */

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
/* An atomic site's memory order as the compiler saw it (C11 / __ATOMIC_*: relaxed 0, consume
 * 1, acquire 2, release 3, acq_rel 4, seq_cst 5; a compare-exchange's success order), plus one,
 * in flag bits 1-3; 0: unknown (not a constant). MSPLUG_INFO_ORDER gives it back, -1 unknown. */
#define MSPLUG_F_ORDER(order) ((((unsigned)(order) + 1u) & 7u) << 1)
#define MSPLUG_INFO_ORDER(info) ((int)((MSPLUG_INFO_FLAGS(info) >> 1) & 7u) - 1)

/* Flag bits 4-15 (info bits 52-63) are the runtime's, 0 in the plugins' tables: in memory the
 * runtime may note there, in the first site of a group, the group's entry in a table of its
 * own (src/rt/plugin.c, compiled groups). Readers of info mask what they read. */
#define MSPLUG_INFO_RT_SHIFT 52
#define MSPLUG_INFO(size, kind, flags) ((uint64_t)(uint32_t)(size) | (uint64_t)(kind) << 32 | (uint64_t)(flags) << 48)
#define MSPLUG_INFO_SIZE(info) ((uint32_t)(info))
#define MSPLUG_INFO_KIND(info) ((uint32_t)((info) >> 32) & 0xffu)
#define MSPLUG_INFO_FLAGS(info) ((uint32_t)((info) >> 48))
/* The first site of a group also holds the number of address words of the whole group (bits
 * 40-47; at most MSPLUG_GROUP_MAX_WORDS), so that a reader that wants only block words skips a
 * group in one step. 0 in tables of ABI version 1. */
#define MSPLUG_INFO_GROUP_WORDS(words) ((uint64_t)(uint8_t)(words) << 40)
#define MSPLUG_INFO_GET_GROUP_WORDS(info) ((uint32_t)((info) >> 40) & 0xffu)

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

/* A block word: the descriptor's address with bits 62 and 63 set (a group header has only 63). */
#define MSPLUG_BLOCK_TAG (3ull << 62)
#define MSPLUG_NO_LOOP 0xffffu
/* A call word (calls of other functions, builtins excepted, in the body and the counting
 * copy): the caller block's descriptor address with bits 61-63 set, then one word, the
 * callee's address (the function pointer for an indirect or virtual call), in a reservation
 * of two words just before the call. The runtime counts (caller block, callee) pairs. Since
 * version 6 not for a block's first call when it is direct (MSPLUG_CALLS_SECTION). */
#define MSPLUG_CALL_TAG (7ull << 61)
/* A repeat word (version 4, counting copies only): a block word with bit 60 set as well, then
 * one word, a count n >= 1: the block executed n more times, as n block words would say. A
 * counting copy emits it for a block that loops to itself (a loop of one block with no call):
 * the block adds one to a local at each iteration, and each edge leaving it appends the pair
 * (a reservation of two words) with the local's value; every edge that enters the block from
 * elsewhere sets the local to 0. One record per execution of the loop instead of one per
 * iteration; the counts are the same. */
#define MSPLUG_REPEAT_BIT (1ull << 60)
#define MSPLUG_REPEAT_TAG (MSPLUG_BLOCK_TAG | MSPLUG_REPEAT_BIT)

/* info of a block descriptor: the index of its innermost loop in the function's loop table
 * (MSPLUG_NO_LOOP: none), the memory operations instrumented in it, its GIMPLE statements. */
#define MSPLUG_BLOCK_INFO(loop, memops, stmts) \
    ((uint64_t)(uint16_t)(loop) | (uint64_t)(uint32_t)(memops) << 16 | (uint64_t)(uint16_t)(stmts) << 48)
#define MSPLUG_BLOCK_LOOP(info) ((uint32_t)((info)&0xffffu))
#define MSPLUG_BLOCK_MEMOPS(info) ((uint32_t)((info) >> 16))
#define MSPLUG_BLOCK_STMTS(info) ((uint32_t)((info) >> 48))

typedef struct {
    uint64_t pc;         /* filled by __memspy_register_blocks: the block's first statement + 1 */
    uint64_t info;       /* MSPLUG_BLOCK_INFO */
    uint64_t id;         /* filled by the runtime: run-global block id + 1 (0: not registered) */
    uint64_t loop_table; /* address of the function's msplug_loop_table, 0 if none */
    uint64_t lines;      /* MSPLUG_BLOCK_LINES: its statements' lines in the function's own file */
} msplug_block;

/* Words of a block descriptor (the plugin's tables are arrays of 64-bit words). */
#define MSPLUG_BLOCK_WORDS 5u
/* The first and last source line of a block's statements (0: unknown). */
#define MSPLUG_BLOCK_LINES(first, last) ((uint64_t)(uint32_t)(first) | (uint64_t)(uint32_t)(last) << 32)

/* A natural loop: the descriptor of its header block, its parent's index in the same table
 * (MSPLUG_NO_LOOP: outermost) and its depth (1 = outermost). */
#define MSPLUG_LOOP_INFO(parent, depth) ((uint64_t)(uint16_t)(parent) | (uint64_t)(uint16_t)(depth) << 16)
#define MSPLUG_LOOP_PARENT(info) ((uint32_t)((info)&0xffffu))
#define MSPLUG_LOOP_DEPTH(info) ((uint32_t)((info) >> 16) & 0xffffu)

typedef struct {
    uint64_t header; /* address of the header block's msplug_block */
    uint64_t info;   /* MSPLUG_LOOP_INFO */
} msplug_loop;

/* The loop table's first entry: the number of loops that follow, and the run-global id + 1 of
 * the first (filled by the runtime; the others follow it). */
typedef struct {
    uint64_t nloops;
    uint64_t first_id;
} msplug_loop_table;

/* The section of (pc + 1, block descriptor address) pairs. */
#define MSPLUG_BLOCK_PCS_SECTION "__memspy_bpcs"
/* The same pairs for the blocks' first statements in the plain copies. */
#define MSPLUG_PLAIN_PCS_SECTION "__memspy_ppcs"

/* The section of direct call sites (version 6): msplug_call_site entries. */
#define MSPLUG_CALLS_SECTION "__memspy_calls"
/* An entry's block with this bit set (version 7): the block is callee's entry block, whose count
 * is the sum of callee's call edges (the entry is no call site). */
#define MSPLUG_CALL_ENTRY 1ull
typedef struct {
    uint64_t block;  /* address of the caller block's msplug_block (| MSPLUG_CALL_ENTRY) */
    uint64_t callee; /* the callee's address, as the call word would hold it */
} msplug_call_site;

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
#define MSPLUG_SYM_PLAIN "__memspy_plain"
/* Values of __memspy_plain. */
#define MSPLUG_RUN_CAPTURE 0
#define MSPLUG_RUN_PLAIN 1
#define MSPLUG_RUN_COUNT 2
#define MSPLUG_SYM_REGISTER_BLOCKS "__memspy_register_blocks"
#define MSPLUG_SYM_COUNTS "__memspy_counts"
#define MSPLUG_SYM_COUNTS_INIT "__memspy_counts_init"
#define MSPLUG_SYM_REGISTER_PLAIN "__memspy_register_plain"
#define MSPLUG_SYM_REGISTER_DESTS "__memspy_register_dests"
#define MSPLUG_SYM_REGISTER_CALLS "__memspy_register_calls"

/* Allocation destinations (version 3): for each call whose pointer result the compiler sees
 * (the malloc family, operator new, any function returning a pointer, or with gcc a struct with
 * a pointer member by value; posix_memalign's first
 * argument; the object a C++ constructor or member function is called on), one entry in the section MSPLUG_DESTS_SECTION, 8-byte
 * aligned: the addresses of a label just before the call and of one just after it (0 where the
 * call ends its block: it may throw) (msplug_dest_pc), then a NUL-terminated text record,
 * fields separated by tabs:
 *
 *   the record format's version (MSPLUG_DEST_RECORD_VERSION, below), lang ("c", "c++", "f": Fortran), the call's file, the callee's
 *   name, "r" if the value reaches a return statement of the function, "o" if the levels name the
 *   object the call works on (a C++ constructor or member function) ("ro", "r", "o", or "-"; or
 *   "aN": the record of the call's argument N, a pointer to a pointer, `create(&lz->coder)`: the
 *   levels name what it points to, where the callee may store an allocation), nlevels, then
 *   nlevels levels, the call's own first, then the functions it was inlined into, outwards:
 *   line, col (level 0: the call's position; level k: where level k-1's function was inlined),
 *   kind ("-": nothing named at this level, "v": a variable, "m": memory reached through a
 *   pointer, a field or an element, "o": a declared object that holds the value in one of its
 *   members, or that a C++ constructor builds: `std::vector<double> v(n)`), flags ("d": a variable declared on the level's line; "l":
 *   the "v" is an automatic variable or a parameter of the level's function, not a global or a
 *   static (readers without it take any variable as before); "u":
 *   a statement of the level uses the value besides copying, comparing, storing or returning
 *   it: dereferences or offsets it, passes it to a call; "r": the path is a part of a local
 *   struct the level's function returns by value (`buffer.start`); "s": the level's function
 *   also stores the value in a slot that no variable or field names, through a local pointer
 *   computed by pointer arithmetic (an interpreter's stack slot `ra->gc = t`, ra = base + A;
 *   `*list = ts`, list = &tb->hash[h]): named by its type, the value's where the path is empty; "pN":
 *   the level's function stores the value through its pointer parameter N, `*coder_ptr = v`, or
 *   passes that parameter on as the argument of an "aN" record: the caller's argument names it;
 *   "-": none),
 *   type (the destination's type as gcc prints it), path (the variable, or the lvalue's parts
 *   joined with '.', "[]" for an element: "v.vals", "rows[]").
 *
 * A level names what the value is stored in or bound to by a statement of that level's
 * function. The analysis matches a record to a return address by the position of the call and
 * of its inlined frames (the symbolizer's frames of pc - 1), which also holds in the versions
 * that have no labels (plain and counting copies); the label's address tells apart calls at one
 * position: the record's label is the last one before the return address; without line
 * information (a stripped binary), the labels that enclose the return address find the record. */
#define MSPLUG_DESTS_SECTION "__memspy_dests"
/* The same section holds one record per OpenMP region the compiler outlined into a function
 * of its own (gcc's PARENT._omp_fn.N, clang's .omp_outlined.), its label at that function's
 * entry (end 0), the text's fields separated by tabs:
 *
 *   "omp", the construct's file, the function the programmer wrote it in (a nested region's
 *   too; as DWARF names it, a C++ function by its mangled symbol), the construct ("parallel", "parallel for" for the combined construct, "parallel do"
 *   in Fortran, "parallel sections", "task", "taskloop", "teams"), the pragma's line, then the
 *   names of the functions that hold the region's body (the outlined function; clang's
 *   .omp_outlined._debug__ too).
 *
 * Readers of allocation destinations skip these (their first field is no version they read). */
#define MSPLUG_OMP_RECORD "omp"
/* The allocation destination record's version: "1" (ABI 3) has no "aN" records and no "pN"
 * flags; "2" (ABI 4) has them. A reader reads every version up to the one it knows (the
 * analysis reads "1" and "2"; ABI 4 plugins older than "2" wrote their "aN" and "pN" under "1",
 * so a "1" record's "aN" and "pN" are read too) and skips a record of any other version: a
 * newer plugin's records name nothing there, without misreading them. */
#define MSPLUG_DEST_RECORD_VERSION "2"
/* The longest type or path text a record holds, with its terminating NUL (longer ones are cut:
 * the raw profile stays proportional to the allocation sites, not to C++ name lengths). */
#define MSPLUG_DEST_TEXT_MAX 160
typedef struct {
    uint64_t pc;  /* the label before the call */
    uint64_t end; /* the label after it, 0 if none */
    /* char record[]: the text, NUL-terminated; the next entry at the next multiple of 8 */
} msplug_dest_pc;

#ifndef MSPLUG_NO_DECLS
/* The calling thread's buffer (initial-exec: a %fs-relative access, no call). */
extern __thread uint64_t __memspy_buf[1 + MSPLUG_BUF_WORDS] __attribute__((tls_model("initial-exec")));
/* The buffer is full: hand its records to the runtime (or drop them when not profiling);
 * on return buf[0] == 0. */
void __memspy_flush(void);
/* Function entry (caller_ra: the function's return address) and exit: the shadow call stack. */
void __memspy_func_entry(void *caller_ra);
void __memspy_func_exit(void);
/* Which version of each versioned function runs (MSPLUG_RUN_*), read once per call at its
 * entry: the instrumented body (0), the plain copy (MEMSPY_MODE=time) or the counting copy,
 * which has block words only (MEMSPY_MODE=count). */
extern int __memspy_plain;
/* A constructor per instrumented translation unit: the module's (pc, site) pairs. */
void __memspy_register_pcs(const msplug_pc_pair *begin, const msplug_pc_pair *end);
/* The same for a module of the LLVM pass plugin (the run's notes name the plugin). */
void __memspy_register_llvm(const msplug_pc_pair *begin, const msplug_pc_pair *end);
/* A constructor per instrumented translation unit: the module's (pc, block) pairs. */
void __memspy_register_blocks(const msplug_pc_pair *begin, const msplug_pc_pair *end);
/* After __memspy_register_blocks: the module's (plain-copy pc, block) pairs. */
void __memspy_register_plain(const msplug_pc_pair *begin, const msplug_pc_pair *end);
/* A constructor per instrumented translation unit: the module's destination records. */
void __memspy_register_dests(const char *begin, const char *end);
/* A constructor per instrumented translation unit (version 6): the module's direct call sites
 * (every unit of a module passes the same section: the runtime keeps it once). */
void __memspy_register_calls(const msplug_call_site *begin, const msplug_call_site *end);
/* The calling thread's block counters (version 5), indexed by a descriptor's id field; NULL
 * until its first counting copy calls __memspy_counts_init. */
extern __thread uint64_t *__memspy_counts __attribute__((tls_model("initial-exec")));
/* Set the calling thread's __memspy_counts (never NULL on return: the blocks of a thread the
 * runtime cannot adopt go to a shared spare array, uncounted) and return it. */
uint64_t *__memspy_counts_init(void);
#endif

#endif
