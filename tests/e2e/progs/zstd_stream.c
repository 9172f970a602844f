/* Streaming compression with the system's libzstd (uninstrumented, usually stripped), as
 * zstd's examples/streaming_compression.c does it, on generated text (t_libnames): the
 * library's work reaches memspy only through its memcpy/memset calls and its allocations. */
#include <stdio.h>
#include <stdlib.h>
#include <zstd.h>

int main(int argc, char **argv)
{
    size_t total = argc > 1 ? (size_t)atol(argv[1]) : (size_t)4 << 20;
    size_t in_size = ZSTD_CStreamInSize(), out_size = ZSTD_CStreamOutSize();
    char *in = malloc(in_size), *out = malloc(out_size);
    ZSTD_CCtx *cctx = ZSTD_createCCtx();
    if (!in || !out || !cctx) return 1;
    ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, 1);
    ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1);
    unsigned seed = 1;
    size_t done = 0, written = 0;
    while (done < total) {
        size_t n = total - done < in_size ? total - done : in_size;
        for (size_t i = 0; i < n; i++) { /* words of 1-8 letters */
            seed = seed * 1103515245u + 12345u;
            in[i] = (seed >> 16) % 6 == 0 ? ' ' : (char)('a' + (seed >> 20) % 8);
        }
        done += n;
        ZSTD_EndDirective mode = done == total ? ZSTD_e_end : ZSTD_e_continue;
        ZSTD_inBuffer input = { in, n, 0 };
        int finished;
        do {
            ZSTD_outBuffer output = { out, out_size, 0 };
            size_t remaining = ZSTD_compressStream2(cctx, &output, &input, mode);
            if (ZSTD_isError(remaining)) return 1;
            written += output.pos;
            finished = mode == ZSTD_e_end ? remaining == 0 : input.pos == input.size;
        } while (!finished);
    }
    printf("%zu -> %zu\n", total, written);
    ZSTD_freeCCtx(cctx);
    free(in);
    free(out);
    return 0;
}
