/* Cache-hierarchy configuration: presets, the --cache spec grammar and config files.
 * Pure: no I/O, no globals beyond the constant preset table. Used by the CLI (to validate
 * before the program starts), by the runtime (to build its simulator) and by reports. */
#ifndef MEMSPY_SIM_CONFIG_H
#define MEMSPY_SIM_CONFIG_H
#include <stddef.h>
#include <stdint.h>

#define MS_MAX_LEVELS 3

typedef enum { MS_POLICY_LRU = 0, MS_POLICY_PLRU = 1, MS_POLICY_RANDOM = 2 } ms_policy;

typedef struct {
    uint64_t size;    /* bytes; multiple of line * ways */
    uint32_t ways;    /* associativity; ways == size/line means fully associative */
    uint32_t line;    /* bytes, power of two, >= 8 */
    uint32_t latency; /* hit latency in cycles (load-to-use) */
    ms_policy policy;
} ms_level_config;

#define MS_MAX_PROCS 64

/* Coherence protocol of a multiprocessor configuration (invalidation based). */
typedef enum { MS_PROTO_MESI = 0, MS_PROTO_MSI = 1 } ms_protocol;

typedef struct {
    int nlevels; /* 1..MS_MAX_LEVELS */
    ms_level_config level[MS_MAX_LEVELS];
    uint32_t mem_latency; /* cycles for an access served by memory */
    char preset[32];      /* preset name this came from, "" if custom */
    /* Multiprocessor (coherence). All zero = the defaults written in brackets. */
    uint32_t nprocs;         /* simulated processors 1..MS_MAX_PROCS [0: one per thread, decided
                               * by the replay; the simulator treats 0 as 1] */
    int shared_from;         /* first level shared by all processors (levels below it are private
                               * per processor) [0: meaning nlevels, every level private] */
    uint32_t coherence_unit; /* bytes, power of two >= the largest private line, e.g. 4096 for
                               * page-based DSM studies [0: the largest private line size] */
    ms_protocol protocol;    /* [MESI] */
    uint32_t nnodes;         /* processors grouped into this many nodes (DASH), memory homed
                               * round robin by coherence unit [0 or 1: one node, all local] */
    uint32_t remote_latency; /* cycles for a miss served by another node [0: 2 x mem_latency] */
    int llc_slice;           /* 1: the last level's size is one processor's slice (the x86 preset):
                              * shared by P processors it holds P slices (ms_config_scale_llc)
                              * [0: every size as given] */
    int utilisation;         /* 1: keep L1's spatial utilisation (docs/simulator.md): a separate,
                              * slower simulator path; [0: off, the default] */
} ms_hier_config;

/* Fill *out with the named preset ("memspy92", "x86", ...), with its multiprocessor defaults
 * (x86: L3 shared, a per-processor slice). Returns 0, or -1 with err set. */
int ms_config_preset(const char *name, ms_hier_config *out, char *err, size_t errlen);

/* Names of all presets, NULL-terminated, and a one-line description of each. */
const char *const *ms_config_preset_names(void);
const char *ms_config_preset_description(const char *name);

/* Parse "L1=32K:8:64:4[:lru|plru|random],L2=1M:16:64:14,L3=..." into out->level[]
 * (keeps out->mem_latency and the other multiprocessor fields; a custom hierarchy has every
 * level private and its sizes as given: shared_from and llc_slice are reset). Returns 0, or
 * -1 with err naming the bad field. */
int ms_config_parse_cache(const char *spec, ms_hier_config *out, char *err, size_t errlen);

/* Parse a config file's text: lines "key = value", '#' comments; keys: preset, cache,
 * mem-latency, l1/l2/l3 (one level spec each; one that replaces or adds the last level drops
 * llc_slice) and the multiprocessor keys (procs, shared, coherence-unit, protocol, nodes,
 * remote-latency, llc = slice|whole). Later keys override earlier ones. */
int ms_config_parse_text(const char *text, ms_hier_config *out, char *err, size_t errlen);

/* Check every field (sizes, power-of-two lines, size multiple of line*ways, level count,
 * increasing sizes are NOT required). Returns 0, or -1 with err naming level and field. */
int ms_config_validate(const ms_hier_config *cfg, char *err, size_t errlen);

/* Canonical text form "L1=32K:8:64:4:lru,L2=...;mem=200" that ms_config_parse_full() reads
 * back to an identical config; multiprocessor fields that differ from their zero default are
 * appended as ";procs=4;shared=3;unit=64;proto=msi;nodes=2;remote=400;llc=slice;util=1" (older texts
 * without them still parse). Returns the length written (snprintf semantics). */
int ms_config_format(const ms_hier_config *cfg, char *buf, size_t buflen);

/* Parse the canonical form written by ms_config_format (used to pass the config to the runtime). */
int ms_config_parse_full(const char *text, ms_hier_config *out, char *err, size_t errlen);

/* Parse a size like "32K", "1M", "1536", "2G". Returns 0 or -1. */
int ms_config_parse_size(const char *s, uint64_t *out);

/* Multiprocessor defaults, worked out in one place for the simulator and the reports. */
/* Index of the first shared level: shared_from, or nlevels when every level is private. */
int ms_config_shared_from(const ms_hier_config *cfg);
/* The coherence unit in bytes: the configured one, or the last private level's line. */
uint32_t ms_config_coherence_unit(const ms_hier_config *cfg);
/* Cycles of a miss served by another node: the configured ones, or twice the memory's. */
uint32_t ms_config_remote_latency(const ms_hier_config *cfg);
/* The hierarchy simulated on nprocs processors (0 or 1: one): with llc_slice and the last level
 * shared by nprocs > 1 processors, that level holds nprocs slices: its size times nprocs, its
 * sets times the largest power of two dividing nprocs and its ways times the rest (sets stay a
 * power of two; x86 on 4 processors: L3 8M/16, on 3: 6M/48, on 6: 12M/48); a fully
 * associative slice stays fully associative. llc_slice is cleared (the sizes are then those
 * simulated); nothing else changes. Validate afterwards (a plru slice on 3 processors has 48
 * ways). */
void ms_config_scale_llc(ms_hier_config *cfg, uint32_t nprocs);

#endif
