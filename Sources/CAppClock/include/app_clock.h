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
/// The same with the device's own clock (R: F5): the realtime clocks (`Date()`, `gettimeofday`,
/// `time`) read `realtime_milliseconds` since 1970, the monotonic ones (`ContinuousClock`,
/// `DispatchTime`) `monotonic_milliseconds` since emulated time zero, which a user's `set-time` never moves.
void pairsim_app_time_begin_device(int64_t realtime_milliseconds, int64_t monotonic_milliseconds);
void pairsim_app_time_end(void);
/// 1 while this thread reads emulated time.
int pairsim_app_time_active(void);

/// While app code runs on this thread, what it writes to standard output or standard error
/// through stdio (Swift's `print`, `debugPrint` and `dump`, `fputs`, `puts`, `fwrite`) is kept
/// here instead of reaching the node's own output; the app runtime takes it after each delivery
/// and logs it as the app's lines, in emulated time. Returns what was kept since the last take, in
/// the order written, as records — one byte for the stream (1 stdout, 2 stderr), a 4-byte length
/// in host order, the bytes — and their total size in `*count` (valid until the next write on this
/// thread); the buffer is emptied. At most 1 MiB is kept per take; the rest is dropped.
const char *pairsim_app_output_take(uint64_t *count);
/// Nonzero when this thread has output not yet taken.
int pairsim_app_output_pending(void);

#endif
