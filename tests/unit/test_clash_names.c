/* Tests of ms_unique_data_names (analysis/databins.c): bins that share a name are told apart
 * by a frame where their call paths part, the program's frames before a library's, and #N
 * only where no frame does; none of them keeps the plain name. */
#include "analysis/databins.h"
#include "check.h"

#include <stdlib.h>
#include <string.h>

#define LIB "heap:libstdc++.so.6:_M_mutate"
#define TAIL "_M_append (libstdc++.so.6)>_M_mutate (libstdc++.so.6)>" LIB

static void set(ms_data_bin *b, const char *full)
{
    const char *gt = strrchr(full, '>');
    b->name = strdup(gt ? gt + 1 : full);
    b->full_name = strdup(full);
}

/* leveldb's std::string growth: five blocks the library allocates from _M_mutate for
 * different callers; the innermost frames where two paths part are the library's own
 * (_M_append or _M_replace) and the system header's (append, assign) that every path goes
 * through (every path there at append:1422: all move out past it): the program's caller tells
 * them apart, by function (RandomGenerator, though it also calls CompressibleString: no other
 * bin is told apart there). */
static void test_library_paths(void)
{
    ms_data_bin b[5];
    memset(b, 0, sizeof b);
    set(&b[0], "ThreadBody:635>ReadRandom:857>MemTable::Get:125>assign:1630>_M_replace (libstdc++.so.6)>"
               "_M_mutate (libstdc++.so.6)>" LIB);
    set(&b[1], "ThreadBody:635>WriteRandom:791>RandomGenerator:173>append:1388>append:1422>" TAIL);
    set(&b[2],
        "ThreadBody:635>WriteRandom:791>RandomGenerator:172>CompressibleString:44>append:1388>append:1422>" TAIL);
    set(&b[3], "ThreadBody:635>ReadRandom:864>AddMessage:272>AppendWithSpace:227>append:1422>" TAIL);
    set(&b[4],
        "ThreadBody:635>WriteRandom:791>DoWrite:810>WriteBatch::Put:102>PutLengthPrefixedSlice:74>append:1422>" TAIL);
    CHECK_EQ(ms_unique_data_names(b, 5, NULL, 0), 0);
    const char *want[5] = { LIB "@assign", LIB "@RandomGenerator", LIB "@CompressibleString", LIB "@AppendWithSpace",
                            LIB "@PutLengthPrefixedSlice" };
    for (int i = 0; i < 5; i++) {
        CHECK(strcmp(b[i].name, want[i]) == 0);
        if (strcmp(b[i].name, want[i]) != 0) fprintf(stderr, "bin %d: want %s, got %s\n", i, want[i], b[i].name);
        /* the full name ends with the new name */
        size_t fl = strlen(b[i].full_name), nl = strlen(b[i].name);
        CHECK(fl > nl && strcmp(b[i].full_name + fl - nl, b[i].name) == 0 && b[i].full_name[fl - nl - 1] == '>');
        CHECK(strchr(b[i].name, '#') == NULL);
    }
    for (int i = 0; i < 5; i++) {
        free(b[i].name);
        free(b[i].full_name);
    }
}

/* Two calls of one wrapper on one line: nothing tells them apart but #2 (the first keeps the
 * plain name, as the pieces of a global clang split do: account, account#2). */
static void test_same_paths(void)
{
    ms_data_bin b[2];
    memset(b, 0, sizeof b);
    set(&b[0], "main:5>make:9>buf");
    set(&b[1], "main:5>make:9>buf");
    CHECK_EQ(ms_unique_data_names(b, 2, NULL, 0), 0);
    CHECK(strcmp(b[0].name, "buf") == 0 && strcmp(b[1].name, "buf#2") == 0);
    for (int i = 0; i < 2; i++) {
        free(b[i].name);
        free(b[i].full_name);
    }
}

static void check_names_members(ms_data_bin *b, size_t n, const char *const *want, const char *const *members,
                                size_t nmembers)
{
    CHECK_EQ(ms_unique_data_names(b, n, members, nmembers), 0);
    for (size_t i = 0; i < n; i++) {
        CHECK(strcmp(b[i].name, want[i]) == 0);
        if (strcmp(b[i].name, want[i]) != 0) fprintf(stderr, "bin %zu: want %s, got %s\n", i, want[i], b[i].name);
        free(b[i].name);
        free(b[i].full_name);
    }
}

static void check_names(ms_data_bin *b, size_t n, const char *const *want) { check_names_members(b, n, want, NULL, 0); }

/* Lua's strings: one made by luaV_concat itself, one by luaO_tostring that luaV_concat calls,
 * one by the parser (the first): each by its function, no line (luaV_concat was
 * `TString@luaV_concat:666` because luaO_tostring's path goes through it too). */
static void test_function_no_line(void)
{
    ms_data_bin b[3];
    memset(b, 0, sizeof b);
    set(&b[0], "main:4>luaY_parser:9>llex:545>luaX_newstring:136>luaS_newlstr:223>TString");
    set(&b[1], "main:5>luaV_execute:1546>luaV_concat:639>luaV_concat:666>luaS_newlstr:223>TString");
    set(&b[2], "main:5>luaV_execute:1546>luaV_concat:639>luaV_concat:645>luaO_tostring:377>luaS_newlstr:223>TString");
    const char *want[3] = { "TString@luaX_newstring", "TString@luaV_concat", "TString@luaO_tostring" };
    check_names(b, 3, want);
}

/* Two bins from two lines of one function (a wrapper called twice by luaV_execute), and one
 * from the first's function on another line: the line tells them apart. */
static void test_lines_of_one_function(void)
{
    ms_data_bin b[4];
    memset(b, 0, sizeof b);
    set(&b[0], "main:5>load:20>resize:558>t.node");
    set(&b[1], "main:5>run:9>execute:1310>resize:558>t.node");
    set(&b[2], "main:5>run:9>execute:1353>resize:558>t.node");
    set(&b[3], "main:5>load:21>resize:558>t.node");
    const char *want[4] = { "t.node@load:20", "t.node@execute:1310", "t.node@execute:1353", "t.node@load:21" };
    check_names(b, 4, want);
}

/* A one-off and a hot object of one name (Lua's libraries' one table each, the interpreter's
 * 100000): neither keeps the plain name, whichever sorts first or has the larger counts. */
static void test_no_plain_name(void)
{
    ms_data_bin b[4];
    memset(b, 0, sizeof b);
    set(&b[0], "main:652>luaL_newstate:1089>f_luaopen:235>init_registry:218>luaH_new:625>Table");
    set(&b[1], "main:660>pmain:634>luaV_execute:1350>luaH_new:625>Table");
    set(&b[2], "main:660>pmain:624>luaopen_string:1870>lua_createtable:769>luaH_new:625>Table");
    set(&b[3], "main:660>pmain:624>luaopen_math:752>lua_createtable:769>luaH_new:625>Table");
    b[1].objects = 100000;
    b[0].objects = b[2].objects = b[3].objects = 1;
    /* (the API's lua_createtable, on two paths at one line, says nothing: their callers do) */
    const char *want[4] = { "Table@init_registry", "Table@luaV_execute", "Table@luaopen_string", "Table@luaopen_math" };
    check_names(b, 4, want);
}

/* A small copy helper of a class (leveldb's Status::CopyState) called by the class's copy
 * constructor and operator=, inlined into many callers: the first caller outside the class
 * tells them apart (the constructor shows Status to be a class); where only the class's own
 * functions differ, they do. */
static void test_class_helper(void)
{
    ms_data_bin b[4];
    memset(b, 0, sizeof b);
    set(&b[0], "main:42>leveldb::DBImpl::Get:1150>leveldb::Status::Status:104>leveldb::Status::CopyState:12>state_");
    set(&b[1],
        "main:42>leveldb::DBImpl::Write:1210>leveldb::Status::operator=:111>leveldb::Status::CopyState:12>state_");
    set(&b[2], "main:43>leveldb::DBImpl::Write:1230>leveldb::Status::Status:104>leveldb::Status::CopyState:12>state_");
    set(&b[3], "main:44>leveldb::Version::Get:400>leveldb::Status::Status:104>leveldb::Status::CopyState:12>state_");
    const char *want[4] = { "state_@leveldb::DBImpl::Get", "state_@leveldb::DBImpl::Write:1210",
                            "state_@leveldb::DBImpl::Write:1230", "state_@leveldb::Version::Get" };
    check_names(b, 4, want);
    /* a scope with template arguments is a class */
    memset(b, 0, sizeof b);
    set(&b[0], "main:5>f:9>ns::Pool<int>::add:30>ns::Pool<int>::grow:3>x");
    set(&b[1], "main:6>g:19>ns::Pool<int>::put:40>ns::Pool<int>::grow:3>x");
    const char *tpl[2] = { "x@f", "x@g" };
    check_names(b, 2, tpl);
    /* a namespace is no class: its functions tell the paths apart */
    memset(b, 0, sizeof b);
    set(&b[0], "main:5>app::setup:9>app::make_buf:3>buf");
    set(&b[1], "main:6>app::work:19>app::make_buf:3>buf");
    const char *ns[2] = { "buf@app::setup", "buf@app::work" };
    check_names(b, 2, ns);
}

/* A block arena in the manner of leveldb's Arena (no constructor, destructor, operator nor
 * template arguments on the path): its frames name no class by their text, but DWARF shows
 * kv::Arena::NewBlock to be a member function (ms_frame.member): the arena's frames give way to
 * the first caller outside it. Without that fact, the arena's own functions tell them apart;
 * a namespace's functions still do where another scope is a class. */
static void test_dwarf_class(void)
{
    ms_data_bin b[3];
    const char *paths[3] = {
        "main:120>kv::Table::Add:70>kv::Arena::Allocate:20>kv::Arena::Fallback:61>kv::Arena::NewBlock:52>blocks_[]",
        "main:121>kv::Index::Insert:80>kv::Arena::AllocateAligned:29>kv::Arena::Fallback:61>kv::Arena::NewBlock:52>"
        "blocks_[]",
        "main:122>kv::Log::Append:90>kv::Arena::Allocate:20>kv::Arena::Fallback:59>kv::Arena::NewBlock:52>blocks_[]"
    };
    const char *members[3] = { "kv::Table::Add", "kv::Arena::NewBlock", "kv::Arena::Fallback" };
    const char *want[3] = { "blocks_[]@kv::Table::Add", "blocks_[]@kv::Index::Insert", "blocks_[]@kv::Log::Append" };
    memset(b, 0, sizeof b);
    for (int i = 0; i < 3; i++) set(&b[i], paths[i]);
    check_names_members(b, 3, want, members, 3);
    const char *text[3] = { "blocks_[]@kv::Arena::Allocate", "blocks_[]@kv::Arena::AllocateAligned",
                            "blocks_[]@kv::Arena::Fallback:59" };
    memset(b, 0, sizeof b);
    for (int i = 0; i < 3; i++) set(&b[i], paths[i]);
    check_names(b, 3, text);
    /* the vector's storage: allocated by the library's class, through the arena's functions
     * that call one another (the arena's inner workings): the caller outside tells them apart */
    memset(b, 0, sizeof b);
    set(&b[0], "main:120>kv::Table::Add:70>kv::Arena::Allocate:20>kv::Arena::Fallback:61>kv::Arena::NewBlock:52>"
               "std::vector<char*>::push_back:1294>std::__new_allocator<char*>::allocate:137>blocks_");
    set(&b[1], "main:121>kv::Index::Insert:80>kv::Arena::AllocateAligned:29>kv::Arena::Fallback:61>"
               "kv::Arena::NewBlock:52>std::vector<char*>::push_back:1294>std::__new_allocator<char*>::allocate:137>"
               "blocks_");
    const char *vec[2] = { "blocks_@kv::Table::Add", "blocks_@kv::Index::Insert" };
    check_names_members(b, 2, vec, members, 3);
    memset(b, 0, sizeof b);
    set(&b[0], "main:5>app::setup:9>app::make_buf:3>buf");
    set(&b[1], "main:6>app::work:19>app::make_buf:3>buf");
    const char *ns[2] = { "buf@app::setup", "buf@app::work" };
    check_names_members(b, 2, ns, members, 3);
    /* where only a class's frames that call its others part the paths (leveldb's Benchmark::Run
     * calls Benchmark::Open from two lines), those frames do */
    const char *bench[1] = { "kv::Bench::Open" };
    memset(b, 0, sizeof b);
    set(&b[0], "main:5>kv::Bench::Run:10>kv::Bench::Open:20>kv::Arena::NewBlock:52>blocks_[]");
    set(&b[1], "main:5>kv::Bench::Run:11>kv::Bench::Open:20>kv::Arena::NewBlock:52>blocks_[]");
    const char *run[2] = { "blocks_[]@kv::Bench::Run:10", "blocks_[]@kv::Bench::Run:11" };
    check_names_members(b, 2, run, bench, 1);
}

int main(void)
{
    test_dwarf_class();
    test_no_plain_name();
    test_class_helper();
    test_function_no_line();
    test_lines_of_one_function();
    test_library_paths();
    test_same_paths();
    return check_result();
}
