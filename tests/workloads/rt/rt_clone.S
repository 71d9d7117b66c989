/*
 * rt_clone.S - the raw clone(2) entry for rt_thread_create.
 *
 * long rt_clone_raw(unsigned long flags, void *child_sp, int *parent_tid,
 *                   int *child_tid, void *tls);
 *
 * The child cannot return into C: it wakes on a fresh stack that holds
 * nothing but what rt_thread_create put there - the function to run at
 * child_sp[0] and its argument at child_sp[1]. It pops both (leaving %rsp
 * 16-byte aligned, as the ABI wants before a call), calls the function and
 * ends the thread with exit(2) - not exit_group - passing the return value.
 * The parent returns the child's tid, or -errno.
 */
	.text
	.globl	rt_clone_raw
	.type	rt_clone_raw, @function
rt_clone_raw:
	mov	%rcx, %r10		/* 4th syscall argument goes in r10 */
	mov	$56, %eax		/* SYS_clone */
	syscall
	test	%rax, %rax
	jnz	1f			/* parent (tid > 0) or error (< 0) */
	xor	%ebp, %ebp		/* child: mark the outermost frame */
	pop	%rax			/* the function */
	pop	%rdi			/* its argument */
	call	*%rax
	mov	%eax, %edi
	mov	$60, %eax		/* SYS_exit: this thread only */
	syscall
	hlt				/* not reached; faults if it ever is */
1:	ret
	.size	rt_clone_raw, . - rt_clone_raw

	.section .note.GNU-stack, "", @progbits
