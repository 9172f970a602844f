/* The recorded event streams of `memspy run --record DIR`: DIR/thread-N.zst, one per thread
 * of the profiled program (N = the runtime's thread index, 0 = the first thread to record).
 * Each file is zstd-compressed (one or more frames); the decompressed bytes are:
 *
 *   header : "MSPYREC\0" (8 bytes), u32 version (MS_STREAM_VERSION), u32 thread index
 *   chunks : u32 nevents, u32 payload_len, u64 seq, u32 crc32 (zlib, of the payload),
 *            payload[payload_len]                                          (repeated)
 *
 * A chunk is one flushed event buffer; seq numbers the flushes of the whole process (the
 * order in which they were written). Integers little-endian. See docs/formats.md.
 *
 * Version 2 and later: an event starts with one LEB128 varint `head`.
 *   head even: an access; ctx = head >> 1 (a context id of DIR/profile.raw's MS_RAW_CONTEXTS;
 *              0 = an access the runtime could not attribute), then two varints:
 *              zigzag(address - previous access address of the thread; the first is relative
 *              to 0) and size << 1 | write.
 *   head odd : a synchronisation event; kind = head >> 1 (MS_SYNC_*), then three varints:
 *              obj, arg (meaning per kind below) and seq, a process-wide sequence number
 *              stamped when the operation happened (strictly increasing over all threads'
 *              sync events: the real order, used by the replay only to break deadlocks).
 *              Version 5: every sync event but WORK and ATOMIC (ms_stream_has_site) has a
 *              fourth varint, site: the context id (MS_RAW_CONTEXTS, bin 0) of the call that
 *              synchronised (the return address of pthread_barrier_wait, GOMP_barrier,
 *              pthread_mutex_lock, ..., or OMPT's codeptr_ra), 0 unknown: the code location
 *              of a synchronisation point (an ATOMIC's is its access's context).
 * Version 6: an access's address delta is taken from the previous access of the same context
 *              in the same chunk where there is one (ms_stream_ctx_base: a table of
 *              MS_STREAM_CTX_SLOTS slots by ctx's low bits, emptied at each chunk's start; a
 *              context whose slot another context took uses the thread's previous access in
 *              the chunk, 0 for the chunk's first access), so that a loop's strides are small
 *              and repeat whatever the other contexts do, and each chunk decodes on its own.
 * Versions 1 to 5 (delta from the thread's previous access; version 1: accesses only,
 * head = ctx) are still read.
 *
 * Sync kinds (obj / arg), as the replay interprets them (docs/design-threads.md):
 *   ACQUIRE    lock address / 0 exclusive, 1 shared (rwlock read). Blocks while another
 *              thread holds it incompatibly. Mutex, spin, rwlock, GOMP critical (obj = the
 *              name's address, or a fixed id for the unnamed one), GOMP atomic, omp locks.
 *   RELEASE    lock address / 0
 *   BARRIER    barrier id / participants. Arrival; the thread continues once `participants`
 *              threads have arrived at the same (id, generation), the generation being the
 *              number of times this thread arrived at this id before. A region boundary.
 *   CREATE     child thread index / 0. The child's stream may start after this (boundary).
 *   JOIN       joined thread index / 0. Waits for the child's EXIT or end of stream (boundary).
 *   EXIT       0 / 0. The thread's last event (a stream may also just end: process exit).
 *   COND_WAIT  cond address / mutex address. The thread gave up the mutex and waits for a
 *              COND_SIGNAL on cond issued after it started waiting, then re-acquires the mutex.
 *              (A wait that timed out is recorded as RELEASE + ACQUIRE instead.)
 *   COND_SIGNAL cond address / 0 signal (wakes the longest waiter), 1 broadcast (wakes all)
 *   SEM_POST   semaphore address / 0. Count + 1.
 *   SEM_WAIT   semaphore address / 0. Waits for count > 0, then count - 1 (a sem_trywait that
 *              failed is not recorded).
 *   FORK       parallel region instance id / team size. Before the team starts (boundary).
 *   BEGIN      parallel region instance id / team size. A team member (master included)
 *              starts its implicit task: waits until the FORK of that id has been replayed.
 *   WORK       block id / executions (version 3; seq = 0, not a synchronisation): the thread
 *              executed that basic block (an id of profile.raw's MS_RAW_BLOCKS) that many
 *              times since its previous WORK events. Emitted before every synchronisation
 *              event, when the thread's plugin buffer fills and before EXIT, so the WORK
 *              events before a synchronisation event cover the blocks executed since the one
 *              before it. No ordering effect: the replay hands them to its sink's `work`.
 *   ATOMIC     address / MS_ATOMIC_* bits (version 4): an atomic operation with a memory order
 *              stronger than relaxed (relaxed ones are plain accesses only), recorded beside
 *              its access(es). seq is stamped before a store's write (the release point) and
 *              after a load's or read-modify-write's read (the acquire point), so a load that
 *              read a release store's value has the larger seq. The replay does not let an
 *              acquiring event pass before every releasing event on the same address with a
 *              smaller seq has been replayed (docs/design-threads.md, "Atomics"). A load
 *              event comes before its read access in the stream, a store's after its write.
 *              MS_ATOMIC_SPIN: the thread's loads of this address just before this one, with
 *              only a spin iteration's accesses between them (MS_ATOMIC_SPIN_BODY_MAX), returned
 *              an unchanged value and were not recorded, nor those accesses (a spin-wait collapsed
 *              at record time). The replay also skips every spin iteration but the last,
 *              with the WORK events of its blocks (src/replay/replay_atomic.c), so a spin is
 *              replayed as one load that waits. Plugin builds record the ordered atomics
 *              through the same hooks (docs/plugin.md). */
#ifndef MEMSPY_FORMAT_STREAM_H
#define MEMSPY_FORMAT_STREAM_H
#include <stddef.h>
#include <stdint.h>

#define MS_STREAM_MAGIC "MSPYREC" /* 7 chars + NUL = 8 bytes */
#define MS_STREAM_VERSION 6u      /* 3: WORK events, 4: ATOMIC events, 5: sync sites, 6: deltas per context */
#define MS_STREAM_HEADER_SIZE 16u
#define MS_STREAM_CHUNK_HEADER_SIZE 20u
#define MS_STREAM_EVENT_MAX 41u /* longest encoded event: a sync event, 1 + 4 x 10 bytes */

enum {
    MS_SYNC_ACQUIRE = 1,
    MS_SYNC_RELEASE = 2,
    MS_SYNC_BARRIER = 3,
    MS_SYNC_CREATE = 4,
    MS_SYNC_JOIN = 5,
    MS_SYNC_EXIT = 6,
    MS_SYNC_COND_WAIT = 7,
    MS_SYNC_COND_SIGNAL = 8,
    MS_SYNC_SEM_POST = 9,
    MS_SYNC_SEM_WAIT = 10,
    MS_SYNC_FORK = 11,
    MS_SYNC_BEGIN = 12,
    MS_SYNC_WORK = 13,
    MS_SYNC_ATOMIC = 14,
    MS_SYNC_KIND_MAX = 14
};

/* ATOMIC's arg: the memory order (__ATOMIC_*, 0..5) in bits 0-2, then these flags. */
#define MS_ATOMIC_ORDER_MASK 7u
#define MS_ATOMIC_READ 8u     /* it read the location (load, read-modify-write, failed CAS) */
#define MS_ATOMIC_WRITE 16u   /* it wrote the location (store, read-modify-write) */
#define MS_ATOMIC_CHANGED 32u /* the value differs from the one the thread saw just before */
#define MS_ATOMIC_SPIN 64u    /* it ended a spin-wait (unchanged loads before it not recorded) */
/* A spin-wait's iteration: an ordered load of an address, then at most this many plain
 * accesses (the loop's own, e.g. its locals and the load's temporary at -O0; no other event)
 * before the next ordered load of the same address. How often a wait loop runs depends on the
 * OS schedule, so whatever it does while it waits is collapsed with it. At -O0 an iteration
 * also loads and stores its locals' and its callees' parameters' stack slots (a C++
 * std::atomic load is a call there: a dozen accesses). */
#define MS_ATOMIC_SPIN_BODY_MAX 32u

/* Whether an ATOMIC event with arg acquires (a read with consume, acquire, acq_rel or seq_cst
 * order) or releases (a write with release, acq_rel or seq_cst order). Orders are __ATOMIC_*
 * values: relaxed 0, consume 1, acquire 2, release 3, acq_rel 4, seq_cst 5. */
static inline int ms_atomic_acquires(uint64_t arg)
{
    uint64_t mo = arg & MS_ATOMIC_ORDER_MASK;
    return (arg & MS_ATOMIC_READ) && mo != 0 && mo != 3;
}
static inline int ms_atomic_releases(uint64_t arg)
{
    uint64_t mo = arg & MS_ATOMIC_ORDER_MASK;
    return (arg & MS_ATOMIC_WRITE) && mo >= 3;
}

/* Whether a sync event of kind in a stream of version carries a site (the fourth varint). */
static inline int ms_stream_has_site(uint32_t version, uint64_t kind)
{
    return version >= 5 && kind != MS_SYNC_WORK && kind != MS_SYNC_ATOMIC;
}

/* The unnamed OpenMP critical section's lock id (named ones use the name variable's address). */
#define MS_SYNC_UNNAMED_CRITICAL 1u
/* GOMP_atomic_start/end's lock id. */
#define MS_SYNC_OMP_ATOMIC 2u

/* Append v as an unsigned LEB128 varint at p; returns the end. */
static inline unsigned char *ms_stream_put_varint(unsigned char *p, uint64_t v)
{
    while (v >= 0x80) {
        *p++ = (unsigned char)(v | 0x80);
        v >>= 7;
    }
    *p++ = (unsigned char)v;
    return p;
}

/* Read an unsigned LEB128 varint at *p (not past end) into *v and advance *p; returns 0, or
 * -1 when it runs past end or over 64 bits. The one-byte case (most heads and sizes) first. */
static inline int ms_stream_get_varint(const unsigned char **p, const unsigned char *end, uint64_t *v)
{
    if (__builtin_expect(*p < end && **p < 0x80, 1)) {
        *v = *(*p)++;
        return 0;
    }
    uint64_t x = 0;
    for (int shift = 0; shift < 64 && *p < end; shift += 7) {
        unsigned char b = *(*p)++;
        x |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *v = x;
            return 0;
        }
    }
    return -1;
}

/* ---- Version 6: address deltas per context within a chunk ----
 * The writer and every reader keep the same table: a slot per ctx % MS_STREAM_CTX_SLOTS with
 * the context that used it last in the chunk and that access's address. An access's delta is
 * from its context's slot where the slot holds that context (set in this chunk), else from
 * the thread's previous access address in the chunk (0 before the chunk's first access); then
 * the slot takes the access. Emptying the table (ms_stream_ctx_reset) and the previous address
 * at each chunk's start keeps chunks decodable one by one (in parallel, no address to carry).
 * A chunk's generation tells the slots set in it, so a reset is one increment. */
#define MS_STREAM_CTX_SLOTS 1024u
typedef struct {
    uint64_t key; /* the chunk's generation << 32 | ctx; 0: empty */
    uint64_t addr;
} ms_stream_ctx_slot;
typedef struct {
    ms_stream_ctx_slot slot[MS_STREAM_CTX_SLOTS];
    uint64_t gen; /* the current chunk's generation << 32 (never 0 once reset) */
} ms_stream_ctx_table;

/* A new chunk starts: forget every slot (a table starts zeroed). */
static inline void ms_stream_ctx_reset(ms_stream_ctx_table *t)
{
    t->gen += 1ull << 32;
    if (t->gen == 0) { /* 2^32 chunks: the generations wrap, the slots are cleared */
        for (unsigned i = 0; i < MS_STREAM_CTX_SLOTS; i++) t->slot[i] = (ms_stream_ctx_slot){ 0, 0 };
        t->gen = 1ull << 32;
    }
}

/* The address an access of ctx is a delta from (prev: the thread's previous access address). */
static inline uint64_t ms_stream_ctx_base(const ms_stream_ctx_table *t, uint32_t ctx, uint64_t prev)
{
    const ms_stream_ctx_slot *sl = &t->slot[ctx % MS_STREAM_CTX_SLOTS];
    return sl->key == (t->gen | ctx) ? sl->addr : prev;
}

/* The access of ctx at addr is its context's last one. */
static inline void ms_stream_ctx_set(ms_stream_ctx_table *t, uint32_t ctx, uint64_t addr)
{
    t->slot[ctx % MS_STREAM_CTX_SLOTS] = (ms_stream_ctx_slot){ t->gen | ctx, addr };
}

/* Zigzag mapping of a signed delta to an unsigned number (small magnitudes stay small). */
static inline uint64_t ms_stream_zigzag(int64_t v) { return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63); }
static inline int64_t ms_stream_unzigzag(uint64_t v) { return (int64_t)(v >> 1) ^ -(int64_t)(v & 1); }

/* Little-endian fixed-width integers. */
static inline void ms_stream_put_u32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++) p[i] = (unsigned char)(v >> (8 * i));
}
static inline void ms_stream_put_u64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++) p[i] = (unsigned char)(v >> (8 * i));
}
static inline uint32_t ms_stream_get_u32(const unsigned char *p)
{
    uint32_t v = 0;
    for (int i = 3; i >= 0; i--) v = v << 8 | p[i];
    return v;
}
static inline uint64_t ms_stream_get_u64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = v << 8 | p[i];
    return v;
}

/* ---- The stream's sync index (a zstd skippable frame after the stream's last frame) ----
 *
 * So that the replay need not decompress and parse every stream twice (once for the events
 * other threads wait for, once to replay it), the runtime appends to each stream it ends
 * cleanly a zstd skippable frame (which every zstd decompressor, old memspy readers
 * included, skips) holding the events the replay's pre-scan looks for. In the file:
 *
 *   u32 MS_STREAM_INDEX_FRAME | u32 C (content bytes) | content[C]
 *   content: "MSPYIDX\0" | u32 index version (MS_STREAM_INDEX_VERSION) | u32 thread index |
 *            u32 stream version | u32 flags (MS_STREAM_INDEX_WORK) |
 *            u64 stream bytes (the file's bytes before this frame) | u32 crc32 of them |
 *            u32 max ctx (every context id in the stream is at most this) |
 *            u64 chunks | u64 entries | entry... |
 *            u32 crc32 (of the content before it) | u32 C + 8 | "MSIX"
 *   entry  : varints kind, obj, arg, seq, site, chunk (the chunk's ordinal, from 0, minus the
 *            previous entry's): every CREATE and every releasing ATOMIC (ms_atomic_releases)
 *            of the stream, in stream order.
 *
 * A reader finds the frame from the file's last 8 bytes. It uses the index only when
 * everything checks out (version known, both CRCs, the stream bytes and the thread index
 * matching, max ctx within the contexts of the recording), so an index vouches for a stream
 * exactly as the runtime wrote it; otherwise (no index: older recordings, a process that did not
 * end its streams, a stream damaged or rewritten since) it scans the stream itself. A newer
 * index version is ignored the same way; the stream format itself is unchanged. */
#define MS_STREAM_INDEX_FRAME 0x184D2A5Du /* one of zstd's skippable frame magics */
#define MS_STREAM_INDEX_MAGIC "MSPYIDX"   /* 7 chars + NUL = 8 bytes */
#define MS_STREAM_INDEX_VERSION 1u
#define MS_STREAM_INDEX_TAIL "MSIX"
#define MS_STREAM_INDEX_WORK 1u              /* flags: the stream holds WORK events */
#define MS_STREAM_INDEX_HEAD (8u + 56u)      /* frame header and content up to the entries */
#define MS_STREAM_INDEX_TRAILER 12u          /* crc32, frame size, "MSIX" */
#define MS_STREAM_INDEX_ENTRY_MAX (6u * 10u) /* longest encoded entry */

/* Whether the sync event (kind, arg) goes into the index: what the replay's pre-scan needs. */
static inline int ms_stream_index_wants(uint64_t kind, uint64_t arg)
{
    return kind == MS_SYNC_CREATE || (kind == MS_SYNC_ATOMIC && ms_atomic_releases(arg));
}

/* Append one entry at p (MS_STREAM_INDEX_ENTRY_MAX bytes of room); chunk_delta: its chunk's
 * ordinal minus the previous entry's (the first: the ordinal). Returns the end. */
static inline unsigned char *ms_stream_index_put_entry(unsigned char *p, uint64_t kind, uint64_t obj, uint64_t arg,
                                                       uint64_t seq, uint64_t site, uint64_t chunk_delta)
{
    p = ms_stream_put_varint(p, kind);
    p = ms_stream_put_varint(p, obj);
    p = ms_stream_put_varint(p, arg);
    p = ms_stream_put_varint(p, seq);
    p = ms_stream_put_varint(p, site);
    return ms_stream_put_varint(p, chunk_delta);
}

/* The fields of an index frame but its entries. */
typedef struct {
    uint32_t thread_index, stream_version, flags, stream_crc, max_ctx;
    uint64_t stream_bytes, chunks, entries;
} ms_stream_index_info;

/* Fill in the frame whose entries are the `len` bytes at f + MS_STREAM_INDEX_HEAD (f holds
 * MS_STREAM_INDEX_HEAD + len + MS_STREAM_INDEX_TRAILER bytes): its header and trailer, crc32
 * computed by crc (zlib's crc32: the runtime and the readers bind it differently). Returns
 * the frame's size. */
static inline size_t ms_stream_index_seal(unsigned char *f, size_t len, const ms_stream_index_info *in,
                                          unsigned long (*crc)(unsigned long, const unsigned char *, unsigned))
{
    size_t total = MS_STREAM_INDEX_HEAD + len + MS_STREAM_INDEX_TRAILER;
    ms_stream_put_u32(f, MS_STREAM_INDEX_FRAME);
    ms_stream_put_u32(f + 4, (uint32_t)(total - 8));
    unsigned char *c = f + 8;
    for (int i = 0; i < 8; i++) c[i] = (unsigned char)MS_STREAM_INDEX_MAGIC[i];
    ms_stream_put_u32(c + 8, MS_STREAM_INDEX_VERSION);
    ms_stream_put_u32(c + 12, in->thread_index);
    ms_stream_put_u32(c + 16, in->stream_version);
    ms_stream_put_u32(c + 20, in->flags);
    ms_stream_put_u64(c + 24, in->stream_bytes);
    ms_stream_put_u32(c + 32, in->stream_crc);
    ms_stream_put_u32(c + 36, in->max_ctx);
    ms_stream_put_u64(c + 40, in->chunks);
    ms_stream_put_u64(c + 48, in->entries);
    unsigned char *t = f + MS_STREAM_INDEX_HEAD + len;
    ms_stream_put_u32(t, (uint32_t)crc(0, c, (unsigned)(t - c)));
    ms_stream_put_u32(t + 4, (uint32_t)total);
    for (int i = 0; i < 4; i++) t[8 + i] = (unsigned char)MS_STREAM_INDEX_TAIL[i];
    return total;
}

#endif
