/* MS_RAW_SAMPLES (MTOOL's timing run) written by the runtime's writer and read back: period,
 * lost samples, samples inside the runtime and every (pc, count) exactly. */
#include "format/raw.h"
#include "check.h"
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(void)
{
    char path[] = "/tmp/memspy-test-samples-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    ms_raw_writer w;
    CHECK(ms_raw_writer_begin(&w, fd, 0) == 0);
    ms_raw_section_begin(&w, MS_RAW_SAMPLES);
    ms_raw_put_u64(&w, 4000000);
    ms_raw_put_u64(&w, 3);
    ms_raw_put_u64(&w, 41);
    ms_raw_put_u32(&w, 2);
    ms_raw_put_u64(&w, 0x401136);
    ms_raw_put_u64(&w, 250);
    ms_raw_put_u64(&w, 0x7f0000001000ull);
    ms_raw_put_u64(&w, 7);
    ms_raw_section_end(&w);
    CHECK(ms_raw_writer_finish(&w) == 0);
    close(fd);
    ms_raw raw;
    char err[256];
    CHECK(ms_raw_read(path, &raw, err, sizeof err) == 0);
    CHECK_EQ(raw.sample_period_ns, 4000000);
    CHECK_EQ(raw.samples_lost, 3);
    CHECK_EQ(raw.samples_runtime, 41);
    CHECK_EQ(raw.nsamples, 2);
    if (raw.nsamples == 2) {
        CHECK_EQ(raw.samples[0].pc, 0x401136);
        CHECK_EQ(raw.samples[0].count, 250);
        CHECK_EQ(raw.samples[1].pc, 0x7f0000001000ull);
        CHECK_EQ(raw.samples[1].count, 7);
    }
    ms_raw_free(&raw);
    unlink(path);
    return check_result();
}
