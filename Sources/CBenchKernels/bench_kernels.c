#include "bench_kernels.h"
#include <string.h>

size_t pairsim_c_bucket_means(const int64_t *times, const double *values, size_t count,
                              int64_t start, int64_t end, int64_t bucket,
                              double *sums, int32_t *counts, size_t buckets,
                              int64_t *out_offsets, double *out_means,
                              double *average, double *maximum, double *minimum) {
    memset(sums, 0, buckets * sizeof(double));
    memset(counts, 0, buckets * sizeof(int32_t));
    double total = 0, max = -1e300, min = 1e300;
    size_t kept = 0;
    /* The last bucket also takes a sample at exactly `end` (as HeartRateDetail does). */
    int64_t last = end > start ? (end - start - 1) / bucket : 0;
    for (size_t i = 0; i < count; i++) {
        int64_t t = times[i];
        double v = values[i];
        if (t < start || t > end || v < 20 || v > 300) continue;
        int64_t raw = (t - start) / bucket;
        size_t b = (size_t)(raw > last ? last : raw);
        sums[b] += v;
        counts[b] += 1;
        total += v;
        if (v > max) max = v;
        if (v < min) min = v;
        kept++;
    }
    size_t points = 0;
    for (size_t b = 0; b < buckets; b++) {
        if (counts[b] == 0) continue;
        out_offsets[points] = (int64_t)b * bucket;
        out_means[points] = sums[b] / counts[b];
        points++;
    }
    *average = kept ? total / kept : 0;
    *maximum = max;
    *minimum = min;
    return points;
}
