/* Tests of the growable string (util/strbuf.h): exact contents across growth, formatted
 * appends, and the empty and out-of-memory cases. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "util/strbuf.h"

static void test_pieces_and_growth(void)
{
    ms_strbuf b = MS_STRBUF_INIT;
    ms_strbuf_adds(&b, "main:65>");
    ms_strbuf_add(&b, "NewMatrix:21>xyz", 13);
    ms_strbuf_addf(&b, "%s.%c", "double*", 'Y');
    CHECK_EQ(b.len, 30);
    char *s = ms_strbuf_take(&b);
    CHECK_STR(s, "main:65>NewMatrix:21>double*.Y");
    CHECK(b.s == NULL && b.len == 0);
    free(s);
    /* many small appends: 1000 digits, every one kept */
    for (int i = 0; i < 1000; i++) ms_strbuf_addf(&b, "%d", i % 10);
    CHECK_EQ(b.len, 1000);
    CHECK_EQ(strlen(b.s), 1000);
    CHECK_EQ_INT(b.s[999], '9');
    ms_strbuf_free(&b);
}

static void test_empty_and_oom(void)
{
    ms_strbuf b = MS_STRBUF_INIT;
    CHECK(ms_strbuf_take(&b) == NULL); /* nothing added */
    ms_strbuf_adds(&b, "");
    char *s = ms_strbuf_take(&b);
    CHECK_STR(s, ""); /* an empty piece makes an empty string */
    free(s);
    ms_strbuf_adds(&b, "kept");
    b.oom = 1; /* as after a failed allocation */
    ms_strbuf_adds(&b, " more");
    CHECK_EQ(b.len, 4);
    CHECK(ms_strbuf_take(&b) == NULL);
    CHECK(b.s == NULL && !b.oom);
}

int main(void)
{
    test_pieces_and_growth();
    test_empty_and_oom();
    return check_result();
}
