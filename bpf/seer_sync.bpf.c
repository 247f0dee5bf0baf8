// SPDX-License-Identifier: GPL-2.0
/* seer's sync tracer: uprobes on libc's pthread/semaphore functions, futex
 * syscall tracepoints and thread lifecycle tracepoints, filtered in the kernel to
 * one process, sending struct sync_event records through one ring buffer. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "sync_event.h"

/* Configuration, set through the skeleton's rodata before load. */
const volatile __u32 targ_tgid = 0;
/* Wake the reader only once this much data waits: one wakeup per batch, not per event. */
const volatile __u64 wakeup_bytes = 1 << 20;
/* Set by the recorder while it follows the processes of the target's family
 * (recorder/ebpf/ebpf_family.h): a process the target forks, and the target
 * at an exec, are stopped (SIGSTOP) before they run a user instruction, so
 * that the recorder can attach the probes of a recording of their own and
 * continue them (SIGCONT) with nothing missed. Cleared before the end: a
 * process is never left stopped for a recorder that is gone. */
volatile __u32 stop_new_programs = 0;

#define SEER_SIGSTOP 19 /* x86-64 */

/* Linux 6.13: a signal to a task other than the current one (the child of a fork). */
extern int bpf_send_signal_task(struct task_struct *task, int sig, enum pid_type type, __u64 value) __ksym __weak;

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 8 << 20); /* resized by the loader (--ringbuf-size) */
} events SEC(".maps");

/* Failed ring buffer reservations, per CPU and per event kind: the kernel keeps no
 * drop counter of its own. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, SEER_EV_KIND_SLOTS);
	__type(key, __u32);
	__type(value, __u64);
} lost SEC(".maps");

/* A call in progress whose outcome only its return tells (trylock, waits, create,
 * join), keyed by the calling thread's tid: a thread is inside at most one such
 * call at a time. */
struct pending_call {
	__u64 a0;
	__u64 a1;
	__u64 pc;
	__u64 ts;
	__u32 op;
};
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, struct pending_call);
} pending SEC(".maps");

/* Threads of a target built with seer's runtime: tid -> user address of the
 * thread's write cursor and origin (two words, include/seer/ring_layout.h), from
 * __seer_register_access_counter. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, __u64);
} access_counters SEC(".maps");

/* The thread's record count now, in ring words: where its event goes among its
 * accesses. The runtime publishes its ring head lazily; cursor - origin is
 * exact at any instant of the thread's own execution, which is where every
 * probe of it runs. */
static __always_inline __u64 access_stamp(__u32 tid)
{
	__u64 *addr = bpf_map_lookup_elem(&access_counters, &tid);
	__u64 pos[2] = {}; /* cursor, origin */
	if (!addr || bpf_probe_read_user(pos, sizeof(pos), (void *)*addr) != 0)
		return SEER_STAMP_NONE;
	return (pos[0] - pos[1]) / 8;
}

static __always_inline bool in_target(__u64 pid_tgid)
{
	return (__u32)(pid_tgid >> 32) == targ_tgid;
}

static __always_inline void emit(__u32 tid, __u8 kind, __u64 object, __u64 aux, __u64 pc,
				 __u8 mode, __u64 ts)
{
	struct sync_event *e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		__u32 slot = kind;
		__u64 *n = bpf_map_lookup_elem(&lost, &slot);
		if (n)
			*n += 1;
		return;
	}
	e->ts = ts;
	e->object = object;
	e->aux = aux;
	e->pc = pc;
	e->tid = tid;
	e->kind = kind;
	e->mode = mode;
	e->pad = 0;
	e->stamp = access_stamp(tid);
	__u64 flags = bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA) >= wakeup_bytes ?
			      BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP;
	bpf_ringbuf_submit(e, flags);
}

/* The call site: at a function's first instruction the stack holds the return address. */
static __always_inline __u64 caller_pc(struct pt_regs *ctx)
{
	__u64 ret = 0;
	bpf_probe_read_user(&ret, sizeof(ret), (void *)PT_REGS_SP(ctx));
	return ret;
}

/* A probed function's entry: the same body behind a uprobe of its own
 * (sync_enter) and behind one uprobe_multi link for all functions
 * (sync_enter_multi, Linux 6.6; the loader sets its attach type, which this
 * libbpf's section names do not know). */
static __always_inline int on_sync_enter(struct pt_regs *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	if (!in_target(id))
		return 0;
	__u64 ts = bpf_ktime_get_ns();
	__u32 tid = (__u32)id;
	__u32 op = (__u32)bpf_get_attach_cookie(ctx);
	__u64 a0 = PT_REGS_PARM1(ctx);
	__u64 pc = caller_pc(ctx);

	switch (op) {
	case SEER_OP_ACQ_EXCL:
		/* Nothing happens in the thread between entry and return, so the entry
		 * marks the acquisition; the recorder delays it past the holder's release. */
		emit(tid, SEER_EV_ACQUIRE, a0, SEER_ACQ_BLOCKING, pc, 0, ts);
		return 0;
	case SEER_OP_ACQ_SHARED:
		emit(tid, SEER_EV_ACQUIRE, a0, SEER_ACQ_BLOCKING, pc, 1, ts);
		return 0;
	case SEER_OP_RELEASE:
		emit(tid, SEER_EV_RELEASE, a0, 0, pc, 0, ts);
		return 0;
	case SEER_OP_COND_SIGNAL:
	case SEER_OP_SEM_POST:
		emit(tid, SEER_EV_SIGNAL, a0, 0, pc, 0, ts);
		return 0;
	case SEER_OP_SEM_INIT:
		emit(tid, SEER_EV_SEM_INIT, a0, PT_REGS_PARM3(ctx), pc, 0, ts);
		return 0;
	case SEER_OP_BARRIER_INIT:
		emit(tid, SEER_EV_BARRIER_INIT, a0, PT_REGS_PARM3(ctx), pc, 0, ts);
		return 0;
	case SEER_OP_COND_WAIT:
		emit(tid, SEER_EV_COND_WAIT_BEGIN, a0, PT_REGS_PARM2(ctx), pc, 0, ts);
		break;
	case SEER_OP_BARRIER_WAIT:
		emit(tid, SEER_EV_BARRIER_ARRIVE, a0, 0, pc, 0, ts);
		break;
	default:
		break;
	}
	struct pending_call call = {.a0 = a0, .a1 = PT_REGS_PARM2(ctx), .pc = pc, .ts = ts, .op = op};
	bpf_map_update_elem(&pending, &tid, &call, BPF_ANY);
	return 0;
}

SEC("uprobe")
int sync_enter(struct pt_regs *ctx)
{
	return on_sync_enter(ctx);
}

SEC("uprobe")
int sync_enter_multi(struct pt_regs *ctx)
{
	return on_sync_enter(ctx);
}

/* A probed function's return (the functions whose outcome decides the event). */
static __always_inline int on_sync_return(struct pt_regs *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	if (!in_target(id))
		return 0;
	__u64 ts = bpf_ktime_get_ns();
	__u32 tid = (__u32)id;
	struct pending_call *call = bpf_map_lookup_elem(&pending, &tid);
	if (!call)
		return 0;
	long ret = PT_REGS_RC(ctx);
	int rc = (int)ret;
	__u64 a0 = call->a0, a1 = call->a1, pc = call->pc;
	__u32 op = call->op;
	bpf_map_delete_elem(&pending, &tid);

	switch (op) {
	case SEER_OP_TRY_EXCL:
	case SEER_OP_TRY_SHARED:
		/* A busy trylock is no acquisition. */
		if (rc == 0)
			emit(tid, SEER_EV_ACQUIRE, a0, SEER_ACQ_TRY, pc, op == SEER_OP_TRY_SHARED, ts);
		break;
	case SEER_OP_TIMED_EXCL:
	case SEER_OP_TIMED_SHARED:
		/* Nor is a timed-out timedlock. */
		if (rc == 0)
			emit(tid, SEER_EV_ACQUIRE, a0, SEER_ACQ_TIMED, pc, op == SEER_OP_TIMED_SHARED, ts);
		break;
	case SEER_OP_COND_WAIT:
		/* The mutex is held again whatever the outcome; only a wakeup is a wait-return. */
		emit(tid, rc == 0 ? SEER_EV_COND_WAIT_END : SEER_EV_COND_TIMEOUT, a0, a1, pc, 0, ts);
		break;
	case SEER_OP_SEM_WAIT:
		if (rc == 0)
			emit(tid, SEER_EV_WAIT, a0, 0, pc, 0, ts);
		break;
	case SEER_OP_BARRIER_WAIT:
		emit(tid, SEER_EV_BARRIER_DEPART, a0, 0, pc, 0, ts);
		break;
	case SEER_OP_CREATE:
		if (rc == 0) {
			__u64 handle = 0;
			bpf_probe_read_user(&handle, sizeof(handle), (void *)a0);
			emit(tid, SEER_EV_CREATE_RET, handle, 0, pc, 0, ts);
		}
		break;
	case SEER_OP_JOIN:
		if (rc == 0)
			emit(tid, SEER_EV_JOIN, a0, 0, pc, 0, ts);
		break;
	default:
		break;
	}
	return 0;
}

SEC("uretprobe")
int sync_return(struct pt_regs *ctx)
{
	return on_sync_return(ctx);
}

SEC("uretprobe")
int sync_return_multi(struct pt_regs *ctx)
{
	return on_sync_return(ctx);
}

/* Futex syscalls. Two ways in, one body each:
 * - the per-syscall tracepoints (syscalls:sys_enter_futex, ...; SEC("tp/...")),
 *   the default: the kernel runs a program only for its own system call;
 * - the raw sys_enter/sys_exit tracepoints (BTF-typed, no tracefs needed), the
 *   fallback where tracefs is not mounted: every program runs on every system
 *   call of every process and drops the others itself.
 * Either sends every system call of every task through the kernel's tracing
 * slow path while attached; measured here with a getppid loop: 170 ns a call
 * plain, +60 ns with the per-syscall tracepoints, +240 ns with the raw ones
 * (docs/recording.md). The loader attaches one set (autoload).
 * The exit reads the call's arguments from the saved user registers, which the
 * kernel leaves as they were (only ax holds the result): nothing is kept
 * between entry and exit, so a wait that began while the programs were
 * detached (the service's pauses) is still seen when it returns. */
#define SEER_NR_FUTEX 202 /* x86-64 */

/* The calling thread's saved user registers (per-syscall tracepoints get the
 * arguments, not the registers; the exits need the arguments and the pc). */
static __always_inline struct pt_regs *user_regs(void)
{
	return (struct pt_regs *)bpf_task_pt_regs(bpf_get_current_task_btf());
}

/* The bodies: their thread is the target's (the callers check). */
static __always_inline int on_futex_enter(struct pt_regs *regs, __u64 pid_tgid)
{
	__u64 ts = bpf_ktime_get_ns();
	__u32 tid = (__u32)pid_tgid;
	__u64 uaddr = BPF_CORE_READ(regs, di);
	int cmd = (int)BPF_CORE_READ(regs, si) & SEER_FUTEX_CMD_MASK;
	__u64 ip = BPF_CORE_READ(regs, ip);

	if (cmd == SEER_FUTEX_WAKE && BPF_CORE_READ(regs, dx) == 0 &&
	    (__u32)BPF_CORE_READ(regs, r9) == SEER_FUTEX_REGISTER_MAGIC) {
		/* The runtime's registration, no wake: uaddr is the thread's counter. */
		bpf_map_update_elem(&access_counters, &tid, &uaddr, BPF_ANY);
		return 0;
	}
	switch (cmd) {
	case SEER_FUTEX_WAKE:
	case SEER_FUTEX_WAKE_BITSET:
	case SEER_FUTEX_WAKE_OP:
	case SEER_FUTEX_REQUEUE:
	case SEER_FUTEX_CMP_REQUEUE:
	case SEER_FUTEX_CMP_REQUEUE_PI:
	case SEER_FUTEX_UNLOCK_PI:
		emit(tid, SEER_EV_SIGNAL, uaddr, 0, ip, SEER_MODE_FUTEX, ts);
		break;
	default:
		break;
	}
	return 0;
}

static __always_inline int on_futex_exit(struct pt_regs *regs, long ret, __u64 pid_tgid)
{
	/* A wait that returned 0 was woken; EAGAIN, timeouts and signals are not edges. */
	if (ret != 0)
		return 0;
	switch ((int)BPF_CORE_READ(regs, si) & SEER_FUTEX_CMD_MASK) {
	case SEER_FUTEX_WAIT:
	case SEER_FUTEX_WAIT_BITSET:
	case SEER_FUTEX_WAIT_REQUEUE_PI:
	case SEER_FUTEX_LOCK_PI:
	case SEER_FUTEX_LOCK_PI2:
		emit((__u32)pid_tgid, SEER_EV_WAIT, BPF_CORE_READ(regs, di), 0, BPF_CORE_READ(regs, ip),
		     SEER_MODE_FUTEX, bpf_ktime_get_ns());
		break;
	default:
		break;
	}
	return 0;
}

SEC("tp/syscalls/sys_enter_futex")
int futex_enter(void *ctx)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	return in_target(pid_tgid) ? on_futex_enter(user_regs(), pid_tgid) : 0;
}

SEC("tp/syscalls/sys_exit_futex")
int futex_exit(struct trace_event_raw_sys_exit *ctx)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	return in_target(pid_tgid) ? on_futex_exit(user_regs(), ctx->ret, pid_tgid) : 0;
}

SEC("tp_btf/sys_enter")
int BPF_PROG(futex_enter_raw, struct pt_regs *regs, long id)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	return id == SEER_NR_FUTEX && in_target(pid_tgid) ? on_futex_enter(regs, pid_tgid) : 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(futex_exit_raw, struct pt_regs *regs, long ret)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	if (!in_target(pid_tgid) || BPF_CORE_READ(regs, orig_ax) != SEER_NR_FUTEX)
		return 0;
	return on_futex_exit(regs, ret, pid_tgid);
}

/* Runs in the parent before the child can run, so the clone precedes every event of
 * the child. Threads of the target become threads of the trace; a child process is
 * reported (aux = 1: stopped for the recorder to follow it, stop_new_programs). */
static __always_inline int on_fork_common(struct task_struct *child, bool may_stop)
{
	__u64 id = bpf_get_current_pid_tgid();
	if (!in_target(id))
		return 0;
	__u64 ts = bpf_ktime_get_ns();
	__u32 child_tid = child->pid;
	__u32 child_tgid = child->tgid;
	if (child_tgid == targ_tgid) {
		emit((__u32)id, SEER_EV_CLONE, child_tid, 0, 0, 0, ts);
		return 0;
	}
	/* Stopped before the record is sent: a record that says "stopped" is true. */
	__u64 stopped = may_stop && stop_new_programs &&
			bpf_send_signal_task(child, SEER_SIGSTOP, PIDTYPE_TGID, 0) == 0;
	emit((__u32)id, SEER_EV_PROCESS_FORK, child_tid, stopped, 0, 0, ts);
	return 0;
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(on_fork, struct task_struct *parent, struct task_struct *child)
{
	return on_fork_common(child, false);
}

/* The same where the recorder follows processes and the kernel can signal
 * another task (the loader picks one of the two). */
SEC("tp_btf/sched_process_fork")
int BPF_PROG(on_fork_follow, struct task_struct *parent, struct task_struct *child)
{
	return on_fork_common(child, true);
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(on_exit, struct task_struct *task)
{
	__u64 id = bpf_get_current_pid_tgid();
	if (!in_target(id))
		return 0;
	__u64 ts = bpf_ktime_get_ns();
	char comm[16] = {};
	bpf_get_current_comm(comm, sizeof(comm));
	__u64 lo = 0, hi = 0;
	__builtin_memcpy(&lo, comm, 8);
	__builtin_memcpy(&hi, comm + 8, 8);
	emit((__u32)id, SEER_EV_THREAD_EXIT, lo, hi, 0, 0, ts);
	/* A thread that dies inside a probed call leaves no stale entry behind. */
	__u32 tid = (__u32)id;
	bpf_map_delete_elem(&pending, &tid);
	bpf_map_delete_elem(&access_counters, &tid);
	return 0;
}

/* __seer_register_access_counter(const __u64 *counter) in an instrumented target. */
SEC("uprobe")
int register_counter(struct pt_regs *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	if (!in_target(id))
		return 0;
	__u32 tid = (__u32)id;
	__u64 addr = PT_REGS_PARM1(ctx);
	bpf_map_update_elem(&access_counters, &tid, &addr, BPF_ANY);
	return 0;
}

/* futex_waitv(2) waits on up to 128 futex words at once and returns the index of
 * the one whose wake ended the wait: a wait-return edge on that word, like a
 * FUTEX_WAIT that returned 0. The arguments come from the saved user
 * registers, as for futex_exit. */
#define SEER_NR_FUTEX_WAITV 449 /* x86-64 */
#define SEER_FUTEX_WAITV_MAX 128

static __always_inline int on_futex_waitv_exit(struct pt_regs *regs, long ret, __u64 pid_tgid)
{
	__u64 ts = bpf_ktime_get_ns();
	__u32 tid = (__u32)pid_tgid;
	__u64 waiters = BPF_CORE_READ(regs, di); /* user address of the struct futex_waitv array */
	__u32 nr = (__u32)BPF_CORE_READ(regs, si);
	__u64 ip = BPF_CORE_READ(regs, ip);
	/* EAGAIN (a word had changed), timeouts and signals are not edges. */
	if (ret < 0 || ret >= nr || ret >= SEER_FUTEX_WAITV_MAX)
		return 0;
	__u64 uaddr = 0;
	if (bpf_probe_read_user(&uaddr, sizeof(uaddr),
				(void *)(waiters + ret * sizeof(struct futex_waitv) +
					 __builtin_offsetof(struct futex_waitv, uaddr))) != 0)
		return 0;
	emit(tid, SEER_EV_WAIT, uaddr, 0, ip, SEER_MODE_FUTEX, ts);
	return 0;
}

SEC("tp/syscalls/sys_exit_futex_waitv")
int futex_waitv_exit(struct trace_event_raw_sys_exit *ctx)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	return in_target(pid_tgid) ? on_futex_waitv_exit(user_regs(), ctx->ret, pid_tgid) : 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(futex_waitv_exit_raw, struct pt_regs *regs, long ret)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	if (!in_target(pid_tgid) || BPF_CORE_READ(regs, orig_ax) != SEER_NR_FUTEX_WAITV)
		return 0;
	return on_futex_waitv_exit(regs, ret, pid_tgid);
}

/* exec in the target replaces its program; the uprobes (set by inode and offset)
 * would go on firing in the new image, whose code the trace's module map does not
 * describe. The recorder ends the trace here. Runs after the other threads are gone,
 * in the thread that called exec, which now has the process's pid. */
SEC("tp_btf/sched_process_exec")
int BPF_PROG(on_exec, struct task_struct *p, pid_t old_pid, struct linux_binprm *bprm)
{
	__u64 id = bpf_get_current_pid_tgid();
	if (!in_target(id))
		return 0;
	/* The new program stops before its first instruction (aux = 1) while the
	 * recorder follows the family: it is recorded into a trace of its own. */
	__u64 stopped = stop_new_programs && bpf_send_signal(SEER_SIGSTOP) == 0;
	emit((__u32)old_pid, SEER_EV_EXEC, (__u32)id, stopped, 0, 0, bpf_ktime_get_ns());
	return 0;
}

/* An executable file mapping made after the start (dlopen): the recorder re-reads
 * /proc/PID/maps when it sees one, so the module map holds the library. ld.so maps
 * a library's code with PROT_EXEC from its file descriptor. */
#define SEER_NR_MMAP 9 /* x86-64 */
#define SEER_PROT_EXEC 4

static __always_inline int on_mmap(struct pt_regs *regs, long ret, __u64 pid_tgid)
{
	if (ret < 0 && ret > -4096) /* an error, not an address */
		return 0;
	if (!(BPF_CORE_READ(regs, dx) & SEER_PROT_EXEC) || (int)BPF_CORE_READ(regs, r8) < 0)
		return 0;
	emit((__u32)pid_tgid, SEER_EV_MODULE_MAPPED, (__u64)ret, BPF_CORE_READ(regs, si),
	     BPF_CORE_READ(regs, ip), 0, bpf_ktime_get_ns());
	return 0;
}

SEC("tp/syscalls/sys_exit_mmap")
int on_mmap_exit(struct trace_event_raw_sys_exit *ctx)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	return in_target(pid_tgid) ? on_mmap(user_regs(), ctx->ret, pid_tgid) : 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(on_mmap_exit_raw, struct pt_regs *regs, long ret)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	if (!in_target(pid_tgid) || BPF_CORE_READ(regs, orig_ax) != SEER_NR_MMAP)
		return 0;
	return on_mmap(regs, ret, pid_tgid);
}

char LICENSE[] SEC("license") = "GPL";
