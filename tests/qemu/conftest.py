"""pytest glue for the QEMU tests: the ctx fixture (rig.Ctx), the --build
option, slow cases first, and the memory balance check applied to every
case after it passed (rig.check_balance).

Paths in the cases (tools/mkimage, build/...) are relative to the top
directory, which is made the working directory here."""
import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.normpath(os.path.join(HERE, '..', '..'))
sys.path.insert(0, os.path.join(TOP, 'tools'))
sys.path.insert(0, HERE)
os.chdir(TOP)

import rig  # noqa: E402


def pytest_addoption(parser):
    parser.addoption('--build', default='build', help='build directory (logs go to BUILD/qemu-tests/)')
    parser.addoption('--uefi', action='store_true',
                     help='boot every case through OVMF and the UEFI loader (default: the PVH entry where a case allows)')


def pytest_collection_modifyitems(config, items):
    # Two at a time (xdist -n 2): the long cases first, so the run does not
    # end with one of them alone on one core.
    items.sort(key=lambda it: 0 if it.get_closest_marker('slow') else 2 if it.get_closest_marker('quick') else 1)


@pytest.fixture
def ctx(request):
    """The case's rig.Ctx: named after the test (parametrized: NAME_ID),
    logs and scratch files in BUILD/qemu-tests/NAME.*."""
    build = request.config.getoption('--build')
    outdir = os.path.join(build, 'qemu-tests')
    os.makedirs(outdir, exist_ok=True)
    name = request.node.originalname[len('test_'):]
    spec = getattr(request.node, 'callspec', None)
    if spec:
        name += '_' + spec.id
    c = rig.Ctx(build, outdir, name,
                uefi=request.config.getoption('--uefi') or request.node.get_closest_marker('uefi') is not None)
    request.node.qemu_ctx = c
    return c


@pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_runtest_call(item):
    # tryfirst: this wrapper's code after the yield runs last, so raising
    # there fails the test without skipping other plugins' wrap-up.
    outcome = yield
    c = getattr(item, 'qemu_ctx', None)
    if c is not None and outcome.excinfo is None:
        rig.check_balance(c)
        rig.check_lockdep(c)
