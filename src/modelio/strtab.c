/* The string table of a stored result (strtab.h): writing names once, reading them back with
 * every index checked and the expansion bounded. */
#include "strtab.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ms_strtab_init(ms_strtab *t)
{
    t->names = json_array();
    t->index = json_object();
    t->failed = 0;
    if (t->names && t->index) return 0;
    ms_strtab_free(t);
    return -1;
}

void ms_strtab_free(ms_strtab *t)
{
    json_decref(t->names);
    json_decref(t->index);
    t->names = t->index = NULL;
}

/* The index of the n bytes at s (added on first use); -1 when out of memory. */
static json_int_t intern(ms_strtab *t, const char *s, size_t n)
{
    char stack[256], *key = n < sizeof stack ? stack : malloc(n + 1);
    if (!key) return -1;
    memcpy(key, s, n);
    key[n] = '\0';
    json_int_t i = -1;
    json_t *at = json_object_get(t->index, key);
    if (at) {
        i = json_integer_value(at);
    } else {
        json_int_t next = (json_int_t)json_array_size(t->names);
        if (json_array_append_new(t->names, json_stringn(s, n)) == 0 &&
            json_object_set_new(t->index, key, json_integer(next)) == 0)
            i = next;
    }
    if (key != stack) free(key);
    return i;
}

static json_t *index_json(ms_strtab *t, json_int_t i)
{
    json_t *v = i >= 0 ? json_integer(i) : NULL;
    if (!v) t->failed = 1;
    return v;
}

json_t *ms_strtab_ref(ms_strtab *t, const char *s)
{
    if (!s) return json_null();
    return index_json(t, intern(t, s, strlen(s)));
}

/* The length of the ":LINE>" joint at s (a colon, digits, '>'), 0 if there is none. */
static size_t joint_len(const char *s)
{
    if (s[0] != ':') return 0;
    size_t n = 1;
    while (s[n] >= '0' && s[n] <= '9') n++;
    return n > 1 && s[n] == '>' ? n + 1 : 0;
}

json_t *ms_strtab_path(ms_strtab *t, const char *s)
{
    if (!s) return json_null();
    const char *p = s;
    while (*p && !joint_len(p)) p++;
    if (!*p) return ms_strtab_ref(t, s);
    json_t *arr = json_array();
    if (!arr) {
        t->failed = 1;
        return NULL;
    }
    const char *piece = s;
    for (p = s; *p;) {
        size_t j = joint_len(p);
        if (!j) {
            p++;
            continue;
        }
        if (p > piece && json_array_append_new(arr, index_json(t, intern(t, piece, (size_t)(p - piece)))) < 0)
            t->failed = 1;
        if (json_array_append_new(arr, index_json(t, intern(t, p, j))) < 0) t->failed = 1;
        p += j;
        piece = p;
    }
    if (p > piece && json_array_append_new(arr, index_json(t, intern(t, piece, (size_t)(p - piece)))) < 0)
        t->failed = 1;
    return arr;
}

/* The string at index v of names, checked. NULL with why set. */
static const char *entry(const json_t *names, const json_t *v, size_t *len, char *why, size_t whylen)
{
    size_t n = json_array_size(names);
    if (!json_is_integer(v)) {
        snprintf(why, whylen, "expected an index into names");
        return NULL;
    }
    json_int_t i = json_integer_value(v);
    if (i < 0 || (size_t)i >= n) {
        snprintf(why, whylen, "%lld is not an index into names (it has %zu entries)", (long long)i, n);
        return NULL;
    }
    const json_t *s = json_array_get(names, (size_t)i);
    if (!json_is_string(s)) {
        snprintf(why, whylen, "names[%lld] is not a string", (long long)i);
        return NULL;
    }
    *len = json_string_length(s);
    return json_string_value(s);
}

int ms_strtab_expand(const json_t *names, const json_t *v, size_t *budget, char **out, char *why, size_t whylen)
{
    size_t one = 0, total = 0, npieces = json_is_array(v) ? json_array_size(v) : 1;
    *out = NULL;
    for (size_t k = 0; k < npieces; k++) { /* check every piece and the size before copying */
        if (!entry(names, json_is_array(v) ? json_array_get(v, k) : v, &one, why, whylen)) return -1;
        if (one > *budget - total) {
            snprintf(why, whylen, "names expand beyond the limit on a result's text");
            return -1;
        }
        total += one;
    }
    char *s = malloc(total + 1);
    if (!s) {
        snprintf(why, whylen, "out of memory");
        return -1;
    }
    size_t at = 0;
    for (size_t k = 0; k < npieces; k++) {
        const char *e = entry(names, json_is_array(v) ? json_array_get(v, k) : v, &one, why, whylen);
        memcpy(s + at, e, one);
        at += one;
    }
    s[at] = '\0';
    *budget -= total;
    *out = s;
    return 0;
}
