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
#endif
