"""Time: TSC calibration (several windows per reference, the median, the
spread and the cross-check between HPET, PM timer and CPUID), the boot's
own duration, sleep accuracy and the tick rate.

Everything judged here runs under -icount with sleep=off (qemurig's
icount='exact'): guest time is then exact even across idle spells, so a
busy host cannot make these fail.  Each such boot takes minutes under TCG,
so one boot serves several checks (test=sleep,timer)."""
import pytest

from rig import expect, expect_ok, boot_record

FIELDS = ('tsc_windows', 'tsc_outliers', 'tsc_spread_ppm', 'tsc_hpet_hz', 'tsc_pmtimer_hz',
          'tsc_cpuid_hz', 'tsc_cpuid_leaf', 'tsc_disagree_ppm', 'tsc_warning')


def selftests(r, *names):
    expect_ok(r)
    out = {}
    for name in names:
        s = [x for x in r.find('selftest') if x.get('name') == name]
        expect(len(s) == 1, 'no selftest record for %s' % name)
        expect(s[0]['ok'], '%s selftest failed: %r' % (name, s[0]))
        out[name] = s[0].get('data', {})
    return out


def check_clock(b):
    for k in FIELDS:
        expect(k in b, 'boot record lacks %s' % k)
    expect(b['boot_ms'] < 50, 'kernel entry to boot report took %s ms (limit 50)' % b['boot_ms'])
    expect(b['tsc_source'] == 'hpet', 'q35 has an HPET, source is %s' % b['tsc_source'])
    expect(b['tsc_windows'] >= 5, 'only %d windows' % b['tsc_windows'])
    expect(b['tsc_outliers'] == 0, '%d outlier windows under icount' % b['tsc_outliers'])
    expect(b['tsc_spread_ppm'] < 1000, 'spread %d ppm under icount' % b['tsc_spread_ppm'])
    expect(b['tsc_hpet_hz'] and b['tsc_pmtimer_hz'], 'both references should be measured')
    expect(b['tsc_disagree_ppm'] < 1000, 'hpet and pmtimer disagree by %d ppm' % b['tsc_disagree_ppm'])
    expect(b['tsc_warning'] is False, 'warning raised with agreeing sources')


def check_timing(d, hz, mode):
    for ns in d['sleep']['sleep_100ms_ns']:
        expect(95000000 <= ns <= 105000000, 'sleep(100 ms) took %d ns (%s)' % (ns, mode))
    t = d['timer']
    expect(abs(t['measured_hz'] - hz) <= hz * 0.05, 'tick rate %s for hz=%d %s' % (t['measured_hz'], hz, mode))


@pytest.mark.slow
def test_time_oneshot_icount(ctx):
    # The default timer mode at 1000 Hz; the boot record's clock evidence.
    # At 16 GiB, so the same icount boot also judges that boot work does
    # not grow with RAM (boot_ms < 50 in check_clock, as at 256 MiB; the
    # standalone check is test_memscale_boot_16g_icount, in make test-long).
    r = ctx.boot('quiet test=sleep,timer hz=1000 timer=oneshot', mem='16G', icount='exact', timeout=600)
    d = selftests(r, 'sleep', 'timer')
    check_timing(d, 1000, 'oneshot')
    b = boot_record(r)
    check_clock(b)
    expect(b['usable_bytes'] > 15 * 2**30, 'usable %d MiB with -m 16G' % (b['usable_bytes'] >> 20))
    expect('clock sources disagree' not in r.log, 'warning printed with agreeing sources')
    cpu = r.find('cpu')[0]
    expect(cpu['ticks'] > 0 and cpu['ctx_switches'] > 0, 'cpu record %r' % cpu)


def test_time_periodic_icount(ctx):
    r = ctx.boot('quiet test=sleep,timer hz=250 timer=periodic', icount='exact', timeout=600)
    check_timing(selftests(r, 'sleep', 'timer'), 250, 'periodic')


def test_tsc_calibration_pmtimer_only(ctx):
    # Without an HPET the PM timer is the source; the record says so.
    r = ctx.boot('quiet', extra=['-machine', 'hpet=off'])
    expect_ok(r)
    b = boot_record(r)
    expect(b['tsc_source'] == 'pmtimer', 'source %s with hpet=off' % b['tsc_source'])
    expect(b['tsc_hpet_hz'] is None, 'an HPET rate without an HPET')
    expect(b['tsc_pmtimer_hz'] == b['tsc_hz'], 'the answer is not the PM timer median')
    expect(b['tsc_windows'] >= 5, 'only %d windows' % b['tsc_windows'])
