/* The library functions the runtime itself calls for its files (zstd for the recorded
 * streams, zlib's crc32 for the streams' and the raw profile's checksums), bound privately:
 * loaded with dlopen and looked up in those libraries with dlsym, never through the
 * program's global symbols. A program with its own zstd (zstd itself, any program that
 * compiles zstd's sources in) or its own function named crc32 would otherwise receive the
 * runtime's calls: the recording's compression profiled as the program's work (zstd 1.5.4's
 * CLI: 58% of the memory stall), or a crash where the program's function has another
 * signature. Resolved once at activation (the exit path may run in a signal handler, where
 * dlopen is not allowed). */
#include "syslib.h"
#include <dlfcn.h>
#include <stdio.h>

ms_syslib ms_sys;

/* dlsym each of names[i] from lib into fns[i]; -1 with the reason in err if any is missing. */
static int bind_lib(const char *lib, const char *const *names, void **fns, size_t n, char *err, size_t errlen)
{
    void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *why = dlerror();
        snprintf(err, errlen, "cannot load %s: %s", lib, why ? why : "not found");
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        if (!(fns[i] = dlsym(h, names[i]))) {
            snprintf(err, errlen, "%s has no %s", lib, names[i]);
            return -1;
        }
    return 0;
}

int ms_syslib_init(int zstd, char *err, size_t errlen)
{
    static const char *const z_names[] = { "crc32" };
    void *z[1];
    if (!ms_sys.crc32) {
        if (bind_lib("libz.so.1", z_names, z, 1, err, errlen) < 0) return -1;
        ms_sys.crc32 = (ms_crc32_fn *)z[0];
    }
    if (!zstd || ms_sys.compress_stream2) return 0;
    static const char *const zstd_names[] = {
        "ZSTD_createCCtx_advanced", "ZSTD_CCtx_setParameter", "ZSTD_CCtx_reset",
        "ZSTD_compressStream2",     "ZSTD_isError",           "ZSTD_getErrorName"
    };
    void *f[6];
    if (bind_lib("libzstd.so.1", zstd_names, f, 6, err, errlen) < 0) return -1;
    ms_sys.create_cctx_advanced = (ms_zstd_create_fn *)f[0];
    ms_sys.cctx_set_parameter = (ms_zstd_set_fn *)f[1];
    ms_sys.cctx_reset = (ms_zstd_reset_fn *)f[2];
    ms_sys.is_error = (ms_zstd_is_error_fn *)f[4];
    ms_sys.error_name = (ms_zstd_error_name_fn *)f[5];
    __atomic_store_n(&ms_sys.compress_stream2, (ms_zstd_compress_fn *)f[3], __ATOMIC_RELEASE);
    return 0;
}

unsigned long ms_rt_crc32(unsigned long crc, const unsigned char *buf, unsigned len)
{
    return ms_sys.crc32 ? ms_sys.crc32(crc, buf, len) : 0;
}
