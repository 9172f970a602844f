/* The runtime's privately bound zstd and zlib functions (syslib.c says why). */
#ifndef MEMSPY_RT_SYSLIB_H
#define MEMSPY_RT_SYSLIB_H
#define ZSTD_STATIC_LINKING_ONLY /* ZSTD_createCCtx_advanced, ZSTD_customMem */
#include <stddef.h>
#include <zstd.h>

typedef unsigned long ms_crc32_fn(unsigned long crc, const unsigned char *buf, unsigned len);
typedef ZSTD_CCtx *ms_zstd_create_fn(ZSTD_customMem mem);
typedef size_t ms_zstd_set_fn(ZSTD_CCtx *cctx, ZSTD_cParameter param, int value);
typedef size_t ms_zstd_reset_fn(ZSTD_CCtx *cctx, ZSTD_ResetDirective reset);
typedef size_t ms_zstd_compress_fn(ZSTD_CCtx *cctx, ZSTD_outBuffer *out, ZSTD_inBuffer *in, ZSTD_EndDirective end);
typedef unsigned ms_zstd_is_error_fn(size_t code);
typedef const char *ms_zstd_error_name_fn(size_t code);

typedef struct {
    ms_crc32_fn *crc32;
    ms_zstd_create_fn *create_cctx_advanced;
    ms_zstd_set_fn *cctx_set_parameter;
    ms_zstd_reset_fn *cctx_reset;
    ms_zstd_compress_fn *compress_stream2;
    ms_zstd_is_error_fn *is_error;
    ms_zstd_error_name_fn *error_name;
} ms_syslib;

/* The bound functions; NULL until ms_syslib_init binds them. */
extern ms_syslib ms_sys;

/* Bind zlib's crc32 and, if zstd, the zstd functions of the recorded streams (at activation,
 * in the runtime's busy mode: dlopen allocates). 0, or -1 with the reason in err. */
int ms_syslib_init(int zstd, char *err, size_t errlen);

/* zlib's crc32, bound privately: the raw profile's writer, compiled into the runtime, calls it
 * (CMakeLists.txt defines MS_CRC32 for the runtime's build). */
unsigned long ms_rt_crc32(unsigned long crc, const unsigned char *buf, unsigned len);

#endif
