#define _GNU_SOURCE
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <setjmp.h>
#include <signal.h>
#include <string.h>
#include "app_guard.h"

// Measured on Swift 6.3.1 / Linux x86_64 before relying on it: after a trap in a closure or in a
// task job run synchronously on a task executor, a siglongjmp back here leaves the runtime able
// to run new tasks and closures on the same thread, and traps outside still reach Swift's
// backtracer. The abandoned frames' objects are never released (PairSimKit keeps them).
static __thread sigjmp_buf *current_jump = 0;
static struct sigaction previous[NSIG];
static pthread_once_t once = PTHREAD_ONCE_INIT;
static const int guarded_signals[] = {SIGILL, SIGTRAP, SIGSEGV, SIGBUS, SIGFPE};

static void handler(int sig, siginfo_t *info, void *uctx) {
    if (current_jump) {
        sigjmp_buf *jump = current_jump;
        current_jump = 0;
        siglongjmp(*jump, sig);
    }
    struct sigaction *prev = &previous[sig];
    if ((prev->sa_flags & SA_SIGINFO) && prev->sa_sigaction) {
        prev->sa_sigaction(sig, info, uctx);
        return;
    }
    if (!(prev->sa_flags & SA_SIGINFO) && prev->sa_handler != SIG_DFL && prev->sa_handler != SIG_IGN) {
        prev->sa_handler(sig);
        return;
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

static void install(void) {
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_sigaction = handler;
    action.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigemptyset(&action.sa_mask);
    for (unsigned i = 0; i < sizeof guarded_signals / sizeof guarded_signals[0]; i++) {
        sigaction(guarded_signals[i], &action, &previous[guarded_signals[i]]);
    }
}

int pairsim_run_guarded(pairsim_guarded_fn fn, void *context) {
    pthread_once(&once, install);
    sigjmp_buf buffer;
    sigjmp_buf *saved = current_jump;
    // No signal mask to save and restore (a system call each way): the handler blocks nothing
    // (SA_NODEFER, an empty sa_mask), so jumping out of it leaves the mask as it was.
    int sig = sigsetjmp(buffer, 0);
    if (sig == 0) {
        current_jump = &buffer;
        fn(context);
        current_jump = saved;
        return 0;
    }
    current_jump = saved;
    return sig;
}

static __thread void *current_runtime = 0;

void *pairsim_current_runtime(void) { return current_runtime; }

void pairsim_set_current_runtime(void *runtime) { current_runtime = runtime; }

static __thread int is_main_thread = -1;

int pairsim_is_main_thread(void) {
    if (is_main_thread < 0) is_main_thread = getpid() == (pid_t)syscall(SYS_gettid);
    return is_main_thread;
}
