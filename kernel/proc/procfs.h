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
	PROCFS_MEMINFO = 1, PROCFS_VMSTAT, PROCFS_SWAPS, PROCFS_SELF_STATUS, PROCFS_SELF_STAT, PROCFS_PRESSURE_MEMORY,
	PROCFS_SYS_VM,                  /* /proc/sys/vm/<name>: the first of them, + its index */
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

/* A directory entry (getdents64): Linux's d_type values. */
enum procfs_dtype { PROCFS_DT_CHR = 2, PROCFS_DT_DIR = 4, PROCFS_DT_BLK = 6, PROCFS_DT_REG = 8, PROCFS_DT_LNK = 10 };
#define PROCFS_NAME_MAX 64
struct procfs_dirent {
	char name[PROCFS_NAME_MAX];
	uint64_t ino;
	enum procfs_dtype type;
};
/* The idx-th entry of the folder at a normalised path ("." and ".."
 * first; then, for "": proc, dev and the boot files' top folders and
 * files; "proc": its files, pressure, sys, self and the reader's pid;
 * "proc/sys": vm; "proc/sys/vm": the knobs with Linux sysctl names; "dev":
 * the block devices by Linux's names; a boot folder: what lies in it).
 * 1 with *e filled, 0 past the last one. */
int procfs_readdir(struct task *k, const char *path, uint64_t idx, struct procfs_dirent *e);

/* Total, free and shared (shmem) memory, and swap, in pages: sysinfo(2). */
struct procfs_mem {
	uint64_t total, free, shmem, swap_total, swap_free;
};
void procfs_mem(struct procfs_mem *m);

#endif
