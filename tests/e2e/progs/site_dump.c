/* Prints the kind and memory order of every atomic site of the program's plugin site tables
 * ("KIND ORDER", kinds 3 load, 4 store, 5 read-modify-write; order -1 unknown), read from its
 * __memspy_pcs section (msplug_abi.h). Compiled without the plugin: t_plugin links it into an
 * instrumented program. */
#include <stdint.h>
#include <stdio.h>

typedef struct {
    uint64_t pc, site;
} pair;
extern const pair __start___memspy_pcs[] __attribute__((weak));
extern const pair __stop___memspy_pcs[] __attribute__((weak));

void dump_atomic_sites(void)
{
    for (const pair *p = __start___memspy_pcs; p < __stop___memspy_pcs; p++) {
        const uint64_t *site = (const uint64_t *)(uintptr_t)p->site;
        uint64_t info = site[1];
        unsigned kind = (unsigned)(info >> 32) & 0xffu, flags = (unsigned)(info >> 48);
        if (kind >= 3 && kind <= 5) printf("%u %d\n", kind, (int)((flags >> 1) & 7u) - 1);
    }
}
