/* User edits of a model's bins: renaming a bin and combining several bins into one. Both only
 * rearrange primary counters (sums of sums), so every derived number a report computes from
 * the edited model is exact; nothing here recomputes rates. */
#include "model.h"

#include <stdlib.h>
#include <string.h>

const char *ms_model_bin_full_name(const ms_model *m, bool code, uint32_t i)
{
    if (code) return i < m->ncode ? m->code[i].name : NULL;
    if (i >= m->ndata) return NULL;
    return m->data[i].full_name ? m->data[i].full_name : m->data[i].name;
}

static int replace_string(char **slot, const char *value)
{
    char *copy = strdup(value);
    if (!copy) return -1;
    free(*slot);
    *slot = copy;
    return 0;
}

int ms_model_rename_bin(ms_model *m, const char *full_name, const char *new_name)
{
    int renamed = 0;
    for (uint32_t i = 0; i < m->ncode; i++) {
        if (strcmp(m->code[i].name, full_name) != 0) continue;
        if (replace_string(&m->code[i].name, new_name) < 0) return -1;
        renamed++;
    }
    for (uint32_t i = 0; i < m->ndata; i++) {
        if (strcmp(ms_model_bin_full_name(m, false, i), full_name) != 0) continue;
        if (!m->data[i].full_name && replace_string(&m->data[i].full_name, full_name) < 0) return -1;
        if (replace_string(&m->data[i].name, new_name) < 0) return -1;
        renamed++;
    }
    return renamed;
}

/* ---- combining ---- */

/* old index -> new index for one dimension: the combined bins all map to the lowest of them,
 * the others close up the gaps. */
static uint32_t *index_map(size_t nbins, const uint32_t *idx, size_t n, uint32_t *keep, size_t *nnew)
{
    char *merged = calloc(nbins ? nbins : 1, 1);
    uint32_t *map = malloc((nbins ? nbins : 1) * sizeof *map);
    if (!merged || !map) {
        free(merged);
        free(map);
        return NULL;
    }
    *keep = UINT32_MAX;
    for (size_t k = 0; k < n; k++) {
        merged[idx[k]] = 1;
        if (idx[k] < *keep) *keep = idx[k];
    }
    uint32_t next = 0;
    for (uint32_t i = 0; i < nbins; i++) {
        if (merged[i] && i != *keep) continue;
        map[i] = next++;
    }
    for (uint32_t i = 0; i < nbins; i++)
        if (merged[i]) map[i] = map[*keep];
    free(merged);
    *nnew = next;
    return map;
}

static bool same_string(const char *a, const char *b) { return (!a && !b) || (a && b && strcmp(a, b) == 0); }

/* The combined code bin: its file and line when all agree, else unknown. */
static int combine_code_bins(ms_model *m, const uint32_t *idx, size_t n, uint32_t keep, const uint32_t *map,
                             size_t nnew, const char *new_name)
{
    ms_code_bin *k = &m->code[keep];
    bool same_place = true;
    for (size_t j = 0; j < n; j++)
        same_place = same_place && same_string(m->code[idx[j]].file, k->file) && m->code[idx[j]].line == k->line;
    if (replace_string(&k->name, new_name) < 0) return -1;
    if (!same_place) {
        free(k->file);
        k->file = NULL;
        k->line = 0;
    }
    for (uint32_t i = 0; i < m->ncode; i++) {
        if (i != keep && map[i] == map[keep]) {
            free(m->code[i].name);
            free(m->code[i].file);
        } else {
            m->code[map[i]] = m->code[i];
        }
    }
    m->ncode = nnew;
    return 0;
}

/* The combined data bin: objects and bytes summed (peak_bytes too: an upper bound, the bins'
 * peaks need not coincide); kind and site kept when all agree. */
static int combine_data_bins(ms_model *m, const uint32_t *idx, size_t n, uint32_t keep, const uint32_t *map,
                             size_t nnew, const char *new_name)
{
    ms_data_bin *k = &m->data[keep];
    bool same_site = true;
    for (size_t j = 0; j < n; j++) {
        const ms_data_bin *b = &m->data[idx[j]];
        same_site = same_site && same_string(b->site, k->site) && b->kind == k->kind;
        if (idx[j] == keep) continue;
        k->objects += b->objects;
        k->bytes += b->bytes;
        k->peak_bytes += b->peak_bytes;
    }
    if (replace_string(&k->name, new_name) < 0 || replace_string(&k->full_name, new_name) < 0) return -1;
    if (!same_site) {
        free(k->site);
        k->site = NULL;
    }
    for (uint32_t i = 0; i < m->ndata; i++) {
        if (i != keep && map[i] == map[keep]) {
            free(m->data[i].name);
            free(m->data[i].full_name);
            free(m->data[i].site);
        } else {
            m->data[map[i]] = m->data[i];
        }
    }
    m->ndata = nnew;
    return 0;
}

static int cmp_cell_key(const void *a, const void *b)
{
    const ms_cell *x = a, *y = b;
    if (x->code != y->code) return x->code < y->code ? -1 : 1;
    return x->data < y->data ? -1 : x->data > y->data;
}

/* Append n elements of `size` bytes from src to the array *dst of *ndst elements. */
static int append_items(void **dst, size_t *ndst, const void *src, size_t n, size_t size)
{
    if (n == 0) return 0;
    char *p = realloc(*dst, (*ndst + n) * size);
    if (!p) return -1;
    memcpy(p + *ndst * size, src, n * size);
    *dst = p;
    *ndst += n;
    return 0;
}

/* Merge the cells that share (code, data) after bins were renumbered. */
static int merge_cells(ms_model *m)
{
    if (m->ncells) qsort(m->cells, m->ncells, sizeof *m->cells, cmp_cell_key);
    size_t out = 0;
    int rc = 0;
    for (size_t i = 0; i < m->ncells; i++) {
        ms_cell *c = &m->cells[i];
        if (out == 0 || cmp_cell_key(&m->cells[out - 1], c) != 0) {
            m->cells[out++] = *c;
            continue;
        }
        ms_cell *into = &m->cells[out - 1];
        if (rc == 0 && (append_items((void **)&into->evicted_by, &into->nevicted_by, c->evicted_by, c->nevicted_by,
                                     sizeof *c->evicted_by) < 0 ||
                        append_items((void **)&into->inval_by, &into->ninval_by, c->inval_by, c->ninval_by,
                                     sizeof *c->inval_by) < 0))
            rc = -1;
        ms_counters_add(&into->c, &c->c);
        if (!into->fields[0]) memcpy(into->fields, c->fields, sizeof into->fields);
        free(c->evicted_by);
        free(c->inval_by);
    }
    m->ncells = out;
    for (size_t i = 0; i < m->ncells; i++) ms_cell_merge_causes(&m->cells[i]);
    return rc;
}

/* Merge the per-reference rows that share their key after bins were renumbered. */
static void merge_refs(ms_model *m)
{
    m->nrefs = ms_references_fold(m->refs, m->nrefs);
    if (m->nrefs) qsort(m->refs, m->nrefs, sizeof *m->refs, ms_reference_order);
}

static int cmp_line_key(const void *a, const void *b)
{
    const ms_line_stat *x = a, *y = b;
    if (x->file != y->file) return x->file < y->file ? -1 : 1;
    if (x->line != y->line) return x->line < y->line ? -1 : 1;
    if (x->code != y->code) return x->code < y->code ? -1 : 1;
    return x->data < y->data ? -1 : x->data > y->data;
}

/* Merge the per-line rows that share their key after bins were renumbered. */
static void merge_lines(ms_model *m)
{
    if (m->nlines) qsort(m->lines, m->nlines, sizeof *m->lines, cmp_line_key);
    size_t out = 0;
    for (size_t i = 0; i < m->nlines; i++) {
        if (out && cmp_line_key(&m->lines[out - 1], &m->lines[i]) == 0)
            ms_counters_add(&m->lines[out - 1].c, &m->lines[i].c);
        else
            m->lines[out++] = m->lines[i];
    }
    m->nlines = out;
}

int ms_model_combine_bins(ms_model *m, bool code, const uint32_t *idx, size_t n, const char *new_name)
{
    size_t nbins = code ? m->ncode : m->ndata;
    if (n == 0) return -1;
    for (size_t k = 0; k < n; k++)
        if (idx[k] >= nbins) return -1;
    uint32_t keep;
    size_t nnew;
    uint32_t *map = index_map(nbins, idx, n, &keep, &nnew);
    if (!map) return -1;
    int rc = code ? combine_code_bins(m, idx, n, keep, map, nnew, new_name)
                  : combine_data_bins(m, idx, n, keep, map, nnew, new_name);
    if (rc == 0) {
        ms_model_remap_bins(m, code ? map : NULL, code ? NULL : map);
        rc = merge_cells(m);
    }
    if (rc == 0) merge_lines(m);
    if (rc == 0) merge_refs(m);
    free(map);
    return rc;
}
