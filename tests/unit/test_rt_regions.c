/* The runtime's region table read without its lock (src/rt/regions.c, a seqlock): a writer
 * thread adds and removes regions (the table grows from 256 entries past 1,024 meanwhile,
 * entries shift on every insertion and removal, a removal from a region's middle splits it)
 * while reader threads look addresses up; every answer must be one the table held: the bin of
 * the region the address belongs to (or 0 while it is out), never a neighbour's, and a region
 * that stays the whole time is always found. Bounded by rounds of the writer, not by time. */
#include <pthread.h>

#include "check.h"
#include "rt/rt.h"

#define BASE ((uintptr_t)0x200000000000ull) /* an address range nothing else uses */
#define SLOT ((uintptr_t)0x10000)           /* slot i: [BASE + i * SLOT, + LEN), then a gap */
#define LEN ((uintptr_t)0x8000)
#define SLOTS 600u  /* more than the table's first two capacities (256, 512) */
#define STABLE 300u /* the slot whose region is never removed (bin 1) */
#define GENS 4u     /* bins per slot: slot i's region has bin 2 + i * GENS + gen % GENS */
#define ROUNDS 40u
#define READERS 3

static int done;
static uint64_t lookups, bad, stable_missed;

static uint32_t slot_bin(uint32_t i, uint32_t gen) { return i == STABLE ? 1 : 2 + i * GENS + gen % GENS; }

/* Whether bin b is an answer the table may give for an address in slot i at offset off. */
static int valid(uint32_t i, uintptr_t off, uint32_t b)
{
    if (off >= LEN) return b == 0; /* the gap: never a region */
    if (i == STABLE) return b == 1;
    return b == 0 || (b >= 2 && (b - 2) / GENS == i);
}

static uint64_t next_random(uint64_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return *x;
}

static void *reader(void *arg)
{
    uint64_t x = 0x9e3779b97f4a7c15ull * (uint64_t)(uintptr_t)arg + 1, n = 0, wrong = 0, missed = 0;
    while (!__atomic_load_n(&done, __ATOMIC_ACQUIRE)) {
        uint64_t r = next_random(&x);
        uint32_t i = (uint32_t)(r % SLOTS);
        uintptr_t off = (uintptr_t)(r >> 32) % SLOT;
        uint32_t b = ms_regions_bin_of(BASE + i * SLOT + off);
        n++;
        if (!valid(i, off, b)) {
            if (i == STABLE && b == 0) missed++;
            wrong++;
        }
    }
    __atomic_fetch_add(&lookups, n, __ATOMIC_RELAXED);
    __atomic_fetch_add(&bad, wrong, __ATOMIC_RELAXED);
    __atomic_fetch_add(&stable_missed, missed, __ATOMIC_RELAXED);
    return NULL;
}

/* One round of the writer: every slot but the stable one added in a scattered order, half of
 * them split by a removal from their middle, then all removed. */
static void writer_round(uint32_t gen)
{
    for (uint32_t k = 0; k < SLOTS; k++) {
        uint32_t i = (k * 389u + gen) % SLOTS; /* 389 is prime to SLOTS: every slot once */
        if (i != STABLE) ms_regions_add(BASE + i * SLOT, LEN, slot_bin(i, gen), 0);
    }
    for (uint32_t i = gen % 2; i < SLOTS; i += 2)
        if (i != STABLE) ms_regions_remove(BASE + i * SLOT + LEN / 4, LEN / 4);
    for (uint32_t k = 0; k < SLOTS; k++) {
        uint32_t i = (k * 211u + gen) % SLOTS;
        if (i != STABLE) ms_regions_remove(BASE + i * SLOT, LEN);
    }
}

int main(void)
{
    CHECK_EQ(ms_bins_init(), 0);
    ms_regions_add(BASE + STABLE * SLOT, LEN, slot_bin(STABLE, 0), 0);

    /* alone first: exact answers */
    writer_round(0);
    ms_regions_add(BASE + 7 * SLOT, LEN, slot_bin(7, 3), 0);
    CHECK_EQ(ms_regions_bin_of(BASE + 7 * SLOT), slot_bin(7, 3));
    CHECK_EQ(ms_regions_bin_of(BASE + 7 * SLOT + LEN - 1), slot_bin(7, 3));
    CHECK_EQ(ms_regions_bin_of(BASE + 7 * SLOT + LEN), 0u);
    CHECK_EQ(ms_regions_bin_of(BASE + 7 * SLOT - 1), 0u);
    ms_regions_remove(BASE + 7 * SLOT + LEN / 4, LEN / 4); /* split in two */
    CHECK_EQ(ms_regions_bin_of(BASE + 7 * SLOT + LEN / 4 - 1), slot_bin(7, 3));
    CHECK_EQ(ms_regions_bin_of(BASE + 7 * SLOT + LEN / 4), 0u);
    CHECK_EQ(ms_regions_bin_of(BASE + 7 * SLOT + LEN / 2 - 1), 0u);
    CHECK_EQ(ms_regions_bin_of(BASE + 7 * SLOT + LEN / 2), slot_bin(7, 3));
    ms_regions_remove(BASE + 7 * SLOT, LEN);
    CHECK_EQ(ms_regions_bin_of(BASE + 7 * SLOT + LEN / 2), 0u);
    CHECK_EQ(ms_regions_bin_of(BASE + STABLE * SLOT + LEN / 2), 1u);

    /* then with readers */
    pthread_t th[READERS];
    for (int r = 0; r < READERS; r++) CHECK_EQ(pthread_create(&th[r], NULL, reader, (void *)(uintptr_t)(r + 1)), 0);
    for (uint32_t gen = 1; gen <= ROUNDS; gen++) writer_round(gen);
    __atomic_store_n(&done, 1, __ATOMIC_RELEASE);
    for (int r = 0; r < READERS; r++) pthread_join(th[r], NULL);
    fprintf(stderr, "%" PRIu64 " lookups during %u rounds of changes\n", lookups, ROUNDS);
    CHECK_EQ(bad, 0u);
    CHECK_EQ(stable_missed, 0u);
    CHECK_EQ(ms_regions_bin_of(BASE + STABLE * SLOT), 1u);
    CHECK_EQ(ms_regions_bin_of(BASE + 5 * SLOT), 0u);
    return check_result();
}
