/* Test helper: prints the events of one recorded stream (DIR/thread-N.zst) as text, one a line,
 * so tests can assert the captured events exactly:
 *   A <ctx> <addr> <size> <write>           an access (addr in hex)
 *   S <KIND> <obj> <arg> <seq>              a sync event (KIND as in MS_SYNC_*, obj in hex,
 *                                           arg in hex for COND_WAIT: a mutex address)
 *   W <block> <count>                       work: a basic block's executions (WORK)
 * Usage: rt_streamdump FILE INDEX. Exit 0, or 1 if the stream is unreadable or corrupt. */
#include "format/stream.h"
#include "replay/stream_reader.h"
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

static const char *const kind_names[MS_SYNC_KIND_MAX + 1] = {
    "?", "ACQUIRE", "RELEASE", "BARRIER", "CREATE", "JOIN", "EXIT",
    "COND_WAIT", "COND_SIGNAL", "SEM_POST", "SEM_WAIT", "FORK", "BEGIN", "WORK"};

static void print_event(const ms_replay_event *e) {
    if (e->kind == 0)
        printf("A %" PRIu32 " 0x%" PRIx64 " %" PRIu64 " %u\n", e->ctx, e->addr, e->size, e->write);
    else if (e->kind == MS_SYNC_WORK)
        printf("W %" PRIu64 " %" PRIu64 "\n", e->addr, e->size);
    else if (e->kind == MS_SYNC_COND_WAIT)
        printf("S %s 0x%" PRIx64 " 0x%" PRIx64 " %" PRIu64 "\n", kind_names[e->kind], e->addr, e->size, e->seq);
    else
        printf("S %s 0x%" PRIx64 " %" PRIu64 " %" PRIu64 "\n", e->kind <= MS_SYNC_KIND_MAX ? kind_names[e->kind] : "?",
               e->addr, e->size, e->seq);
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: rt_streamdump FILE INDEX\n");
        return 2;
    }
    char err[512];
    ms_stream_reader *s;
    int rc = ms_stream_reader_open(&s, argv[1], (uint32_t)strtoul(argv[2], NULL, 10), UINT32_MAX - 1, err, sizeof err);
    if (rc != MS_SR_CHUNK) {
        fprintf(stderr, "rt_streamdump: %s\n", err);
        if (rc == MS_SR_BAD) ms_stream_reader_close(s);
        return 1;
    }
    const ms_replay_event *ev;
    size_t n;
    while ((rc = ms_stream_reader_next(s, &ev, &n, err, sizeof err)) == MS_SR_CHUNK)
        for (size_t i = 0; i < n; i++) print_event(&ev[i]);
    ms_stream_reader_close(s);
    if (rc != MS_SR_END) {
        fprintf(stderr, "rt_streamdump: %s\n", err);
        return 1;
    }
    return 0;
}
