#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include <sys/time.h>
#include <time.h>
#include "app_clock.h"

static __thread int active = 0;
static __thread int64_t emulated_ms = 0;

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
}

void pairsim_app_time_begin(int64_t milliseconds) {
    pthread_once(&once, resolve);
    emulated_ms = milliseconds;
    active = 1;
}

void pairsim_app_time_end(void) { active = 0; }

int pairsim_app_time_active(void) { return active; }

static int emulated(clockid_t id) {
    switch (id) {
    case CLOCK_REALTIME: case CLOCK_REALTIME_COARSE: case CLOCK_MONOTONIC: case CLOCK_MONOTONIC_RAW:
    case CLOCK_MONOTONIC_COARSE: case CLOCK_BOOTTIME: case CLOCK_TAI:
        return 1;
    default:
        return 0; // CPU-time clocks stay real
    }
}

int clock_gettime(clockid_t id, struct timespec *ts) {
    if (active && emulated(id)) {
        ts->tv_sec = (time_t)(emulated_ms / 1000);
        ts->tv_nsec = (long)(emulated_ms % 1000) * 1000000L;
        return 0;
    }
    pthread_once(&once, resolve);
    return real_clock_gettime(id, ts);
}

int gettimeofday(struct timeval *tv, void *tz) {
    if (active) {
        tv->tv_sec = (time_t)(emulated_ms / 1000);
        tv->tv_usec = (suseconds_t)(emulated_ms % 1000) * 1000;
        return 0;
    }
    pthread_once(&once, resolve);
    return real_gettimeofday(tv, tz);
}

time_t time(time_t *out) {
    if (active) {
        time_t now = (time_t)(emulated_ms / 1000);
        if (out) *out = now;
        return now;
    }
    pthread_once(&once, resolve);
    return real_time(out);
}

// PairSim's executors (PairSimKit's AppExecutors) go in before `main`, so they are in place
// before anything makes a task, whatever the executable's `main` looks like (an async one has a
// task before its first line runs). Defined in Swift with @_cdecl.
extern void pairsim_install_executors(void);

__attribute__((constructor)) static void install_executors(void) { pairsim_install_executors(); }
