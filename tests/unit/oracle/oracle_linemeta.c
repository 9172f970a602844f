#include "oracle_rename.h"
/* Sparse per-line metadata: a fixed number of zero-initialised words for every memory line
 * ever touched (the simulator's per-line record, see sim_internal.h). Lines are grouped in
 * chunks of MS_META_CHUNK_LINES consecutive lines, found through an open-addressing hash of
 * chunk numbers fronted by a small direct-mapped cache of recent chunks (a miss path touches
 * a few distinct chunks: the missing line's and its victims'), so memory grows with the
 * touched footprint only. Chunks never move, so a record pointer stays valid. */
#include <string.h>

#include "oracle_sim_internal.h"

int ms_linemeta_init(ms_linemeta *lm, unsigned words_per_line, ms_mem *mem)
{
    memset(lm, 0, sizeof *lm);
    lm->words_per_line = words_per_line;
    lm->mem = mem;
    lm->stand_in = ms_mem_alloc(mem, words_per_line * sizeof(uint32_t));
    return lm->stand_in ? 0 : -1;
}

static size_t chunk_bytes(const ms_linemeta *lm)
{
    return (size_t)MS_META_CHUNK_LINES * lm->words_per_line * sizeof(uint32_t);
}

void ms_linemeta_free(ms_linemeta *lm)
{
    for (size_t i = 0; i < lm->nslots; i++) ms_mem_release(lm->mem, lm->slots[i].words, chunk_bytes(lm));
    ms_mem_release(lm->mem, lm->slots, lm->nslots * sizeof(ms_meta_slot));
    lm->slots = NULL;
    lm->nslots = lm->nchunks = 0;
    memset(lm->recent, 0, sizeof lm->recent);
    ms_mem_release(lm->mem, lm->stand_in, lm->words_per_line * sizeof(uint32_t));
    lm->stand_in = NULL;
}

/* The stand-in record, zeroed. */
static uint32_t *stand_in(ms_linemeta *lm)
{
    memset(lm->stand_in, 0, lm->words_per_line * sizeof(uint32_t));
    return lm->stand_in;
}

static size_t home_slot(uint64_t chunk, size_t nslots)
{
    return (size_t)((chunk * 0x9E3779B97F4A7C15ull) >> 32) & (nslots - 1);
}

static ms_meta_slot *probe(ms_meta_slot *slots, size_t nslots, uint64_t chunk)
{
    size_t s = home_slot(chunk, nslots);
    while (slots[s].chunk != 0 && slots[s].chunk != chunk) s = (s + 1) & (nslots - 1);
    return &slots[s];
}

/* Double the slot table (keeps the load factor <= 1/2). */
static int grow(ms_linemeta *lm)
{
    size_t nslots = lm->nslots ? lm->nslots * 2 : 64;
    ms_meta_slot *slots = ms_mem_alloc(lm->mem, nslots * sizeof *slots);
    if (!slots) return -1;
    for (size_t i = 0; i < lm->nslots; i++)
        if (lm->slots[i].chunk) *probe(slots, nslots, lm->slots[i].chunk) = lm->slots[i];
    ms_mem_release(lm->mem, lm->slots, lm->nslots * sizeof(ms_meta_slot));
    lm->slots = slots;
    lm->nslots = nslots;
    return 0;
}

uint32_t *ms_linemeta_lookup_slow(ms_linemeta *lm, uint64_t key)
{
    uint64_t chunk = (key >> MS_META_CHUNK_SHIFT) + 1;
    if (2 * (lm->nchunks + 1) > lm->nslots && grow(lm) != 0) return stand_in(lm);
    ms_meta_slot *slot = probe(lm->slots, lm->nslots, chunk);
    if (!slot->chunk) {
        slot->words = ms_mem_alloc(lm->mem, chunk_bytes(lm));
        if (!slot->words) return stand_in(lm);
        slot->chunk = chunk;
        lm->nchunks++;
    }
    lm->recent[ms_meta_recent(chunk)] = *slot;
    return slot->words + (key & (MS_META_CHUNK_LINES - 1)) * lm->words_per_line;
}
