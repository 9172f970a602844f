/* Tests of ms_name_element_size: the element size a MemSpy-style heap bin name implies. */
#include "analysis/analyze.h"
#include "check.h"

int main(void)
{
    CHECK_EQ(ms_name_element_size("double*.Y"), 8);
    CHECK_EQ(ms_name_element_size("int*.cols"), 4);
    CHECK_EQ(ms_name_element_size("char*.buf"), 1);
    CHECK_EQ(ms_name_element_size("unsigned long*.counts"), 8);
    CHECK_EQ(ms_name_element_size("const float*.w"), 4);
    CHECK_EQ(ms_name_element_size("long double*.q"), 16);
    CHECK_EQ(ms_name_element_size("int**.rows"), 8); /* an array of pointers */
    CHECK_EQ(ms_name_element_size("Node*.made"), 0); /* not a scalar type */
    CHECK_EQ(ms_name_element_size("vector<double>.samples"), 0);
    CHECK_EQ(ms_name_element_size("grid"), 0);
    CHECK_EQ(ms_name_element_size("M.nz"), 0);
    CHECK_EQ(ms_name_element_size("main:65>NewMatrix:21>double*.Y"), 0); /* a full name */
    return check_result();
}
