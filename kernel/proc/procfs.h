/*
 * The read-only file namespace tasks see: the boot files at their paths
 * ("/bin/busybox", "/scripts/x.mm") and a small /proc (meminfo, vmstat,
 * swaps, self/status, self/stat, self/exe) whose text is generated when a
 * file is opened.  Nothing here can be written; file.c holds the
 * descriptors.
 */
#ifndef PROCFS_H
#define PROCFS_H

#include <stdint.h>
#include <stdbool.h>

struct task;

enum procfs_kind { PROCFS_DIR, PROCFS_TEXT, PROCFS_LINK, PROCFS_BOOT };

enum procfs_text_id {
	PROCFS_MEMINFO = 1, PROCFS_VMSTAT, PROCFS_SWAPS, PROCFS_SELF_STATUS, PROCFS_SELF_STAT,
};

struct procfs_node {
	enum procfs_kind kind;
	enum procfs_text_id text;       /* PROCFS_TEXT */
	const void *data;               /* PROCFS_BOOT: the file's bytes */
	uint64_t size;                  /* PROCFS_BOOT */
	uint64_t ino;
};

/* Look up a normalised path (procfs_path_norm).  follow: a symbolic link
 * (/proc/self/exe) resolves to its target.  0 or -ENOENT. */
int procfs_lookup(struct task *k, const char *path, bool follow, struct procfs_node *n);
/* The target of a link, for readlink ("/bin/busybox"), or NULL. */
const char *procfs_link(struct task *k, const char *path);
/* Generate a PROCFS_TEXT file: a kmalloc'd buffer (*buf, kfree it) of
 * *len bytes.  May sleep (takes the address space's lock). */
int procfs_generate(struct task *k, enum procfs_text_id id, char **buf, uint64_t *len);

/* Total, free and shared (shmem) memory, and swap, in pages: sysinfo(2). */
struct procfs_mem {
	uint64_t total, free, shmem, swap_total, swap_free;
};
void procfs_mem(struct procfs_mem *m);

#endif
