#include "bench_kernels.h"
#include <zmq.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Two C processes over libzmq, as ZeroMQ's own local_thr / remote_thr measure it, but with
   PUB/SUB (what PairSim's nodes use): the baseline the sync benchmark compares PairSim against.
   No Swift in either loop. High-water marks are unlimited so PUB drops nothing. */

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int64_t pairsim_c_zmq_sub(const char *endpoint, int64_t count, size_t size) {
    void *context = zmq_ctx_new();
    void *socket = zmq_socket(context, ZMQ_SUB);
    int unlimited = 0;
    zmq_setsockopt(socket, ZMQ_RCVHWM, &unlimited, sizeof unlimited);
    zmq_setsockopt(socket, ZMQ_SUBSCRIBE, "", 0);
    if (zmq_bind(socket, endpoint) != 0) { zmq_close(socket); zmq_ctx_term(context); return -1; }
    zmq_msg_t message;
    zmq_msg_init(&message);
    uint64_t start = 0;
    for (int64_t i = 0; i < count; i++) {
        if (zmq_msg_recv(&message, socket, 0) < 0 || zmq_msg_size(&message) != size) { start = 0; count = -2; break; }
        if (i == 0) start = now_ns(); /* timed from the first message, as local_thr does */
    }
    uint64_t elapsed = now_ns() - start;
    zmq_msg_close(&message);
    zmq_close(socket);
    zmq_ctx_term(context);
    return count < 0 ? count : (int64_t)elapsed;
}

int pairsim_c_zmq_pub(const char *endpoint, int64_t count, size_t size, int settle_ms) {
    void *context = zmq_ctx_new();
    void *socket = zmq_socket(context, ZMQ_PUB);
    int unlimited = 0;
    zmq_setsockopt(socket, ZMQ_SNDHWM, &unlimited, sizeof unlimited);
    if (zmq_connect(socket, endpoint) != 0) { zmq_close(socket); zmq_ctx_term(context); return -1; }
    usleep((useconds_t)settle_ms * 1000); /* the subscription must arrive before the first message */
    char buffer[65536];
    if (size > sizeof buffer) size = sizeof buffer;
    memset(buffer, 'x', size);
    for (int64_t i = 0; i < count; i++) {
        if (zmq_send(socket, buffer, size, 0) < 0) { zmq_close(socket); zmq_ctx_term(context); return -2; }
    }
    int linger = -1; /* wait until everything is sent */
    zmq_setsockopt(socket, ZMQ_LINGER, &linger, sizeof linger);
    zmq_close(socket);
    zmq_ctx_term(context);
    return 0;
}
