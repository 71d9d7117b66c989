"""Compatibility shim: the QEMU rig is mmtools.rig now.  `import qemurig`
(tests/qemu does, with tools/ on sys.path) gets that very module, so
attributes set on it reach the rig itself."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mmtools.rig  # noqa: E402

sys.modules[__name__] = mmtools.rig
