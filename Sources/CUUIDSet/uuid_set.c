#include "uuid_set.h"

#include <stdlib.h>
#include <string.h>

/// Slots are (high, low) pairs; (0, 0) marks an empty slot, so the nil UUID is kept in a flag.
struct pus_set {
    uint64_t *slots;
    size_t mask;      // slot count − 1 (slot count is a power of two)
    size_t count;     // UUIDs held, the nil UUID included
    int has_nil;
};

/// Tables come from the C heap at every size. Mapping the big ones for transparent huge pages
/// (stop 50) halved the TLB misses of a microbenchmark that reused warm memory, but on this
/// project's VM a fresh huge page is slow to touch the first time (64 MiB: 270 ms against 25 ms for
/// 4 KiB pages, in a fresh process), and a phone taking a million samples in `pairsim-bench sync`
/// spent a third of its time zeroing them (perf). Back on calloc, the phone's CPU for that million
/// fell from 505 to 414 ms, and for 3 million from 1,411 to 1,190 ms (task-clock, medians of 5 and
/// 3 alternating runs).
static size_t table_bytes(size_t slots) { return slots * 2 * sizeof(uint64_t); }

static inline uint64_t mix(uint64_t x) {
    x ^= x >> 30; x *= 0xBF58476D1CE4E5B9ULL;
    x ^= x >> 27; x *= 0x94D049BB133111EBULL;
    return x ^ (x >> 31);
}

static inline size_t home(const pus_set *set, uint64_t high, uint64_t low) {
    return (size_t)mix(high ^ mix(low)) & set->mask;
}

/// Slot count for `count` UUIDs at a load of at most 3/4; 0 when no table that large can exist.
static size_t slots_for(size_t count) {
    if (count > SIZE_MAX / 64) return 0;
    size_t slots = 16;
    while (slots - slots / 4 < count + 1) slots *= 2;
    return slots;
}

pus_set *pus_create(size_t capacity) {
    size_t slots = slots_for(capacity);
    if (!slots) return NULL;
    pus_set *set = calloc(1, sizeof *set);
    if (!set) return NULL;
    set->slots = calloc(slots * 2, sizeof(uint64_t));
    if (!set->slots) { free(set); return NULL; }
    set->mask = slots - 1;
    return set;
}

pus_set *pus_copy(const pus_set *set) {
    pus_set *copy = malloc(sizeof *copy);
    if (!copy) return NULL;
    *copy = *set;
    copy->slots = malloc(table_bytes(set->mask + 1));
    if (!copy->slots) { free(copy); return NULL; }
    memcpy(copy->slots, set->slots, table_bytes(set->mask + 1));
    return copy;
}

void pus_free(pus_set *set) {
    if (!set) return;
    free(set->slots);
    free(set);
}

size_t pus_count(const pus_set *set) { return set->count; }

int pus_contains(const pus_set *set, uint64_t high, uint64_t low) {
    if (high == 0 && low == 0) return set->has_nil;
    for (size_t i = home(set, high, low);; i = (i + 1) & set->mask) {
        const uint64_t *slot = set->slots + 2 * i;
        if (slot[0] == high && slot[1] == low) return 1;
        if (slot[0] == 0 && slot[1] == 0) return 0;
    }
}

/// Inserts a non-nil UUID known to fit (the table has a free slot to spare).
static inline int place(pus_set *set, size_t i, uint64_t high, uint64_t low) {
    for (;; i = (i + 1) & set->mask) {
        uint64_t *slot = set->slots + 2 * i;
        if (slot[0] == high && slot[1] == low) return 0;
        if (slot[0] == 0 && slot[1] == 0) {
            slot[0] = high;
            slot[1] = low;
            set->count++;
            return 1;
        }
    }
}

/// Grows the table in place: realloc keeps the old slots as the table's start (glibc moves a large
/// table's pages with mremap rather than copying them), so only the added part is fresh memory.
/// Growing into a fresh table instead zeroed twice the memory over all the doublings, and the
/// zeroing was most of a phone's time in this set when it took a million samples (perf). A C
/// microbenchmark, 1 M random UUIDs in batches of 10,000 into a new set in a fresh process: 71–75
/// against 106–115 ns an insert (four alternating runs).
///
/// Every entry then moves to where the larger table wants it. The run of entries at the table's
/// start (up to its first empty slot) is set aside first; the others are taken out and placed again
/// in position order. An entry's new probe then only passes slots that are done: in the old part it
/// stops at or before its own old slot (its run started after the first empty one), and past the
/// end it wraps into the cleared start. So no slot it passed is emptied afterwards, and every probe
/// still ends at the first empty slot after its home.
static int grow(pus_set *set, size_t slots) {
    size_t old_slots = set->mask + 1;
    size_t start_run = 0;
    while (set->slots[2 * start_run] != 0 || set->slots[2 * start_run + 1] != 0) start_run++;
    uint64_t *aside = NULL;
    if (start_run > 0) {
        aside = malloc(table_bytes(start_run));
        if (!aside) return -1;
        memcpy(aside, set->slots, table_bytes(start_run));
    }
    uint64_t *table = realloc(set->slots, table_bytes(slots));
    if (!table) { free(aside); return -1; }
    memset(table + 2 * old_slots, 0, table_bytes(slots) - table_bytes(old_slots));
    memset(table, 0, table_bytes(start_run));
    set->slots = table;
    set->mask = slots - 1;
    set->count -= start_run;
    for (size_t i = start_run + 1; i < old_slots; i++) {
        uint64_t high = table[2 * i], low = table[2 * i + 1];
        if (high == 0 && low == 0) continue;
        table[2 * i] = 0;
        table[2 * i + 1] = 0;
        set->count--;
        place(set, home(set, high, low), high, low);
    }
    for (size_t k = 0; k < start_run; k++) place(set, home(set, aside[2 * k], aside[2 * k + 1]), aside[2 * k], aside[2 * k + 1]);
    free(aside);
    return 0;
}

int pus_reserve(pus_set *set, size_t count) {
    size_t held = set->mask + 1;
    if (count < held - held / 4) return 0; // room already (checked first: it runs per insert)
    size_t slots = slots_for(count);
    if (!slots) return -1;
    return slots > set->mask + 1 ? grow(set, slots) : 0;
}

int pus_insert(pus_set *set, uint64_t high, uint64_t low) {
    if (high == 0 && low == 0) {
        if (set->has_nil) return 0;
        set->has_nil = 1;
        set->count++;
        return 1;
    }
    if (pus_reserve(set, set->count + 1) != 0) return -1;
    return place(set, home(set, high, low), high, low);
}

long pus_insert_many(pus_set *set, const uint64_t *keys, size_t n, uint8_t *inserted) {
    if (pus_reserve(set, set->count + n) != 0) return -1;
    // How far ahead to prefetch: enough to cover a miss (~100 ns here) with a few inserts' work.
    enum { AHEAD = 12 };
    long added = 0;
    for (size_t k = 0; k < n; k++) {
        if (k + AHEAD < n) {
            const uint64_t *next = keys + 2 * (k + AHEAD);
            __builtin_prefetch(set->slots + 2 * home(set, next[0], next[1]), 1);
        }
        uint64_t high = keys[2 * k], low = keys[2 * k + 1];
        int fresh;
        if (high == 0 && low == 0) {
            fresh = !set->has_nil;
            if (fresh) { set->has_nil = 1; set->count++; }
        } else {
            fresh = place(set, home(set, high, low), high, low);
        }
        inserted[k] = (uint8_t)fresh;
        added += fresh;
    }
    return added;
}

int pus_remove(pus_set *set, uint64_t high, uint64_t low) {
    if (high == 0 && low == 0) {
        if (!set->has_nil) return 0;
        set->has_nil = 0;
        set->count--;
        return 1;
    }
    size_t i = home(set, high, low);
    for (;; i = (i + 1) & set->mask) {
        uint64_t *slot = set->slots + 2 * i;
        if (slot[0] == high && slot[1] == low) break;
        if (slot[0] == 0 && slot[1] == 0) return 0;
    }
    // Backward-shift deletion: move later entries of the run into the hole when their home
    // position allows, so no tombstones are needed and lookups stop at the first empty slot.
    size_t hole = i;
    for (size_t j = (hole + 1) & set->mask;; j = (j + 1) & set->mask) {
        uint64_t *slot = set->slots + 2 * j;
        if (slot[0] == 0 && slot[1] == 0) break;
        size_t want = home(set, slot[0], slot[1]);
        // The entry at j may move to the hole when its home is not cyclically within (hole, j].
        int stays = hole <= j ? (hole < want && want <= j) : (hole < want || want <= j);
        if (!stays) {
            set->slots[2 * hole] = slot[0];
            set->slots[2 * hole + 1] = slot[1];
            hole = j;
        }
    }
    set->slots[2 * hole] = 0;
    set->slots[2 * hole + 1] = 0;
    set->count--;
    return 1;
}

int pus_next(const pus_set *set, size_t *cursor, uint64_t *high, uint64_t *low) {
    size_t slots = set->mask + 1;
    // Cursor 0 is the nil UUID's turn; slot i is cursor i + 1.
    if (*cursor == 0) {
        *cursor = 1;
        if (set->has_nil) { *high = 0; *low = 0; return 1; }
    }
    while (*cursor - 1 < slots) {
        const uint64_t *slot = set->slots + 2 * (*cursor - 1);
        (*cursor)++;
        if (slot[0] != 0 || slot[1] != 0) { *high = slot[0]; *low = slot[1]; return 1; }
    }
    return 0;
}
