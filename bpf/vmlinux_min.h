/* SPDX-License-Identifier: (Apache-2.0 OR GPL-2.0-only) */
/*
 * vmlinux_min.h - the few kernel types and UAPI constants bpf/ uses, so the
 * BPF object builds without the host's BTF.  Struct fields are CO-RE
 * relocated (preserve_access_index): only the names and types matter, the
 * offsets come from the running kernel's BTF at load time.
 */
#ifndef VMLINUX_MIN_H
#define VMLINUX_MIN_H

typedef signed char __s8;
typedef unsigned char __u8;
typedef short __s16;
typedef unsigned short __u16;
typedef int __s32;
typedef unsigned int __u32;
typedef long long __s64;
typedef unsigned long long __u64;
typedef __u16 __be16;
typedef __u32 __be32;
typedef __u32 __wsum;
typedef __u8 u8;
typedef __u32 u32;
typedef __s32 s32;
typedef __u64 u64;
typedef __s64 s64;
typedef int pid_t;
typedef _Bool bool;
#define true 1
#define false 0

/* UAPI values (include/uapi/linux/bpf.h). */
enum bpf_map_type {
	BPF_MAP_TYPE_HASH = 1,
	BPF_MAP_TYPE_ARRAY = 2,
	BPF_MAP_TYPE_PROG_ARRAY = 3,
	BPF_MAP_TYPE_PERCPU_ARRAY = 6,
	BPF_MAP_TYPE_LRU_HASH = 9,
	BPF_MAP_TYPE_RINGBUF = 27,
	BPF_MAP_TYPE_TASK_STORAGE = 29,
};
enum {
	BPF_ANY = 0,
	BPF_NOEXIST = 1,
	BPF_F_NO_PREALLOC = 1,
	BPF_F_MMAPABLE = 1 << 10,
	BPF_LOCAL_STORAGE_GET_F_CREATE = 1,
	BPF_F_USER_STACK = 1 << 8,
};

/* include/uapi/linux/bpf.h: helpers that not every kernel has (their
 * presence is read from the kernel's BTF at load time) */
enum bpf_func_id {
	BPF_FUNC_find_vma = 180,	/* 5.17 */
};

/* include/linux/sched.h */
#define PF_KTHREAD	0x00200000
#define TASK_COMM_LEN	16

struct mm_struct;
/* include/linux/sched.h: the scheduler's CPU time of a task, and what it
 * was when the task was last picked (fair class: set_next_entity()) */
struct sched_entity {
	u64 sum_exec_runtime;
	u64 prev_sum_exec_runtime;
} __attribute__((preserve_access_index));

struct task_struct {
	void *stack;
	struct sched_entity se;
	struct mm_struct *mm;	/* NULL: a kernel thread, or a task past
				 * exit_mm() (exiting: no user memory) */
	unsigned int __state;
	unsigned int flags;
	pid_t pid;
	pid_t tgid;
	char comm[TASK_COMM_LEN];
} __attribute__((preserve_access_index));

/* arch/x86/include/asm/ptrace.h (x86-64 names) */
struct pt_regs {
	unsigned long bx;
	unsigned long bp;
	unsigned long ip;
	unsigned long cs;
	unsigned long sp;
} __attribute__((preserve_access_index));

/* include/linux/mm_types.h: bpf_find_vma()'s callback's view (vm_flags is
 * in an anonymous union since 6.3: CO-RE finds it there) */
#define VM_EXEC		0x00000004
struct file;
struct vm_area_struct {
	unsigned long vm_start;
	unsigned long vm_end;
	unsigned long vm_flags;
	struct file *vm_file;
} __attribute__((preserve_access_index));

/* Kernels before 5.14 call the state field "state". */
struct task_struct___pre514 {
	long state;
} __attribute__((preserve_access_index));

#endif
