#include "bench_kernels.h"
#include <zmq.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The latency probe's topology in C, with no work at either end: a "watch" process publishes a
   300-byte frame every few milliseconds and listens to the "phone"; the "phone" process answers
   each frame with a 40-byte ack at once; the probe subscribes to both, as pairsim-bench does, and
   times each ack from the arrival of its frame. What this measures is the floor that the sockets,
   the processes and the fan-out to two subscribers set on this machine, before any decoding,
   bookkeeping or durability. */

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void *subscriber(void *context, const char *endpoint) {
    void *socket = zmq_socket(context, ZMQ_SUB);
    zmq_setsockopt(socket, ZMQ_SUBSCRIBE, "", 0);
    zmq_connect(socket, endpoint);
    return socket;
}

/* Closes both sockets without waiting for unsent messages, then the context. */
static void end(void *context, void *a, void *b) {
    int linger = 0;
    zmq_setsockopt(a, ZMQ_LINGER, &linger, sizeof linger);
    zmq_setsockopt(b, ZMQ_LINGER, &linger, sizeof linger);
    zmq_close(a);
    zmq_close(b);
    zmq_ctx_term(context);
}

/* Reads one two-part message; returns the first 8 bytes of its second part (the frame's number). */
static int receive_numbered(void *socket, int64_t *number) {
    char topic[64], body[512];
    if (zmq_recv(socket, topic, sizeof topic, 0) < 0) return -1;
    int size = zmq_recv(socket, body, sizeof body, 0);
    if (size < 8) return -1;
    memcpy(number, body, 8);
    return 0;
}

int pairsim_c_zmq_echo_watch(const char *publish, const char *peer, int64_t count, int settle_ms, int gap_us) {
    void *context = zmq_ctx_new();
    void *out = zmq_socket(context, ZMQ_PUB);
    if (zmq_bind(out, publish) != 0) { zmq_close(out); zmq_ctx_term(context); return -1; }
    void *acks = subscriber(context, peer);
    usleep((useconds_t)settle_ms * 1000);
    char frame[300];
    memset(frame, 'x', sizeof frame);
    for (int64_t i = 0; i < count; i++) {
        memcpy(frame, &i, 8);
        zmq_send(out, "hk.objects", 10, ZMQ_SNDMORE);
        zmq_send(out, frame, sizeof frame, 0);
        usleep((useconds_t)gap_us);
        int64_t number;
        while (zmq_poll(&(zmq_pollitem_t){acks, 0, ZMQ_POLLIN, 0}, 1, 0) > 0) receive_numbered(acks, &number);
    }
    usleep(200000);
    end(context, out, acks);
    return 0;
}

int pairsim_c_zmq_echo_phone(const char *publish, const char *peer, int64_t count) {
    void *context = zmq_ctx_new();
    void *out = zmq_socket(context, ZMQ_PUB);
    if (zmq_bind(out, publish) != 0) { zmq_close(out); zmq_ctx_term(context); return -1; }
    void *frames = subscriber(context, peer);
    int timeout = 10000;
    zmq_setsockopt(frames, ZMQ_RCVTIMEO, &timeout, sizeof timeout);
    char ack[40];
    memset(ack, 0, sizeof ack);
    for (int64_t i = 0; i < count; i++) {
        int64_t number;
        if (receive_numbered(frames, &number) != 0) break;
        memcpy(ack, &number, 8);
        zmq_send(out, "ack.hk", 6, ZMQ_SNDMORE);
        zmq_send(out, ack, sizeof ack, 0);
    }
    end(context, out, frames);
    return 0;
}

int64_t pairsim_c_zmq_echo_probe(const char *watch, const char *phone, int64_t count, double *microseconds) {
    void *context = zmq_ctx_new();
    zmq_pollitem_t items[2] = {{subscriber(context, watch), 0, ZMQ_POLLIN, 0}, {subscriber(context, phone), 0, ZMQ_POLLIN, 0}};
    uint64_t *seen = calloc((size_t)count, sizeof *seen);
    int64_t measured = 0, acknowledged = 0;
    while (acknowledged < count && zmq_poll(items, 2, 3000) > 0) {
        int64_t number;
        if ((items[0].revents & ZMQ_POLLIN) && receive_numbered(items[0].socket, &number) == 0 && number >= 0 && number < count)
            seen[number] = now_ns();
        if ((items[1].revents & ZMQ_POLLIN) && receive_numbered(items[1].socket, &number) == 0 && number >= 0 && number < count) {
            uint64_t arrived = now_ns();
            acknowledged++;
            /* An ack that overtook its frame on the way here is left out, as pairsim-bench does. */
            if (seen[number] != 0 && arrived >= seen[number]) microseconds[measured++] = (double)(arrived - seen[number]) / 1000.0;
        }
    }
    free(seen);
    end(context, items[0].socket, items[1].socket);
    return measured;
}
