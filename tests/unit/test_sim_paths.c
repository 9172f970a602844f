/* Which access path ms_sim_create chooses (sim_internal.h, uni_lru.c): every preset and every
 * one-processor hierarchy of LRU levels with at most 16 ways and one line size runs the
 * specialised path, the presets' geometries their own instance; PLRU, random, wider sets,
 * larger lower lines run the general path, several processors the coherent one. Results are the same
 * either way (test_sim_diff); this test keeps a change from silently dropping a hierarchy
 * back onto the slower path. */
#include "sim/sim_internal.h"
#include "sim_testutil.h"

static ms_sim *from_preset(const char *name)
{
    ms_hier_config cfg;
    char err[200];
    ms_allocator a = test_allocator(&default_heap);
    ms_sim *sim = NULL;
    if (ms_config_preset(name, &cfg, err, sizeof err) != 0 || ms_sim_create(&sim, &cfg, &a) != 0) {
        fprintf(stderr, "preset %s: %s\n", name, err);
        exit(1);
    }
    return sim;
}

static int specialised(const ms_sim *sim) { return sim->access == ms_uni_access && sim->uni_line != NULL; }

int main(void)
{
    static const char *const presets[] = { "x86", "x86-l2", "memspy92", "cachegrind" };
    for (int i = 0; i < 4; i++) {
        ms_sim *sim = from_preset(presets[i]);
        if (!specialised(sim)) fprintf(stderr, "preset %s does not run the specialised path\n", presets[i]);
        CHECK(specialised(sim));
        ms_sim_destroy(sim);
    }

    /* Instances: x86's 8/16/16 ways and x86-l2's 8/16 have their own, shared with any
     * hierarchy of those ways; other geometries share the general instance. */
    ms_sim *x86 = from_preset("x86"), *l2 = from_preset("x86-l2"), *cg = from_preset("cachegrind");
    ms_sim *same3 = sim_from_text("L1=4K:8:64:4,L2=16K:16:64:14,L3=64K:16:64:50;mem=200");
    ms_sim *four = sim_from_text("L1=2K:4:64:4,L2=8K:8:64:14;mem=200");
    ms_sim *dm = from_preset("memspy92");
    CHECK(x86->uni_line == same3->uni_line);
    CHECK(l2->uni_line == cg->uni_line);
    CHECK(x86->uni_line != l2->uni_line);
    CHECK(four->uni_line == dm->uni_line);
    CHECK(four->uni_line != x86->uni_line && four->uni_line != l2->uni_line);
    ms_sim_destroy(x86);
    ms_sim_destroy(l2);
    ms_sim_destroy(cg);
    ms_sim_destroy(same3);
    ms_sim_destroy(four);
    ms_sim_destroy(dm);

    static const char *const general[] = {
        "L1=2K:4:64:4:plru,L2=8K:8:64:14;mem=200",
        "L1=2K:4:64:4,L2=8K:8:64:14:random;mem=200",
        "L1=4K:32:64:3,L2=32K:16:64:10;mem=100",
        "L1=2K:4:64:4,L2=8K:8:128:14;mem=200",
    };
    for (int i = 0; i < 4; i++) {
        ms_sim *sim = sim_from_text(general[i]);
        if (sim->access != ms_sim_access_any) fprintf(stderr, "%s does not run the general path\n", general[i]);
        CHECK(sim->access == ms_sim_access_any);
        ms_sim_destroy(sim);
    }

    /* Several processors: the coherent path (coherence.c), with its own L1-hit fast path. */
    /* 64-byte lines and units (every preset's threaded default) run its constant-shift instance. */
    static const char *const coherent[] = {
        "L1=2K:4:64:4,L2=8K:8:64:14;mem=200;procs=2",
        "L1=2K:4:64:4,L2=8K:8:64:14,L3=32K:16:64:40;mem=200;procs=4;shared=2",
        "L1=2K:4:64:4:plru,L2=16K:8:128:14;mem=200;procs=3;shared=1;unit=256;proto=msi",
        "L1=2K:4:32:4,L2=8K:8:32:14;mem=200;procs=2",
    };
    for (int i = 0; i < 4; i++) {
        ms_sim *sim = sim_from_text(coherent[i]);
        int (*want)(ms_sim *, unsigned, uint64_t, uint32_t, unsigned, uint32_t) =
            i < 2 ? ms_coh_access_line64 : ms_coh_access;
        if (sim->access != want) fprintf(stderr, "%s does not run its coherent path\n", coherent[i]);
        CHECK(sim->access == want);
        CHECK_EQ_INT(sim->coh_quiet64, i < 2); /* psim.c settles its quiet hits in line */
        ms_sim_destroy(sim);
    }
    return check_result();
}
