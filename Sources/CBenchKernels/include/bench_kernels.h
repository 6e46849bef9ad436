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
#endif
