/* The guard of the call stack (docs/semantics.md, "Calls").
 *
 * Every executor runs calls nested up to CINT_MAX_CALL_DEPTH deep (100,000) and ends
 * the entry with the host status host.stack, the limit in its record, at the call
 * beyond. cpu-c17 runs the entry on a thread with a large stack (library.py, STACK_SIZE),
 * which holds that many frames of ordinary functions; a program whose frames are so
 * large that the thread's stack runs out first ends with host.stack too, without the
 * limit (the depth it reached is its operand), rather than a crash: each call tests the
 * address of its frame against `stack_low`, the lowest address of the running thread's
 * stack plus a reserve for the deepest frame and the code that runs after the test. */
#define _GNU_SOURCE

#include "cint_rt.h"

#include <pthread.h>

#define CINT_STACK_RESERVE ((size_t)4 << 20) /* bytes, at most a quarter of the stack */

void cint_stack_mark(cint_ctx *ctx) {
    ctx->stack_low = 0; /* unknown: no guard */
#if defined(__linux__)
    pthread_attr_t attr;
    if (pthread_getattr_np(pthread_self(), &attr) != 0) return;
    void *low = NULL;
    size_t size = 0;
    if (pthread_attr_getstack(&attr, &low, &size) == 0 && low != NULL && size > 0) {
        size_t reserve = size / 4 < CINT_STACK_RESERVE ? size / 4 : CINT_STACK_RESERVE;
        ctx->stack_low = (uintptr_t)low + reserve;
    }
    pthread_attr_destroy(&attr);
#endif
}
