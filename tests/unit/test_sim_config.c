/* Configuration: presets, the --cache grammar, config files, validation messages and the
 * exact round trip of the canonical form. */
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "sim/config.h"

static int same_config(const ms_hier_config *a, const ms_hier_config *b)
{
    if (a->nlevels != b->nlevels || a->mem_latency != b->mem_latency || strcmp(a->preset, b->preset) != 0) return 0;
    for (int i = 0; i < a->nlevels; i++) {
        const ms_level_config *x = &a->level[i], *y = &b->level[i];
        if (x->size != y->size || x->ways != y->ways || x->line != y->line || x->latency != y->latency ||
            x->policy != y->policy)
            return 0;
    }
    return 1;
}

static void test_presets(void)
{
    char err[200];
    ms_hier_config cfg;
    const char *const *names = ms_config_preset_names();
    int n = 0;
    for (; names[n]; n++) {
        CHECK_EQ_INT(ms_config_preset(names[n], &cfg, err, sizeof err), 0);
        CHECK_EQ_INT(ms_config_validate(&cfg, err, sizeof err), 0);
        CHECK_STR(cfg.preset, names[n]);
        CHECK(ms_config_preset_description(names[n]) != NULL);
    }
    CHECK_EQ_INT(n, 4);

    CHECK_EQ_INT(ms_config_preset("x86", &cfg, err, sizeof err), 0);
    CHECK_EQ_INT(cfg.nlevels, 3);
    CHECK_EQ(cfg.level[0].size, 32768);
    CHECK_EQ(cfg.level[0].ways, 8);
    CHECK_EQ(cfg.level[0].latency, 4);
    CHECK_EQ(cfg.level[1].size, 1 << 20);
    CHECK_EQ(cfg.level[1].latency, 14);
    CHECK_EQ(cfg.level[2].size, 2 << 20);
    CHECK_EQ(cfg.level[2].ways, 16);
    CHECK_EQ(cfg.level[2].latency, 50);
    CHECK_EQ(cfg.mem_latency, 200);

    CHECK_EQ_INT(ms_config_preset("memspy92", &cfg, err, sizeof err), 0);
    CHECK_EQ_INT(cfg.nlevels, 1);
    CHECK_EQ(cfg.level[0].ways, 1);
    CHECK_EQ(cfg.level[0].latency, 0);
    CHECK_EQ(cfg.mem_latency, 50);

    CHECK_EQ_INT(ms_config_preset("cachegrind", &cfg, err, sizeof err), 0);
    CHECK_EQ(cfg.level[1].size, 8 << 20);
    CHECK_EQ(cfg.level[1].ways, 16);

    CHECK_EQ_INT(ms_config_preset("foo", &cfg, err, sizeof err), -1);
    CHECK_STR(err, "unknown preset 'foo' (known: x86, x86-l2, memspy92, cachegrind)");
    CHECK(ms_config_preset_description("foo") == NULL);
}

static void test_sizes(void)
{
    uint64_t v = 0;
    CHECK_EQ_INT(ms_config_parse_size("32K", &v), 0);
    CHECK_EQ(v, 32768);
    CHECK_EQ_INT(ms_config_parse_size("1M", &v), 0);
    CHECK_EQ(v, 1048576);
    CHECK_EQ_INT(ms_config_parse_size("2G", &v), 0);
    CHECK_EQ(v, 2147483648u);
    CHECK_EQ_INT(ms_config_parse_size("1536", &v), 0);
    CHECK_EQ(v, 1536);
    CHECK_EQ_INT(ms_config_parse_size("8kb", &v), 0);
    CHECK_EQ(v, 8192);
    CHECK_EQ_INT(ms_config_parse_size("", &v), -1);
    CHECK_EQ_INT(ms_config_parse_size("K", &v), -1);
    CHECK_EQ_INT(ms_config_parse_size("12Q", &v), -1);
    CHECK_EQ_INT(ms_config_parse_size("-1", &v), -1);
    CHECK_EQ_INT(ms_config_parse_size("99999999999999999999", &v), -1);
    CHECK_EQ_INT(ms_config_parse_size("99999999999999G", &v), -1);
}

static void test_cache_spec(void)
{
    char err[200];
    ms_hier_config cfg;
    CHECK_EQ_INT(ms_config_preset("x86", &cfg, err, sizeof err), 0);
    CHECK_EQ_INT(ms_config_parse_cache("L1=16K:4:32:3:plru, L2=512K:8:64:12:random", &cfg, err, sizeof err), 0);
    CHECK_EQ_INT(cfg.nlevels, 2);
    CHECK_EQ(cfg.level[0].size, 16384);
    CHECK_EQ(cfg.level[0].ways, 4);
    CHECK_EQ(cfg.level[0].line, 32);
    CHECK_EQ(cfg.level[0].latency, 3);
    CHECK_EQ(cfg.level[0].policy, MS_POLICY_PLRU);
    CHECK_EQ(cfg.level[1].policy, MS_POLICY_RANDOM);
    CHECK_EQ(cfg.mem_latency, 200); /* kept */
    CHECK_STR(cfg.preset, "");      /* no longer the preset */

    static const struct {
        const char *spec, *message;
    } bad[] = {
        { "L1=30000:8:64:4", "L1 size 30000 is not a multiple of line*ways (512)" },
        { "L1=32K:8:64:4,L2=1M:16:48:14", "L2 line 48 is not a power of two" },
        { "L1=32K:8:64", "L1: expected SIZE:WAYS:LINE:LATENCY" },
        { "L1=32K:8:64:4:1:2", "L1: expected SIZE:WAYS:LINE:LATENCY" },
        { "L2=1M:16:64:14", "levels must be given in order L1, L2, L3" },
        { "L1=32K:8:64:4,L3=1M:16:64:14", "levels must be given in order L1, L2, L3" },
        { "L1=32K:8:64:4:mru", "L1 policy 'mru' is unknown" },
        { "L1=32Q:8:64:4", "L1 size '32Q' is not a size" },
        { "L1=32K:x:64:4", "L1 ways 'x' is not a number" },
        { "L1=32K:8:64:y", "L1 latency 'y' is not a number" },
        { "L1=32K:0:64:4", "L1 ways must be at least 1" },
        { "L1=48K:4:64:4", "L1 sets (size/(line*ways)) 192 is not a power of two" },
        { "L1=24K:6:64:4:plru", "L1 ways 6 must be a power of two for plru" },
        { "L1=32K:8:64:4,L2=1M:16:32:14", "L2 line 32 is smaller than L1 line 64" },
        { "L1=32K:8:64:4,L2=1M:16:64:2", "L2 latency 2 is below L1 latency 4" },
        { "L4=32K:8:64:4", "expected L1=..., L2=... or L3=..." },
        { "L1=32K:8:64:4,L2=1M:16:64:14,L3=2M:16:64:50,L3=2M:16:64:50", "at most 3 levels" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ms_hier_config before;
        CHECK_EQ_INT(ms_config_preset("x86", &before, err, sizeof err), 0);
        cfg = before;
        err[0] = '\0';
        CHECK_EQ_INT(ms_config_parse_cache(bad[i].spec, &cfg, err, sizeof err), -1);
        CHECK_CONTAINS(err, bad[i].message);
        CHECK(same_config(&cfg, &before)); /* untouched on error */
    }
}

static void test_validate(void)
{
    char err[200];
    ms_hier_config cfg;
    CHECK_EQ_INT(ms_config_preset("x86", &cfg, err, sizeof err), 0);
    cfg.nlevels = 0;
    CHECK_EQ_INT(ms_config_validate(&cfg, err, sizeof err), -1);
    CHECK_CONTAINS(err, "number of levels 0");
    CHECK_EQ_INT(ms_config_preset("x86", &cfg, err, sizeof err), 0);
    cfg.mem_latency = 1;
    CHECK_EQ_INT(ms_config_validate(&cfg, err, sizeof err), -1);
    CHECK_STR(err, "memory latency 1 is below L1 latency 4");
    CHECK_EQ_INT(ms_config_preset("x86", &cfg, err, sizeof err), 0);
    cfg.level[2].line = 4;
    CHECK_EQ_INT(ms_config_validate(&cfg, err, sizeof err), -1);
    CHECK_CONTAINS(err, "L3 line 4 is not a power of two");
}

static void test_config_text(void)
{
    char err[200];
    ms_hier_config cfg;
    CHECK_EQ_INT(ms_config_preset("x86", &cfg, err, sizeof err), 0);
    const char *text = "# memspy cache configuration\n"
                       "preset = memspy92\n"
                       "\n"
                       "  l2 = 256K:4:64:12   # a second level\n"
                       "mem-latency = 120\n";
    CHECK_EQ_INT(ms_config_parse_text(text, &cfg, err, sizeof err), 0);
    CHECK_EQ_INT(cfg.nlevels, 2);
    CHECK_EQ(cfg.level[0].size, 32768);
    CHECK_EQ(cfg.level[0].ways, 1);
    CHECK_EQ(cfg.level[1].size, 262144);
    CHECK_EQ(cfg.level[1].latency, 12);
    CHECK_EQ(cfg.mem_latency, 120);
    CHECK_STR(cfg.preset, "");

    CHECK_EQ_INT(ms_config_parse_text("cache = L1=8K:2:64:1\nl1 = 16K:2:64:2\nmem-latency=9", &cfg, err, sizeof err),
                 0);
    CHECK_EQ_INT(cfg.nlevels, 1);
    CHECK_EQ(cfg.level[0].size, 16384); /* the later key wins */
    CHECK_EQ(cfg.mem_latency, 9);

    CHECK_EQ_INT(ms_config_parse_text("preset = x86\n", &cfg, err, sizeof err), 0);
    CHECK_STR(cfg.preset, "x86");

    ms_hier_config before = cfg;
    CHECK_EQ_INT(ms_config_parse_text("preset = x86\ncolour = red\n", &cfg, err, sizeof err), -1);
    CHECK_CONTAINS(err, "line 2: unknown key 'colour'");
    CHECK_EQ_INT(ms_config_parse_text("preset = memspy92\nl3 = 1M:16:64:14\n", &cfg, err, sizeof err), -1);
    CHECK_STR(err, "line 2: L3 given but the configuration has only 1 level(s)");
    CHECK_EQ_INT(ms_config_parse_text("just words\n", &cfg, err, sizeof err), -1);
    CHECK_STR(err, "line 1: expected 'key = value', got 'just words'");
    CHECK_EQ_INT(ms_config_parse_text("l1 = 30000:8:64:4\n", &cfg, err, sizeof err), -1);
    CHECK_STR(err, "L1 size 30000 is not a multiple of line*ways (512)");
    CHECK(same_config(&cfg, &before));
}

static void check_round_trip(const ms_hier_config *cfg)
{
    char text[512], again[512], err[200];
    int len = ms_config_format(cfg, text, sizeof text);
    CHECK_EQ_INT(len, (int)strlen(text));
    ms_hier_config back;
    memset(&back, 0xff, sizeof back);
    CHECK_EQ_INT(ms_config_parse_full(text, &back, err, sizeof err), 0);
    CHECK(same_config(cfg, &back));
    ms_config_format(&back, again, sizeof again);
    CHECK_STR(again, text);
}

static void test_round_trip(void)
{
    char err[200], text[512];
    ms_hier_config cfg;
    CHECK_EQ_INT(ms_config_preset("x86", &cfg, err, sizeof err), 0);
    ms_config_format(&cfg, text, sizeof text);
    CHECK_STR(text, "L1=32K:8:64:4:lru,L2=1M:16:64:14:lru,L3=2M:16:64:50:lru;mem=200;preset=x86;shared=2;llc=slice");
    for (const char *const *name = ms_config_preset_names(); *name; name++) {
        CHECK_EQ_INT(ms_config_preset(*name, &cfg, err, sizeof err), 0);
        check_round_trip(&cfg);
    }
    static const char *const specs[] = {
        "L1=1536:3:64:0:random",
        "L1=8K:2:32:1:plru,L2=3M:3:64:7:random,L3=1G:16:128:30",
        "L1=64:1:64:5",
        "L1=2G:1:128:1,L2=4G:2:128:1:plru",
    };
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        memset(&cfg, 0, sizeof cfg);
        cfg.mem_latency = (uint32_t)(77 + i);
        CHECK_EQ_INT(ms_config_parse_cache(specs[i], &cfg, err, sizeof err), 0);
        check_round_trip(&cfg);
    }
    /* Truncation: snprintf semantics. */
    CHECK_EQ_INT(ms_config_preset("x86", &cfg, err, sizeof err), 0);
    char small[10];
    int len = ms_config_format(&cfg, small, sizeof small);
    CHECK_EQ_INT(
        len,
        (int)strlen("L1=32K:8:64:4:lru,L2=1M:16:64:14:lru,L3=2M:16:64:50:lru;mem=200;preset=x86;shared=2;llc=slice"));
    CHECK_STR(small, "L1=32K:8:");

    CHECK_EQ_INT(ms_config_parse_full("L1=32K:8:64:4:lru", &cfg, err, sizeof err), -1);
    CHECK_CONTAINS(err, "lacks ';mem='");
    CHECK_EQ_INT(ms_config_parse_full("L1=32K:8:64:4:lru;mem=abc", &cfg, err, sizeof err), -1);
    CHECK_CONTAINS(err, "memory latency 'abc' is not a number");
}

/* The x86 preset for threads: L1 and L2 private, L3 shared and sized one 2M slice per
 * processor simulated; --cache and a replaced last level give sizes as they are. */
static void test_threads_default(void)
{
    char err[200];
    ms_hier_config cfg;
    CHECK_EQ_INT(ms_config_preset("x86", &cfg, err, sizeof err), 0);
    CHECK_EQ_INT(cfg.shared_from, 2);
    CHECK_EQ_INT(ms_config_shared_from(&cfg), 2);
    CHECK_EQ_INT(cfg.llc_slice, 1);
    static const struct {
        uint32_t procs;
        uint64_t size;
        uint32_t ways;
    } scaled[] = { { 0, 2u << 20, 16 },   { 1, 2u << 20, 16 },   { 2, 4u << 20, 16 },
                   { 3, 6u << 20, 48 },   { 4, 8u << 20, 16 },   { 6, 12u << 20, 48 },
                   { 12, 24u << 20, 48 }, { 16, 32u << 20, 16 }, { 64, 128u << 20, 16 } };
    for (size_t i = 0; i < sizeof scaled / sizeof scaled[0]; i++) {
        ms_hier_config c;
        CHECK_EQ_INT(ms_config_preset("x86", &c, err, sizeof err), 0);
        c.nprocs = scaled[i].procs;
        ms_config_scale_llc(&c, scaled[i].procs);
        CHECK_EQ(c.level[2].size, scaled[i].size);
        CHECK_EQ(c.level[2].ways, scaled[i].ways);
        CHECK_EQ(c.level[1].size, 1u << 20); /* private levels as they are */
        CHECK_EQ_INT(c.llc_slice, 0);
        CHECK_EQ_INT(ms_config_validate(&c, err, sizeof err), 0);
        ms_config_scale_llc(&c, scaled[i].procs); /* once only */
        CHECK_EQ(c.level[2].size, scaled[i].size);
    }
    /* Every level private (--shared none): each processor has its own slice. */
    ms_hier_config c = cfg;
    c.shared_from = 0;
    ms_config_scale_llc(&c, 4);
    CHECK_EQ(c.level[2].size, 2u << 20);
    /* L2 and L3 shared (--shared L2): L3 still one slice per processor, L2 as given. */
    c = cfg;
    c.shared_from = 1;
    ms_config_scale_llc(&c, 4);
    CHECK_EQ(c.level[1].size, 1u << 20);
    CHECK_EQ(c.level[2].size, 8u << 20);
    /* A fully associative slice stays fully associative. */
    CHECK_EQ_INT(
        ms_config_parse_full("L1=32K:8:64:4:lru,L2=64K:1024:64:14:lru;mem=200;shared=1;llc=slice", &c, err, sizeof err),
        0);
    ms_config_scale_llc(&c, 3);
    CHECK_EQ(c.level[1].size, 192u << 10);
    CHECK_EQ(c.level[1].ways, 3072);

    /* A custom hierarchy: every level private, sizes as given. */
    c = cfg;
    CHECK_EQ_INT(ms_config_parse_cache("L1=32K:8:64:4,L2=1M:16:64:14,L3=8M:16:64:50", &c, err, sizeof err), 0);
    CHECK_EQ_INT(c.shared_from, 0);
    CHECK_EQ_INT(c.llc_slice, 0);
    /* Config files: the preset's choice, a replaced L3 given whole, the llc key. */
    CHECK_EQ_INT(ms_config_parse_text("preset = x86\nl1 = 64K:8:64:4\n", &c, err, sizeof err), 0);
    CHECK_EQ_INT(c.shared_from, 2);
    CHECK_EQ_INT(c.llc_slice, 1);
    CHECK_EQ_INT(ms_config_parse_text("preset = x86\nl3 = 16M:16:64:50\n", &c, err, sizeof err), 0);
    CHECK_EQ_INT(c.shared_from, 2);
    CHECK_EQ_INT(c.llc_slice, 0);
    CHECK_EQ_INT(ms_config_parse_text("preset = x86\nllc = whole\n", &c, err, sizeof err), 0);
    CHECK_EQ_INT(c.llc_slice, 0);
    CHECK_EQ_INT(ms_config_parse_text("preset = x86-l2\nshared = 1\nllc = slice\n", &c, err, sizeof err), 0);
    CHECK_EQ_INT(c.llc_slice, 1);
    CHECK_EQ_INT(ms_config_parse_text("llc = half\n", &c, err, sizeof err), -1);
    CHECK_STR(err, "line 1: llc 'half' is not valid");
    CHECK_EQ_INT(ms_config_parse_full("L1=32K:8:64:4:lru;mem=200;llc=half", &c, err, sizeof err), -1);
    CHECK_CONTAINS(err, "configuration field llc value 'half' is not valid");
}

int main(void)
{
    test_presets();
    test_sizes();
    test_cache_spec();
    test_validate();
    test_config_text();
    test_round_trip();
    test_threads_default();
    return check_result();
}
