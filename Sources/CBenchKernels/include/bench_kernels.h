#ifndef PAIRSIM_BENCH_KERNELS_H
#define PAIRSIM_BENCH_KERNELS_H
#include <stddef.h>
#include <stdint.h>

/// The straightforward C loop the Swift heart-rate pipeline is measured against: keep samples in
/// [start, end] and 20–300 bpm, 10 s bucket means, average/max/min. Returns the number of points.
size_t pairsim_c_bucket_means(const int64_t *times, const double *values, size_t count,
                              int64_t start, int64_t end, int64_t bucket,
                              double *sums, int32_t *counts, size_t buckets,
                              int64_t *out_offsets, double *out_means,
                              double *average, double *maximum, double *minimum);

/// Raw libzmq PUB/SUB between two processes (zmq_thr.c): the receiving side binds a SUB at
/// `endpoint`, takes `count` messages of `size` bytes and returns the nanoseconds from the first to
/// the last (negative on error); the sending side connects a PUB, waits `settle_ms` for the
/// subscription, sends `count` messages and returns 0 when all are out (negative on error).
int64_t pairsim_c_zmq_sub(const char *endpoint, int64_t count, size_t size);
int pairsim_c_zmq_pub(const char *endpoint, int64_t count, size_t size, int settle_ms);
/// The latency probe's topology with no work at either end (zmq_echo.c): a "watch" publishing a
/// numbered 300-byte frame every `gap_us` and hearing the acks, a "phone" acknowledging each at
/// once, and the probe timing each ack from its frame's arrival (fills `microseconds`, returns
/// how many it measured).
int pairsim_c_zmq_echo_watch(const char *publish, const char *peer, int64_t count, int settle_ms, int gap_us);
int pairsim_c_zmq_echo_phone(const char *publish, const char *peer, int64_t count);
int64_t pairsim_c_zmq_echo_probe(const char *watch, const char *phone, int64_t count, double *microseconds);
#endif
