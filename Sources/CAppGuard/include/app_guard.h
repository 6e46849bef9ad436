#ifndef PAIRSIM_APP_GUARD_H
#define PAIRSIM_APP_GUARD_H

/// Runs `fn(context)`. If it traps — a Swift runtime failure (SIGILL, SIGTRAP), a bad access
/// (SIGSEGV, SIGBUS) or SIGFPE — on this thread, its stack is abandoned and the signal number is
/// returned; otherwise 0. Signals outside a guarded call go to the handlers installed before
/// (Swift's backtracer). Used by PairSimKit to keep a node running when an app crashes (R: A6).
typedef void (*pairsim_guarded_fn)(void *context);
int pairsim_run_guarded(pairsim_guarded_fn fn, void *context);

/// The app runtime delivering on this thread (an unretained pointer), or null: a C thread-local,
/// where `Thread.current.threadDictionary` cost ~3 % of a simulated week (an `NSMutableDictionary`
/// and a boxed Swift value per delivery).
void *pairsim_current_runtime(void);
void pairsim_set_current_runtime(void *runtime);

/// Whether this is the process's main thread (Foundation's `Thread.isMainThread`), computed once
/// per thread: Foundation on Linux asks the kernel (getpid and gettid) on every call, 1.4 % of a
/// simulated week in the app executor's drain.
int pairsim_is_main_thread(void);

#endif
