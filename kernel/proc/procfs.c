/*
 * /proc and the boot files as one read-only tree (procfs.h).  /proc text
 * is generated from the kernel's own counters at open time, so a reader
 * sees one consistent snapshot per open; the formatting itself is pure
 * (procfs_text.c, host-tested).  Only the reader's own process appears
 * (/proc/self and /proc/<own pid>): other tasks are not visible.
 */
#include <string.h>
#include "procfs.h"
#include "procfs_text.h"
#include "task.h"
#include "core/bootfs.h"
#include "lib/errno.h"
#include "lib/printf.h"
#include "mem/pmm.h"
#include "mem/kmalloc.h"
#include "vm/vm.h"
#include "vm/lru.h"
#include "vm/shmem.h"
#include "vm/commit.h"
#include "vm/knobs.h"
#include "vm/vmstat.h"
#include "vm/page_ref.h"
#include "vm/reclaim.h"
#include "vm/pagecache.h"
#include "vm/psi.h"
#include "vm/psi_avg.h"
#include "swap/swap.h"
#include "swap/swapcache.h"
#include "drivers/blk.h"

/* Inode numbers: fixed for the /proc entries, 1000 + index for boot files. */
static const struct {
	const char *name;               /* under proc/self/ when self, else under proc/ */
	bool self;
	enum procfs_text_id id;
} texts[] = {
	{ "meminfo", false, PROCFS_MEMINFO }, { "vmstat", false, PROCFS_VMSTAT },
	{ "swaps", false, PROCFS_SWAPS }, { "status", true, PROCFS_SELF_STATUS },
	{ "stat", true, PROCFS_SELF_STAT }, { "pressure/memory", false, PROCFS_PRESSURE_MEMORY },
};

#define INO_ROOT 1
#define INO_PROC 2
#define INO_SELF 3
#define INO_EXE 4
#define INO_DIRS 5                      /* boot file folders ("bin") */
#define INO_DEV 6
#define INO_PRESSURE 7
#define INO_SYS 8
#define INO_SYS_VM 9
#define INO_TEXT 10
#define INO_SYS_VM_FILE 100                     /* + index in sys_vm[] */

/* /proc/sys/vm: Linux's sysctl names of the knobs that have them, read
 * only (the tree is read-only; `set`/`@set`/the command line change
 * them), the value as the knob reads back, one line. */
static const struct { const char *linux_name, *knob; } sys_vm[] = {
	{ "swappiness", "swappiness" }, { "page-cluster", "page_cluster" },
	{ "dirty_ratio", "dirty_ratio" }, { "dirty_background_ratio", "dirty_background_ratio" },
	{ "dirty_expire_centisecs", "dirty_expire_centisecs" }, { "overcommit_memory", "overcommit_memory" },
	{ "overcommit_ratio", "overcommit_ratio" }, { "overcommit_kbytes", "overcommit_kbytes" },
};
#define N_SYS_VM (sizeof sys_vm / sizeof sys_vm[0])
#define INO_BOOT 1000

static bool dir_node(struct procfs_node *n, uint64_t ino)
{
	memset(n, 0, sizeof *n);
	n->kind = PROCFS_DIR;
	n->ino = ino;
	return true;
}

/* "self/..." or "<own pid>/..." after "proc/": the rest, else NULL. */
static const char *self_rest(struct task *k, const char *p)
{
	char pid[16];
	int len = ksnprintf(pid, sizeof pid, "%d", k->pid);
	if (!strncmp(p, "self", 4) && (p[4] == 0 || p[4] == '/'))
		return p + 4;
	if (!strncmp(p, pid, (size_t)len) && (p[len] == 0 || p[len] == '/'))
		return p + len;
	return NULL;
}

static int boot_lookup(const char *path, struct procfs_node *n)
{
	size_t len = strlen(path);
	for (uint32_t i = 0; i < bootfs_count(); i++) {
		const struct boot_file *f = bootfs_at(i);
		if (!strcmp(f->name, path)) {
			const void *data;
			uint64_t size;
			bootfs_find(f->name, &data, &size, NULL);
			memset(n, 0, sizeof *n);
			n->kind = PROCFS_BOOT;
			n->data = data;
			n->size = size;
			n->ino = INO_BOOT + i;
			return 0;
		}
		if (!strncmp(f->name, path, len) && f->name[len] == '/')
			return dir_node(n, INO_DIRS), 0;
	}
	return -ENOENT;
}

static int proc_lookup(struct task *k, const char *p, bool follow, struct procfs_node *n)
{
	if (!*p)
		return dir_node(n, INO_PROC), 0;
	const char *rest = self_rest(k, p);
	if (rest && !*rest)
		return dir_node(n, INO_SELF), 0;
	if (!strcmp(p, "pressure"))
		return dir_node(n, INO_PRESSURE), 0;
	if (!strcmp(p, "sys"))
		return dir_node(n, INO_SYS), 0;
	if (!strcmp(p, "sys/vm"))
		return dir_node(n, INO_SYS_VM), 0;
	if (!strncmp(p, "sys/vm/", 7))
		for (unsigned i = 0; i < N_SYS_VM; i++)
			if (!strcmp(p + 7, sys_vm[i].linux_name)) {
				memset(n, 0, sizeof *n);
				n->kind = PROCFS_TEXT;
				n->text = (enum procfs_text_id)(PROCFS_SYS_VM + i);
				n->ino = INO_SYS_VM_FILE + i;
				return 0;
			}
	if (rest)
		rest++;                         /* the slash */
	if (rest && !strcmp(rest, "exe")) {
		if (follow)
			return k->exe ? boot_lookup(k->exe, n) : -ENOENT;
		memset(n, 0, sizeof *n);
		n->kind = PROCFS_LINK;
		n->ino = INO_EXE;
		return 0;
	}
	for (unsigned i = 0; i < sizeof texts / sizeof texts[0]; i++) {
		const char *name = texts[i].self ? rest : p;
		if (name && !strcmp(name, texts[i].name)) {
			memset(n, 0, sizeof *n);
			n->kind = PROCFS_TEXT;
			n->text = texts[i].id;
			n->ino = INO_TEXT + i;
			return 0;
		}
	}
	return -ENOENT;
}

int procfs_lookup(struct task *k, const char *path, bool follow, struct procfs_node *n)
{
	if (!*path)
		return dir_node(n, INO_ROOT), 0;
	if (!strcmp(path, "proc"))
		return proc_lookup(k, "", follow, n);
	if (!strncmp(path, "proc/", 5))
		return proc_lookup(k, path + 5, follow, n);
	if (!strcmp(path, "dev"))
		return dir_node(n, INO_DEV), 0;
	return boot_lookup(path, n);
}

/* ------------------------------------------------------------ listings */

/* Entries are produced in a fixed order and counted; the one numbered
 * `want` is kept.  A listing is regenerated per entry (folders hold tens
 * of entries), so a position is just an index, as getdents64 needs. */
struct lister {
	uint64_t want, at;
	struct procfs_dirent *out;
	bool found;
};

static void emit(struct lister *l, const char *name, size_t len, uint64_t ino, enum procfs_dtype type)
{
	if (l->found || l->at++ != l->want)
		return;
	if (len >= PROCFS_NAME_MAX)
		len = PROCFS_NAME_MAX - 1;
	memcpy(l->out->name, name, len);
	l->out->name[len] = 0;
	l->out->ino = ino;
	l->out->type = type;
	l->found = true;
}

static void emit_str(struct lister *l, const char *name, uint64_t ino, enum procfs_dtype type)
{
	emit(l, name, strlen(name), ino, type);
}

/* The component of boot file i right under folder dir ("" = the root),
 * its length in *len, and whether it is a folder; NULL when file i is
 * not under dir. */
static const char *boot_child(uint32_t i, const char *dir, size_t *len, bool *folder)
{
	const char *name = bootfs_at(i)->name;
	size_t dl = strlen(dir);
	if (dl && (strncmp(name, dir, dl) || name[dl] != '/'))
		return NULL;
	const char *c = dl ? name + dl + 1 : name;
	const char *slash = strchr(c, '/');
	*len = slash ? (size_t)(slash - c) : strlen(c);
	*folder = slash != NULL;
	return c;
}

/* Each distinct child of a boot folder once (first file naming it wins). */
static void list_boot(struct lister *l, const char *dir)
{
	for (uint32_t i = 0; i < bootfs_count(); i++) {
		size_t len, olen;
		bool folder, ofolder, seen = false;
		const char *c = boot_child(i, dir, &len, &folder);
		if (!c)
			continue;
		for (uint32_t j = 0; j < i && !seen; j++) {
			const char *o = boot_child(j, dir, &olen, &ofolder);
			seen = o && olen == len && !strncmp(o, c, len);
		}
		if (!seen)
			emit(l, c, len, folder ? INO_DIRS : INO_BOOT + i, folder ? PROCFS_DT_DIR : PROCFS_DT_REG);
	}
}

/* /dev/null and /dev/zero (file.c opens them; inode numbers as its
 * stat gives), then block devices under Linux's names: NVMe keeps ours;
 * the other disks are sda, sdb... in registration order
 * (blk_find_linux's numbering), their partitions sdaN. */
static void list_dev(struct lister *l)
{
	emit_str(l, "null", 4, PROCFS_DT_CHR);
	emit_str(l, "zero", 5, PROCFS_DT_CHR);
	int sd = 0;
	for (int i = 0; i < blk_count(); i++) {
		struct blk_dev *d = blk_at(i);
		const char *name = blk_name(d);
		if (blk_is_partition(d) || !strncmp(name, "nvme", 4)) {
			if (!strncmp(name, "nvme", 4))
				emit_str(l, name, 100000 + (uint64_t)i, PROCFS_DT_BLK);
			continue;
		}
		char buf[PROCFS_NAME_MAX];
		ksnprintf(buf, sizeof buf, "sd%c", 'a' + sd);
		emit_str(l, buf, 100000 + (uint64_t)i, PROCFS_DT_BLK);
		for (int j = 0; j < blk_count(); j++) {
			struct blk_dev *p = blk_at(j);
			size_t dl = strlen(name);
			if (blk_is_partition(p) && blk_disk_of(p) == d && !strncmp(blk_name(p), name, dl) &&
			    blk_name(p)[dl] == 'p') {
				ksnprintf(buf, sizeof buf, "sd%c%s", 'a' + sd, blk_name(p) + dl + 1);
				emit_str(l, buf, 100000 + (uint64_t)j, PROCFS_DT_BLK);
			}
		}
		if (++sd == 26)
			break;          /* blk_find_linux names sda..sdz only */
	}
}

static void list_proc(struct task *k, struct lister *l)
{
	for (unsigned i = 0; i < sizeof texts / sizeof texts[0]; i++)
		if (!texts[i].self && !strchr(texts[i].name, '/'))
			emit_str(l, texts[i].name, INO_TEXT + i, PROCFS_DT_REG);
	emit_str(l, "pressure", INO_PRESSURE, PROCFS_DT_DIR);
	emit_str(l, "sys", INO_SYS, PROCFS_DT_DIR);
	emit_str(l, "self", INO_SELF, PROCFS_DT_LNK);  /* a link to <pid> on Linux */
	char pid[16];
	ksnprintf(pid, sizeof pid, "%d", k->pid);
	emit_str(l, pid, INO_SELF, PROCFS_DT_DIR);
}

static void list_self(struct lister *l)
{
	emit_str(l, "exe", INO_EXE, PROCFS_DT_LNK);
	for (unsigned i = 0; i < sizeof texts / sizeof texts[0]; i++)
		if (texts[i].self)
			emit_str(l, texts[i].name, INO_TEXT + i, PROCFS_DT_REG);
}

int procfs_readdir(struct task *k, const char *path, uint64_t idx, struct procfs_dirent *e)
{
	struct procfs_node n;
	int err = procfs_lookup(k, path, true, &n);
	if (err)
		return err;
	if (n.kind != PROCFS_DIR)
		return -ENOTDIR;
	struct lister l = { .want = idx, .out = e };
	emit_str(&l, ".", n.ino, PROCFS_DT_DIR);
	emit_str(&l, "..", INO_ROOT, PROCFS_DT_DIR);
	if (n.ino == INO_ROOT) {
		emit_str(&l, "proc", INO_PROC, PROCFS_DT_DIR);
		emit_str(&l, "dev", INO_DEV, PROCFS_DT_DIR);
		list_boot(&l, "");
	} else if (n.ino == INO_PROC) {
		list_proc(k, &l);
	} else if (n.ino == INO_SELF) {
		list_self(&l);
	} else if (n.ino == INO_PRESSURE) {
		emit_str(&l, "memory", INO_TEXT + 5, PROCFS_DT_REG);
	} else if (n.ino == INO_SYS) {
		emit_str(&l, "vm", INO_SYS_VM, PROCFS_DT_DIR);
	} else if (n.ino == INO_SYS_VM) {
		for (unsigned i = 0; i < N_SYS_VM; i++)
			emit_str(&l, sys_vm[i].linux_name, INO_SYS_VM_FILE + i, PROCFS_DT_REG);
	} else if (n.ino == INO_DEV) {
		list_dev(&l);
	} else {
		list_boot(&l, path);
	}
	return l.found;
}

const char *procfs_link(struct task *k, const char *path)
{
	if (strncmp(path, "proc/", 5))
		return NULL;
	const char *rest = self_rest(k, path + 5);
	return rest && !strcmp(rest, "/exe") ? k->exe : NULL;
}

/* ------------------------------------------------------------ content */

void procfs_mem(struct procfs_mem *m)
{
	struct pmm_stats st;
	pmm_get_stats(&st);
	/* mem= (pmm_set_limit) holds pages out of reach: they are not ours,
	 * as a Linux booted with mem= does not count them either. */
	m->total = st.total_pages - st.held_pages;
	m->free = st.free_pages;
	m->shmem = shmem_total_resident();
	m->swap_total = swap_total_slots();
	uint64_t used = swap_used_slots();
	m->swap_free = m->swap_total > used ? m->swap_total - used : 0;
}

static size_t meminfo(char *buf, size_t cap)
{
	struct procfs_mem pm;
	procfs_mem(&pm);
	/* MemAvailable as Linux estimates it: free memory above the reserve
	 * (the high watermark), plus the page cache less half of it or the
	 * low watermark, whichever is less (what reclaim can drop without
	 * thrashing). */
	uint64_t reserve = reclaim_knobs.wm_high, file = pagecache_nr_pages();
	uint64_t keep = file / 2 < reclaim_knobs.wm_low ? file / 2 : reclaim_knobs.wm_low;
	struct procfs_meminfo m = {
		.total = pm.total, .free = pm.free,
		.available = (pm.free > reserve ? pm.free - reserve : 0) + file - keep,
		.buffers = file, .active_file = lru_size(LRU_FILE, true), .inactive_file = lru_size(LRU_FILE, false),
		.dirty = pagecache_nr_dirty(), .writeback = pagecache_nr_writeback(),
		.shmem = pm.shmem, .swap_cached = swapcache_size(),
		.active_anon = lru_size(LRU_ANON, true) + lru_size(LRU_SHMEM, true),
		.inactive_anon = lru_size(LRU_ANON, false) + lru_size(LRU_SHMEM, false),
		.swap_total = pm.swap_total, .swap_free = pm.swap_free,
		.commit_limit = commit_limit_pages(), .committed = commit_committed_pages(),
	};
	return procfs_meminfo_text(buf, cap, &m);
}

/* Linux's gauges first (Linux meaning: shmem is on the anon lists), then
 * our own split and every event counter under its record name. */
#define VMSTAT_GAUGES 13

static size_t vmstat(char *buf, size_t cap)
{
	const char *names[VMSTAT_GAUGES + VMSTAT_NITEMS] = {
		"nr_free_pages", "nr_inactive_anon", "nr_active_anon", "nr_inactive_file", "nr_active_file",
		"nr_shmem", "nr_swapcached", "nr_inactive_shmem", "nr_active_shmem",
		"nr_file_pages", "nr_dirty", "nr_writeback", "nr_mapped",
	};
	uint64_t vals[VMSTAT_GAUGES + VMSTAT_NITEMS] = {
		pmm_free_pages(), lru_size(LRU_ANON, false) + lru_size(LRU_SHMEM, false),
		lru_size(LRU_ANON, true) + lru_size(LRU_SHMEM, true), lru_size(LRU_FILE, false),
		lru_size(LRU_FILE, true), shmem_total_resident(),
		swapcache_size(), lru_size(LRU_SHMEM, false), lru_size(LRU_SHMEM, true),
		/* Linux's nr_file_pages counts shmem and the swap cache too. */
		pagecache_nr_pages() + shmem_total_resident() + swapcache_size(), pagecache_nr_dirty(),
		pagecache_nr_writeback(), page_nr_mapped(),
	};
	for (int i = 0; i < VMSTAT_NITEMS; i++) {
		names[VMSTAT_GAUGES + i] = vmstat_name(i);
		vals[VMSTAT_GAUGES + i] = vmstat_get(i);
	}
	return procfs_vmstat_text(buf, cap, names, vals, VMSTAT_GAUGES + VMSTAT_NITEMS);
}

static size_t swaps(char *buf, size_t cap)
{
	struct procfs_swap a[SWAP_MAX_AREAS];
	int n = 0;
	for (unsigned i = 0; i < SWAP_MAX_AREAS; i++) {
		struct swap_area_info si;
		if (swap_area_info(i, &si))
			a[n++] = (struct procfs_swap){ si.dev, si.usable, si.used, si.prio };
	}
	return procfs_swaps_text(buf, cap, a, n);
}

static size_t pressure(char *buf, size_t cap)
{
	struct psi_memory m;
	struct procfs_pressure_line some = { .total_us = 0 }, full = { .total_us = 0 };
	psi_memory_read(&m);
	some.total_us = m.some_us;
	full.total_us = m.full_us;
	for (int i = 0; i < 3; i++) {
		psi_avg_split(m.some_avg[i], &some.avg[i][0], &some.avg[i][1]);
		psi_avg_split(m.full_avg[i], &full.avg[i][0], &full.avg[i][1]);
	}
	return procfs_pressure_text(buf, cap, &some, &full);
}

static void task_numbers(struct task *k, struct procfs_task *t)
{
	struct mm *mm = k->mm;
	uint64_t vm = 0;
	down_read(&mm->lock);
	for (uint32_t i = 0; i < mm->vmas.n; i++)
		vm += (mm->vmas.v[i].end - mm->vmas.v[i].start) / 4096;
	up_read(&mm->lock);
	uint64_t u, s;
	task_cpu_times(k, &u, &s);
	*t = (struct procfs_task){
		.pid = k->pid, .ppid = k->ppid, .threads = k->nthreads, .name = k->name,
		.vm_pages = vm, .rss_pages = __atomic_load_n(&mm->rss, __ATOMIC_RELAXED),
		.swap_pages = __atomic_load_n(&mm->swap_ents, __ATOMIC_RELAXED),
		.pt_pages = __atomic_load_n(&mm->table_pages, __ATOMIC_RELAXED),
		.hwm_pages = k->maxrss_pages, .minflt = k->faults.minflt, .majflt = k->faults.majflt,
		.utime_ns = u, .stime_ns = s, .start_ns = k->start_ns, .nvcsw = k->nvcsw, .nivcsw = k->nivcsw,
	};
	if (t->hwm_pages < t->rss_pages)
		t->hwm_pages = t->rss_pages;
}

static size_t sys_vm_text(unsigned i, char *buf, size_t cap)
{
	char v[32];
	if (i >= N_SYS_VM || !vm_get_knob(sys_vm[i].knob, v, sizeof v))
		return 0;
	return (size_t)ksnprintf(buf, cap, "%s\n", v);
}

static size_t fill(struct task *k, enum procfs_text_id id, const struct procfs_task *t, char *buf, size_t cap)
{
	(void)k;
	if (id >= PROCFS_SYS_VM)
		return sys_vm_text((unsigned)(id - PROCFS_SYS_VM), buf, cap);
	switch (id) {
	case PROCFS_MEMINFO: return meminfo(buf, cap);
	case PROCFS_VMSTAT: return vmstat(buf, cap);
	case PROCFS_SWAPS: return swaps(buf, cap);
	case PROCFS_SELF_STATUS: return procfs_status_text(buf, cap, t);
	case PROCFS_SELF_STAT: return procfs_stat_text(buf, cap, t);
	case PROCFS_PRESSURE_MEMORY: return pressure(buf, cap);
	case PROCFS_SYS_VM: break;      /* above */
	}
	return 0;
}

int procfs_generate(struct task *k, enum procfs_text_id id, char **out, uint64_t *len)
{
	struct procfs_task t;
	if (id == PROCFS_SELF_STATUS || id == PROCFS_SELF_STAT)
		task_numbers(k, &t);
	/* Counters move between two passes: retry with the larger size. */
	size_t cap = 2048;
	for (int tries = 0; tries < 4; tries++) {
		char *buf = kmalloc(cap);
		if (!buf)
			return -ENOMEM;
		size_t n = fill(k, id, &t, buf, cap);
		if (n < cap) {
			*out = buf;
			*len = n;
			return 0;
		}
		kfree(buf);
		cap = n + 256;
	}
	return -ENOMEM;
}
