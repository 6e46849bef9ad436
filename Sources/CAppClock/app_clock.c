#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
#include "app_clock.h"

static __thread int active = 0;
static __thread int64_t emulated_ms = 0;   // the device's clock: realtime
static __thread int64_t monotonic_ms = 0;  // true emulated time: monotonic, boot time

typedef size_t (*fwrite_fn)(const void *, size_t, size_t, FILE *);
typedef int (*fputs_fn)(const char *, FILE *);
typedef int (*puts_fn)(const char *);
static fwrite_fn real_fwrite = 0;
static fputs_fn real_fputs = 0;
static puts_fn real_puts = 0;
typedef int (*clock_gettime_fn)(clockid_t, struct timespec *);
typedef int (*gettimeofday_fn)(struct timeval *, void *);
typedef time_t (*time_fn)(time_t *);
static clock_gettime_fn real_clock_gettime = 0;
static gettimeofday_fn real_gettimeofday = 0;
static time_fn real_time = 0;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void resolve(void) {
    real_clock_gettime = (clock_gettime_fn)dlsym(RTLD_NEXT, "clock_gettime");
    real_gettimeofday = (gettimeofday_fn)dlsym(RTLD_NEXT, "gettimeofday");
    real_time = (time_fn)dlsym(RTLD_NEXT, "time");
    real_fwrite = (fwrite_fn)dlsym(RTLD_NEXT, "fwrite");
    real_fputs = (fputs_fn)dlsym(RTLD_NEXT, "fputs");
    real_puts = (puts_fn)dlsym(RTLD_NEXT, "puts");
}

void pairsim_app_time_begin(int64_t milliseconds) { pairsim_app_time_begin_device(milliseconds, milliseconds); }

void pairsim_app_time_begin_device(int64_t realtime_milliseconds, int64_t monotonic_milliseconds) {
    pthread_once(&once, resolve);
    emulated_ms = realtime_milliseconds;
    monotonic_ms = monotonic_milliseconds;
    active = 1;
}

void pairsim_app_time_end(void) { active = 0; }

int pairsim_app_time_active(void) { return active; }

// 1: the device's wall clock; 2: the monotonic clocks; 0: real (CPU-time clocks stay real).
static int emulated(clockid_t id) {
    switch (id) {
    case CLOCK_REALTIME: case CLOCK_REALTIME_COARSE: case CLOCK_TAI:
        return 1;
    case CLOCK_MONOTONIC: case CLOCK_MONOTONIC_RAW: case CLOCK_MONOTONIC_COARSE: case CLOCK_BOOTTIME:
        return 2;
    default:
        return 0;
    }
}

int clock_gettime(clockid_t id, struct timespec *ts) {
    int kind = active ? emulated(id) : 0;
    if (kind) {
        int64_t ms = kind == 1 ? emulated_ms : monotonic_ms;
        int64_t sec = ms >= 0 ? ms / 1000 : (ms - 999) / 1000;
        ts->tv_sec = (time_t)sec;
        ts->tv_nsec = (long)(ms - sec * 1000) * 1000000L;
        return 0;
    }
    pthread_once(&once, resolve);
    return real_clock_gettime(id, ts);
}

int gettimeofday(struct timeval *tv, void *tz) {
    if (active) {
        int64_t sec = emulated_ms >= 0 ? emulated_ms / 1000 : (emulated_ms - 999) / 1000;
        tv->tv_sec = (time_t)sec;
        tv->tv_usec = (suseconds_t)(emulated_ms - sec * 1000) * 1000;
        return 0;
    }
    pthread_once(&once, resolve);
    return real_gettimeofday(tv, tz);
}

time_t time(time_t *out) {
    if (active) {
        time_t now = (time_t)(emulated_ms >= 0 ? emulated_ms / 1000 : (emulated_ms - 999) / 1000);
        if (out) *out = now;
        return now;
    }
    pthread_once(&once, resolve);
    return real_time(out);
}

// What app code writes to stdout and stderr during a delivery, in the order written: records of
// one byte for the stream (1 or 2), four for the length (host order), then the bytes.
#define OUTPUT_LIMIT (1u << 20)
static __thread char *output = 0;
static __thread size_t output_count = 0;
static __thread size_t output_capacity = 0;

// 1 or 2 if `stream` is captured now, 0 if it goes out as usual.
static int captured(FILE *stream) {
    if (!active) return 0;
    if (stream == stdout) return 1;
    if (stream == stderr) return 2;
    return 0;
}

static void keep(int stream, const char *bytes, size_t count) {
    size_t header = 5;
    if (output_count + header >= OUTPUT_LIMIT) return; // an app printing without end loses the excess, never the node's memory
    size_t room = OUTPUT_LIMIT - output_count - header;
    if (count > room) count = room;
    if (count == 0) return;
    if (output_count + header + count > output_capacity) {
        size_t capacity = output_capacity ? output_capacity : 256;
        while (capacity < output_count + header + count) capacity *= 2;
        char *grown = realloc(output, capacity);
        if (!grown) return;
        output = grown;
        output_capacity = capacity;
    }
    uint32_t length = (uint32_t)count;
    output[output_count] = (char)stream;
    memcpy(output + output_count + 1, &length, 4);
    memcpy(output + output_count + header, bytes, count);
    output_count += header + count;
}

int pairsim_app_output_pending(void) { return output_count != 0; }

const char *pairsim_app_output_take(uint64_t *count) {
    *count = output_count;
    output_count = 0;
    return output;
}

size_t fwrite(const void *bytes, size_t size, size_t items, FILE *stream) {
    int index = captured(stream);
    if (index) {
        keep(index, bytes, size * items);
        return items;
    }
    pthread_once(&once, resolve);
    return real_fwrite(bytes, size, items, stream);
}

int fputs(const char *text, FILE *stream) {
    int index = captured(stream);
    if (index) {
        keep(index, text, strlen(text));
        return 1;
    }
    pthread_once(&once, resolve);
    return real_fputs(text, stream);
}

int puts(const char *text) {
    if (active) {
        keep(1, text, strlen(text));
        keep(1, "\n", 1);
        return 1;
    }
    pthread_once(&once, resolve);
    return real_puts(text);
}

// PairSim's executors (PairSimKit's AppExecutors) go in before `main`, so they are in place
// before anything makes a task, whatever the executable's `main` looks like (an async one has a
// task before its first line runs). Defined in Swift with @_cdecl.
extern void pairsim_install_executors(void);

// Swift seeds its hashing per process, so a Dictionary or Set of the app's iterates in a different
// order in every process — and a simulation's log would differ from one run to the next. Swift
// reads SWIFT_DETERMINISTIC_HASHING in its own startup, before this constructor runs; so when it is
// not set, the process sets it and starts again as itself, once (glibc hands constructors argv).
// PAIRSIM_RANDOM_HASHING=1 keeps Swift's per-process seed.
static void deterministic_hashing(int argc, char **argv) {
    if (getenv("SWIFT_DETERMINISTIC_HASHING") || getenv("PAIRSIM_RANDOM_HASHING") || argc < 1 || !argv) return;
    setenv("SWIFT_DETERMINISTIC_HASHING", "1", 1);
    execv("/proc/self/exe", argv);
    // exec failed: go on with Swift's per-process seed (the variable stays set for children).
}

__attribute__((constructor)) static void start(int argc, char **argv, char **envp) {
    (void)envp;
    deterministic_hashing(argc, argv);
    pairsim_install_executors();
}
