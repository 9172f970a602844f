/* libFuzzer target: the recorded stream reader (src/replay/stream_reader.c) on arbitrary
 * bytes, as thread 0's stream, read to its end or its first bad chunk. */
#include "fuzz_input.h"
#include "replay/stream_reader.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_file(data, size, ".zst");
    if (!path) return 0;
    ms_stream_reader *rd = NULL;
    char err[512];
    if (ms_stream_reader_open(&rd, path, 0, 1000, err, sizeof err) == MS_SR_CHUNK) {
        const ms_replay_event *ev;
        size_t n;
        while (ms_stream_reader_next(rd, &ev, &n, err, sizeof err) == MS_SR_CHUNK) {
            for (size_t i = 0; i < n; i++)
                if (ev[i].kind == 0 && ev[i].ctx > 1000) abort();   /* contexts are checked */
        }
    }
    ms_stream_reader_close(rd);
    return 0;
}
