/* The tools' output helpers: terminal escaping (exact escaped text, lengths, what is kept)
 * and output files replaced only when complete (old content kept on abort, exclusive files
 * never replaced, no temporary file left), and bounded whole-file reads. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "store_testutil.h"
#include "util/util.h"

static void test_escape(void)
{
    char buf[64];
    CHECK_EQ(ms_term_escape(buf, sizeof buf, "plain name", 0), 10);
    CHECK_STR(buf, "plain name");
    CHECK_EQ(ms_term_escape(buf, sizeof buf, "a\033]0;t\007b", 0), 14);
    CHECK_STR(buf, "a\\x1b]0;t\\x07b");
    CHECK_EQ(ms_term_escape(buf, sizeof buf, "t\tn\n\177", 1), 8);
    CHECK_STR(buf, "t\tn\n\\x7f");
    CHECK_EQ(ms_term_escape(buf, sizeof buf, "t\tn\n", 0), 10);
    CHECK_STR(buf, "t\\x09n\\x0a");
    /* UTF-8: C1 controls (U+009B, CSI) escaped, other non-ASCII (é) kept. */
    CHECK_EQ(ms_term_escape(buf, sizeof buf,
                            "\xc2\x9b"
                            "2J \xc3\xa9",
                            0),
             13);
    CHECK_STR(buf, "\\xc2\\x9b2J \xc3\xa9");
    /* Too small a buffer: cut before the first escape that does not fit whole, terminated,
     * the needed length returned. */
    CHECK_EQ(ms_term_escape(buf, 4, "\033abc", 0), 7);
    CHECK_STR(buf, "");
    CHECK_EQ(ms_term_escape(buf, 6, "ab\033c", 0), 7);
    CHECK_STR(buf, "ab");
    CHECK(ms_term("clean") != NULL && strcmp(ms_term("clean"), "clean") == 0);
    const char *s = "x\033y";
    CHECK(ms_term(s) != s);
    CHECK_STR(ms_term(s), "x\\x1by");
    CHECK(ms_term(NULL) == NULL);
    CHECK(!ms_term_needs_escape("ok") && ms_term_needs_escape("a\nb"));
}

static char *slurp(const char *path)
{
    char *text = NULL;
    return ms_read_file(path, 0, &text, NULL) == MS_READ_OK ? text : NULL;
}

static size_t entries(const char *dir)
{
    char *cmd = NULL;
    size_t n = 0;
    if (asprintf(&cmd, "ls -A '%s'", dir) < 0) return 0;
    FILE *p = popen(cmd, "r");
    char line[512];
    while (p && fgets(line, sizeof line, p)) n++;
    if (p) pclose(p);
    free(cmd);
    return n;
}

static void test_out_file(void)
{
    char *dir = scratch_dir(), *path = NULL, err[256];
    if (asprintf(&path, "%s/out.json", dir) < 0) abort();
    FILE *f = fopen(path, "w");
    fputs("old", f);
    fclose(f);
    ms_out_file o;
    CHECK_EQ_INT(ms_out_open(&o, path, err, sizeof err), 0);
    fputs("new but unfinished", o.f);
    fflush(o.f);
    char *text = slurp(path);
    CHECK_STR(text, "old"); /* the destination is untouched while the file is written */
    free(text);
    CHECK_EQ(entries(dir), 2);
    ms_out_abort(&o);
    text = slurp(path);
    CHECK_STR(text, "old");
    free(text);
    CHECK_EQ(entries(dir), 1); /* the temporary file is gone */

    CHECK_EQ_INT(ms_out_open(&o, path, err, sizeof err), 0);
    fputs("new", o.f);
    CHECK_EQ_INT(ms_out_commit(&o, err, sizeof err), 0);
    text = slurp(path);
    CHECK_STR(text, "new");
    free(text);
    CHECK_EQ(entries(dir), 1);

    /* Exclusive: an existing file is never replaced. */
    CHECK_EQ_INT(ms_out_open(&o, path, err, sizeof err), 0);
    o.exclusive = 1;
    fputs("other", o.f);
    CHECK_EQ_INT(ms_out_commit(&o, err, sizeof err), MS_OUT_EXISTS);
    text = slurp(path);
    CHECK_STR(text, "new");
    free(text);
    CHECK_EQ(entries(dir), 1);

    /* A symbolic link stays a link; the file it points to gets the new content. */
    char *link_path = NULL;
    if (asprintf(&link_path, "%s/link.json", dir) < 0 || symlink("out.json", link_path) < 0) abort();
    CHECK_EQ_INT(ms_out_open(&o, link_path, err, sizeof err), 0);
    fputs("via link", o.f);
    CHECK_EQ_INT(ms_out_commit(&o, err, sizeof err), 0);
    struct stat lst;
    CHECK(lstat(link_path, &lst) == 0 && S_ISLNK(lst.st_mode));
    text = slurp(path);
    CHECK_STR(text, "via link");
    free(text);
    unlink(link_path);
    free(link_path);

    /* A directory that does not exist: the message names the path. */
    char *bad = NULL;
    if (asprintf(&bad, "%s/missing/out.json", dir) < 0) abort();
    CHECK_EQ_INT(ms_out_open(&o, bad, err, sizeof err), -1);
    CHECK_CONTAINS(err, "missing/out.json': No such file or directory");
    free(bad);

    /* Bounded reads: one byte over the limit is refused, at the limit accepted. */
    char *buf = NULL;
    size_t len = 0;
    CHECK_EQ_INT(ms_read_file(path, 7, &buf, &len), MS_READ_TOO_BIG);
    CHECK(buf == NULL);
    CHECK_EQ_INT(ms_read_file(path, 8, &buf, &len), MS_READ_OK);
    CHECK_EQ(len, 8);
    free(buf);
    CHECK_EQ_INT(ms_read_file("/dev/zero", 100000, &buf, &len), MS_READ_TOO_BIG);
    scratch_remove(dir);
    free(dir);
    free(path);
}

int main(void)
{
    test_escape();
    test_out_file();
    return check_result();
}
