/* MemSpy-style data bin names from the source text of an allocation statement
 * (ms_name_from_statement in analyze.h): "double*.Y", "M.nz", "a[]", "A" (Fortran). */
#include "analyze.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../util/strbuf.h"

static bool is_ident_char(int c) { return isalnum(c) || c == '_' || c == '$'; }

/* The statement flattened to one line, comments and string literals blanked, and the
 * position of the allocation call in it. */
typedef struct {
    char *s;
    size_t len, pos;
    bool fortran;
    size_t allocate_paren;
} stmt;

static bool find_fortran_allocate(const char *s, size_t len, size_t *paren);
static size_t skip_space(const char *s, size_t len, size_t i);

/* Blank comments and literals in place (same length, so positions stay valid). */
static void blank_noise(char *s, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        if (s[i] == '/' && s[i + 1] == '/') {
            while (i < len && s[i] != '\n') s[i++] = ' ';
        } else if (s[i] == '/' && s[i + 1] == '*') {
            size_t j = i;
            while (j < len && !(s[j] == '*' && s[j + 1] == '/')) s[j++] = ' ';
            for (int k = 0; k < 2 && j < len; k++) s[j++] = ' ';
            i = j - 1;
        } else if (s[i] == '"' || s[i] == '\'') {
            char q = s[i];
            size_t j = i + 1;
            while (j < len && s[j] != q && s[j] != '\n') j += (s[j] == '\\' && j + 1 < len) ? 2 : 1;
            for (size_t k = i + 1; k < j && k < len; k++) s[k] = ' ';
            i = j;
        }
    }
}

/* Fortran: '!' starts a comment, '&' continues a line. */
static void blank_fortran_noise(char *s, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        if (s[i] == '!') {
            while (i < len && s[i] != '\n') s[i++] = ' ';
        } else if (s[i] == '&') {
            s[i] = ' ';
        }
    }
}

static int stmt_init(stmt *st, const char *text, int col)
{
    st->len = strlen(text);
    st->s = malloc(st->len + 2);
    if (!st->s) return -1;
    memcpy(st->s, text, st->len + 1);
    st->s[st->len + 1] = '\0';
    const char *last_line = strrchr(text, '\n');
    size_t line_start = last_line ? (size_t)(last_line - text) + 1 : 0;
    st->pos = col > 0 ? line_start + (size_t)(col - 1) : st->len;
    if (st->pos > st->len) st->pos = st->len;
    st->allocate_paren = 0;
    st->fortran = find_fortran_allocate(text, st->len, &st->allocate_paren);
    if (st->fortran)
        blank_fortran_noise(st->s, st->len);
    else
        blank_noise(st->s, st->len);
    for (size_t i = 0; i < st->len; i++)
        if (st->s[i] == '\n' || st->s[i] == '\t' || st->s[i] == '\r') st->s[i] = ' ';
    if (col <= 0) { /* unknown column: the call is taken to end the statement */
        while (st->pos > 0 &&
               (isspace((unsigned char)st->s[st->pos - 1]) || st->s[st->pos - 1] == ';' || st->s[st->pos - 1] == '{'))
            st->pos--;
    }
    return 0;
}

static bool word_at(const char *s, size_t len, size_t i, const char *word)
{
    size_t n = strlen(word);
    return i + n <= len && strncasecmp(s + i, word, n) == 0 && (i == 0 || !is_ident_char(s[i - 1])) &&
           (i + n == len || !is_ident_char(s[i + n]));
}

static size_t skip_space(const char *s, size_t len, size_t i)
{
    while (i < len && isspace((unsigned char)s[i])) i++;
    return i;
}

/* Index of the bracket matching the opener at i, or len if unbalanced. */
static size_t match_close(const char *s, size_t len, size_t i)
{
    int depth = 0;
    for (size_t j = i; j < len; j++) {
        if (s[j] == '(' || s[j] == '[')
            depth++;
        else if ((s[j] == ')' || s[j] == ']') && --depth == 0)
            return j;
    }
    return len;
}

/* ---- Fortran ALLOCATE(item, item, stat=...) ---- */

/* A Fortran ALLOCATE statement: the word starts a statement (line start or after an
 * `if (...)`), and nothing but blanks or a '!' comment follows its closing parenthesis
 * (unlike a C call `allocate(n);` or `p = allocate(n)`). */
static bool find_fortran_allocate(const char *s, size_t len, size_t *paren)
{
    for (size_t i = 0; i < len; i++) {
        if (!word_at(s, len, i, "allocate")) continue;
        size_t before = i;
        while (before > 0 && (s[before - 1] == ' ' || s[before - 1] == '\t')) before--;
        if (before > 0 && s[before - 1] != '\n' && s[before - 1] != ')') continue;
        size_t j = skip_space(s, len, i + 8);
        if (j >= len || s[j] != '(') continue;
        size_t close = match_close(s, len, j);
        size_t after = close < len ? skip_space(s, len, close + 1) : len;
        if (close < len && (after == len || s[after] == '!')) {
            *paren = j;
            return true;
        }
    }
    return false;
}

/* The name of one allocate item "x%part(n,m)": components joined with '.', last two kept. */
static char *fortran_item_name(const char *s, size_t b, size_t e)
{
    b = skip_space(s, e, b);
    size_t end = b;
    while (end < e && (is_ident_char(s[end]) || s[end] == '%' || isspace((unsigned char)s[end]))) end++;
    while (end > b && isspace((unsigned char)s[end - 1])) end--;
    if (end == b || s[skip_space(s, e, end)] == '=') /* empty, or stat=/source=/... */
        return NULL;
    size_t first = b, pct = 0, pcts = 0;
    for (size_t i = b; i < end; i++)
        if (s[i] == '%') {
            pcts++;
            first = pct ? pct + 1 : b;
            pct = i;
        }
    if (pcts < 2) first = b;
    ms_strbuf out = MS_STRBUF_INIT;
    for (size_t i = first; i < end; i++)
        if (!isspace((unsigned char)s[i])) ms_strbuf_add(&out, s[i] == '%' ? "." : &s[i], 1);
    return ms_strbuf_take(&out);
}

static char *fortran_name(const stmt *st)
{
    size_t open = st->allocate_paren;
    size_t close = match_close(st->s, st->len, open);
    char *first = NULL, *at_col = NULL;
    int depth = 0;
    size_t item = open + 1;
    for (size_t i = open + 1; i <= close && i <= st->len; i++) {
        char ch = i < st->len ? st->s[i] : ')';
        if (ch == '(' || ch == '[')
            depth++;
        else if ((ch == ')' || ch == ']') && depth > 0)
            depth--;
        else if ((ch == ',' && depth == 0) || i == close || i == st->len) {
            char *name = fortran_item_name(st->s, item, i);
            if (name && st->pos >= item && st->pos < i && !at_col) at_col = strdup(name);
            if (name && !first)
                first = name;
            else
                free(name);
            item = i + 1;
        }
    }
    if (at_col) {
        free(first);
        return at_col;
    }
    return first;
}

/* ---- C / C++ ---- */

static bool is_operator_char(char c) { return c && strchr("+-*/%&|^<>!=~", c) != NULL; }

/* Is the '(' at i a function call's parenthesis (an allocation inside it is an argument)? */
static bool is_call_paren(const char *s, size_t start, size_t i)
{
    size_t j = i;
    while (j > start && isspace((unsigned char)s[j - 1])) j--;
    if (j == start || !(is_ident_char(s[j - 1]) || s[j - 1] == '>')) return false;
    if (s[j - 1] == '>') { /* template call, unless it is a C++ cast: static_cast<T *>(...) */
        int depth = 0;
        for (; j > start; j--) {
            if (s[j - 1] == '>')
                depth++;
            else if (s[j - 1] == '<' && --depth == 0)
                break;
        }
        if (j > start) j--;
        return !(j >= start + 5 && strncmp(s + j - 5, "_cast", 5) == 0);
    }
    size_t w = j;
    while (w > start && is_ident_char(s[w - 1])) w--;
    static const char *const keywords[] = { "if", "while", "for", "switch", "return", "sizeof", "do" };
    for (size_t k = 0; k < sizeof keywords / sizeof *keywords; k++)
        if (j - w == strlen(keywords[k]) && strncmp(s + w, keywords[k], j - w) == 0) return false;
    return true;
}

/* Skip leading control keywords: else, do, if (...), for (...), while (...), switch (...). */
static size_t skip_control(const char *s, size_t len, size_t i)
{
    for (;;) {
        i = skip_space(s, len, i);
        if (word_at(s, len, i, "else") || word_at(s, len, i, "do")) {
            i += s[i] == 'e' ? 4 : 2;
            continue;
        }
        static const char *const heads[] = { "if", "for", "while", "switch" };
        bool skipped = false;
        for (size_t k = 0; k < 4 && !skipped; k++) {
            if (!word_at(s, len, i, heads[k])) continue;
            size_t p = skip_space(s, len, i + strlen(heads[k]));
            if (p < len && s[p] == '(') {
                size_t close = match_close(s, len, p);
                if (close < len) {
                    i = close + 1;
                    skipped = true;
                }
            }
        }
        if (!skipped) return i;
    }
}

/* Words dropped from declared types. */
static bool is_dropped_word(const char *w, size_t n)
{
    static const char *const words[] = { "static",     "const",        "volatile",     "register",      "extern",
                                         "struct",     "union",        "enum",         "class",         "restrict",
                                         "__restrict", "__restrict__", "thread_local", "_Thread_local", "__thread",
                                         "constexpr",  "inline",       "typename",     "mutable" };
    for (size_t k = 0; k < sizeof words / sizeof *words; k++)
        if (n == strlen(words[k]) && strncmp(w, words[k], n) == 0) return true;
    return false;
}

/* Length of an identifier at i, including C++ qualification (a::b) and template arguments. */
static size_t ident_len(const char *s, size_t len, size_t i)
{
    size_t j = i;
    for (;;) {
        while (j < len && is_ident_char(s[j])) j++;
        if (j + 1 < len && s[j] == ':' && s[j + 1] == ':') {
            j += 2;
            continue;
        }
        if (j < len && s[j] == '<' && j > i) {
            int depth = 0;
            size_t k = j;
            for (; k < len; k++) {
                if (s[k] == '<')
                    depth++;
                else if (s[k] == '>' && --depth == 0)
                    break;
            }
            if (k < len) {
                j = k + 1;
                continue;
            }
        }
        return j - i;
    }
}

/* Type of the allocation on the right-hand side, for `auto`: "new T", "make_unique<T>",
 * "(T *)malloc", "static_cast<T *>(...)". Returns a malloc'd "T*" or NULL. */
static char *rhs_type(const char *s, size_t b, size_t e)
{
    ms_strbuf t = MS_STRBUF_INIT;
    for (size_t i = b; i < e; i++) {
        if (word_at(s, e, i, "new")) {
            size_t p = skip_space(s, e, i + 3);
            size_t n = ident_len(s, e, p);
            if (n) {
                ms_strbuf_add(&t, s + p, n);
                ms_strbuf_adds(&t, "*");
                return ms_strbuf_take(&t);
            }
        }
        const char *lt = NULL;
        if (strncmp(s + i, "make_unique<", 12) == 0 || strncmp(s + i, "make_shared<", 12) == 0)
            lt = s + i + 11;
        else if (strncmp(s + i, "_cast<", 6) == 0)
            lt = s + i + 5;
        if (lt) {
            const char *gt = memchr(lt, '>', (size_t)(s + e - lt));
            if (gt) {
                size_t a = (size_t)(lt - s) + 1, z = (size_t)(gt - s);
                for (size_t k = a; k < z; k++)
                    if (!isspace((unsigned char)s[k]) && s[k] != '[' && s[k] != ']' && s[k] != '*')
                        ms_strbuf_add(&t, s + k, 1);
                ms_strbuf_adds(&t, "*");
                return ms_strbuf_take(&t);
            }
        }
    }
    ms_strbuf_free(&t);
    return NULL;
}

/* Name of an expression lvalue: "M->nz" -> "M.nz", "a->b->c" -> "b.c", "a[i]" -> "a[]". */
static char *lvalue_name(const char *s, size_t b, size_t e)
{
    const char *parts[64];
    size_t lens[64], nparts = 0;
    bool indexed = false;
    for (size_t i = b; i < e;) {
        if (is_ident_char(s[i]) && !isdigit((unsigned char)s[i])) {
            size_t n = ident_len(s, e, i);
            if (!(n == 4 && strncmp(s + i, "this", 4) == 0) && nparts < 64) {
                parts[nparts] = s + i;
                lens[nparts++] = n;
            }
            indexed = false;
            i += n;
        } else if (s[i] == '[') {
            indexed = true;
            i = match_close(s, e, i) + 1;
        } else if (s[i] == '.' || (s[i] == '-' && s[i + 1] == '>') || s[i] == '*' || s[i] == '(' || s[i] == ')' ||
                   isspace((unsigned char)s[i])) {
            i += s[i] == '-' ? 2 : 1;
        } else {
            return NULL; /* something that is not an lvalue we understand */
        }
    }
    if (nparts == 0) return NULL;
    ms_strbuf out = MS_STRBUF_INIT;
    size_t first = nparts >= 2 ? nparts - 2 : 0;
    for (size_t k = first; k < nparts; k++) {
        if (k > first) ms_strbuf_adds(&out, ".");
        ms_strbuf_add(&out, parts[k], lens[k]);
    }
    if (indexed) ms_strbuf_adds(&out, "[]");
    return ms_strbuf_take(&out);
}

/* Name from the left-hand side [b, e) of the assignment; rhs [rb, re) supplies `auto` types.
 * A declaration gives "type*.var", anything else the lvalue's name. */
static char *lhs_name(const char *s, size_t b, size_t e, size_t rb, size_t re)
{
    while (e > b && isspace((unsigned char)s[e - 1])) e--;
    /* Declarator lists "int *a = f(), *b": type from the start, declarator after the last ','. */
    size_t decl = b;
    int depth = 0;
    for (size_t i = b; i < e; i++) {
        if (s[i] == '(' || s[i] == '[' || s[i] == '<')
            depth++;
        else if ((s[i] == ')' || s[i] == ']' || s[i] == '>') && depth > 0)
            depth--;
        else if (s[i] == ',' && depth == 0)
            decl = i + 1;
    }
    /* Type words of the statement start. */
    const char *words[16];
    size_t wlens[16], wends[16], nwords = 0;
    size_t i = skip_space(s, e, b);
    while (i < e && is_ident_char(s[i]) && nwords < 16) {
        size_t n = ident_len(s, e, i);
        if (!is_dropped_word(s + i, n)) {
            words[nwords] = s + i;
            wends[nwords] = i + n;
            wlens[nwords++] = n;
        }
        i = skip_space(s, e, i + n);
        while (i < e && (s[i] == '*' || s[i] == '&')) i = skip_space(s, e, i + 1);
    }
    if (decl == b) { /* single declarator: the last word is the variable */
        if (nwords < 2 || i != e) return lvalue_name(s, b, e);
        nwords--;
        decl = wends[nwords - 1]; /* the declarator follows the last type word */
    } else if (nwords < 2) {
        return lvalue_name(s, decl, e);
    } else {
        nwords--; /* the first declarator's name */
    }
    /* Stars and the name of the declarator [decl, e). */
    size_t stars = 0, k = decl;
    for (; k < e && (s[k] == '*' || s[k] == '&' || isspace((unsigned char)s[k]) || is_ident_char(s[k])); k++) {
        if (s[k] == '*') stars++;
        if (is_ident_char(s[k])) {
            size_t n = ident_len(s, e, k);
            if (!is_dropped_word(s + k, n)) break;
            k += n - 1;
        }
    }
    size_t nlen = k < e ? ident_len(s, e, k) : 0;
    if (nlen == 0 || skip_space(s, e, k + nlen) != e) return NULL;
    ms_strbuf out = MS_STRBUF_INIT;
    if (nwords == 1 && wlens[0] == 4 && strncmp(words[0], "auto", 4) == 0) {
        char *t = rhs_type(s, rb, re);
        if (t) {
            ms_strbuf_adds(&out, t);
            ms_strbuf_adds(&out, ".");
            free(t);
        }
    } else {
        for (size_t w = 0; w < nwords; w++) {
            if (w) ms_strbuf_adds(&out, " ");
            ms_strbuf_add(&out, words[w], wlens[w]);
        }
        for (size_t st = 0; st < stars; st++) ms_strbuf_adds(&out, "*");
        ms_strbuf_adds(&out, ".");
    }
    ms_strbuf_add(&out, s + k, nlen);
    return ms_strbuf_take(&out);
}

/* The last assignment '=' at depth 0 of [from, to) (not ==, <=, >=, !=, +=, ...), or `to`.
 * *lhs receives where its left-hand side starts: in a chain x = y = malloc(), at y; in a
 * declarator list "int *a = f(), *b = g()", at the statement start (the type is there). */
static size_t find_assignment(const char *s, size_t from, size_t to, size_t *lhs)
{
    size_t eq = to;
    bool comma = false;
    int depth = 0;
    *lhs = from;
    for (size_t i = from; i < to; i++) {
        if (s[i] == '(' || s[i] == '[')
            depth++;
        else if ((s[i] == ')' || s[i] == ']') && depth > 0)
            depth--;
        else if (s[i] == ',' && depth == 0)
            comma = true;
        else if (s[i] == '=' && depth == 0 && s[i + 1] != '=' && (i == from || !is_operator_char(s[i - 1]))) {
            *lhs = (eq != to && !comma) ? eq + 1 : from;
            eq = i;
            comma = false;
        }
    }
    return eq;
}

/* C++ direct initialisation, "std::vector<double> samples(1000)" or "Grid g{n}", with the
 * allocation at or after the declarator: "vector<double>.samples" (the type's last
 * component, MemSpy's Type.var). NULL if the statement is not such a declaration. */
static char *direct_init_name(const char *s, size_t len, size_t start, size_t pos)
{
    static const char *const not_types[] = { "return", "throw", "delete", "case",      "goto",    "else",
                                             "do",     "new",   "sizeof", "co_return", "co_yield" };
    size_t i = skip_space(s, len, start), n;
    while (i < len && (n = ident_len(s, len, i)) > 0 && is_dropped_word(s + i, n)) i = skip_space(s, len, i + n);
    size_t type_b = i, type_n = i < len ? ident_len(s, len, i) : 0;
    if (type_n == 0 || isdigit((unsigned char)s[type_b])) return NULL;
    for (size_t k = 0; k < sizeof not_types / sizeof *not_types; k++)
        if (type_n == strlen(not_types[k]) && strncmp(s + type_b, not_types[k], type_n) == 0) return NULL;
    i = skip_space(s, len, type_b + type_n);
    size_t stars = 0;
    while (i < len && (s[i] == '*' || s[i] == '&')) {
        stars += s[i] == '*';
        i = skip_space(s, len, i + 1);
    }
    size_t name_b = i, name_n = i < len ? ident_len(s, len, i) : 0;
    if (name_n == 0 || pos < name_b) return NULL;
    for (size_t k = name_b; k < name_b + name_n; k++)
        if (!is_ident_char(s[k])) return NULL; /* a plain variable name, not a qualified one */
    size_t after = skip_space(s, len, name_b + name_n);
    if (after >= len || (s[after] != '(' && s[after] != '{')) return NULL;
    size_t comp = type_b; /* the type's last component, outside template arguments */
    int depth = 0;
    for (size_t k = type_b; k + 1 < type_b + type_n; k++) {
        depth += s[k] == '<' ? 1 : s[k] == '>' ? -1 : 0;
        if (depth == 0 && s[k] == ':' && s[k + 1] == ':') comp = k + 2;
    }
    ms_strbuf out = MS_STRBUF_INIT;
    ms_strbuf_add(&out, s + comp, type_b + type_n - comp);
    for (size_t k = 0; k < stars; k++) ms_strbuf_adds(&out, "*");
    ms_strbuf_adds(&out, ".");
    ms_strbuf_add(&out, s + name_b, name_n);
    return ms_strbuf_take(&out);
}

/* Some compilers place a call's column on its parentheses (g++ puts `new Node()` on the
 * closing one): move such a position back to the start of the callee, `new` included. */
static size_t call_start(const char *s, size_t len, size_t pos)
{
    if (pos < len && s[pos] == ')') {
        int depth = 0;
        for (size_t i = pos + 1; i-- > 0;) {
            depth += s[i] == ')' ? 1 : s[i] == '(' ? -1 : 0;
            if (depth == 0) {
                pos = i;
                break;
            }
        }
    }
    if (pos >= len || s[pos] != '(') return pos;
    size_t i = pos;
    while (i > 0 && isspace((unsigned char)s[i - 1])) i--;
    while (i > 0 && (isalnum((unsigned char)s[i - 1]) || strchr("_:<>*", s[i - 1]))) i--;
    size_t w = i;
    while (w > 0 && isspace((unsigned char)s[w - 1])) w--;
    if (w >= 3 && strncmp(s + w - 3, "new", 3) == 0 && (w == 3 || !isalnum((unsigned char)s[w - 4]))) i = w - 3;
    return i;
}

static char *c_name(const stmt *st)
{
    const char *s = st->s;
    size_t pos = call_start(s, st->len, st->pos);
    /* Statement start: after the last ';', '{' or '}' before the call, or after a ')' that
     * closes nothing (the tail of a for (...;...;...) header). */
    size_t start = 0;
    for (size_t i = 0; i < pos; i++)
        if (s[i] == ';' || s[i] == '{' || s[i] == '}') start = i + 1;
    int depth = 0;
    for (size_t i = start; i < pos; i++) {
        if (s[i] == '(')
            depth++;
        else if (s[i] == ')' && --depth < 0) {
            start = i + 1;
            depth = 0;
        }
    }
    start = skip_control(s, pos, start);
    char *direct = direct_init_name(s, st->len, start, pos);
    if (direct) return direct;
    /* Walk the groups still open at the call from the innermost outwards: an index or a
     * function call's parenthesis means no variable receives the allocation; in a grouping
     * or cast parenthesis, an assignment inside it wins over one outside. */
    size_t open[256], nopen = 0;
    for (size_t i = start; i < pos; i++) {
        if ((s[i] == '(' || s[i] == '[') && nopen < 256)
            open[nopen++] = i;
        else if ((s[i] == ')' || s[i] == ']') && nopen > 0)
            nopen--;
    }
    size_t eq = pos, lhs = start;
    for (size_t k = nopen + 1; k-- > 0 && eq == pos;) {
        size_t group = k > 0 ? open[k - 1] + 1 : start;
        if (k > 0 && (s[group - 1] == '[' || is_call_paren(s, start, group - 1))) return NULL;
        group = skip_space(s, pos, group);
        if (word_at(s, pos, group, "return") || word_at(s, pos, group, "throw")) return NULL;
        eq = find_assignment(s, group, pos, &lhs);
    }
    if (eq == pos) return NULL;
    size_t stmt_end = pos;
    while (stmt_end < st->len && s[stmt_end] != ';') stmt_end++;
    return lhs_name(s, lhs, eq, eq + 1, stmt_end);
}

char *ms_name_from_statement(const char *text, int col)
{
    if (!text) return NULL;
    stmt st;
    if (stmt_init(&st, text, col) != 0) return NULL;
    char *name = st.fortran ? fortran_name(&st) : c_name(&st);
    free(st.s);
    return name;
}

/* Bytes of a C scalar type as gcc and clang lay it out on x86-64 and AArch64 (0: unknown). */
static uint64_t scalar_bytes(const char *t, size_t n)
{
    static const struct {
        const char *name;
        uint64_t bytes;
    } types[] = {
        { "char", 1 },
        { "signed char", 1 },
        { "unsigned char", 1 },
        { "int8_t", 1 },
        { "uint8_t", 1 },
        { "bool", 1 },
        { "_Bool", 1 },
        { "short", 2 },
        { "int16_t", 2 },
        { "uint16_t", 2 },
        { "int", 4 },
        { "unsigned", 4 },
        { "unsigned int", 4 },
        { "int32_t", 4 },
        { "uint32_t", 4 },
        { "float", 4 },
        { "long", 8 },
        { "unsigned long", 8 },
        { "long long", 8 },
        { "int64_t", 8 },
        { "uint64_t", 8 },
        { "size_t", 8 },
        { "ssize_t", 8 },
        { "double", 8 },
        { "long double", 16 },
        { "unsigned short", 2 },
        { "unsigned long long", 8 },
        { "intptr_t", 8 },
        { "uintptr_t", 8 },
    };
    for (size_t i = 0; i < sizeof types / sizeof *types; i++)
        if (strlen(types[i].name) == n && strncmp(types[i].name, t, n) == 0) return types[i].bytes;
    return 0;
}

uint64_t ms_name_element_size(const char *name)
{
    const char *dot = strstr(name, "*.");
    if (!dot || strchr(name, '>')) return 0;    /* not "TYPE*.var" (a full name has a path) */
    if (dot > name && dot[-1] == '*') return 8; /* an array of pointers */
    const char *t = name;
    size_t n = (size_t)(dot - name);
    for (int again = 1; again;) { /* qualifiers say nothing about the size */
        again = 0;
        static const char *const quals[] = { "const ", "volatile " };
        for (size_t q = 0; q < 2; q++) {
            size_t ql = strlen(quals[q]);
            if (n > ql && strncmp(t, quals[q], ql) == 0) t += ql, n -= ql, again = 1;
        }
    }
    while (n && t[n - 1] == ' ') n--;
    return scalar_bytes(t, n);
}
