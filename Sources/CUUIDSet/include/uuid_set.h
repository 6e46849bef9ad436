#ifndef PAIRSIM_UUID_SET_H
#define PAIRSIM_UUID_SET_H

#include <stddef.h>
#include <stdint.h>

/// A set of 128-bit UUIDs (two 64-bit halves) for the HealthKit stores' "new or duplicate"
/// check: open addressing with linear probing in one flat array, a cheap mix of both halves as
/// the hash, and a batch insert that prefetches the slots it is about to probe.
///
/// Why not Swift's Set<UUIDKey>: on the sync benchmark (5 M heart-rate samples, release build,
/// this 2-core machine) the watch spent 37 % of its time saving samples, 28 % of it in the Set —
/// a cache miss per insert into a table far larger than the caches, and a rehash of every key at
/// each doubling. Prefetching the next keys' slots while inserting the current one overlaps those
/// misses; the numbers before and after are in scripts/bench.sh sync and issue 14's closing note.

typedef struct pus_set pus_set;

/// An empty set with room for `capacity` UUIDs before it grows; NULL when out of memory.
pus_set *pus_create(size_t capacity);
/// A copy of `set`; NULL when out of memory.
pus_set *pus_copy(const pus_set *set);
void pus_free(pus_set *set);

size_t pus_count(const pus_set *set);
int pus_contains(const pus_set *set, uint64_t high, uint64_t low);
/// 1 when inserted, 0 when already present, -1 when out of memory (the set is unchanged).
int pus_insert(pus_set *set, uint64_t high, uint64_t low);
/// 1 when removed, 0 when absent.
int pus_remove(pus_set *set, uint64_t high, uint64_t low);
/// Makes room for `count` UUIDs in all; 0, or -1 when out of memory (the set is unchanged).
int pus_reserve(pus_set *set, size_t count);
/// Inserts `n` UUIDs (`keys` holds high, low, high, low, …); `inserted[i]` becomes 1 for each one
/// that was new (a UUID repeated within the batch is new once). Returns how many were new, or -1
/// when out of memory (the set is unchanged).
long pus_insert_many(pus_set *set, const uint64_t *keys, size_t n, uint8_t *inserted);
/// Iteration: start with `*cursor = 0`; returns 1 with the next UUID, 0 at the end.
int pus_next(const pus_set *set, size_t *cursor, uint64_t *high, uint64_t *low);

#endif
