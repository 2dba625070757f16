// SPDX-License-Identifier: Apache-2.0
/*
 * oddcfa.c - a program that blocks under a frame whose CFI rule the
 * unwinder does not follow: odd_read() (assembly) keeps a frame pointer
 * but says CFA = r12 while it calls read() on stdin (the tables cannot
 * say r12: that row is one "we cannot follow", walked on by rbp, and the
 * capture's summary names this file for it).  Usage: cmd | oddcfa
 */
#include <unistd.h>

long odd_read(int fd, void *buf, long n);

__asm__(".text\n"
	".globl odd_read\n"
	".type odd_read, @function\n"
	"odd_read:\n"
	".cfi_startproc\n"
	"	push %rbp\n"
	".cfi_def_cfa_offset 16\n"
	".cfi_offset %rbp, -16\n"
	"	mov %rsp, %rbp\n"
	"	push %r12\n"
	".cfi_offset %r12, -24\n"
	"	lea 16(%rbp), %r12\n"
	".cfi_def_cfa %r12, 0\n"
	"	sub $8, %rsp\n"
	"	call read@PLT\n"
	"	add $8, %rsp\n"
	".cfi_def_cfa %rsp, 24\n"
	"	pop %r12\n"
	".cfi_restore %r12\n"
	".cfi_def_cfa_offset 16\n"
	"	pop %rbp\n"
	".cfi_restore %rbp\n"
	".cfi_def_cfa_offset 8\n"
	"	ret\n"
	".cfi_endproc\n"
	".size odd_read, .-odd_read\n");

int main(void)
{
	char c;

	while (odd_read(0, &c, 1) == 1)
		;
	return 0;
}
