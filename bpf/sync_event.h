/* The record the BPF sync tracer sends to user space through the ring buffer,
 * and the constants both sides share. Plain C: included by seer_sync.bpf.c and by
 * the recorder (daemon/). Kinds below 24 equal seer::EventKind values. */
#ifndef SEER_BPF_SYNC_EVENT_H
#define SEER_BPF_SYNC_EVENT_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

/* Event kinds. 0..23 are seer::EventKind (daemon/ static_asserts the match);
 * 32.. are lifecycle facts the recorder turns into events or uses itself. */
enum seer_sync_kind {
	SEER_EV_ACQUIRE = 5,        /* object = lock, mode = 0 exclusive / 1 shared,
	                             * aux = SEER_ACQ_* (how the call got the lock) */
	SEER_EV_RELEASE = 6,        /* object = lock (the mode is the recorder's to know) */
	SEER_EV_COND_WAIT_BEGIN = 7,/* object = cond, aux = mutex */
	SEER_EV_COND_WAIT_END = 8,  /* object = cond, aux = mutex; woken, mutex re-held */
	SEER_EV_SIGNAL = 9,         /* object = cond, semaphore or futex word */
	SEER_EV_WAIT = 10,          /* object = semaphore or futex word: wait returned 0 */
	SEER_EV_BARRIER_ARRIVE = 11,/* object = barrier */
	SEER_EV_BARRIER_DEPART = 12,/* object = barrier */
	SEER_EV_JOIN = 14,          /* object = pthread_t of the joined thread */
	SEER_EV_THREAD_EXIT = 16,   /* object, aux = the thread's comm (16 bytes) */
	SEER_EV_CLONE = 32,         /* object = new thread's kernel tid (same process) */
	SEER_EV_CREATE_RET = 33,    /* object = pthread_t that pthread_create returned */
	SEER_EV_SEM_INIT = 34,      /* object = semaphore, aux = initial value */
	SEER_EV_BARRIER_INIT = 35,  /* object = barrier, aux = count */
	SEER_EV_PROCESS_FORK = 36,  /* object = child process pid; aux = 1: stopped, for
	                             * the recorder to follow it (stop_new_programs) */
	SEER_EV_COND_TIMEOUT = 37,  /* object = cond, aux = mutex: timed out, mutex re-held */
	SEER_EV_EXEC = 38,          /* tid = the thread that called exec (its tid before),
	                             * object = its tid after: the traced program ends;
	                             * aux = 1: the new one is stopped, for the recorder */
	SEER_EV_MODULE_MAPPED = 39, /* object = address, aux = length of a new executable
	                             * file mapping (dlopen): the module map needs a refresh */
};
/* sync_event.aux of an ACQUIRE: seer::AcquireHow (daemon/ static_asserts the
 * match). A trylock or timed lock cannot wait forever: never a deadlock's
 * blocked request. */
#define SEER_ACQ_BLOCKING 0
#define SEER_ACQ_TRY 1
#define SEER_ACQ_TIMED 2

/* sync_event.mode of a SIGNAL or WAIT that comes from a futex syscall (pc = user ip). */
#define SEER_MODE_FUTEX 1

#define SEER_EV_KIND_SLOTS 64   /* size of the lost-event counter array */

/* What a probe does, passed as the attach cookie (one program serves many functions). */
enum seer_sync_op {
	SEER_OP_ACQ_EXCL = 1,       /* pthread_mutex_lock, rwlock_wrlock, spin_lock: entry */
	SEER_OP_ACQ_SHARED,         /* pthread_rwlock_rdlock: entry */
	SEER_OP_RELEASE,            /* *_unlock: entry */
	SEER_OP_TRY_EXCL,           /* mutex/wrlock/spin trylock: acquire if it returns 0 */
	SEER_OP_TRY_SHARED,         /* tryrdlock */
	SEER_OP_COND_WAIT,          /* cond_wait/timedwait/clockwait */
	SEER_OP_COND_SIGNAL,        /* cond_signal/broadcast: entry */
	SEER_OP_SEM_WAIT,           /* sem_wait/trywait/timedwait/clockwait: wait if 0 */
	SEER_OP_SEM_POST,
	SEER_OP_SEM_INIT,
	SEER_OP_BARRIER_INIT,
	SEER_OP_BARRIER_WAIT,
	SEER_OP_CREATE,             /* pthread_create */
	SEER_OP_JOIN,               /* pthread_join/tryjoin/timedjoin/clockjoin */
	SEER_OP_TIMED_EXCL,         /* mutex/wrlock timedlock/clocklock: acquire if it returns 0 */
	SEER_OP_TIMED_SHARED,       /* timedrdlock/clockrdlock */
};

/* FUTEX_* commands (linux/futex.h), which vmlinux.h does not carry. */
#define SEER_FUTEX_WAIT 0
#define SEER_FUTEX_WAKE 1
#define SEER_FUTEX_REQUEUE 3
#define SEER_FUTEX_CMP_REQUEUE 4
#define SEER_FUTEX_WAKE_OP 5
#define SEER_FUTEX_LOCK_PI 6
#define SEER_FUTEX_UNLOCK_PI 7
#define SEER_FUTEX_WAIT_BITSET 9
#define SEER_FUTEX_WAKE_BITSET 10
#define SEER_FUTEX_WAIT_REQUEUE_PI 11
#define SEER_FUTEX_CMP_REQUEUE_PI 12
#define SEER_FUTEX_LOCK_PI2 13
#define SEER_FUTEX_CMD_MASK 127
/* A preloaded runtime (seer record --sync=preload with privileges) registers
 * each thread's record counter with FUTEX_WAKE(counter, 0 waiters) and this
 * value in the otherwise unused val3: the futex tracepoint maps the thread to
 * the counter (as the register_counter uprobe does) and emits nothing. Same
 * value as include/seer/ring_layout.h kFutexRegisterMagic. */
#define SEER_FUTEX_REGISTER_MAGIC 0x5ee25ee2u

struct sync_event {
	__u64 ts;      /* bpf_ktime_get_ns (CLOCK_MONOTONIC) */
	__u64 object;
	__u64 aux;
	__u64 pc;      /* call site (return address) or user ip of a syscall */
	__u32 tid;     /* kernel thread id */
	__u8 kind;     /* enum seer_sync_kind */
	__u8 mode;
	__u16 pad;
	/* Instrumented targets: the thread's runtime ring head (words written) when
	 * the event happened; SEER_STAMP_NONE when the thread registered no counter. */
	__u64 stamp;
};
#define SEER_STAMP_NONE (~0ULL)

#endif /* SEER_BPF_SYNC_EVENT_H */
