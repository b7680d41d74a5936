/* The work-item phase of a dispatch on a pool of threads (POSIX threads).
 *
 * A dispatch of at least ctx->parallel_min work-items (4096 unless the host says
 * otherwise) is cut into chunks of contiguous work-items, about 8 per thread and at
 * least ctx->chunk_min each. The threads of the pool, and the dispatching thread with
 * them, take the chunks in ascending order (an atomic counter), each chunk on the
 * kernel's fast path `run` in a context of its own:
 *
 * - its reductions start empty, in a partial state (cint_rt.h, cint_reduction): sums,
 *   counts, min and max as usual; sum_sat as the map its contributions compose to;
 *   fold_checked as its exact sum and the least and greatest of its prefix sums, so no
 *   chunk can know, or needs to know, what came before it;
 * - its fuel is the whole allowance F left after the dispatch charge (10.5 para 6: a
 *   chunk whose own charges exceed F stops, since the canonical fuel fault is then at
 *   or before that charge), handed out in slices of 2^16 units; at each slice it looks
 *   at the least faulting work-item found so far and stops if that is below its first
 *   work-item (no loop above a fault runs on after it is found);
 * - its output goes to a buffer of its own;
 * - a fault stops it, and its work-item goes into the dispatch's least faulting
 *   work-item by an atomic minimum (10.6 para 2); a chunk is not started when its
 *   first work-item is above that minimum, since none of its work-items can be
 *   canonical; so is the last work-item of the greatest completed chunk when the
 *   completed chunks charge more than F in all (the fuel fault is at or below it);
 * - a fold_checked's fault is found as soon as the reference would stop at it (issue
 *   28, finding 9): the chunks that completed are combined in ascending order as they
 *   finish, from the dispatch's states (the prefix: chunks 0 to merged - 1), and a
 *   chunk that would overflow a fold from the prefix before it raises the stop at its
 *   last work-item; the chunk just above the prefix, still running, tests its own
 *   contributions so far against the prefix at each fuel slice and stops likewise.
 *   Either way a fold faults at or below that work-item on one thread, so no
 *   work-item above it runs on (a loop that never ends there is abandoned), and none
 *   is abandoned unless such a fault is certain.
 *
 * Then the dispatching thread takes the chunks in ascending order, with the entry's
 * fuel and the dispatch's reduction states, as the sequential run would reach them.
 * A chunk that completed, whose charges C the fuel left covers (the exact prefix sum of
 * 8.4 para 6) and whose fold_checked prefixes stay in range from the accumulator before
 * it (9.2 para 4) is added: fuel -= C, each reduction merged, its output appended. Any
 * other chunk (one that faulted, ran out of its own fuel, stopped, was not started, or
 * would overflow a fold or the fuel) runs again on this thread, from its first
 * work-item, with the real fuel and reduction states: that is exactly the sequential
 * run from that point, so it finds the canonical fault (the least work-item, then the
 * least step: whatever the sequential run would meet first) with the fuel and the fold
 * accumulators before it, which cint_rt_dispatch then describes as on one thread.
 * The final record, output, fuel and reductions are therefore those of one thread,
 * whatever the number of threads, the chunks or the order in which threads ran them.
 *
 * The pool is made at the first dispatch that uses it and kept until the context is
 * freed; its threads block every signal (the host's thread takes them). */
#define _POSIX_C_SOURCE 200809L

#include "cint_rt.h"

#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

#define SLICE ((uint64_t)1 << 16) /* fuel units a chunk takes at a time */
#define CHUNKS_PER_THREAD 8
#define UNLIMITED UINT64_MAX /* a chunk's `remaining` when the entry has no budget */

enum { CHUNK_PENDING = 0, CHUNK_DONE, CHUNK_FAULT, CHUNK_STOPPED };

typedef struct cint_job cint_job;

struct cint_chunk {
    cint_job *job;
    int64_t first, end;
    int state;
    uint64_t given;     /* fuel handed to its context so far */
    uint64_t remaining; /* fuel it may still take: F less `given`, or UNLIMITED */
    uint64_t charges;   /* CHUNK_DONE: the fuel its work-items charged */
    bool cancelled;     /* it stopped because a fault below it was found */
    bool finished;      /* CHUNK_DONE, set under the job's prefix lock (the prefix reads it) */
    char *out;          /* CHUNK_DONE: its output */
    size_t out_len;
    cint_reduction *reductions; /* its partial reduction states */
};

struct cint_job {
    const cint_ctx *ctx;
    const cint_kernel *k;
    const cint_plan *plan;
    int64_t nchunks;
    _Atomic int64_t next;      /* the next chunk to take */
    _Atomic int64_t fault;     /* the least work-item found faulting (INT64_MAX: none) */
    _Atomic int64_t last_done; /* the greatest chunk that completed (-1: none) */
    _Atomic uint64_t charged;  /* the charges of the chunks that completed, in all */
    uint64_t allowance;        /* F (with a budget; else unused) */
    bool budget;
    uint64_t kept; /* a cluster's: bit p, output p stays on the workers (cint_tile_keep) */
    cint_chunk *chunks;
    /* The prefix (see the top), where the kernel has a fold_checked and the chunks run
     * on this process's pool; NULL otherwise (a tile on a cluster knows nothing before it). */
    cint_reduction *prefix;
    pthread_mutex_t prefix_lock;
    _Atomic int64_t merged; /* chunks combined into `prefix`; stops at one that would overflow */
};

struct cint_pool {
    pthread_mutex_t lock;
    pthread_cond_t start, done;
    int32_t nthreads; /* threads of the pool; the dispatching thread is one more */
    pthread_t *ids;
    uint64_t generation; /* one more for each task */
    int32_t running;     /* threads still in the current task */
    bool quit;
    void (*task)(void *arg); /* what every thread does: take parts of a job until none is left */
    void *arg;
};

/* ---- one chunk */

static void found_fault(cint_job *job, int64_t item);

/* Whether the chunks' contributions in `c` (a whole chunk, or the chunk running on this
 * thread so far) overflow a fold_checked from the prefix before them. */
static bool overflows(const cint_job *job, const cint_chunk *c) {
    for (int32_t r = 0; r < job->k->nreductions; r++)
        if (!cint_red_fits(&job->prefix[r], &c->reductions[r], &job->k->reductions[r])) return true;
    return false;
}

/* The chunk just above the prefix: if its contributions so far overflow a fold from
 * the prefix, the fold faults at or below its current work-item on one thread. */
static bool prefix_overflows(cint_chunk *c) {
    cint_job *job = c->job;
    int64_t j = c - job->chunks;
    if (job->prefix == NULL || atomic_load(&job->merged) != j) return false;
    pthread_mutex_lock(&job->prefix_lock);
    bool over = atomic_load(&job->merged) == j && overflows(job, c);
    pthread_mutex_unlock(&job->prefix_lock);
    if (over) found_fault(job, c->end - 1);
    return over;
}

/* A chunk completed: combine the completed chunks above the prefix into it, in
 * ascending order, until one is missing or would overflow a fold (then the stop). */
static void extend_prefix(cint_chunk *done) {
    cint_job *job = done->job;
    if (job->prefix == NULL) return;
    pthread_mutex_lock(&job->prefix_lock);
    done->finished = true;
    for (int64_t j = atomic_load(&job->merged); j < job->nchunks && job->chunks[j].finished; j++) {
        cint_chunk *c = &job->chunks[j];
        if (overflows(job, c)) {
            found_fault(job, c->end - 1);
            break;
        }
        for (int32_t r = 0; r < job->k->nreductions; r++)
            cint_red_merge(&job->prefix[r], &c->reductions[r], &job->k->reductions[r]);
        atomic_store(&job->merged, j + 1);
    }
    pthread_mutex_unlock(&job->prefix_lock);
}

int cint_chunk_fuel_out(cint_ctx *ctx, int32_t span) {
    cint_chunk *c = ctx->chunk;
    /* Every slice: the stop (a fault found below this chunk), or a fold that this chunk
     * overflows from the prefix. */
    if (atomic_load_explicit(&c->job->fault, memory_order_relaxed) < c->first || prefix_overflows(c)) {
        c->cancelled = true;
    } else if (c->remaining != 0) {
        uint64_t slice = c->remaining < SLICE ? c->remaining : SLICE;
        c->given += slice;
        if (c->remaining != UNLIMITED) c->remaining -= slice;
        ctx->fuel_left = slice;
        return 0;
    }
    cint_fail_fuel(ctx, span); /* a record for the code that looks; the chunk's end is what counts */
    return 1;
}

static void found_fault(cint_job *job, int64_t item) {
    int64_t least = atomic_load(&job->fault);
    while (item < least && !atomic_compare_exchange_weak(&job->fault, &least, item)) {
    }
}

static void run_chunk(cint_job *job, cint_chunk *c) {
    const cint_ctx *m = job->ctx;
    const cint_kernel *k = job->k;
    cint_ctx w;
    memset(&w, 0, sizeof w);
    w.host = m->host;
    w.program = m->program;
    w.budget = m->budget;
    w.depth = m->depth;
    cint_stack_mark(&w); /* the stack of the thread that runs the chunk (stack.c) */
    w.dispatches = m->dispatches;
    w.threads = 1;
    w.chunk = c;
    uint64_t slice = c->remaining < SLICE ? c->remaining : SLICE;
    c->given = slice;
    if (c->remaining != UNLIMITED) c->remaining -= slice;
    w.fuel_left = w.fuel_start = slice;
    cint_plan plan = *job->plan;
    plan.reductions = c->reductions;
    for (int32_t r = 0; r < k->nreductions; r++) cint_red_start_partial(&c->reductions[r], &k->reductions[r]);
    int64_t item = 0;
    int rc = k->run(&w, &plan, c->first, c->end, &item);
    if (rc == 0 && w.status == CINT_OK) {
        c->state = CHUNK_DONE;
        c->charges = c->given - w.fuel_left;
        c->out = w.out;
        c->out_len = w.out_len;
        w.out = NULL;
        extend_prefix(c);
        if (job->budget && c->charges > 0) {
            /* Completed chunks that charge more than F in all put the fuel fault at or
             * below the last work-item of the greatest of them: nothing above it runs. */
            int64_t j = c - job->chunks, last = atomic_load(&job->last_done);
            while (j > last && !atomic_compare_exchange_weak(&job->last_done, &last, j)) {
            }
            uint64_t before = atomic_fetch_add(&job->charged, c->charges);
            if (before + c->charges < before || before + c->charges > job->allowance)
                found_fault(job, job->chunks[atomic_load(&job->last_done)].end - 1);
        }
    } else if (rc != 0 && !c->cancelled && w.status != CINT_RESOURCE) {
        c->state = CHUNK_FAULT;
        found_fault(job, item);
    } else {
        c->state = CHUNK_STOPPED;
    }
    free(w.out);
    free(w.fault.frames);
}

/* What every thread of a job does: take chunks in ascending order until none is left. */
static void work(void *arg) {
    cint_job *job = arg;
    for (;;) {
        int64_t j = atomic_fetch_add(&job->next, 1);
        if (j >= job->nchunks) return;
        cint_chunk *c = &job->chunks[j];
        if (c->first > atomic_load(&job->fault)) continue; /* none of its work-items can be canonical */
        run_chunk(job, c);
    }
}

/* ---- the pool */

static void *pool_thread(void *self) {
    cint_pool *pool = self;
    uint64_t seen = 0;
    pthread_mutex_lock(&pool->lock);
    for (;;) {
        while (!pool->quit && pool->generation == seen) pthread_cond_wait(&pool->start, &pool->lock);
        if (pool->quit) break;
        seen = pool->generation;
        void (*task)(void *) = pool->task;
        void *arg = pool->arg;
        pthread_mutex_unlock(&pool->lock);
        task(arg);
        pthread_mutex_lock(&pool->lock);
        if (--pool->running == 0) pthread_cond_signal(&pool->done);
    }
    pthread_mutex_unlock(&pool->lock);
    return NULL;
}

static cint_pool *pool_new(int32_t threads, size_t stack) {
    cint_pool *pool = calloc(1, sizeof *pool);
    if (pool == NULL) return NULL;
    pool->ids = calloc((size_t)threads, sizeof *pool->ids);
    if (pool->ids == NULL || pthread_mutex_init(&pool->lock, NULL) != 0) {
        free(pool->ids);
        free(pool);
        return NULL;
    }
    pthread_cond_init(&pool->start, NULL);
    pthread_cond_init(&pool->done, NULL);
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    if (stack >= (size_t)PTHREAD_STACK_MIN) (void)pthread_attr_setstacksize(&attr, stack);
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old); /* inherited: the pool's threads take no signal */
    int32_t made = 0;
    while (made < threads && pthread_create(&pool->ids[made], &attr, pool_thread, pool) == 0) made++;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    pthread_attr_destroy(&attr);
    pool->nthreads = made; /* fewer when the system gives fewer (no memory for stacks) */
    return pool;
}

/* The threads work-items ran on (the dispatching thread's included): 1 without a pool. */
int32_t cint_ctx_threads_used(const cint_ctx *ctx) { return ctx->pool != NULL ? ctx->pool->nthreads + 1 : 1; }

void cint_pool_free(cint_pool *pool) {
    if (pool == NULL) return;
    pthread_mutex_lock(&pool->lock);
    pool->quit = true;
    pthread_cond_broadcast(&pool->start);
    pthread_mutex_unlock(&pool->lock);
    for (int32_t i = 0; i < pool->nthreads; i++) pthread_join(pool->ids[i], NULL);
    pthread_cond_destroy(&pool->start);
    pthread_cond_destroy(&pool->done);
    pthread_mutex_destroy(&pool->lock);
    free(pool->ids);
    free(pool);
}

/* task(arg) on every thread of the pool and on this one; returns when all are done. */
static void pool_run(cint_pool *pool, void (*task)(void *), void *arg) {
    pthread_mutex_lock(&pool->lock);
    pool->task = task;
    pool->arg = arg;
    pool->running = pool->nthreads;
    pool->generation++;
    pthread_cond_broadcast(&pool->start);
    pthread_mutex_unlock(&pool->lock);
    task(arg);
    pthread_mutex_lock(&pool->lock);
    while (pool->running > 0) pthread_cond_wait(&pool->done, &pool->lock);
    pool->task = NULL;
    pool->arg = NULL;
    pthread_mutex_unlock(&pool->lock);
}

/* ---- copies: staging and publication of large dense views (dispatch.c) */

#define COPY_PARALLEL ((size_t)1 << 20) /* bytes: a smaller copy is one memcpy */
#define COPY_PIECE ((size_t)1 << 18)

typedef struct {
    char *to;
    const char *from;
    size_t bytes, piece;
    int64_t npieces;
    _Atomic int64_t next;
} copy_job;

static void copy_work(void *arg) {
    copy_job *job = arg;
    for (;;) {
        int64_t j = atomic_fetch_add(&job->next, 1);
        if (j >= job->npieces) return;
        size_t at = (size_t)j * job->piece;
        size_t n = job->bytes - at < job->piece ? job->bytes - at : job->piece;
        memcpy(job->to + at, job->from + at, n);
    }
}

void cint_copy(cint_ctx *ctx, void *to, const void *from, size_t bytes) {
    cint_pool *pool = ctx->pool;
    if (pool == NULL || pool->nthreads == 0 || bytes < COPY_PARALLEL) {
        memcpy(to, from, bytes);
        return;
    }
    copy_job job;
    job.to = to;
    job.from = from;
    job.bytes = bytes;
    job.piece = COPY_PIECE;
    job.npieces = (int64_t)(bytes / COPY_PIECE + (bytes % COPY_PIECE != 0));
    atomic_init(&job.next, 0);
    pool_run(pool, copy_work, &job);
}

/* ---- the dispatch's side */

/* `charges` units off the entry's fuel, which covers them (or is unlimited: then the
 * counter starts again at its end, as cint_fuel_out does). */
static void charge(cint_ctx *ctx, uint64_t charges) {
    if (charges <= ctx->fuel_left) {
        ctx->fuel_left -= charges;
        return;
    }
    charges -= ctx->fuel_left;
    ctx->fuel_start = UINT64_MAX;
    ctx->fuel_left = UINT64_MAX - charges;
}

/* The chunks in ascending order, as the sequential run reaches them (see the top). */
static int gather(cint_ctx *ctx, const cint_kernel *k, cint_plan *plan, cint_job *job, int64_t *item) {
    for (int64_t j = 0; j < job->nchunks; j++) {
        cint_chunk *c = &job->chunks[j];
        bool clean = c->state == CHUNK_DONE && (ctx->budget < 0 || c->charges <= ctx->fuel_left);
        for (int32_t r = 0; clean && r < k->nreductions; r++)
            clean = cint_red_fits(&plan->reductions[r], &c->reductions[r], &k->reductions[r]);
        if (!clean) { /* the sequential run from here: it meets the canonical fault, if any */
            if (k->run(ctx, plan, c->first, c->end, item)) return 1;
            continue;
        }
        charge(ctx, c->charges);
        for (int32_t r = 0; r < k->nreductions; r++)
            cint_red_merge(&plan->reductions[r], &c->reductions[r], &k->reductions[r]);
        if (c->out_len > 0) {
            cint_print(ctx, c->out, c->out_len);
            if (ctx->status != CINT_OK) return 1;
        }
    }
    return 0;
}

static int remote_items(cint_ctx *ctx, const cint_kernel *k, cint_plan *plan, int64_t *item);

int cint_work_items(cint_ctx *ctx, const cint_kernel *k, cint_plan *plan, int64_t *item) {
    int64_t n = plan->count;
    if (cint_goes_remote(ctx, n)) return remote_items(ctx, k, plan, item);
    if (ctx->threads <= 1 || n < ctx->parallel_min || n < 2) return k->run(ctx, plan, 0, n, item);
    if (ctx->pool == NULL) {
        ctx->pool = pool_new(ctx->threads - 1, ctx->thread_stack);
        if (ctx->pool == NULL) ctx->threads = 1; /* no memory for a pool: one thread from now on */
    }
    if (ctx->pool == NULL || ctx->pool->nthreads == 0) return k->run(ctx, plan, 0, n, item);
    int64_t parts = (int64_t)(ctx->pool->nthreads + 1) * CHUNKS_PER_THREAD;
    int64_t size = n / parts + (n % parts != 0);
    if (size < ctx->chunk_min) size = ctx->chunk_min;
    int64_t nchunks = n / size + (n % size != 0);
    if (nchunks < 2) return k->run(ctx, plan, 0, n, item);

    cint_job job;
    memset(&job, 0, sizeof job);
    job.chunks = calloc((size_t)nchunks, sizeof *job.chunks);
    cint_reduction *states = k->nreductions > 0
                                 ? calloc((size_t)nchunks * (size_t)k->nreductions, sizeof *states)
                                 : NULL;
    if (job.chunks == NULL || (k->nreductions > 0 && states == NULL)) {
        free(job.chunks);
        free(states);
        return k->run(ctx, plan, 0, n, item); /* no memory to split it: one thread */
    }
    job.ctx = ctx;
    job.k = k;
    job.plan = plan;
    job.nchunks = nchunks;
    atomic_init(&job.next, 0);
    atomic_init(&job.fault, INT64_MAX);
    atomic_init(&job.last_done, -1);
    atomic_init(&job.charged, 0);
    job.budget = ctx->budget >= 0;
    job.allowance = ctx->fuel_left;
    for (int64_t j = 0; j < nchunks; j++) {
        cint_chunk *c = &job.chunks[j];
        c->job = &job;
        c->first = j * size;
        c->end = n - c->first > size ? c->first + size : n;
        c->remaining = ctx->budget < 0 ? UNLIMITED : ctx->fuel_left;
        c->reductions = states != NULL ? &states[j * k->nreductions] : NULL;
    }
    cint_reduction prefix[64];
    atomic_init(&job.merged, 0);
    for (int32_t r = 0; r < k->nreductions; r++)
        if (k->reductions[r].kind == CINT_RED_FOLD) job.prefix = prefix;
    if (job.prefix != NULL) {
        memcpy(prefix, plan->reductions, (size_t)k->nreductions * sizeof *prefix);
        pthread_mutex_init(&job.prefix_lock, NULL);
    }
    pool_run(ctx->pool, work, &job);
    if (job.prefix != NULL) pthread_mutex_destroy(&job.prefix_lock);
    ctx->parallel_dispatches++;
    int rc = gather(ctx, k, plan, &job, item);
    for (int64_t j = 0; j < nchunks; j++) free(job.chunks[j].out);
    free(job.chunks);
    free(states);
    return rc;
}

/* ---- tiles on a cluster (cint_ls/exec/c17/cluster.py)
 *
 * A tile is a chunk that runs in another process, perhaps on another machine: the
 * dispatch packs its plan once (the kernel's index in the program's table, the bound
 * sizes, the arguments with the bytes of each storage a view reaches, the stagings of
 * the outputs, the fuel allowance F), the host's callback runs each tile [first, end)
 * with cint_tile_run in a process that loaded the same library, and hands each result
 * back with cint_tile_accept: the chunk's state, charges, output and partial reduction
 * states, as run_chunk leaves them, and the elements of the stagings that its
 * work-items changed. A tile whose result never comes back stays pending. gather then
 * folds the tiles exactly as the pool's chunks: a pending, faulting or stopped tile
 * runs again here from its first work-item with the real fuel and reduction states,
 * so the outcome is that of one thread whatever the cluster did. The two processes
 * run the same library (the host sends it, keyed by its hash), so the structures are
 * packed as they lie in memory, their pointers set again on the worker's side. */

#define TILE_MAGIC UINT64_C(0x31454c4954544e49) /* "INTTILE1" */

typedef struct {
    char *data;
    size_t len, cap;
    bool failed;
    bool fixed; /* data is the caller's buffer (cint_tile_run_into): never grown */
} packer;

static void put(packer *p, const void *bytes, size_t n) {
    if (p->failed || n == 0) return;
    if (p->len + n > p->cap) {
        if (p->fixed) {
            p->failed = true;
            return;
        }
        size_t cap = p->cap < 4096 ? 4096 : p->cap;
        while (cap < p->len + n) cap *= 2;
        char *grown = realloc(p->data, cap);
        if (grown == NULL) {
            p->failed = true;
            return;
        }
        p->data = grown;
        p->cap = cap;
    }
    if (p->data + p->len != (const char *)bytes) memcpy(p->data + p->len, bytes, n); /* (else in place already) */
    p->len += n;
}

static void put_i64(packer *p, int64_t v) { put(p, &v, sizeof v); }

typedef struct {
    const char *data;
    size_t len, at;
    bool failed;
} reader;

static const void *take(reader *r, size_t n) {
    if (r->failed || n > r->len - r->at) {
        r->failed = true;
        return NULL;
    }
    const void *at = r->data + r->at;
    r->at += n;
    return at;
}

static int64_t take_i64(reader *r) {
    int64_t v = 0;
    const void *at = take(r, sizeof v);
    if (at != NULL) memcpy(&v, at, sizeof v);
    return v;
}

static size_t storage_bytes(const cint_storage *s) {
    return s->count > 0 ? (size_t)s->count * s->element_size : 0u;
}

static int32_t kernel_index(const cint_ctx *ctx, const cint_kernel *k) {
    const cint_program *program = ctx->program;
    for (int32_t i = 0; program != NULL && i < program->nkernels; i++)
        if (program->kernels[i] == k) return i;
    return -1;
}

#define TILE_HEAD UINT64_C(0x3144414548544e49) /* "INTHEAD1" */

/* The plan as bytes a worker unpacks (cint_tile_run); false when it cannot be packed.
 * With `header_only`, the plan's header for a cluster's host (cluster.py, tiles.py),
 * which reads each storage where it lies and sends a tile only what it reads: the same
 * fields without the storages' bytes, each view and storage as it lies in memory (their
 * data pointers this process's), and per output whether every element of its staging is
 * written (its staging is then not a copy of the output: dispatch.c make_staging). */
static bool pack_plan(const cint_ctx *ctx, const cint_kernel *k, const cint_plan *plan, packer *p, bool header_only) {
    int32_t index = kernel_index(ctx, k);
    if (index < 0) return false;
    put_i64(p, (int64_t)(header_only ? TILE_HEAD : TILE_MAGIC));
    put_i64(p, index);
    put_i64(p, plan->number);
    put(p, plan->sizes, sizeof plan->sizes);
    put(p, plan->over, sizeof plan->over);
    put_i64(p, plan->count);
    put_i64(p, ctx->budget);
    put_i64(p, (int64_t)ctx->fuel_left); /* F: the allowance after the dispatch's charge */
    put_i64(p, ctx->depth);
    put_i64(p, ctx->dispatches);
    for (int32_t i = 0; i < k->nparams; i++) {
        const cint_param *param = &k->params[i];
        const cint_arg *a = &plan->args[i];
        if (param->rank < 0) {
            if (param->mode == CINT_MODE_IN) put(p, a->in, CINT_TC_SIZE(param->type));
            continue;
        }
        const cint_storage *s = a->view.storage;
        put(p, &a->view, sizeof a->view);
        put(p, s, sizeof *s);
        put_i64(p, (const char *)a->view.data - (const char *)s->data);
        if (!header_only) put(p, s->data, storage_bytes(s));
        if (param->mode == CINT_MODE_IN) continue;
        const cint_view *w = &plan->writes[i];
        put(p, w, sizeof *w);
        put(p, w->storage, sizeof *w->storage);
        if (!header_only) {
            put(p, w->storage->data, storage_bytes(w->storage));
            continue;
        }
        bool whole = param->overwritten && param->rank == k->nover;
        for (int32_t d = 0; whole && d < k->nover; d++) whole = a->view.extents[d] == plan->over[d];
        put_i64(p, whole);
    }
    return !p->failed;
}

void cint_ctx_set_remote_header(cint_ctx *ctx, int header) { ctx->remote_header = header != 0; }

/* The fuel a tile is handed, UNLIMITED without a budget. */
static int remote_items(cint_ctx *ctx, const cint_kernel *k, cint_plan *plan, int64_t *item) {
    int64_t n = plan->count;
    int64_t parts = ctx->remote_tiles < 1 ? 1 : ctx->remote_tiles;
    int32_t index = kernel_index(ctx, k);
    if (index >= 0 && index < ctx->nkernel_tiles && ctx->kernel_tiles[index] > 0) parts = ctx->kernel_tiles[index];
    int64_t size = n / parts + (n % parts != 0);
    int64_t nchunks = n / size + (n % size != 0);
    if (nchunks < 1) return k->run(ctx, plan, 0, n, item);
    packer pk;
    memset(&pk, 0, sizeof pk);
    cint_job job;
    memset(&job, 0, sizeof job);
    job.chunks = calloc((size_t)nchunks, sizeof *job.chunks);
    cint_reduction *states = k->nreductions > 0
                                 ? calloc((size_t)nchunks * (size_t)k->nreductions, sizeof *states)
                                 : NULL;
    if (job.chunks == NULL || (k->nreductions > 0 && states == NULL) ||
        !pack_plan(ctx, k, plan, &pk, ctx->remote_header)) {
        free(job.chunks);
        free(states);
        free(pk.data);
        return k->run(ctx, plan, 0, n, item); /* nothing to send: this process runs it all */
    }
    job.ctx = ctx;
    job.k = k;
    job.plan = plan;
    job.nchunks = nchunks;
    atomic_init(&job.next, 0);
    atomic_init(&job.fault, INT64_MAX);
    atomic_init(&job.last_done, -1);
    atomic_init(&job.charged, 0);
    job.budget = ctx->budget >= 0;
    job.allowance = ctx->fuel_left;
    for (int64_t j = 0; j < nchunks; j++) {
        cint_chunk *c = &job.chunks[j];
        c->job = &job;
        c->first = j * size;
        c->end = n - c->first > size ? c->first + size : n;
        c->state = CHUNK_PENDING;
        c->reductions = states != NULL ? &states[j * k->nreductions] : NULL;
    }
    (void)ctx->remote(ctx->remote_user, &job, pk.data, pk.len, nchunks, size); /* what came back is folded */
    free(pk.data);
    ctx->remote_dispatches++;
    plan->kept = job.kept; /* outputs the tiles kept on the workers (publication marks them) */
    int rc = 0;
    for (int64_t j = 0; j < nchunks; j++) {
        if (job.chunks[j].state == CHUNK_DONE) continue;
        /* Tiles run here after all: they read the storages here, so whatever the
         * workers kept of them comes back first. */
        rc = cint_fetch_args(ctx, k, plan->args);
        break;
    }
    if (rc == 0) rc = gather(ctx, k, plan, &job, item);
    for (int64_t j = 0; j < nchunks; j++) free(job.chunks[j].out);
    free(job.chunks);
    free(states);
    return rc;
}

void cint_ctx_set_remote(cint_ctx *ctx,
                         int (*remote)(void *user, void *job, const char *plan, size_t plan_bytes, int64_t ntiles,
                                       int64_t tile),
                         void *user, int64_t remote_min, int64_t tiles) {
    ctx->remote = remote;
    ctx->remote_user = user;
    ctx->remote_min = remote_min < 2 ? 2 : remote_min;
    ctx->remote_tiles = tiles < 1 ? 1 : tiles;
}

bool cint_goes_remote(const cint_ctx *ctx, int64_t count) {
    return ctx->remote != NULL && count >= ctx->remote_min && count >= 2;
}

void cint_ctx_set_kernel_tiles(cint_ctx *ctx, int32_t index, int64_t tiles) {
    if (index < 0) return;
    if (index >= ctx->nkernel_tiles) {
        int64_t *grown = realloc(ctx->kernel_tiles, ((size_t)index + 1) * sizeof *grown);
        if (grown == NULL) return; /* the tiles stay as they were */
        for (int32_t i = ctx->nkernel_tiles; i <= index; i++) grown[i] = 0;
        ctx->kernel_tiles = grown;
        ctx->nkernel_tiles = index + 1;
    }
    ctx->kernel_tiles[index] = tiles < 0 ? 0 : tiles;
}

void cint_ctx_set_fetch(cint_ctx *ctx, int (*fetch)(void *user, cint_storage *storage)) { ctx->fetch = fetch; }

void cint_tile_keep(void *opaque, int32_t param) {
    cint_job *job = opaque;
    if (param >= 0 && param < 64) job->kept |= (uint64_t)1 << param;
}

int cint_storage_fetch(cint_ctx *ctx, cint_storage *storage) {
    if (storage->remote == 0) return 0;
    if (ctx->fetch == NULL || ctx->fetch(ctx->remote_user, storage) != 0 || storage->remote != 0) {
        if (ctx->status != CINT_RESOURCE)
            cint_resource(ctx, "the cluster's workers could not send back the elements they kept of an array");
        return 1;
    }
    return 0;
}

int64_t cint_ctx_remote_dispatches(const cint_ctx *ctx) { return ctx->remote_dispatches; }
int64_t cint_ctx_remote_tiles_run(const cint_ctx *ctx) { return ctx->remote_tiles_run; }

/* A tile's result (cint_tile_run's bytes) into chunk `tile` of the job: 0, or 1 when
 * the bytes are not a result for it (the tile then stays pending: it runs here). */
int cint_tile_accept(void *opaque, int64_t tile, const char *result, size_t bytes) {
    cint_job *job = opaque;
    if (tile < 0 || tile >= job->nchunks) return 1;
    cint_chunk *c = &job->chunks[tile];
    const cint_kernel *k = job->k;
    if (c->state != CHUNK_PENDING) return 1;
    reader r = {result, bytes, 0, false};
    int64_t state = take_i64(&r), first = take_i64(&r), end = take_i64(&r);
    uint64_t charges = (uint64_t)take_i64(&r);
    int64_t out_len = take_i64(&r);
    const char *out = out_len >= 0 ? take(&r, (size_t)out_len) : NULL;
    const void *reds = take(&r, (size_t)k->nreductions * sizeof(cint_reduction));
    if (r.failed || first != c->first || end != c->end || out_len < 0 ||
        (state != CHUNK_DONE && state != CHUNK_FAULT && state != CHUNK_STOPPED))
        return 1;
    /* Check the runs first: a result is taken whole or not at all. */
    size_t runs_at = r.at;
    for (int32_t i = 0; i < k->nparams; i++) {
        if (k->params[i].rank < 0 || k->params[i].mode == CINT_MODE_IN) continue;
        size_t limit = storage_bytes(job->plan->writes[i].storage);
        int64_t nruns = take_i64(&r);
        for (int64_t m = 0; !r.failed && m < nruns; m++) {
            int64_t at = take_i64(&r), len = take_i64(&r);
            if (at < 0 || len < 0 || (uint64_t)at > limit || (uint64_t)len > limit - (size_t)at) return 1;
            (void)take(&r, (size_t)len);
        }
        if (r.failed || nruns < 0) return 1;
    }
    if (state != CHUNK_DONE) {
        c->state = (int)state; /* gather runs it again here */
        return 0;
    }
    r.at = runs_at;
    for (int32_t i = 0; i < k->nparams; i++) {
        if (k->params[i].rank < 0 || k->params[i].mode == CINT_MODE_IN) continue;
        char *data = job->plan->writes[i].storage->data;
        int64_t nruns = take_i64(&r);
        for (int64_t m = 0; m < nruns; m++) {
            int64_t at = take_i64(&r), len = take_i64(&r);
            memcpy(data + at, take(&r, (size_t)len), (size_t)len);
        }
    }
    if (out_len > 0) {
        c->out = malloc((size_t)out_len + 1);
        if (c->out == NULL) return 1; /* pending: it runs here */
        memcpy(c->out, out, (size_t)out_len);
        c->out[out_len] = '\0';
        c->out_len = (size_t)out_len;
    }
    if (k->nreductions > 0) memcpy(c->reductions, reds, (size_t)k->nreductions * sizeof(cint_reduction));
    c->charges = charges;
    c->state = CHUNK_DONE;
    ((cint_ctx *)job->ctx)->remote_tiles_run++;
    return 0;
}

/* The runs of elements of `now` that differ from `was` (whole elements, so that each
 * run holds only elements this tile's work-items wrote), at `base` + their offset. */
static void put_changes(packer *p, const char *now, const char *was, size_t bytes, size_t element, size_t base) {
    size_t count_at = p->len;
    put_i64(p, 0);
    int64_t nruns = 0;
    size_t at = 0;
    if (element == 0) element = 1;
    size_t block = element * 64; /* equal blocks are passed over whole (a stencil's unchanged rows) */
    while (at < bytes) {
        if (at + block <= bytes && memcmp(now + at, was + at, block) == 0) {
            at += block;
            continue;
        }
        if (memcmp(now + at, was + at, element) == 0) {
            at += element;
            continue;
        }
        size_t start = at;
        while (at < bytes && memcmp(now + at, was + at, element) != 0) at += element;
        put_i64(p, (int64_t)(base + start));
        put_i64(p, (int64_t)(at - start));
        put(p, now + start, at - start);
        nruns++;
    }
    if (!p->failed) memcpy(p->data + count_at, &nruns, sizeof nruns);
}

/* A packed plan unpacked (tile_unpack): the plan over the plan's own bytes (inputs,
 * read only) and copies of the stagings (`original`: the staging as it came, to find
 * what the work-items changed). Large: on the heap.
 *
 * A windowed plan (TILE_WINDOWED, the cluster's, cint_ls/exec/c17/cluster.py) holds of
 * each storage only the elements [lo, lo + n) its tile's work-items can read (the rest
 * of the storage is not there: the kernel's reads stay inside, by the footprint the
 * host computed), and of each staging the window the tile's work-items own: with mode
 * WINDOW_DIFF its elements as they are (the tile sends back those it changed), with
 * mode WINDOW_WHOLE none (every element is written: the tile sends back the window). A
 * window's storage pointer is set `lo` elements before its bytes, so that the view's
 * offsets into its storage hold. */
#define TILE_WINDOWED UINT64_C(0x32454c4954544e49) /* "INTTILE2" */
enum { WINDOW_DIFF = 0, WINDOW_WHOLE = 1 };

typedef struct {
    cint_plan plan;
    cint_ctx m; /* the sender's budget, allowance, depth and dispatch count */
    uint64_t allowance;
    cint_arg args[64];
    cint_view writes[64];
    cint_storage storages[64], staged[64];
    const char *original[64];
    char *copy[64];       /* each staging's bytes (its window's, windowed), ours to free but where borrowed */
    bool borrowed[64];    /* copy[i] lies in `into` (cint_tile_run_into): not ours to free */
    char *into;           /* the caller's buffer the result is laid out in, or NULL (tile_place) */
    size_t into_len;
    int64_t lo[64], n[64]; /* each staging's window (the whole staging: 0, count) */
    int mode[64];
    uint64_t scratch[64][16];
} tile_in;

static void tile_free(tile_in *t) {
    if (t == NULL) return;
    for (int32_t i = 0; i < 64; i++)
        if (!t->borrowed[i]) free(t->copy[i]);
    free(t);
}

/* `base` moved back by `lo` elements of `size` bytes: the storage pointer of a window. */
static char *before(const char *base, int64_t lo, size_t size) {
    return (char *)((uintptr_t)base - (uintptr_t)lo * size);
}

/* The plan of `plan_bytes` (cint_tile_run's format, or the windowed one); NULL when it
 * is not one this library packed or memory runs out. `measure`: only its sizes are
 * wanted (cint_tile_result_bytes): a window compared after the run is not copied. */
static tile_in *tile_unpack(const cint_program *program, const char *plan_bytes, size_t plan_len, bool measure) {
    reader r = {plan_bytes, plan_len, 0, false};
    uint64_t magic = (uint64_t)take_i64(&r);
    if (magic != TILE_MAGIC && magic != TILE_WINDOWED) return NULL;
    bool windowed = magic == TILE_WINDOWED;
    int64_t index = take_i64(&r);
    if (r.failed || program == NULL || index < 0 || index >= program->nkernels) return NULL;
    const cint_kernel *k = program->kernels[index];
    if (k->nparams > 64) return NULL;
    tile_in *t = calloc(1, sizeof *t);
    if (t == NULL) return NULL;
    cint_plan *plan = &t->plan;
    plan->kernel = k;
    plan->number = take_i64(&r);
    const void *sizes = take(&r, sizeof plan->sizes), *over = take(&r, sizeof plan->over);
    if (r.failed) goto failed;
    memcpy(plan->sizes, sizes, sizeof plan->sizes);
    memcpy(plan->over, over, sizeof plan->over);
    plan->count = take_i64(&r);
    t->m.program = program;
    t->m.budget = take_i64(&r);
    t->allowance = (uint64_t)take_i64(&r);
    t->m.depth = take_i64(&r);
    t->m.dispatches = take_i64(&r);
    if (r.failed) goto failed;
    for (int32_t i = 0; i < k->nparams; i++) {
        const cint_param *param = &k->params[i];
        if (param->rank < 0) {
            if (param->mode == CINT_MODE_IN) t->args[i].in = take(&r, CINT_TC_SIZE(param->type));
            else t->args[i].out = t->scratch[i];
            continue;
        }
        const void *view = take(&r, sizeof(cint_view)), *storage = take(&r, sizeof(cint_storage));
        int64_t offset = take_i64(&r);
        if (r.failed) goto failed;
        memcpy(&t->args[i].view, view, sizeof(cint_view));
        memcpy(&t->storages[i], storage, sizeof(cint_storage));
        t->storages[i].remote = 0; /* the host's mark: here the window holds the elements */
        size_t size = t->storages[i].element_size, whole = storage_bytes(&t->storages[i]);
        int64_t lo = 0, n = t->storages[i].count;
        if (windowed) {
            lo = take_i64(&r);
            n = take_i64(&r);
        }
        if (r.failed || lo < 0 || n < 0 || lo > t->storages[i].count || n > t->storages[i].count - lo ||
            offset < 0 || (uint64_t)offset > whole)
            goto failed;
        const char *data = take(&r, (size_t)n * size);
        if (r.failed) goto failed;
        char *base = before(data, lo, size); /* read only: in views are never written */
        t->storages[i].data = base;
        t->args[i].view.storage = &t->storages[i];
        t->args[i].view.data = base + offset;
        if (param->mode == CINT_MODE_IN) continue;
        const void *wview = take(&r, sizeof(cint_view)), *wstorage = take(&r, sizeof(cint_storage));
        if (r.failed) goto failed;
        memcpy(&t->writes[i], wview, sizeof(cint_view));
        memcpy(&t->staged[i], wstorage, sizeof(cint_storage));
        t->staged[i].remote = 0;
        size_t wsize = t->staged[i].element_size;
        int64_t wlo = 0, wn = t->staged[i].count;
        int mode = WINDOW_DIFF;
        if (windowed) {
            wlo = take_i64(&r);
            wn = take_i64(&r);
            mode = (int)take_i64(&r);
        }
        if (r.failed || wlo < 0 || wn < 0 || wlo > t->staged[i].count || wn > t->staged[i].count - wlo ||
            (mode != WINDOW_DIFF && mode != WINDOW_WHOLE))
            goto failed;
        size_t w = (size_t)wn * wsize;
        t->original[i] = mode == WINDOW_DIFF ? take(&r, w) : NULL;
        if (r.failed) goto failed;
        if (mode == WINDOW_DIFF && !measure) {
            t->copy[i] = malloc(w > 0 ? w : 1u);
            if (t->copy[i] == NULL) goto failed;
            memcpy(t->copy[i], t->original[i], w);
        } /* WINDOW_WHOLE: every element is written; tile_place gives it its bytes */
        t->lo[i] = wlo;
        t->n[i] = wn;
        t->mode[i] = mode;
    }
    plan->args = t->args;
    plan->writes = t->writes;
    return t;
failed:
    tile_free(t);
    return NULL;
}

/* The bytes of a done tile's result when every output's window goes back whole, laid
 * out as tile_result lays it (no output: a kernel prints nothing, C9007), and in
 * places[i] where output i's elements begin in it (-1: none); 0 when some output's runs
 * are found by comparison (WINDOW_DIFF) and so have no size beforehand. */
static size_t whole_result_bytes(const tile_in *t, int64_t *places) {
    const cint_kernel *k = t->plan.kernel;
    size_t n = 5 * sizeof(int64_t) + (size_t)k->nreductions * sizeof(cint_reduction);
    for (int32_t i = 0; i < k->nparams; i++) {
        if (k->params[i].rank < 0 || k->params[i].mode == CINT_MODE_IN) continue;
        if (t->mode[i] != WINDOW_WHOLE) return 0;
        size_t bytes = (size_t)t->n[i] * t->staged[i].element_size;
        n += sizeof(int64_t);
        places[i] = -1;
        if (bytes > 0) {
            places[i] = (int64_t)(n + 2 * sizeof(int64_t));
            n += 2 * sizeof(int64_t) + bytes;
        }
    }
    return n;
}

/* Each WINDOW_WHOLE staging's bytes: where `into` (into_len bytes) is exactly the size
 * of the tile's result, at their place in it, so that the work-items write the result
 * itself and tile_result copies nothing (a worker's kept tile, cluster.py: a heat tile's
 * 32 MB not copied twice); else malloc'd. A place must be 8-byte aligned: the kernels
 * reach elements of up to 8 bytes (no __int128) through typed pointers. 0, or 1 when
 * memory runs out. */
static int tile_place(tile_in *t, char *into, size_t into_len) {
    const cint_kernel *k = t->plan.kernel;
    int64_t places[64];
    bool inside = into != NULL && into_len > 0 && whole_result_bytes(t, places) == into_len;
    for (int32_t i = 0; inside && i < k->nparams; i++)
        if (k->params[i].rank >= 0 && k->params[i].mode != CINT_MODE_IN && places[i] >= 0 &&
            ((uintptr_t)(into + places[i]) & 7u) != 0)
            inside = false;
    t->into = inside ? into : NULL;
    t->into_len = inside ? into_len : 0;
    for (int32_t i = 0; i < k->nparams; i++) {
        if (k->params[i].rank < 0 || k->params[i].mode == CINT_MODE_IN) continue;
        if (t->mode[i] == WINDOW_WHOLE) {
            if (inside && places[i] >= 0) {
                t->copy[i] = into + places[i];
                t->borrowed[i] = true;
            } else {
                size_t w = (size_t)t->n[i] * t->staged[i].element_size;
                t->copy[i] = malloc(w > 0 ? w : 1u);
                if (t->copy[i] == NULL) return 1;
            }
        }
        t->staged[i].data = before(t->copy[i], t->lo[i], t->staged[i].element_size);
        t->writes[i].storage = &t->staged[i];
        t->writes[i].data = t->staged[i].data;
    }
    return 0;
}

/* A tile's result: its state, bounds, charges, output, reduction states and, per
 * output, the runs of staged elements its work-items changed (put_changes; a whole
 * window: one run), at their byte offsets in the staging. */
static int tile_result(const tile_in *t, int state, int64_t first, int64_t end, uint64_t charges, const char *out,
                       size_t out_len, const cint_reduction *states, char **result, size_t *result_bytes) {
    const cint_kernel *k = t->plan.kernel;
    packer p;
    memset(&p, 0, sizeof p);
    /* In place (tile_place): the windows already lie where they are put, which then
     * copies nothing, and into_len is the result's exact size (whole_result_bytes). */
    bool in_place = t->into != NULL && state == CHUNK_DONE && out_len == 0;
    if (in_place) {
        p.data = t->into;
        p.cap = t->into_len;
        p.fixed = true;
    } else {
        size_t guess = 64 + out_len + (size_t)k->nreductions * sizeof *states;
        for (int32_t i = 0; i < k->nparams; i++)
            if (k->params[i].rank >= 0 && k->params[i].mode != CINT_MODE_IN && t->mode[i] == WINDOW_WHOLE)
                guess += 24 + (size_t)t->n[i] * t->staged[i].element_size;
        p.data = malloc(guess); /* one allocation for a window sent back whole (else grown as runs come) */
        p.cap = p.data != NULL ? guess : 0;
    }
    put_i64(&p, state);
    put_i64(&p, first);
    put_i64(&p, end);
    put_i64(&p, state == CHUNK_DONE ? (int64_t)charges : 0);
    put_i64(&p, state == CHUNK_DONE ? (int64_t)out_len : 0);
    if (state == CHUNK_DONE) put(&p, out, out_len);
    if (k->nreductions > 0) put(&p, states, (size_t)k->nreductions * sizeof *states);
    for (int32_t i = 0; i < k->nparams; i++) {
        if (k->params[i].rank < 0 || k->params[i].mode == CINT_MODE_IN) continue;
        size_t size = t->staged[i].element_size, at = (size_t)t->lo[i] * size, bytes = (size_t)t->n[i] * size;
        if (state != CHUNK_DONE) {
            put_i64(&p, 0);
        } else if (t->mode[i] == WINDOW_WHOLE) {
            put_i64(&p, bytes > 0);
            if (bytes > 0) {
                put_i64(&p, (int64_t)at);
                put_i64(&p, (int64_t)bytes);
                put(&p, t->copy[i], bytes);
            }
        } else {
            put_changes(&p, t->copy[i], t->original[i], bytes, size, at);
        }
    }
    if (p.failed || (in_place && p.len != p.cap)) {
        if (!in_place) free(p.data);
        return 1;
    }
    *result = p.data;
    *result_bytes = p.len;
    return 0;
}

const char *cint_program_kernel(const cint_program *program, int64_t index) {
    return program != NULL && index >= 0 && index < program->nkernels ? program->kernels[index]->qualified : NULL;
}

/* The worker's side: work-items [first, end) of the packed plan, as a chunk of the
 * pool runs them (run_chunk), in this process. The result (malloc'd, *result; free it
 * with cint_free): the chunk's state, its bounds, charges, output, partial reduction
 * states and, per output, the runs of staged elements it changed. 0, or 1 when the
 * plan is not one this library packed (nothing is returned). */
int cint_tile_run(const cint_program *program, const char *plan_bytes, size_t plan_len, int64_t first, int64_t end,
                  char **result, size_t *result_bytes) {
    return cint_tile_run_into(program, plan_bytes, plan_len, first, end, NULL, 0, result, result_bytes);
}

/* The bytes of the result of a tile of this plan that finishes done and prints nothing,
 * where every output's window goes back whole (whole_result_bytes): the size of the
 * buffer to hand cint_tile_run_into (a worker's kept result, cluster.py: else the
 * run-time's result is copied into the worker's buffer, both fresh memory). 0 where
 * it is not known beforehand (a window compared after the run) or the plan is not one
 * this library packed. */
size_t cint_tile_result_bytes(const cint_program *program, const char *plan_bytes, size_t plan_len) {
    tile_in *t = tile_unpack(program, plan_bytes, plan_len, true);
    if (t == NULL) return 0;
    int64_t places[64];
    size_t n = whole_result_bytes(t, places);
    tile_free(t);
    return n;
}

/* cint_tile_run, with the caller's buffer `into` of `into_len` bytes for the result:
 * where the result is exactly that long (a done tile whose outputs' windows all go back
 * whole: the size cint_tile_result_bytes says) the work-items write into it and
 * *result is `into` (not to be freed); else as cint_tile_run. */
int cint_tile_run_into(const cint_program *program, const char *plan_bytes, size_t plan_len, int64_t first,
                       int64_t end, char *into, size_t into_len, char **result, size_t *result_bytes) {
    *result = NULL;
    *result_bytes = 0;
    tile_in *t = tile_unpack(program, plan_bytes, plan_len, false);
    if (t == NULL) return 1;
    if (tile_place(t, into, into_len) != 0) {
        tile_free(t);
        return 1;
    }
    const cint_kernel *k = t->plan.kernel;
    if (end > t->plan.count) end = t->plan.count; /* the last tile: the host asks for whole tiles */
    if (first < 0 || first >= end) {
        tile_free(t);
        return 1;
    }
    cint_reduction *states = k->nreductions > 0 ? calloc((size_t)k->nreductions, sizeof *states) : NULL;
    if (k->nreductions > 0 && states == NULL) {
        tile_free(t);
        return 1;
    }
    cint_job job;
    cint_chunk c;
    memset(&job, 0, sizeof job);
    memset(&c, 0, sizeof c);
    job.ctx = &t->m;
    job.k = k;
    job.plan = &t->plan;
    job.nchunks = 1;
    job.chunks = &c;
    atomic_init(&job.next, 0);
    atomic_init(&job.fault, INT64_MAX);
    atomic_init(&job.last_done, -1);
    atomic_init(&job.charged, 0);
    job.budget = t->m.budget >= 0;
    job.allowance = t->allowance;
    c.job = &job;
    c.first = first;
    c.end = end;
    c.remaining = t->m.budget < 0 ? UNLIMITED : t->allowance;
    c.reductions = states;
    run_chunk(&job, &c);
    int rc = tile_result(t, c.state, first, end, c.charges, c.out, c.out_len, states, result, result_bytes);
    free(c.out);
    free(states);
    tile_free(t);
    return rc;
}

/* Every work-item of the packed plan through `ctx`'s work-item phase (gpu-cuda's,
 * gpu_host.c, once cint_gpu_attach set it; cpu-c17's own otherwise), with the sender's
 * budget, allowance, depth and dispatch count: the workbench's `:executor gpu-cuda`,
 * whose host is the interpreter's machine (cint_ls/exec/cuda/runner.py). The result is
 * cint_tile_run's for work-items [0, count), but with each reduction's *complete* state
 * (cint_red_start, as dispatch.c hands the phase) and state CHUNK_FAULT for a work-item
 * that faulted, ran out of fuel or overflowed a fold (the sender runs the dispatch
 * again for its canonical fault). 0; 1 when the plan is not one this library packed;
 * 2 when the phase could not run (ctx's status is CINT_RESOURCE, its message says why). */
int cint_tile_run_phase(cint_ctx *ctx, const cint_program *program, const char *plan_bytes, size_t plan_len,
                        char **result, size_t *result_bytes) {
    *result = NULL;
    *result_bytes = 0;
    ctx->program = program;
    tile_in *t = tile_unpack(program, plan_bytes, plan_len, false);
    if (t == NULL) return 1;
    if (tile_place(t, NULL, 0) != 0) {
        tile_free(t);
        return 1;
    }
    const cint_kernel *k = t->plan.kernel;
    cint_reduction *states = k->nreductions > 0 ? calloc((size_t)k->nreductions, sizeof *states) : NULL;
    if (k->nreductions > 0 && states == NULL) {
        tile_free(t);
        return 1;
    }
    for (int32_t r = 0; r < k->nreductions; r++) cint_red_start(&states[r], &k->reductions[r]);
    t->plan.reductions = states;
    ctx->status = CINT_OK;
    ctx->budget = t->m.budget;
    ctx->fuel_start = ctx->fuel_left = t->m.budget >= 0 ? t->allowance : UINT64_MAX;
    ctx->depth = t->m.depth;
    ctx->dispatches = t->m.dispatches;
    int64_t item = -1;
    int failed = ctx->work_phase != NULL ? ctx->work_phase(ctx, k, &t->plan, -1, &item)
                                         : cint_work_items(ctx, k, &t->plan, &item);
    int rc = 2;
    if (!failed || ctx->status != CINT_RESOURCE) {
        ctx->status = CINT_OK;
        rc = tile_result(t, failed ? CHUNK_FAULT : CHUNK_DONE, 0, t->plan.count, ctx->fuel_start - ctx->fuel_left,
                         NULL, 0, states, result, result_bytes);
    }
    free(states);
    tile_free(t);
    return rc;
}

int64_t cint_now_ns(void) {
    struct timespec t;
    if (clock_gettime(CLOCK_MONOTONIC, &t) != 0) return 0;
    return (int64_t)t.tv_sec * 1000000000 + (int64_t)t.tv_nsec;
}
