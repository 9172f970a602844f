/* The multiprocessor fields of the configuration: validation, the canonical text (only
 * non-default fields appended, exact round trip, older texts still parse) and config-file keys. */
#include <string.h>

#include "check.h"
#include "sim/config.h"

static ms_hier_config two_levels(void)
{
    ms_hier_config cfg;
    char err[200];
    memset(&cfg, 0, sizeof cfg);
    cfg.mem_latency = 200;
    if (ms_config_parse_cache("L1=32K:8:64:4,L2=1M:16:128:14", &cfg, err, sizeof err) != 0)
        fprintf(stderr, "%s\n", err);
    return cfg;
}

static void test_validate(void)
{
    char err[200];
    ms_hier_config cfg = two_levels();
    CHECK_EQ_INT(ms_config_validate(&cfg, err, sizeof err), 0);
    cfg.nprocs = 65;
    CHECK_EQ_INT(ms_config_validate(&cfg, err, sizeof err), -1);
    CHECK_STR(err, "processors 65 is more than 64");
    cfg = two_levels();
    cfg.shared_from = 3;
    CHECK_EQ_INT(ms_config_validate(&cfg, err, sizeof err), -1);
    CHECK_STR(err, "shared level 3 is not in 0..2");
    cfg = two_levels();
    cfg.coherence_unit = 96;
    CHECK_EQ_INT(ms_config_validate(&cfg, err, sizeof err), -1);
    CHECK_STR(err, "coherence unit 96 is not a power of two");
    cfg.coherence_unit = 64; /* L2 (128-byte lines) is private: too small */
    CHECK_EQ_INT(ms_config_validate(&cfg, err, sizeof err), -1);
    CHECK_STR(err, "coherence unit 64 is smaller than the L2 line 128");
    cfg.shared_from = 1; /* L2 shared: only L1's line counts */
    CHECK_EQ_INT(ms_config_validate(&cfg, err, sizeof err), 0);
    cfg = two_levels();
    cfg.protocol = (ms_protocol)2;
    CHECK_EQ_INT(ms_config_validate(&cfg, err, sizeof err), -1);
    CHECK_STR(err, "protocol 2 is unknown");
    cfg = two_levels();
    cfg.nprocs = 4;
    cfg.nnodes = 5;
    CHECK_EQ_INT(ms_config_validate(&cfg, err, sizeof err), -1);
    CHECK_STR(err, "nodes 5 is more than the processors (4)");
    cfg.nnodes = 4;
    CHECK_EQ_INT(ms_config_validate(&cfg, err, sizeof err), 0);
    cfg.nprocs = 0; /* one per thread: decided later */
    CHECK_EQ_INT(ms_config_validate(&cfg, err, sizeof err), 0);
}

static void test_format_round_trip(void)
{
    char text[512], again[512], err[200];
    ms_hier_config cfg = two_levels();
    ms_config_format(&cfg, text, sizeof text);
    CHECK_STR(text, "L1=32K:8:64:4:lru,L2=1M:16:128:14:lru;mem=200");
    cfg.nprocs = 4;
    cfg.shared_from = 1;
    cfg.coherence_unit = 4096;
    cfg.protocol = MS_PROTO_MSI;
    cfg.nnodes = 2;
    cfg.remote_latency = 400;
    int len = ms_config_format(&cfg, text, sizeof text);
    CHECK_STR(text, "L1=32K:8:64:4:lru,L2=1M:16:128:14:lru;mem=200;procs=4;shared=1;unit=4096;proto=msi;"
                    "nodes=2;remote=400");
    CHECK_EQ_INT(len, (int)strlen(text));
    ms_hier_config back;
    memset(&back, 0xff, sizeof back);
    CHECK_EQ_INT(ms_config_parse_full(text, &back, err, sizeof err), 0);
    CHECK(memcmp(&back, &cfg, sizeof cfg) == 0);
    ms_config_format(&back, again, sizeof again);
    CHECK_STR(again, text);
    /* Only the fields that differ from their default; a preset name stays. */
    cfg = two_levels();
    cfg.nprocs = 2;
    snprintf(cfg.preset, sizeof cfg.preset, "x86");
    ms_config_format(&cfg, text, sizeof text);
    CHECK_STR(text, "L1=32K:8:64:4:lru,L2=1M:16:128:14:lru;mem=200;preset=x86;procs=2");
    CHECK_EQ_INT(ms_config_parse_full(text, &back, err, sizeof err), 0);
    CHECK_EQ(back.nprocs, 2);
    CHECK_STR(back.preset, "x86");
    /* Errors. */
    CHECK_EQ_INT(ms_config_parse_full("L1=32K:8:64:4:lru;mem=200;procs=x", &back, err, sizeof err), -1);
    CHECK_STR(err, "configuration field procs value 'x' is not valid");
    CHECK_EQ_INT(ms_config_parse_full("L1=32K:8:64:4:lru;mem=200;colour=red", &back, err, sizeof err), -1);
    CHECK_STR(err, "unknown configuration field 'colour'");
    CHECK_EQ_INT(ms_config_parse_full("L1=32K:8:64:4:lru;mem=200;proto=moesi", &back, err, sizeof err), -1);
    CHECK_EQ_INT(ms_config_parse_full("L1=32K:8:64:4:lru;mem=200;procs=99", &back, err, sizeof err), -1);
    CHECK_STR(err, "processors 99 is more than 64");
}

static void test_config_file_keys(void)
{
    char err[200];
    ms_hier_config cfg;
    memset(&cfg, 0, sizeof cfg);
    const char *text = "preset = x86\nprocs = 8\nshared = 2\ncoherence-unit = 4K\nprotocol = msi\n"
                       "nodes = 2\nremote-latency = 500\n";
    CHECK_EQ_INT(ms_config_parse_text(text, &cfg, err, sizeof err), 0);
    CHECK_EQ(cfg.nprocs, 8);
    CHECK_EQ_INT(cfg.shared_from, 2);
    CHECK_EQ(cfg.coherence_unit, 4096);
    CHECK_EQ_INT(cfg.protocol, MS_PROTO_MSI);
    CHECK_EQ(cfg.nnodes, 2);
    CHECK_EQ(cfg.remote_latency, 500);
    CHECK_EQ_INT(ms_config_parse_text("preset = x86\nprotocol = dragon\n", &cfg, err, sizeof err), -1);
    CHECK_STR(err, "line 2: protocol 'dragon' is not valid");
    CHECK_EQ_INT(ms_config_parse_text("preset = x86\nprocs = 2\nnodes = 3\n", &cfg, err, sizeof err), -1);
    CHECK_STR(err, "nodes 3 is more than the processors (2)");
}

int main(void)
{
    test_validate();
    test_format_round_trip();
    test_config_file_keys();
    return check_result();
}
