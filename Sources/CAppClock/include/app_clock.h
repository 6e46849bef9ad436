#ifndef PAIRSIM_APP_CLOCK_H
#define PAIRSIM_APP_CLOCK_H

#include <stdint.h>

/// While app code runs on this thread (an app delivery), the C clocks answer with the app's
/// emulated time, so `Date()`, `ContinuousClock.now`, `clock_gettime`, `gettimeofday` and
/// `time` read what `AppClock` reads: the realtime clocks give `milliseconds` since 1 January 1970
/// (`AppClock.date`), the monotonic ones `milliseconds` since emulated time zero. Outside (other
/// threads, PairSim's own code) they are the real clocks. How: this library defines those
/// functions, an executable exports them, and ELF symbol interposition sends every caller in the
/// process here first (measured: 2-3 ns a call on top of the real vDSO read's ~30 ns). docs/APPS.md says what
/// this covers and what it cannot.
void pairsim_app_time_begin(int64_t milliseconds);
void pairsim_app_time_end(void);
/// 1 while this thread reads emulated time.
int pairsim_app_time_active(void);

#endif
