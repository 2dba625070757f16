/* SPDX-License-Identifier: Apache-2.0 */
/*
 * kstack_cache.c - user space's side of the kernel stack cache
 * (bpf/kstack_cache.bpf.h): find the kernel's ORC table for it (the
 * __start_orc_unwind_ip and __start_orc_unwind symbols; entries of the
 * layout the BPF side reads, checked against the kernel's BTF), and say
 * what it did.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include "kbtf.h"
#include "kstack_cache.h"
#include "stack_cache.h"
#include "common/util.h"
#include "symbols/ksyms.h"

/* struct orc_entry as the BPF side reads it: member, bit offset, bits. */
static const struct {
	const char *name;
	unsigned off, bits;
} layout[] = {
	{ "sp_offset", 0, 0 }, { "bp_offset", 16, 0 }, { "sp_reg", 32, 4 },
	{ "bp_reg", 36, 4 }, { "type", 40, 3 }, { "signal", 43, 1 },
};
#define NLAYOUT (sizeof(layout) / sizeof(*layout))

/* Whether the kernel's struct orc_entry is 6 bytes laid out as above. */
static bool layout_ok(void)
{
	const struct btf *btf = kbtf();
	const struct btf_type *t;
	const struct btf_member *m;
	int id;

	if (!btf)
		return false;
	id = btf__find_by_name_kind(btf, "orc_entry", BTF_KIND_STRUCT);
	t = id > 0 ? btf__type_by_id(btf, id) : NULL;
	if (!t || t->size != 6 || btf_vlen(t) != NLAYOUT)
		return false;
	m = btf_members(t);
	for (size_t i = 0; i < NLAYOUT; i++)
		if (strcmp(btf__name_by_offset(btf, m[i].name_off), layout[i].name) ||
		    btf_member_bit_offset(t, i) != layout[i].off ||
		    btf_member_bitfield_size(t, i) != layout[i].bits)
			return false;
	return true;
}

int kstack_cache_find(const struct ksyms *ks, struct kc_orc *t,
		      const char **why)
{
	uint64_t ip = ksyms_mark(ks, KSYMS_ORC_IP_START),
		 ip_end = ksyms_mark(ks, KSYMS_ORC_IP_STOP),
		 orc = ksyms_mark(ks, KSYMS_ORC_START),
		 lo = ksyms_mark(ks, KSYMS_TEXT_START),
		 hi = ksyms_mark(ks, KSYMS_TEXT_END);

	memset(t, 0, sizeof(*t));
	if (!layout_ok()) {
		*why = "the kernel's ORC entries are not of the layout known";
		return -1;
	}
	if (!ip || !orc || !lo || ip_end <= ip || (ip_end - ip) % 4 || hi <= lo) {
		*why = "no ORC table in /proc/kallsyms";
		return -1;
	}
	t->ip = ip;
	t->nr = (ip_end - ip) / 4;
	t->orc = orc;
	t->text_lo = lo;
	t->text_hi = hi;
	return 0;
}

bool kstack_cache_direct(void)
{
	const struct btf *btf = kbtf();
	int id = btf ? btf__find_by_name_kind(btf, "bpf_rdonly_cast",
					      BTF_KIND_FUNC) : -1;
	/* r0 = *(u64 *)bpf_rdonly_cast(r1 = a kernel address, 0); return 0
	 * (loaded, not run: the verifier's answer is the test) */
	struct bpf_insn prog[] = {
		{ .code = BPF_LD | BPF_DW | BPF_IMM, .dst_reg = BPF_REG_1,
		  .imm = 0 },
		{ .imm = (int)0xffff8880 },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_2 },
		{ .code = BPF_JMP | BPF_CALL, .src_reg = BPF_PSEUDO_KFUNC_CALL,
		  .imm = id },
		{ .code = BPF_LDX | BPF_MEM | BPF_DW, .dst_reg = BPF_REG_0,
		  .src_reg = BPF_REG_0 },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	int fd;

	if (id <= 0)
		return false;
	fd = bpf_prog_load(BPF_PROG_TYPE_SOCKET_FILTER, NULL, "GPL", prog,
			   sizeof(prog) / sizeof(*prog), NULL);
	if (fd < 0)
		return false;
	close(fd);
	return true;
}

void kstack_cache_report(const uint64_t *kc, const char *off_why)
{
	static const char *const why[OW_KC_NR] = {
		[OW_KC_OFF_STACK] = "reaching off the task's stack",
		[OW_KC_FOREIGN] = "with a module's or BPF's frames",
		[OW_KC_DEEP] = "too deep",
		[OW_KC_RULE] = "with an ORC rule not followed",
		[OW_KC_NO_END] = "not ending at user mode",
		[OW_KC_AGAIN] = "as before (not tried again)",
	};
	char rest[512], note[64], flat[64];

	if (off_why) {
		fprintf(stderr, OW_PROG ": kernel stacks: all walked (no cache: %s)\n",
			off_why);
		return;
	}
	ow_counts_list(rest, sizeof(rest), kc, why, OW_KC_OFF_STACK,
		       OW_KC_MISMATCH);
	snprintf(note, sizeof(note), " (%llu on an interrupt's stack)",
		 (unsigned long long)kc[OW_KC_IRQ]);
	snprintf(flat, sizeof(flat), " (%llu flattened)",
		 (unsigned long long)kc[OW_KC_FLAT]);
	stack_cache_line(&(struct stack_cache_counts){
		.what = "kernel stacks", .hit = kc[OW_KC_HIT],
		.walked = kc[OW_KC_WALKED] + kc[OW_KC_IRQ],
		.learned = kc[OW_KC_LEARNED], .walked_note = note,
		.learned_note = flat,
		.not_kept = rest, .mismatch = kc[OW_KC_MISMATCH],
		.walk = "the kernel's walk", .check = "OFFWAKE_KSTACK_CHECK" });
}
