/*
 * Open files of a task: read-only descriptors on the boot files and /proc
 * (procfs.h), and the calls that reach them (open/openat, read, pread64,
 * lseek, close, dup*, fcntl, stat/fstat/lstat/newfstatat, statx,
 * readlink(at)), with Linux's numbers and error codes.  fds 0-2 are the
 * console (syscall.c) unless dup2 put a file there.
 *
 * Every call runs in the calling task's syscall context and may sleep;
 * arguments are raw user values.
 */
#ifndef FILE_H
#define FILE_H

#include <stdint.h>
#include <stdbool.h>

struct task;

#define AT_FDCWD (-100)

long file_openat(int dirfd, uint64_t upath, int flags);
long file_read(int fd, uint64_t ubuf, uint64_t n);
long file_pread(int fd, uint64_t ubuf, uint64_t n, int64_t off);
long file_lseek(int fd, int64_t off, int whence);
long file_close(int fd);
/* Block devices (/dev/...): write, pwrite64, fsync/fdatasync, ftruncate
 * (EINVAL, as Linux on a device), ioctl BLKGETSIZE64/BLKGETSIZE/BLKSSZGET
 * (ENOTTY for the rest and other files), posix_fadvise (pagecache_fadvise). */
long file_write(int fd, uint64_t ubuf, uint64_t n);
long file_pwrite(int fd, uint64_t ubuf, uint64_t n, int64_t off);
long file_fsync(int fd);
/* syncfs: a device's disk written back and waited for; 0 for the
 * read-only files and the console, which hold nothing to write. */
long file_syncfs(int fd);
long file_ftruncate(int fd, int64_t len);
long file_ioctl(int fd, uint64_t cmd, uint64_t arg);
long file_fadvise(int fd, int64_t off, int64_t len, int advice);
/* mmap of a block device (MAP_SHARED or MAP_PRIVATE); -ENODEV for other
 * files, -EINVAL for a device not starting on a page of its disk, -ENXIO
 * past its end, -EACCES for a shared writable map of a read-only open. */
long file_mmap(int fd, uint64_t addr, uint64_t len, int prot, int flags, uint64_t off);
long file_fstatat(int dirfd, uint64_t upath, uint64_t ustat, int flags);
/* getdents64 on a folder fd: Linux's linux_dirent64 records from the
 * folder's position on (an entry index); 0 at the end. */
long file_getdents64(int fd, uint64_t ubuf, uint64_t count);
long file_fstat(int fd, uint64_t ustat);
long file_statx(int dirfd, uint64_t upath, int flags, uint64_t ubuf);
long file_readlinkat(int dirfd, uint64_t upath, uint64_t ubuf, int64_t n);
/* access/faccessat: exists, and the mode (R_OK 4, W_OK 2, X_OK 1) is
 * possible for root on a read-only tree. */
long file_faccessat(int dirfd, uint64_t upath, int mode);
/* utimensat: times cannot change on a read-only tree: EROFS (boot
 * files, folders), EACCES (/proc text), ENOENT. */
long file_utimensat(int dirfd, uint64_t upath);
/* sendfile from an open file to fd 1/2: the bytes go through out(fd,
 * buf, n); uoff (if nonzero) is the offset to use and update instead of
 * the file position. */
long file_sendfile(int out_fd, int in_fd, uint64_t uoff, uint64_t count,
		   void (*out)(int fd, const char *buf, uint64_t n));
/* dup (min 0) and fcntl F_DUPFD: the lowest free fd >= min, above 0-2;
 * dup2 (flags -1) and dup3 (flags 0 or O_CLOEXEC): onto newfd, closing
 * what it named.  Onto 0-2 a file replaces the console there until it is
 * closed (then the console is back); the console itself, duplicated, is
 * a file whose reads end at once (0) or whose writes are the task's
 * output (1, 2).  FD_CLOEXEC is kept (there is no exec).
 * fcntl: F_DUPFD, F_DUPFD_CLOEXEC, F_GETFD, F_SETFD, F_GETFL; the rest
 * -EINVAL. */
long file_dup_min(int oldfd, int min, bool cloexec);
long file_dup_to(int oldfd, int newfd, int flags);
long file_fcntl(int fd, int cmd, uint64_t arg);
/* fd is 0-2 and the console (not replaced by dup2); the console's output. */
bool file_is_console(int fd);
long file_console_write(int fd, uint64_t ubuf, uint64_t n);
/* At task end: close what is still open. */
void file_close_all(struct task *k);

#endif
