/* Tests of ms_name_from_statement: MemSpy-style short names from allocation statements. */
#include "analysis/analyze.h"
#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Column (1-based) of the first occurrence of `at` in the last line of text. */
static int col_of(const char *text, const char *at)
{
    const char *line = strrchr(text, '\n');
    line = line ? line + 1 : text;
    const char *p = strstr(line, at);
    return p ? (int)(p - line) + 1 : 0;
}

static void expect(const char *text, const char *at, const char *want, int line, const char *func)
{
    int col = at ? col_of(text, at) : 0;
    if (at && col == 0) {
        fprintf(stderr, "test_names.c:%d: in %s: marker '%s' not in last line\n", line, func, at);
        check_failures++;
        return;
    }
    char *got = ms_name_from_statement(text, col);
    if ((want == NULL) != (got == NULL) || (want && strcmp(want, got) != 0)) {
        fprintf(stderr, "test_names.c:%d: in %s: [%s] col %d: want %s, got %s\n", line, func, text, col,
                want ? want : "NULL", got ? got : "NULL");
        check_failures++;
    }
    free(got);
}
#define EXPECT(text, at, want) expect(text, at, want, __LINE__, __func__)

int main(void)
{
    /* C++ direct initialisation: Type.var with the type's last component */
    EXPECT("    std::vector<double> samples(1000);", "samples", "vector<double>.samples");
    EXPECT("    std::vector<double> samples(1000);", "(1000)", "vector<double>.samples");
    EXPECT("  static std::unique_ptr<Grid> g(new Grid(n));", "new", "unique_ptr<Grid>.g");
    EXPECT("  Matrix m{rows, cols};", "m{", "Matrix.m");
    EXPECT("  return make(n);", "make", NULL);
    EXPECT("  delete p;", "p", NULL);
    EXPECT("  foo(bar(3));", "bar", NULL);
    EXPECT("  double *x = malloc(n);", "malloc", "double*.x");
    /* columns on a call's parentheses (g++ puts `new Node()` on the closing one) */
    EXPECT("    Node *made = new Node();", ");", "Node*.made");
    EXPECT("    Node *made = new Node();", "();", "Node*.made");
    EXPECT("  double *x = malloc (n);", "(n)", "double*.x");
    EXPECT("  foo(malloc(3));", "(3)", NULL);
    /* analyze.h examples */
    EXPECT("double *Y = malloc(n)", "malloc", "double*.Y");
    EXPECT("M->nz = calloc(n, sizeof(int));", "calloc", "M.nz");
    EXPECT("int **rows = (int **)malloc(n * sizeof *rows);", "malloc", "int**.rows");
    EXPECT("a[i] = malloc(n);", "malloc", "a[]");
    EXPECT("Foo *f = new Foo(3);", "new", "Foo*.f");
    EXPECT("allocate(A(n,n), B(n))", "A(", "A");
    EXPECT("return malloc(n);", "malloc", NULL);
    /* MemSpy's own example: a member of a struct */
    EXPECT("M.nz = (int *) malloc(M.n * sizeof(int));", "malloc", "M.nz");
    /* deeper member chains keep the last two parts */
    EXPECT("g->mesh->cells = malloc(n);", "malloc", "mesh.cells");
    EXPECT("this->data = new double[n];", "new", "data");
    EXPECT("M->rows[i] = calloc(n, 8);", "calloc", "M.rows[]");
    /* type words */
    EXPECT("static const struct node *head = malloc(sizeof *head);", "malloc", "node*.head");
    EXPECT("unsigned long *counts = calloc(n, sizeof *counts);", "calloc", "unsigned long*.counts");
    EXPECT("double * restrict x = aligned_alloc(64, n);", "aligned_alloc", "double*.x");
    EXPECT("char *buf = malloc(n), *tmp = malloc(m);", "malloc(m", "char*.tmp");
    EXPECT("char *buf = malloc(n), *tmp = malloc(m);", "malloc(n", "char*.buf");
    /* plain assignments, casts, chains */
    EXPECT("  Y = (double *)malloc(n);", "malloc", "Y");
    EXPECT("x = y = malloc(n);", "malloc", "y");
    EXPECT("*out = malloc(n);", "malloc", "out");
    EXPECT("p = n > 0 ? malloc(n) : NULL;", "malloc", "p");
    /* compare operators are not assignments */
    EXPECT("if ((p = malloc(n)) == NULL)", "malloc", "p");
    EXPECT("if (malloc(n) == NULL)", "malloc", NULL);
    EXPECT("ok = q != malloc(n);", "malloc", "ok");
    EXPECT("while (n <= 10) v = malloc(n);", "malloc", "v");
    /* function arguments and indexes name nothing */
    EXPECT("list_push(l, malloc(n));", "malloc", NULL);
    EXPECT("x = foo(malloc(n));", "malloc", NULL);
    EXPECT("throw new Error();", "new", NULL);
    /* statements split over lines, earlier statements on the same lines */
    EXPECT("double *Y =\n    malloc(n * n * sizeof(double));", "malloc", "double*.Y");
    EXPECT("int n = 3; float *w =\n  (float *) malloc(n);", "malloc", "float*.w");
    EXPECT("for (i = 0; i < n; i++) a[i] = malloc(8);", "malloc", "a[]");
    EXPECT("} else tab = malloc(n); /* the = in a comment: x = y */", "malloc", "tab");
    /* C++ */
    EXPECT("int *a = new int[n];", "new", "int*.a");
    EXPECT("auto p = new Foo(3);", "new", "Foo*.p");
    EXPECT("auto v = std::make_unique<Foo[]>(n);", "std::", "Foo*.v");
    EXPECT("std::unique_ptr<Foo> u = std::make_unique<Foo>(1, 2);", "std::make", "std::unique_ptr<Foo>.u");
    EXPECT("std::map<int, int> *m = new std::map<int, int>();", "new", "std::map<int, int>*.m");
    EXPECT("auto *d = static_cast<double *>(malloc(n));", "malloc", "double*.d");
    EXPECT("v.push_back(new Foo);", "new", NULL);
    /* Fortran */
    EXPECT("allocate(A(n,n), B(n))", "B(", "B");
    EXPECT("  ALLOCATE(grid%cells(n), stat=ierr)", NULL, "grid.cells");
    EXPECT("allocate(stat=ierr, x(n)) ! comment, y(3)", "allocate", "x");
    EXPECT("allocate(A(n), &\n         B(m))", "B(", "B");
    EXPECT("if (n > 0) allocate(w(n))", "w(", "w");
    /* a C function called allocate is not Fortran */
    EXPECT("p = allocate(n);", "allocate", "p");
    /* unknown column: the call ends the statement */
    EXPECT("double *Y = malloc(n);", NULL, "double*.Y");
    EXPECT("", NULL, NULL);
    EXPECT("foo(bar);", NULL, NULL);
    return check_result();
}
