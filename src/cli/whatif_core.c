/* `memspy whatif`'s prediction (whatif_core.h): the changed bins chosen by name, the bins the
 * allocator moves with them (replay/allocmove.h), the baseline replay that learns where each
 * bin lies, the remapped replay, both analyzed. */
#define _GNU_SOURCE
#include "whatif_core.h"
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../analysis/analyze.h"
#include "../drive/drive.h"
#include "../replay/allocmove.h"
#include "../util/strbuf.h"
#include "record_dir.h"
#include "recording.h"
#include "run_output.h"

void ms_whatif_bins_free(ms_whatif_bins *c)
{
    for (size_t i = 0; i < c->n; i++) {
        free(c->names[i]);
        free(c->layouts[i]);
    }
    free(c->names);
    free(c->layouts);
    free(c->moved);
    free(c->allocator);
}

/* Append an entry named name. Returns 0 or -1 (out of memory). */
static int push_bin(ms_whatif_bins *c, const char *name)
{
    char **nv = realloc(c->names, (c->n + 1) * sizeof *nv);
    if (nv) c->names = nv;
    char **lv = nv ? realloc(c->layouts, (c->n + 1) * sizeof *lv) : NULL;
    if (lv) c->layouts = lv;
    int64_t *mv = lv ? realloc(c->moved, (c->n + 1) * sizeof *mv) : NULL;
    if (mv) c->moved = mv;
    if (!mv || !(c->names[c->n] = strdup(name))) return -1;
    c->layouts[c->n] = NULL;
    c->moved[c->n++] = 0;
    return 0;
}

/* The remap entry of data bin d of the baseline (requested by pattern), from every change
 * naming the same pattern. Returns 0 or MS_EXIT_USAGE. */
static int bin_spec(const ms_whatif_request *o, const ms_model *base, uint32_t d, const char *pattern, ms_remap_bin *b)
{
    const ms_data_bin *db = &base->data[d];
    uint64_t row = 0;
    memset(b, 0, sizeof *b);
    b->id = db->raw_ref - 1;
    for (size_t i = 0; i < o->nchanges; i++) {
        const ms_whatif_change *c = &o->changes[i];
        if (strcmp(c->data, pattern) != 0) continue;
        if (c->kind == MS_WHATIF_PAD) b->pad = (uint64_t)c->bytes;
        if (c->kind == MS_WHATIF_ALIGN) b->align = (uint64_t)c->bytes;
        if (c->kind == MS_WHATIF_OFFSET) b->offset = c->bytes;
        if (c->kind == MS_WHATIF_ROW) row = (uint64_t)c->bytes;
    }
    int several = db->kind == MS_BIN_HEAP && db->objects > 1;
    if (row)
        b->elem = row;
    else if (several && (b->align || !ms_name_element_size(db->name)))
        b->object = (db->bytes + db->objects - 1) / db->objects; /* each allocation is an element */
    else
        b->elem = ms_name_element_size(db->name);
    if (b->pad && !b->elem && !b->object)
        return ms_cli_error(o->cmd,
                            "--pad %s: the element size of %s is not known: give it with --row %s=BYTES (e.g. "
                            "a row's bytes)",
                            pattern, db->name, pattern);
    uint64_t unit = b->object ? b->object : b->elem;
    if (b->pad && b->pad < unit)
        return ms_cli_error(o->cmd, "--pad %s: %lld bytes is less than its element's %llu (see --row)", pattern,
                            (long long)b->pad, (unsigned long long)unit);
    return 0;
}

/* Add data bin d's remap entry and bind its contexts. Returns 0 or MS_EXIT_USAGE. */
static int add_bin(const ms_whatif_request *o, const ms_model *base, const ms_raw *raw, uint32_t d, const char *pattern,
                   ms_remap *rm, ms_whatif_bins *out)
{
    ms_remap_bin b;
    int rc = bin_spec(o, base, d, pattern, &b);
    if (rc) return rc;
    for (size_t i = 0; i < out->n; i++)
        if (strcmp(out->names[i], base->data[d].name) == 0)
            return ms_cli_usage_error(o->cmd, "%s is named by two patterns: give its changes under one name",
                                      base->data[d].name);
    long k = ms_remap_add(rm, &b);
    if (k < 0 || push_bin(out, base->data[d].name) < 0) return ms_cli_error(o->cmd, "out of memory");
    out->nuser = out->n;
    for (size_t i = 0; i < raw->ncontexts; i++)
        if (raw->contexts[i].bin == b.id) ms_remap_bind(rm, raw->contexts[i].ctx, (size_t)k);
    return 0;
}

/* Remap entries for every bin the changes name. Returns 0 or MS_EXIT_USAGE. */
static int choose_bins(const ms_whatif_request *o, const ms_model *base, const ms_raw *raw, ms_remap *rm,
                       ms_whatif_bins *out)
{
    for (size_t i = 0; i < o->nchanges; i++) {
        int seen = 0;
        for (size_t j = 0; j < i; j++) seen |= strcmp(o->changes[j].data, o->changes[i].data) == 0;
        if (seen) continue;
        char *pattern = o->changes[i].data;
        uint32_t *idx = NULL;
        size_t n = 0;
        int rc = ms_cli_find_bins(o->cmd, base, 0, &pattern, 1, &idx, &n);
        for (size_t k = 0; rc == 0 && k < n; k++) {
            if (!base->data[idx[k]].raw_ref)
                rc = ms_cli_error(o->cmd, "%s is not a bin of the recording", base->data[idx[k]].name);
            else
                rc = add_bin(o, base, raw, idx[k], pattern, rm, out);
        }
        free(idx);
        if (rc) return rc;
    }
    return 0;
}

/* One line per changed bin: where it was and how it is laid out now. */
static int describe(const ms_remap *rm, ms_whatif_bins *c)
{
    for (size_t i = 0; i < c->n; i++) {
        const ms_remap_bin *b = &rm->bins[i];
        ms_strbuf s = MS_STRBUF_INIT;
        if (b->lo == b->hi) {
            ms_strbuf_addf(&s, "%s: never accessed in the recording, unchanged", c->names[i]);
        } else if (i >= c->nuser) {
            ms_strbuf_addf(&s, "%s: %llu bytes at 0x%llx, moved by %lld bytes by the allocator -> 0x%llx", c->names[i],
                           (unsigned long long)(b->hi - b->lo), (unsigned long long)b->lo, (long long)c->moved[i],
                           (unsigned long long)b->base);
        } else {
            ms_strbuf_addf(&s, "%s: %llu bytes at 0x%llx", c->names[i], (unsigned long long)(b->hi - b->lo),
                           (unsigned long long)b->lo);
            uint64_t unit = b->object ? b->object : b->elem;
            if (b->object)
                ms_strbuf_addf(&s, ", %llu allocations of %llu bytes", (unsigned long long)b->elements,
                               (unsigned long long)b->object);
            else if (b->elem)
                ms_strbuf_addf(&s, ", %llu elements of %llu bytes", (unsigned long long)b->elements,
                               (unsigned long long)b->elem);
            ms_strbuf_addf(&s, " -> 0x%llx", (unsigned long long)b->base);
            if (unit && b->stride != unit) ms_strbuf_addf(&s, ", every %llu bytes", (unsigned long long)b->stride);
            if (c->moved[i]) ms_strbuf_addf(&s, " (moved by %lld bytes by the allocator)", (long long)c->moved[i]);
        }
        if (!(c->layouts[i] = ms_strbuf_take(&s))) return -1;
    }
    return 0;
}

/* The name the analysis gives raw bin id ("heap bin #ID" when it has none), in buf. */
static const char *raw_bin_name(const ms_model *names, uint32_t id, char *buf, size_t len)
{
    for (size_t d = 0; d < names->ndata; d++)
        if (names->data[d].raw_ref == id + 1 && names->data[d].name) return names->data[d].name;
    snprintf(buf, len, "heap bin #%u", id);
    return buf;
}

/* The request of a changed block in the changed program: its elements padded. */
static uint64_t padded_request(const ms_remap_bin *b, uint64_t request)
{
    if (!b->pad || !b->elem || b->object) return request;
    return request / b->elem * b->pad + request % b->elem;
}

/* Whether any access context of the recording touches raw bin id. */
static int accessed(const ms_raw *raw, uint32_t id)
{
    for (size_t c = 0; c < raw->ncontexts; c++)
        if (raw->contexts[c].bin == id) return 1;
    return 0;
}

/* The heap blocks of the recording (MS_RAW_HEAP_LAYOUT) that its accesses touch, with the
 * changes in rm, in v (ids: their raw bins); how many. */
static size_t heap_blocks(const ms_raw *raw, const ms_remap *rm, ms_heap_block *v, uint32_t *ids)
{
    size_t n = 0;
    for (size_t i = 0; i < raw->nbins; i++) {
        const ms_raw_bin *r = &raw->bins[i];
        if (r->kind != MS_BIN_HEAP || !r->first_seq || !accessed(raw, r->id)) continue;
        ms_heap_block *b = &v[n];
        memset(b, 0, sizeof *b);
        b->seq = r->first_seq;
        b->addr = r->first_addr;
        b->request = r->first_request;
        b->word = r->first_chunk;
        b->blocks = r->objects;
        b->mapped = r->mapped;
        for (size_t k = 0; k < rm->nbins; k++) {
            if (rm->bins[k].id != r->id) continue;
            uint64_t req = padded_request(&rm->bins[k], r->first_request);
            b->new_request = req != r->first_request ? req : 0;
            b->align = rm->bins[k].align;
        }
        ids[n++] = r->id;
    }
    return n;
}

/* What the changed blocks do to glibc's placement, in words, into s. */
static void describe_growth(const ms_model *names, const ms_heap_block *v, const uint32_t *ids, size_t n, ms_strbuf *s)
{
    char buf[32];
    for (size_t i = 0; i < n; i++) {
        const ms_heap_block *b = &v[i];
        if (!b->growth && !b->remapped) continue;
        const char *name = raw_bin_name(names, ids[i], buf, sizeof buf);
        uint64_t old = b->word & ~(uint64_t)7, now = (uint64_t)((int64_t)old + b->growth);
        ms_strbuf_adds(s, s->len ? "; " : "");
        if (b->remapped)
            ms_strbuf_addf(s,
                           "%s grows past glibc's mmap threshold (%u bytes) and leaves the arena for a mapping "
                           "of its own (where it lands is not modelled)",
                           name, MS_GLIBC_MMAP_THRESHOLD);
        else if (b->word & MS_GLIBC_IS_MMAPPED)
            ms_strbuf_addf(s,
                           "%s's mapping grows from %llu to %llu pages (blocks of %u bytes and more are mapped "
                           "top-down: it starts lower, and so do the blocks mapped after it)",
                           name, (unsigned long long)(old / MS_GLIBC_PAGE), (unsigned long long)(now / MS_GLIBC_PAGE),
                           MS_GLIBC_MMAP_THRESHOLD);
        else
            ms_strbuf_addf(s,
                           "%s's arena chunk grows from %llu to %llu bytes (the chunks allocated after it move "
                           "up as much)",
                           name, (unsigned long long)old, (unsigned long long)now);
    }
}

/* The bins the allocator moves by shift (v[i].shift == shift), joined "A, B and C", into s. */
static void list_moved(const ms_model *names, const ms_heap_block *v, const uint32_t *ids, size_t n, int64_t shift,
                       ms_strbuf *s)
{
    size_t count = 0, total = 0;
    char buf[32];
    for (size_t i = 0; i < n; i++) total += v[i].shift == shift;
    for (size_t i = 0; i < n; i++) {
        if (v[i].shift != shift) continue;
        count++;
        ms_strbuf_adds(s, count == 1 ? "" : count == total ? " and " : ", ");
        ms_strbuf_adds(s, raw_bin_name(names, ids[i], buf, sizeof buf));
    }
}

/* Move in rm (and list in bins) every heap bin glibc would place elsewhere after the
 * changes: a changed bin's offset grows by its move, a bin not named gets an entry of its own.
 * Returns 0 or an exit status. */
static int apply_moves(const char *cmd, const ms_raw *raw, const ms_model *names, const ms_heap_block *v,
                       const uint32_t *ids, size_t n, ms_remap *rm, ms_whatif_bins *bins)
{
    char buf[32];
    for (size_t i = 0; i < n; i++) {
        if (!v[i].shift) continue;
        size_t k = 0;
        while (k < rm->nbins && rm->bins[k].id != ids[i]) k++;
        if (k == rm->nbins) {
            ms_remap_bin b = { .id = ids[i] };
            long at = ms_remap_add(rm, &b);
            if (at < 0 || push_bin(bins, raw_bin_name(names, ids[i], buf, sizeof buf)) < 0)
                return ms_cli_error(cmd, "out of memory");
            for (size_t c = 0; c < raw->ncontexts; c++)
                if (raw->contexts[c].bin == ids[i]) ms_remap_bind(rm, raw->contexts[c].ctx, (size_t)at);
        }
        rm->bins[k].offset += v[i].shift;
        bins->moved[k] = v[i].shift;
    }
    return 0;
}

/* The allocator's consequences of the changes (allocmove.h): the bins it moves, moved in rm,
 * and a line saying what moved and why in bins->allocator. Returns 0 or an exit status. */
static int allocator_moves(const char *cmd, const ms_raw *raw, const ms_model *names, ms_remap *rm,
                           ms_whatif_bins *bins)
{
    ms_heap_block *v = calloc(raw->nbins ? raw->nbins : 1, sizeof *v);
    uint32_t *ids = calloc(raw->nbins ? raw->nbins : 1, sizeof *ids);
    if (!v || !ids) {
        free(v);
        free(ids);
        return ms_cli_error(cmd, "out of memory");
    }
    size_t n = heap_blocks(raw, rm, v, ids);
    ms_glibc_moves(v, n);
    int rc = apply_moves(cmd, raw, names, v, ids, n, rm, bins);
    ms_strbuf s = MS_STRBUF_INIT, why = MS_STRBUF_INIT;
    describe_growth(names, v, ids, n, &why);
    for (size_t i = 0; !rc && i < n; i++) {
        int first = v[i].shift != 0;
        for (size_t j = 0; first && j < i; j++) first = v[j].shift != v[i].shift;
        if (!first) continue;
        ms_strbuf_adds(&s, s.len ? ", " : "the allocator moves ");
        list_moved(names, v, ids, n, v[i].shift, &s);
        ms_strbuf_addf(&s, " by %lld bytes", (long long)v[i].shift);
    }
    if (why.len)
        ms_strbuf_addf(&s, "%s: %s; --no-allocator moves only the named bins",
                       s.len ? ", as glibc would" : "nothing else moves", why.s);
    ms_strbuf_free(&why);
    if (!rc && s.len && !(bins->allocator = ms_strbuf_take(&s))) rc = ms_cli_error(cmd, "out of memory");
    ms_strbuf_free(&s);
    free(v);
    free(ids);
    return rc;
}

/* Replay the recording (observing or remapping through rm) and analyze it into m. Returns
 * 0, MS_EXIT_USAGE, or -2 when some streams were incomplete (m filled, marked). */
static int simulate(const ms_whatif_request *o, json_t *meta, ms_remap *rm, const char *origin, ms_model *m)
{
    char path[PATH_MAX + 16], *problems = NULL;
    ms_raw raw;
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    snprintf(path, sizeof path, "%s/%s", o->dir, MS_RECORD_RAW);
    int rc =
        ms_resim_remap_into_raw(o->cmd, path, o->dir, &o->cfg, o->mode, rm, &raw, &problems) < 0 ? MS_EXIT_USAGE : 0;
    if (!rc) {
        ms_recording_metadata rm_meta = { meta, problems, ms_cli_seconds_since(&t0), origin };
        rc = ms_run_analyze(o->cmd, &raw, ms_recording_fill_metadata, &rm_meta, m);
        if (!rc && problems) rc = -2;
    }
    ms_raw_free(&raw);
    free(problems);
    return rc;
}

static void observe_access(void *ud, unsigned cpu, uint32_t ctx, uint64_t addr, uint64_t size)
{
    (void)cpu;
    ms_remap_observe(ud, ctx, addr, size);
}

/* Learn where the remapped bins lie from a replay without simulation. 0 or an exit status. */
static int observe(const ms_whatif_request *o, ms_remap *rm, uint32_t max_ctx)
{
    char err[2048];
    if (ms_drive_scan(o->dir, o->mode, max_ctx, observe_access, rm, err, sizeof err) < 0)
        return ms_cli_error(o->cmd, "%s", err);
    return 0;
}

/* The recording's raw profile (its contexts: which bin each access context touches). */
static int read_raw(const ms_whatif_request *o, ms_raw *raw)
{
    char path[PATH_MAX + 16], err[1024];
    snprintf(path, sizeof path, "%s/%s", o->dir, MS_RECORD_RAW);
    if (ms_raw_read(path, raw, err, sizeof err) < 0) {
        ms_raw_free(raw);
        return ms_cli_error(o->cmd, "cannot read %s: %s", path, err);
    }
    return 0;
}

/* The changed bins, chosen by name in the recording's raw profile (analyzed for its names
 * only), their contexts bound in rm; then, unless --no-allocator, the bins the allocator would
 * move with them. Returns 0 or an exit status. */
static int plan_bins(const ms_whatif_request *o, const ms_raw *raw, ms_remap *rm, ms_whatif_bins *bins)
{
    char err[1024];
    ms_model names;
    if (ms_drive_analyze(raw, NULL, NULL, &names, err, sizeof err) < 0) return ms_cli_error(o->cmd, "%s", err);
    int rc = choose_bins(o, &names, raw, rm, bins);
    if (!rc && !o->no_allocator) rc = allocator_moves(o->cmd, raw, &names, rm, bins);
    ms_model_free(&names);
    return rc;
}

/* Choose and bind, baseline (observing), plan, prediction. */
int ms_whatif_predict(const ms_whatif_request *o, json_t *meta, ms_model *before, ms_model *after, ms_whatif_bins *bins,
                      int *incomplete)
{
    ms_raw raw;
    memset(&raw, 0, sizeof raw);
    memset(bins, 0, sizeof *bins);
    *incomplete = 0;
    int rc = read_raw(o, &raw);
    if (rc) return rc;
    uint32_t max_ctx = 0;
    for (size_t i = 0; i < raw.ncontexts; i++)
        if (raw.contexts[i].ctx > max_ctx) max_ctx = raw.contexts[i].ctx;
    ms_remap rm;
    int have_before = 0, have_after = 0;
    char *origin = NULL, *base_origin = NULL, err[256];
    if (ms_remap_init(&rm, max_ctx) < 0) {
        ms_raw_free(&raw);
        return ms_cli_error(o->cmd, "out of memory");
    }
    if (asprintf(&origin, "whatif of %s: %s", o->dir, o->text) < 0) origin = NULL;
    if (asprintf(&base_origin, "resim of %s", o->dir) < 0) base_origin = NULL;
    if (!origin || !base_origin) rc = ms_cli_error(o->cmd, "out of memory");
    if (!rc) rc = plan_bins(o, &raw, &rm, bins);
    if (!rc && o->no_before)
        rc = observe(o, &rm, max_ctx);
    else if (!rc)
        rc = simulate(o, meta, &rm, base_origin, before);
    have_before = !o->no_before && (rc == 0 || rc == -2);
    *incomplete = rc == -2;
    if (rc == -2) rc = 0;
    if (!rc && ms_remap_plan(&rm, err, sizeof err) < 0) rc = ms_cli_error(o->cmd, "%s", err);
    if (!rc && describe(&rm, bins) < 0) rc = ms_cli_error(o->cmd, "out of memory");
    if (!rc) rc = simulate(o, meta, &rm, origin, after);
    have_after = rc == 0 || rc == -2;
    if (rc == -2) rc = 0;
    if (rc && have_before) ms_model_free(before);
    if (rc && have_after) ms_model_free(after);
    if (rc) ms_whatif_bins_free(bins);
    ms_remap_free(&rm);
    ms_raw_free(&raw);
    free(origin);
    free(base_origin);
    return rc;
}
