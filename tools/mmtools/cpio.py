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

    def copy(self, entries):
        """Add the entries read_newc returned, as they were."""
        for name, mode, nlink, rdev, data in entries:
            self._entry(name, mode, data, nlink, rdev)

    def finish(self):
        self._entry('TRAILER!!!', 0)
        return bytes(self.buf)


def read_newc(data):
    """The entries of a newc archive as (name, mode, nlink, rdev, data)
    tuples, in order, without the trailer: to copy one archive into a
    Cpio and add files (tools/seed-table --boot adds its script to the
    PVH boot's initrd).  ValueError on anything that is not newc."""
    out, off = [], 0
    while True:
        if data[off:off + 6] != b'070701':
            raise ValueError('cpio: no newc header at offset %d' % off)
        f = [int(data[off + 6 + 8 * i:off + 14 + 8 * i], 16) for i in range(13)]
        mode, nlink, size, rmaj, rmin, namesize = f[1], f[4], f[6], f[9], f[10], f[11]
        name = data[off + 110:off + 110 + namesize - 1].decode()
        off += 110 + namesize
        off += -off % 4
        body = bytes(data[off:off + size])
        off += size
        off += -off % 4
        if name == 'TRAILER!!!':
            return out
        out.append((name, mode, nlink, (rmaj, rmin), body))
