/*
 * File descriptors over the read-only tree of procfs.c.  An open file
 * keeps its node, its normalised path (for *at calls relative to a
 * directory fd) and, for /proc text, a snapshot: generated at open and
 * again by every read from offset 0, so reading in pieces gives one
 * consistent text while a sampler that keeps the file open and reads it
 * from the start each time (procps' vmstat) sees fresh numbers, as with
 * Linux's seq_file.
 *
 * Nothing there can be written: opening for writing fails (EACCES on
 * /proc text, EROFS on boot files, EISDIR on folders) before anything
 * changes.
 *
 * Block devices under /dev, by Linux's names (/dev/nvme0n1p2, /dev/sdb1:
 * blk_find_linux), are files too: reads and writes go through the page
 * cache (vm/pagecache.h).  One may be opened for writing only when it was
 * named in data= or a script's `data` statement; any other write open
 * fails with EACCES and a console line naming the device.  As on Linux,
 * stat gives S_IFBLK and st_size 0 (the size comes from lseek(SEEK_END)
 * or ioctl BLKGETSIZE64), ftruncate fails with EINVAL, O_TRUNC is
 * ignored.
 * /dev/null and /dev/zero, and duplicates of the console (dup of fds 0-2),
 * are character devices (enum chr below).  dup2 onto 0-2 puts a file in
 * task->std[]; while std[fd] is NULL the fd is the console (is_console).
 * Closing fd 0-2 leaves it closed (STD_CLOSED), as on Linux: its number
 * is then the lowest free one for open, dup and the like, and dup2 of a
 * duplicate of the console onto it gives the console back.
 * O_DIRECT on a device bypasses the cache (pagecache_direct_io: aligned
 * to the logical block size, else EINVAL); elsewhere it is refused with
 * EINVAL at open, as Linux does on a file system without direct I/O.
 *
 * Locking: task->files_lock (a mutex) guards the table task->files only,
 * and is held briefly: an I/O call takes a reference on the open file
 * (fd_get) and lets the table go, so a thread blocked in a device's
 * write (dirty throttling, I/O) never holds up another thread's call on
 * another fd.  Each open file has its own pos_lock (Linux's f_pos_lock),
 * held by read, write, lseek and getdents64 across the call so that two
 * threads sharing one fd see each position once; it is a mutex because
 * the copy to or from user memory may fault and sleep.  pread/pwrite on
 * a device take no lock (Linux takes none either); on /proc text they
 * take pos_lock, since a read from offset 0 replaces the snapshot.
 * Order: files_lock, then pos_lock (lseek by fd takes them one at a
 * time); close drops the table's reference, the last fd_put frees.
 */
#include <string.h>
#include "file.h"
#include "procfs.h"
#include "procfs_text.h"
#include "task.h"
#include "syscall.h"
#include "core/wait.h"
#include "lib/errno.h"
#include "mem/kmalloc.h"
#include "arch/x86_64/uaccess.h"
#include "vm/pagecache.h"
#include "vm/vm.h"
#include "drivers/blk.h"
#include "core/console.h"

#define PATH_CAP 128                    /* normalised paths we can name */
#define RAW_CAP 256                     /* a path as the program passed it */

#define O_ACCMODE   03
#define O_CREAT     0100
#define O_TRUNC     01000
#define O_DIRECT    040000
#define O_APPEND    02000
#define O_NONBLOCK  04000
#define O_ASYNC     020000
#define O_NOATIME   01000000
#define SETFL_MASK  (O_APPEND | O_NONBLOCK | O_ASYNC | O_DIRECT | O_NOATIME)   /* what F_SETFL changes */
#define O_DIRECTORY 0200000
#define AT_SYMLINK_NOFOLLOW 0x100
#define AT_EMPTY_PATH 0x1000

struct open_file {
	struct procfs_node node;
	char path[PATH_CAP];
	char *text;                     /* PROCFS_TEXT: the snapshot (kmalloc) */
	uint64_t len;
	struct mutex pos_lock;
	uint64_t pos;                   /* [pos_lock] */
	int refs;                       /* [A] the table's, and each call's in progress */
	struct pagecache_file *blk;     /* a block device: its view of the page cache (kmalloc) */
	bool direct;                    /* [A] O_DIRECT: blk's I/O bypasses the cache */
	uint8_t chr;                    /* enum chr: a character device, not a file */
	int oflags;                     /* the access mode and SETFL_MASK's flags (F_GETFL) [files_lock] */
};

/* Character devices: the console as a dup of fd 0, 1 or 2 (reads of
 * stdin end at once, writes of stdout and stderr are the task's output),
 * /dev/null (reads end, writes vanish) and /dev/zero (reads give zeros,
 * writes vanish), as Linux's mem devices 1:3 and 1:5. */
enum chr { CHR_NONE, CHR_STDIN, CHR_STDOUT, CHR_STDERR, CHR_NULL, CHR_ZERO };

static bool chr_console(const struct open_file *f) { return f->chr >= CHR_STDIN && f->chr <= CHR_STDERR; }

#define DEV_PREFIX "dev/"               /* normalised paths have no leading slash */

/* The block device a normalised path names, or NULL. */
static struct blk_dev *dev_of(const char *path)
{
	return strncmp(path, DEV_PREFIX, 4) ? NULL : blk_find_linux(path + 4);
}

static struct task *T(void) { return current_task(); }

/* task->std[fd] for fd 0-2 closed (NULL is the console). */
#define STD_CLOSED ((struct open_file *)1)

/* The open file of fd; files_lock held.  NULL for unused fds and for
 * 0-2 while they are the console or closed. */
static struct open_file *fd_file(struct task *k, int fd)
{
	mutex_assert_held(&k->files_lock);
	if (fd >= 0 && fd < TASK_FD_FIRST)
		return k->std[fd] == STD_CLOSED ? NULL : k->std[fd];
	if (fd < TASK_FD_FIRST || fd >= TASK_FD_FIRST + TASK_MAX_FILES)
		return NULL;
	return k->files[fd - TASK_FD_FIRST];
}

/* fd is 0-2 and still the console (no dup2 put a file there). */
static bool is_console(int fd)
{
	return fd >= 0 && fd < TASK_FD_FIRST && !__atomic_load_n(&current_task()->std[fd], __ATOMIC_ACQUIRE);
}

bool file_is_console(int fd) { return is_console(fd); }

/* The base folder of a relative path: "" for AT_FDCWD (cwd is "/"), else
 * the path of the directory fd. */
static int dir_base(struct task *k, int dirfd, char *base)
{
	if (dirfd == AT_FDCWD) {
		base[0] = 0;
		return 0;
	}
	mutex_lock(&k->files_lock);
	struct open_file *f = fd_file(k, dirfd);
	int err = f ? (f->node.kind == PROCFS_DIR ? 0 : -ENOTDIR) : is_console(dirfd) ? -ENOTDIR : -EBADF;
	if (!err)
		memcpy(base, f->path, PATH_CAP);
	mutex_unlock(&k->files_lock);
	return err;
}

/* Copy and normalise a user path.  Returns 0, 1 for an empty path when
 * empty_ok (the call means the dirfd itself), or an error. */
static int user_path(struct task *k, int dirfd, uint64_t upath, bool empty_ok, char *out)
{
	char raw[RAW_CAP], base[PATH_CAP], joined[PATH_CAP + RAW_CAP + 2];
	long n = strncpy_from_user(raw, upath, sizeof raw);
	if (n < 0)
		return (int)n;
	if (!n)
		return empty_ok ? 1 : -ENOENT;
	base[0] = 0;
	if (raw[0] != '/') {
		int err = dir_base(k, dirfd, base);
		if (err)
			return err;
	}
	size_t b = strlen(base);
	memcpy(joined, base, b);
	joined[b] = '/';
	memcpy(joined + b + 1, raw, (size_t)n + 1);
	return procfs_path_norm(joined, out, PATH_CAP) ? 0 : -ENAMETOOLONG;
}

static int write_denied(const struct procfs_node *n)
{
	switch (n->kind) {
	case PROCFS_DIR: return -EISDIR;
	case PROCFS_BOOT: return -EROFS;
	default: return -EACCES;
	}
}

/* The open file of fd with a reference (fd_put), or NULL. */
static struct open_file *fd_get(struct task *k, int fd)
{
	mutex_lock(&k->files_lock);
	struct open_file *f = fd_file(k, fd);
	if (f)
		__atomic_add_fetch(&f->refs, 1, __ATOMIC_ACQ_REL);
	mutex_unlock(&k->files_lock);
	return f;
}

static void file_free(struct open_file *f);

static void fd_put(struct open_file *f)
{
	if (__atomic_sub_fetch(&f->refs, 1, __ATOMIC_ACQ_REL) == 0)
		file_free(f);
}

/* A new open file, holding the reference its fd will own. */
static struct open_file *file_alloc(void)
{
	struct open_file *f = kzalloc(sizeof *f);
	if (f) {
		mutex_init(&f->pos_lock, "file-pos");
		f->refs = 1;
	}
	return f;
}

/* Put f at the lowest free fd at or above min (a closed one of 0-2
 * first, then the table) and return it, or -EMFILE; files_lock held. */
static int place(struct task *k, struct open_file *f, int min)
{
	for (int i = min; i < TASK_FD_FIRST; i++)
		if (k->std[i] == STD_CLOSED) {
			__atomic_store_n(&k->std[i], f, __ATOMIC_RELEASE);
			return i;
		}
	for (int i = min > TASK_FD_FIRST ? min - TASK_FD_FIRST : 0; i < TASK_MAX_FILES; i++)
		if (!k->files[i]) {
			k->files[i] = f;
			return TASK_FD_FIRST + i;
		}
	return -EMFILE;
}

static int install(struct task *k, struct open_file *f)
{
	mutex_lock(&k->files_lock);
	int fd = place(k, f, 0);
	mutex_unlock(&k->files_lock);
	return fd;
}

static void file_free(struct open_file *f)
{
	kfree(f->text);
	kfree(f->blk);
	kfree(f);
}

/* Block devices' inode numbers: their place in the block layer's list. */
static uint64_t dev_ino(const struct blk_dev *d)
{
	for (int i = 0; i < blk_count(); i++)
		if (blk_at(i) == d)
			return 100000 + (uint64_t)i;
	return 100000;
}

/* Open a block device: read-only unless data= allowed writing. */
static long open_blk(struct task *k, struct blk_dev *d, const char *path, int flags)
{
	bool w = (flags & O_ACCMODE) != 0;
	if (flags & O_DIRECTORY)
		return -ENOTDIR;
	if (w && !pagecache_write_allowed(d)) {
		kprintf("file: /%s (%s): not writable: not named in data= or a data statement\n", path, blk_name(d));
		return -EACCES;
	}
	struct open_file *f = file_alloc();
	struct pagecache_file *pf = kzalloc(sizeof *pf);
	int err = f && pf ? pagecache_open(pf, d, w) : -ENOMEM;
	if (err) {
		kfree(pf);
		kfree(f);
		return err;
	}
	f->node = (struct procfs_node){ .kind = PROCFS_BOOT, .size = pf->size, .ino = dev_ino(d) };
	memcpy(f->path, path, PATH_CAP);
	f->blk = pf;
	f->len = pf->size;
	f->direct = flags & O_DIRECT;
	f->oflags = flags & (O_ACCMODE | SETFL_MASK);
	int fd = install(k, f);
	if (fd < 0)
		file_free(f);
	return fd;
}

/* /dev/null and /dev/zero by normalised path: CHR_NULL, CHR_ZERO or 0. */
static uint8_t chr_of(const char *path)
{
	return !strcmp(path, "dev/null") ? CHR_NULL : !strcmp(path, "dev/zero") ? CHR_ZERO : CHR_NONE;
}

/* A new character-device file (enum chr) at normalised path, or NULL. */
static struct open_file *chr_alloc(const char *path, uint8_t chr, int oflags)
{
	struct open_file *f = file_alloc();
	if (!f)
		return NULL;
	f->node = (struct procfs_node){ .kind = PROCFS_BOOT, .size = 0 };
	memcpy(f->path, path, strlen(path) + 1);        /* shorter than PATH_CAP */
	f->chr = chr;
	f->oflags = oflags;
	return f;
}

static long open_chr(struct task *k, const char *path, uint8_t chr, int flags)
{
	if (flags & O_DIRECTORY)
		return -ENOTDIR;
	if (flags & O_DIRECT)
		return -EINVAL;
	struct open_file *f = chr_alloc(path, chr, flags & (O_ACCMODE | (SETFL_MASK & ~O_DIRECT)));
	if (!f)
		return -ENOMEM;
	int fd = install(k, f);
	if (fd < 0)
		file_free(f);
	return fd;
}

static long open_at(struct task *k, int dirfd, uint64_t upath, int flags);
static void set_cloexec(struct task *k, int fd, bool on);

#define O_CLOEXEC 02000000

long file_openat(int dirfd, uint64_t upath, int flags)
{
	struct task *k = T();
	long fd = open_at(k, dirfd, upath, flags);
	if (fd >= 0) {
		mutex_lock(&k->files_lock);
		set_cloexec(k, (int)fd, flags & O_CLOEXEC);     /* F_GETFD tells it; there is no exec */
		mutex_unlock(&k->files_lock);
	}
	return fd;
}

static long open_at(struct task *k, int dirfd, uint64_t upath, int flags)
{
	char path[PATH_CAP];
	struct procfs_node node;
	int err = user_path(k, dirfd, upath, false, path);
	struct blk_dev *d = err ? NULL : dev_of(path);
	if (d)
		return open_blk(k, d, path, flags);
	uint8_t chr = err ? CHR_NONE : chr_of(path);
	if (chr)
		return open_chr(k, path, chr, flags);
	if (!err)
		err = procfs_lookup(k, path, true, &node);
	if (err == -ENOENT && (flags & O_CREAT))
		return -EROFS;          /* nothing can be created here */
	if (err)
		return err;
	if ((flags & O_ACCMODE) || (flags & O_TRUNC))
		return write_denied(&node);
	if ((flags & O_DIRECTORY) && node.kind != PROCFS_DIR)
		return -ENOTDIR;
	if (flags & O_DIRECT)
		return -EINVAL;         /* as Linux on a file system without direct I/O */
	struct open_file *f = file_alloc();
	if (!f)
		return -ENOMEM;
	f->node = node;
	f->oflags = flags & SETFL_MASK & ~O_DIRECT;     /* read-only */
	memcpy(f->path, path, sizeof path);
	if (node.kind == PROCFS_TEXT && (err = procfs_generate(k, node.text, &f->text, &f->len))) {
		kfree(f);
		return err;
	}
	if (node.kind == PROCFS_BOOT)
		f->len = node.size;
	int fd = install(k, f);
	if (fd < 0)
		file_free(f);
	return fd;
}

static const void *file_bytes(const struct open_file *f)
{
	return f->node.kind == PROCFS_TEXT ? f->text : f->node.data;
}

/* A read from the start of /proc text takes a new snapshot; pos_lock held. */
static int refresh(struct task *k, struct open_file *f)
{
	char *text;
	uint64_t len;
	int err = procfs_generate(k, f->node.text, &text, &len);
	if (err)
		return err;
	kfree(f->text);
	f->text = text;
	f->len = len;
	return 0;
}

static const char zeros[1024];

static long chr_read(const struct open_file *f, uint64_t ubuf, uint64_t n)
{
	if (f->chr == CHR_STDOUT || f->chr == CHR_STDERR)
		return -EBADF;          /* as fd 1 and 2: not open for reading */
	if (f->chr != CHR_ZERO)
		return 0;               /* stdin and /dev/null: end of file */
	for (uint64_t done = 0; done < n;) {
		uint64_t k = n - done < sizeof zeros ? n - done : sizeof zeros;
		if (copy_to_user(ubuf + done, zeros, k))
			return done ? (long)done : -EFAULT;
		done += k;
	}
	return (long)n;
}

/* Copy from offset off; pos_lock held unless f is a device. */
static long copy_out(struct task *k, struct open_file *f, uint64_t ubuf, uint64_t n, uint64_t off)
{
	if (n > 0x7ffff000)
		n = 0x7ffff000;         /* Linux's cap on one read */
	if (f->chr)
		return chr_read(f, ubuf, n);
	if (f->blk)
		return __atomic_load_n(&f->direct, __ATOMIC_RELAXED) ? pagecache_direct_io(f->blk, off, ubuf, n, false) : pagecache_read(f->blk, off, ubuf, n);
	if (f->node.kind == PROCFS_DIR)
		return -EISDIR;
	int err = f->node.kind == PROCFS_TEXT && off == 0 && n ? refresh(k, f) : 0;
	if (err)
		return err;
	if (off >= f->len)
		return 0;
	if (n > f->len - off)
		n = f->len - off;
	if (n > 0x7ffff000)
		n = 0x7ffff000;         /* Linux's cap on one read */
	return copy_to_user(ubuf, (const char *)file_bytes(f) + off, n) ? -EFAULT : (long)n;
}

long file_read(int fd, uint64_t ubuf, uint64_t n)
{
	struct task *k = T();
	if (fd == 0 && is_console(0))
		return 0;               /* stdin is empty: end of file */
	struct open_file *f = fd_get(k, fd);
	if (!f)
		return -EBADF;
	mutex_lock(&f->pos_lock);
	long r = copy_out(k, f, ubuf, n, f->pos);
	if (r > 0)
		f->pos += (uint64_t)r;
	mutex_unlock(&f->pos_lock);
	fd_put(f);
	return r;
}

long file_pread(int fd, uint64_t ubuf, uint64_t n, int64_t off)
{
	struct task *k = T();
	if (off < 0)
		return -EINVAL;
	if (is_console(fd))
		return -ESPIPE;
	struct open_file *f = fd_get(k, fd);
	if (!f)
		return -EBADF;
	if (chr_console(f)) {
		fd_put(f);
		return -ESPIPE;
	}
	if (!f->blk)
		mutex_lock(&f->pos_lock);
	long r = copy_out(k, f, ubuf, n, (uint64_t)off);
	if (!f->blk)
		mutex_unlock(&f->pos_lock);
	fd_put(f);
	return r;
}

long file_lseek(int fd, int64_t off, int whence)
{
	struct task *k = T();
	if (is_console(fd))
		return -ESPIPE;
	struct open_file *f = fd_get(k, fd);
	if (!f)
		return -EBADF;
	if (f->chr) {
		fd_put(f);
		return chr_console(f) ? -ESPIPE : 0;    /* /dev/null and /dev/zero: always at 0, as Linux */
	}
	mutex_lock(&f->pos_lock);
	int64_t base = whence == 0 ? 0 : whence == 1 ? (int64_t)f->pos : (int64_t)f->len;
	long r = whence > 2 ? -EINVAL : (off < 0 && base + off < 0) ? -EINVAL : base + off;
	if (r >= 0)
		f->pos = (uint64_t)r;
	mutex_unlock(&f->pos_lock);
	fd_put(f);
	return r;
}

/* The task's output (fd 1 or 2) through a small buffer. */
static long con_out(int fd, uint64_t ubuf, uint64_t n)
{
	char chunk[256];
	uint64_t done = 0;
	while (done < n) {
		uint64_t k = n - done < sizeof chunk ? n - done : sizeof chunk;
		if (copy_from_user(chunk, ubuf + done, k))
			return done ? (long)done : -EFAULT;
		task_output(T(), fd, chunk, k);
		done += k;
	}
	return (long)n;
}

long file_console_write(int fd, uint64_t ubuf, uint64_t n) { return con_out(fd, ubuf, n); }

/* Writes reach block devices, /dev/null and /dev/zero (discarded) and a
 * dup of the console; everything else open here is read-only (EBADF, as
 * for a file not opened for writing). */
static long write_at(struct open_file *f, uint64_t ubuf, uint64_t n, uint64_t off)
{
	if (f->chr == CHR_NULL || f->chr == CHR_ZERO)
		return (long)n;
	if (f->chr == CHR_STDOUT || f->chr == CHR_STDERR)
		return con_out(f->chr == CHR_STDOUT ? 1 : 2, ubuf, n);
	if (!f->blk || !f->blk->writable)
		return -EBADF;
	if (n > 0x7ffff000)
		n = 0x7ffff000;
	return __atomic_load_n(&f->direct, __ATOMIC_RELAXED) ? pagecache_direct_io(f->blk, off, ubuf, n, true) : pagecache_write(f->blk, off, ubuf, n);
}

long file_write(int fd, uint64_t ubuf, uint64_t n)
{
	struct task *k = T();
	struct open_file *f = fd_get(k, fd);
	if (!f)
		return -EBADF;
	mutex_lock(&f->pos_lock);
	long r = write_at(f, ubuf, n, f->pos);
	if (r > 0)
		f->pos += (uint64_t)r;
	mutex_unlock(&f->pos_lock);
	fd_put(f);
	return r;
}

long file_pwrite(int fd, uint64_t ubuf, uint64_t n, int64_t off)
{
	struct task *k = T();
	if (off < 0)
		return -EINVAL;
	if (is_console(fd))
		return -ESPIPE;
	struct open_file *f = fd_get(k, fd);
	if (!f)
		return -EBADF;
	long r = chr_console(f) ? -ESPIPE : write_at(f, ubuf, n, (uint64_t)off);
	fd_put(f);
	return r;
}

long file_fsync(int fd)
{
	struct task *k = T();
	if (is_console(fd))
		return -EINVAL;         /* Linux: the console cannot sync */
	struct open_file *f = fd_get(k, fd);
	if (!f)
		return -EBADF;
	long r = f->blk ? pagecache_fsync(f->blk) : f->chr ? -EINVAL : 0;
	fd_put(f);
	return r;
}

long file_syncfs(int fd)
{
	struct task *k = T();
	if (is_console(fd))
		return 0;
	struct open_file *f = fd_get(k, fd);
	if (!f)
		return -EBADF;
	long r = f->blk ? pagecache_syncfs(f->blk) : 0;
	fd_put(f);
	return r;
}

long file_ftruncate(int fd, int64_t len)
{
	struct task *k = T();
	if (len < 0)
		return -EINVAL;
	if (is_console(fd))
		return -EINVAL;
	mutex_lock(&k->files_lock);
	struct open_file *f = fd_file(k, fd);
	/* A block device's size is the device's (Linux: EINVAL); the rest is
	 * not open for writing (EINVAL as well). */
	long r = f ? -EINVAL : -EBADF;
	mutex_unlock(&k->files_lock);
	return r;
}

#define BLKSSZGET     0x1268
#define BLKGETSIZE    0x1260
#define BLKGETSIZE64  0x80081272u

long file_ioctl(int fd, uint64_t cmd, uint64_t arg)
{
	struct task *k = T();
	if (is_console(fd))
		return -ENOTTY;
	mutex_lock(&k->files_lock);
	struct open_file *f = fd_file(k, fd);
	long r = !f ? -EBADF : !f->blk ? -ENOTTY : 0;
	if (!r) {
		uint64_t size = f->blk->size;
		if (cmd == BLKGETSIZE64)
			r = put_user_u64(arg, size) ? -EFAULT : 0;
		else if (cmd == BLKGETSIZE)
			r = put_user_u64(arg, size >> 9) ? -EFAULT : 0;
		else if (cmd == BLKSSZGET)
			r = put_user_u32(arg, blk_block_size(f->blk->dev)) ? -EFAULT : 0;
		else
			r = -ENOTTY;
	}
	mutex_unlock(&k->files_lock);
	return r;
}

long file_fadvise(int fd, int64_t off, int64_t len, int advice)
{
	struct task *k = T();
	if (off < 0 || len < 0 || advice < 0 || advice > 5)
		return -EINVAL;
	if (is_console(fd))
		return -ESPIPE;
	struct open_file *f = fd_get(k, fd);
	if (!f)
		return -EBADF;
	long r = f->blk ? pagecache_fadvise(f->blk, (uint64_t)off, (uint64_t)len, advice) : 0;
	fd_put(f);
	return r;                       /* other files: advice taken, nothing to do */
}

long file_mmap(int fd, uint64_t addr, uint64_t len, int prot, int flags, uint64_t off)
{
	struct task *k = T();
	if (off & 0xfff)
		return -EINVAL;
	if (is_console(fd))
		return -ENODEV;
	mutex_lock(&k->files_lock);
	struct open_file *f = fd_file(k, fd);
	if (f && f->chr == CHR_ZERO) {
		/* /dev/zero, as Linux's mmap_zero: private is anonymous memory,
		 * shared a shared anonymous object (the offset means nothing).
		 * The open's access mode is checked as for any file. */
		int acc = f->oflags & O_ACCMODE;
		mutex_unlock(&k->files_lock);
		if (acc == 1 || ((flags & 0x03) == MAP_SHARED && (prot & 2) && acc != 2))
			return -EACCES;
		return vm_mmap(k->mm, addr, len, prot, flags | MAP_ANONYMOUS);
	}
	long r = !f ? -EBADF : !f->blk ? -ENODEV : 0;
	struct pagecache *pc = NULL;
	uint64_t first = 0;
	if (!r) {
		/* A mapping is of whole cache pages: the device must start on a
		 * page of its disk, and the area must not reach past its end
		 * (the page beyond belongs to the next partition or to nobody). */
		uint64_t span = (len + 0xfff) & ~0xfffull;
		if (f->blk->base & 0xfff)
			r = -EINVAL;
		else if (off > f->blk->size || span > f->blk->size - off)
			r = -ENXIO;
		else if ((flags & 0x03) == 0x01 && (prot & 2) && !f->blk->writable)
			r = -EACCES;    /* MAP_SHARED, PROT_WRITE on a read-only open */
		pc = pagecache_of_file(f->blk);
		first = (f->blk->base + off) >> 12;
	}
	mutex_unlock(&k->files_lock);
	return r ? r : vm_mmap_file(k->mm, addr, len, prot, flags, pc, first);
}

long file_close(int fd)
{
	struct task *k = T();
	mutex_lock(&k->files_lock);
	bool console = is_console(fd);
	struct open_file *f = fd_file(k, fd);
	if ((f || console) && fd < TASK_FD_FIRST)
		__atomic_store_n(&k->std[fd], STD_CLOSED, __ATOMIC_RELEASE);
	else if (f)
		k->files[fd - TASK_FD_FIRST] = NULL;
	if (f || console)
		set_cloexec(k, fd, false);
	mutex_unlock(&k->files_lock);
	if (!f)
		return console ? 0 : -EBADF;    /* the console: nothing to release */
	fd_put(f);                      /* the table's reference */
	return 0;
}

void file_close_all(struct task *k)
{
	mutex_lock(&k->files_lock);
	for (int i = 0; i < TASK_MAX_FILES; i++) {
		if (k->files[i])
			fd_put(k->files[i]);
		k->files[i] = NULL;
	}
	for (int i = 0; i < TASK_FD_FIRST; i++) {
		if (k->std[i] && k->std[i] != STD_CLOSED)
			fd_put(k->std[i]);
		k->std[i] = NULL;
	}
	mutex_unlock(&k->files_lock);
}

/* ------------------------------------------------------------ getdents64 */

/* struct linux_dirent64: d_ino, d_off, d_reclen, d_type, d_name, padded
 * to 8 bytes. */
#define DIRENT_HEAD 19

long file_getdents64(int fd, uint64_t ubuf, uint64_t count)
{
	struct task *k = T();
	if (is_console(fd))
		return -ENOTDIR;
	struct open_file *f = fd_get(k, fd);
	if (!f)
		return -EBADF;
	if (f->node.kind != PROCFS_DIR || f->blk) {
		fd_put(f);
		return -ENOTDIR;
	}
	mutex_lock(&f->pos_lock);
	uint64_t done = 0;
	long r = 0;
	for (;;) {
		struct procfs_dirent e;
		uint8_t rec[DIRENT_HEAD + PROCFS_NAME_MAX + 8];
		int got = procfs_readdir(k, f->path, f->pos, &e);
		if (got <= 0) {
			r = got;
			break;
		}
		size_t nl = strlen(e.name), len = (DIRENT_HEAD + nl + 1 + 7) & ~(size_t)7;
		if (done + len > count) {
			r = done ? 0 : -EINVAL;         /* Linux: the buffer holds not even one */
			break;
		}
		uint64_t next = f->pos + 1;
		uint16_t reclen = (uint16_t)len;
		memset(rec, 0, len);
		memcpy(rec, &e.ino, 8);
		memcpy(rec + 8, &next, 8);
		memcpy(rec + 16, &reclen, 2);
		rec[18] = (uint8_t)e.type;
		memcpy(rec + DIRENT_HEAD, e.name, nl);
		if (copy_to_user(ubuf + done, rec, len)) {
			r = -EFAULT;
			break;
		}
		done += len;
		f->pos = next;
	}
	mutex_unlock(&f->pos_lock);
	fd_put(f);
	return done ? (long)done : r;
}

/* ------------------------------------------------------------ stat */

struct kstat {
	uint64_t dev, ino, nlink, rdev, size, blocks;
	uint32_t mode;
};

#define S_IFBLK 0060000
#define S_IFCHR 0020000
#define S_IFDIR 0040000
#define S_IFREG 0100000
#define S_IFLNK 0120000
#define DEV_BOOT 1                      /* our two trees, as two file systems */
#define DEV_PROC 2

static void node_stat(const char *path, const struct procfs_node *n, struct kstat *st)
{
	static const uint32_t modes[] = {
		[PROCFS_DIR] = S_IFDIR | 0555, [PROCFS_TEXT] = S_IFREG | 0444,
		[PROCFS_LINK] = S_IFLNK | 0777, [PROCFS_BOOT] = S_IFREG | 0555,
	};
	memset(st, 0, sizeof *st);
	st->mode = modes[n->kind];
	st->ino = n->ino;
	st->nlink = n->kind == PROCFS_DIR ? 2 : 1;
	st->dev = !strncmp(path, "proc", 4) && (path[4] == 0 || path[4] == '/') ? DEV_PROC : DEV_BOOT;
	if (n->kind == PROCFS_BOOT)
		st->size = n->size;
	st->blocks = (st->size + 511) / 512;
}

/* A block device: Linux's numbers (nvme 259:N, sd 8:16*disk+part) are
 * not reproduced; rdev is unique per device, st_size 0 as on Linux. */
static void blk_stat(const struct blk_dev *d, struct kstat *st)
{
	memset(st, 0, sizeof *st);
	st->mode = S_IFBLK | 0660;
	st->ino = dev_ino(d);
	st->rdev = (259u << 8) | (uint32_t)(st->ino - 100000);
	st->nlink = 1;
	st->dev = 5;                    /* devtmpfs */
}

/* fds 0-2: the console, a character device (Linux's /dev/console, 5:1). */
static void console_stat(struct kstat *st)
{
	memset(st, 0, sizeof *st);
	st->mode = S_IFCHR | 0620;
	st->rdev = (5u << 8) | 1;
	st->nlink = 1;
	st->ino = 3;
	st->dev = 6;
}

static void chr_stat(uint8_t chr, struct kstat *st)
{
	if (chr != CHR_NULL && chr != CHR_ZERO)
		return console_stat(st);
	memset(st, 0, sizeof *st);
	st->mode = S_IFCHR | 0666;
	st->rdev = (1u << 8) | (chr == CHR_NULL ? 3 : 5);
	st->nlink = 1;
	st->ino = chr == CHR_NULL ? 4 : 5;
	st->dev = 5;                    /* devtmpfs */
}

static int fd_stat(struct task *k, int fd, struct kstat *st)
{
	if (is_console(fd))
		return console_stat(st), 0;
	mutex_lock(&k->files_lock);
	struct open_file *f = fd_file(k, fd);
	if (f && f->chr)
		chr_stat(f->chr, st);
	else if (f && f->blk)
		blk_stat(f->blk->dev, st);
	else if (f)
		node_stat(f->path, &f->node, st);
	mutex_unlock(&k->files_lock);
	return f ? 0 : -EBADF;
}

static int path_stat(struct task *k, int dirfd, uint64_t upath, int flags, struct kstat *st)
{
	char path[PATH_CAP];
	struct procfs_node n;
	int err = user_path(k, dirfd, upath, flags & AT_EMPTY_PATH, path);
	if (err == 1)
		return dirfd == AT_FDCWD ? (procfs_lookup(k, "", true, &n), node_stat("", &n, st), 0)
					 : fd_stat(k, dirfd, st);
	struct blk_dev *d = err ? NULL : dev_of(path);
	if (d)
		return blk_stat(d, st), 0;
	if (!err && chr_of(path))
		return chr_stat(chr_of(path), st), 0;
	if (!err)
		err = procfs_lookup(k, path, !(flags & AT_SYMLINK_NOFOLLOW), &n);
	if (!err)
		node_stat(path, &n, st);
	return err;
}

static long put_stat(uint64_t ustat, const struct kstat *st)
{
	uint64_t s[18] = { 0 };         /* struct stat, x86-64: 144 bytes */
	uint64_t t = syscall_boot_wall_ns() / 1000000000ull, tn = syscall_boot_wall_ns() % 1000000000ull;
	s[0] = st->dev;
	s[1] = st->ino;
	s[2] = st->nlink;
	s[3] = st->mode;                /* uid 0 in the high half */
	s[4] = 0;                       /* gid 0, padding */
	s[5] = st->rdev;
	s[6] = st->size;
	s[7] = 4096;
	s[8] = st->blocks;
	s[9] = s[11] = s[13] = t;       /* nothing here ever changes after boot */
	s[10] = s[12] = s[14] = tn;
	return copy_to_user(ustat, s, sizeof s) ? -EFAULT : 0;
}

long file_fstatat(int dirfd, uint64_t upath, uint64_t ustat, int flags)
{
	struct kstat st;
	int err = path_stat(T(), dirfd, upath, flags, &st);
	return err ? err : put_stat(ustat, &st);
}

long file_fstat(int fd, uint64_t ustat)
{
	struct kstat st;
	int err = fd_stat(T(), fd, &st);
	return err ? err : put_stat(ustat, &st);
}

static void put32(uint8_t *b, unsigned off, uint32_t v) { memcpy(b + off, &v, 4); }
static void put64(uint8_t *b, unsigned off, uint64_t v) { memcpy(b + off, &v, 8); }

long file_statx(int dirfd, uint64_t upath, int flags, uint64_t ubuf)
{
	struct kstat st;
	int err = path_stat(T(), dirfd, upath, flags, &st);
	if (err)
		return err;
	uint8_t b[256] = { 0 };         /* struct statx */
	uint64_t t = syscall_boot_wall_ns() / 1000000000ull;
	uint32_t tn = (uint32_t)(syscall_boot_wall_ns() % 1000000000ull);
	put32(b, 0x00, 0x7ff);          /* STATX_BASIC_STATS */
	put32(b, 0x04, 4096);
	put32(b, 0x10, (uint32_t)st.nlink);
	b[0x1c] = (uint8_t)st.mode;     /* stx_mode: u16 at 0x1c; uid, gid 0 */
	b[0x1d] = (uint8_t)(st.mode >> 8);
	put64(b, 0x20, st.ino);
	put64(b, 0x28, st.size);
	put64(b, 0x30, st.blocks);
	for (unsigned off = 0x40; off <= 0x70; off += 0x10) {   /* atime, btime, ctime, mtime */
		put64(b, off, t);
		put32(b, off + 8, tn);
	}
	put32(b, 0x80, (uint32_t)(st.rdev >> 8));
	put32(b, 0x84, (uint32_t)(st.rdev & 0xff));
	put32(b, 0x8c, (uint32_t)st.dev);       /* dev major 0, minor */
	return copy_to_user(ubuf, b, sizeof b) ? -EFAULT : 0;
}

long file_readlinkat(int dirfd, uint64_t upath, uint64_t ubuf, int64_t n)
{
	struct task *k = T();
	char path[PATH_CAP], target[PATH_CAP + 1];
	struct procfs_node node;
	if (n <= 0)
		return -EINVAL;
	int err = user_path(k, dirfd, upath, false, path);
	if (err)
		return err;
	const char *t = procfs_link(k, path);
	if (!t)
		return procfs_lookup(k, path, false, &node) ? -ENOENT : -EINVAL;
	target[0] = '/';                /* boot-file names have no leading slash */
	size_t len = strnlen(t, PATH_CAP - 1);
	memcpy(target + 1, t, len);
	len++;
	if ((uint64_t)n < len)
		len = (size_t)n;        /* truncated, no NUL: as Linux */
	return copy_to_user(ubuf, target, len) ? -EFAULT : (long)len;
}

long file_faccessat(int dirfd, uint64_t upath, int mode)
{
	struct task *k = T();
	char path[PATH_CAP];
	struct procfs_node n;
	if (mode & ~7)
		return -EINVAL;
	int err = user_path(k, dirfd, upath, false, path);
	if (!err && (dev_of(path) || chr_of(path)))
		return mode & 1 ? -EACCES : 0;  /* a device: rw for root, never x */
	if (!err)
		err = procfs_lookup(k, path, true, &n);
	if (err)
		return err;
	if (mode & 2)                   /* W_OK */
		return n.kind == PROCFS_TEXT ? -EACCES : -EROFS;
	if ((mode & 1) && n.kind == PROCFS_TEXT)
		return -EACCES;         /* X_OK: root too needs an x bit */
	return 0;
}

long file_utimensat(int dirfd, uint64_t upath)
{
	struct task *k = T();
	char path[PATH_CAP];
	struct procfs_node n;
	if (!upath) {                   /* futimens: the fd itself */
		mutex_lock(&k->files_lock);
		struct open_file *f = fd_file(k, dirfd);
		int err = f ? write_denied(&f->node) : is_console(dirfd) ? -EPERM : -EBADF;
		mutex_unlock(&k->files_lock);
		return err == -EISDIR ? -EROFS : err;
	}
	int err = user_path(k, dirfd, upath, false, path);
	if (!err)
		err = procfs_lookup(k, path, true, &n);
	if (!err)
		err = write_denied(&n);
	return err == -EISDIR ? -EROFS : err;  /* folders: the tree is read-only */
}

long file_sendfile(int out_fd, int in_fd, uint64_t uoff, uint64_t count,
		   void (*out)(int fd, const char *buf, uint64_t n))
{
	struct task *k = T();
	uint64_t off = 0;
	if (out_fd != 1 && out_fd != 2)
		return -EBADF;          /* the console is the only writable file */
	if (!is_console(out_fd))
		return -EINVAL;         /* dup2 put a file there: not an output sendfile takes here */
	if (uoff && copy_from_user(&off, uoff, sizeof off))
		return -EFAULT;
	if ((int64_t)off < 0)
		return -EINVAL;
	struct open_file *f = fd_get(k, in_fd);
	if (!f)
		return -EBADF;
	mutex_lock(&f->pos_lock);
	long r = f->node.kind == PROCFS_DIR || f->blk ? -EINVAL : 0;
	if (!r) {
		uint64_t at = uoff ? off : f->pos;
		if (f->node.kind == PROCFS_TEXT && at == 0 && count)
			r = refresh(k, f);
	}
	if (!r) {
		uint64_t at = uoff ? off : f->pos;
		uint64_t n = at < f->len ? f->len - at : 0;
		if (n > count)
			n = count;
		if (n > 0x7ffff000)
			n = 0x7ffff000;
		out(out_fd, (const char *)file_bytes(f) + at, n);
		if (!uoff)
			f->pos += n;
		off = at + n;
		r = (long)n;
	}
	mutex_unlock(&f->pos_lock);
	fd_put(f);
	if (r >= 0 && uoff && copy_to_user(uoff, &off, sizeof off))
		return -EFAULT;
	return r;
}

/* ------------------------------------------------------------ dup, fcntl */

#define F_DUPFD         0
#define F_GETFD         1
#define F_SETFD         2
#define F_GETFL         3
#define F_SETFL         4
#define F_DUPFD_CLOEXEC 1030
#define FD_CLOEXEC      1
#define O_RDWR_CONSOLE  2               /* fds 0-2 are a terminal opened read-write */

/* A console file for fd 0-2 (a duplicate of the console), or NULL. */
static struct open_file *console_file(int fd)
{
	return chr_alloc("dev/console", (uint8_t)(CHR_STDIN + fd), O_RDWR_CONSOLE);
}

/* What oldfd names, referenced: its open file, or for 0-2 while they are
 * the console a new console file (chr); NULL with *err. */
static struct open_file *dup_source(struct task *k, int oldfd, int *err)
{
	if (is_console(oldfd)) {
		struct open_file *f = console_file(oldfd);
		if (!f)
			*err = -ENOMEM;
		return f;
	}
	struct open_file *f = fd_get(k, oldfd);
	if (!f)
		*err = -EBADF;
	return f;
}

_Static_assert(TASK_FD_FIRST + TASK_MAX_FILES <= 64, "task->cloexec has a bit per fd");

/* files_lock held; fd a valid descriptor number. */
static void set_cloexec(struct task *k, int fd, bool on)
{
	if (on)
		k->cloexec |= 1ull << fd;
	else
		k->cloexec &= ~(1ull << fd);
}

long file_dup_min(int oldfd, int min, bool cloexec)
{
	struct task *k = T();
	if (min < 0 || min >= TASK_FD_FIRST + TASK_MAX_FILES)
		return -EINVAL;
	int err = 0;
	struct open_file *f = dup_source(k, oldfd, &err);
	if (!f)
		return err;
	mutex_lock(&k->files_lock);
	int fd = place(k, f, min);
	if (fd >= 0)
		set_cloexec(k, fd, cloexec);
	mutex_unlock(&k->files_lock);
	if (fd < 0)
		fd_put(f);
	return fd;
}

long file_dup_to(int oldfd, int newfd, int flags)
{
	struct task *k = T();
	bool dup3 = flags >= 0;
	if (dup3 && (flags & ~O_CLOEXEC))
		return -EINVAL;
	if (newfd < 0 || newfd >= TASK_FD_FIRST + TASK_MAX_FILES)
		return -EBADF;
	int err = 0;
	if (oldfd == newfd) {
		if (dup3)
			return -EINVAL;
		if (is_console(oldfd))
			return newfd;
		struct open_file *f = fd_get(k, oldfd);
		if (!f)
			return -EBADF;
		fd_put(f);
		return newfd;
	}
	struct open_file *f = dup_source(k, oldfd, &err);
	if (!f)
		return err;
	if (newfd < TASK_FD_FIRST && f->chr == CHR_STDIN + newfd) {
		fd_put(f);              /* the console back where it was: fd newfd is the console again */
		f = NULL;
	}
	mutex_lock(&k->files_lock);
	struct open_file **slot = newfd < TASK_FD_FIRST ? &k->std[newfd] : &k->files[newfd - TASK_FD_FIRST];
	struct open_file *old = *slot;
	__atomic_store_n(slot, f, __ATOMIC_RELEASE);
	set_cloexec(k, newfd, dup3 && (flags & O_CLOEXEC));
	mutex_unlock(&k->files_lock);
	if (old && old != STD_CLOSED)
		fd_put(old);            /* dup2 closes what newfd named */
	return newfd;
}

/* F_SETFL, as Linux's setfl: the flags F_SETFL may change take the
 * value given, other bits are ignored.  O_DIRECT takes a device, as at
 * open.  The others change nothing here but what F_GETFL says, as on
 * Linux for these files: nothing here waits where O_NONBLOCK would return
 * EAGAIN (console reads end at once; a device's I/O ignores it on Linux
 * too), a block device's writes ignore O_APPEND (Linux's check it only
 * on a file system), there is no access time for O_NOATIME, and O_ASYNC
 * signals no one without F_SETOWN (EINVAL here).  The console (fd 0-2
 * with nothing dup2'd there) becomes a console file of its own, which
 * keeps the flags.  files_lock held. */
static long setfl(struct task *k, int fd, struct open_file *f, uint64_t arg)
{
	int want = (int)arg & SETFL_MASK;
	if ((want & O_DIRECT) && (!f || !f->blk))
		return -EINVAL;
	if (!f) {
		f = console_file(fd);
		if (!f)
			return -ENOMEM;
		__atomic_store_n(&k->std[fd], f, __ATOMIC_RELEASE);
	}
	__atomic_store_n(&f->direct, (want & O_DIRECT) != 0, __ATOMIC_RELAXED);
	f->oflags = (f->oflags & ~SETFL_MASK) | want;
	return 0;
}

long file_fcntl(int fd, int cmd, uint64_t arg)
{
	struct task *k = T();
	if (cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC)
		return file_dup_min(fd, (int)arg, cmd == F_DUPFD_CLOEXEC);
	mutex_lock(&k->files_lock);
	struct open_file *f = fd_file(k, fd);
	long r = 0;
	if (!f && !is_console(fd))
		r = -EBADF;
	else if (cmd == F_GETFD)
		r = k->cloexec >> fd & 1 ? FD_CLOEXEC : 0;
	else if (cmd == F_SETFD)
		set_cloexec(k, fd, arg & FD_CLOEXEC);
	else if (cmd == F_GETFL)
		r = f ? f->oflags : O_RDWR_CONSOLE;
	else if (cmd == F_SETFL)
		r = setfl(k, fd, f, arg);
	else
		r = -EINVAL;            /* locks, leases...: not here */
	mutex_unlock(&k->files_lock);
	return r;
}
