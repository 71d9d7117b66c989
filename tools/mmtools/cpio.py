"""newc cpio archives (Linux's initramfs format), written in memory: the
Linux peer's initramfs and the PVH boot's file list (tools/mkinitrd)."""


class Cpio:
    """A newc cpio archive built in memory: any owner, mode or device node
    without root."""

    def __init__(self):
        self.buf = bytearray()
        self.ino = 1

    def _entry(self, name, mode, data=b'', nlink=1, rdev=(0, 0)):
        nb = name.encode() + b'\0'
        hdr = '070701' + ''.join('%08x' % v for v in (
            self.ino, mode, 0, 0, nlink, 0, len(data), 0, 0, rdev[0], rdev[1], len(nb), 0))
        self.ino += 1
        self.buf += hdr.encode() + nb
        self.buf += b'\0' * (-len(self.buf) % 4)
        self.buf += data
        self.buf += b'\0' * (-len(self.buf) % 4)

    def dir(self, name, mode=0o755):
        self._entry(name, 0o040000 | mode, nlink=2)

    def file(self, name, data, mode=0o644):
        self._entry(name, 0o100000 | mode, data)

    def symlink(self, name, target):
        self._entry(name, 0o120777, target.encode())

    def chardev(self, name, major, minor, mode=0o600):
        self._entry(name, 0o020000 | mode, rdev=(major, minor))

    def finish(self):
        self._entry('TRAILER!!!', 0)
        return bytes(self.buf)
