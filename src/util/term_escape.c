/* Text from programs (file names, arguments, bin names, a foreign result file's fields) may
 * hold terminal control sequences; printed raw, they could recolour, retitle or rewrite the
 * user's terminal. Everything memspy prints that it did not write itself goes through
 * ms_term(), which escapes C0 controls, DEL and the UTF-8 encoded C1 controls as \xHH. */
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Bytes to escape at s[0] (s[1] may be read): 1 for a C0 control or DEL, 2 for a UTF-8 C1
 * control (C2 80..C2 9F), else 0. Tab and newline are kept when keep_layout is set. */
static size_t control_len(const unsigned char *s, int keep_layout)
{
    if (s[0] < 0x20 || s[0] == 0x7f) return keep_layout && (s[0] == '\t' || s[0] == '\n') ? 0 : 1;
    if (s[0] == 0xc2 && s[1] >= 0x80 && s[1] <= 0x9f) return 2;
    return 0;
}

size_t ms_term_escape(char *dst, size_t dstlen, const char *src, int keep_layout)
{
    size_t n = 0, written = 0; /* written: the bytes copied, whole pieces only */
    for (const unsigned char *s = (const unsigned char *)src; *s;) {
        size_t c = control_len(s, keep_layout);
        char piece[9];
        size_t plen;
        if (c == 0) {
            piece[0] = (char)*s;
            plen = 1;
        } else {
            plen = 0;
            for (size_t i = 0; i < c; i++) plen += (size_t)snprintf(piece + plen, sizeof piece - plen, "\\x%02x", s[i]);
        }
        s += c ? c : 1;
        if (dst && written == n && n + plen < dstlen) {
            memcpy(dst + n, piece, plen);
            written += plen;
        }
        n += plen;
    }
    if (dst && dstlen) dst[written] = '\0';
    return n;
}

int ms_term_needs_escape(const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; p && *p; p++)
        if (control_len(p, 0)) return 1;
    return 0;
}

/* Escaped copies handed out by ms_term(): a ring, so that one printf may use several. */
#define TERM_RING 16
static char *ring[TERM_RING];
static unsigned ring_next;

const char *ms_term(const char *s)
{
    if (!s || !ms_term_needs_escape(s)) return s;
    size_t n = ms_term_escape(NULL, 0, s, 0);
    char *copy = malloc(n + 1);
    if (!copy) return "(unprintable)";
    ms_term_escape(copy, n + 1, s, 0);
    unsigned slot = ring_next++ % TERM_RING;
    free(ring[slot]);
    ring[slot] = copy;
    return copy;
}
