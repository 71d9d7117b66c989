"""TSC calibration: several windows per reference, the median, the spread
and the cross-check between HPET, PM timer and CPUID."""
from cases import case, expect, expect_ok, boot_record

FIELDS = ('tsc_windows', 'tsc_outliers', 'tsc_spread_ppm', 'tsc_hpet_hz', 'tsc_pmtimer_hz',
          'tsc_cpuid_hz', 'tsc_cpuid_leaf', 'tsc_disagree_ppm', 'tsc_warning')


@case
def tsc_calibration_icount(ctx):
    # Under -icount guest time is exact, so every window must agree and the
    # two references (q35 has both) must give the same rate.
    r = ctx.boot('quiet', icount=True, timeout=300)
    expect_ok(r)
    b = boot_record(r)
    for k in FIELDS:
        expect(k in b, 'boot record lacks %s' % k)
    expect(b['tsc_source'] == 'hpet', 'q35 has an HPET, source is %s' % b['tsc_source'])
    expect(b['tsc_windows'] >= 5, 'only %d windows' % b['tsc_windows'])
    expect(b['tsc_outliers'] == 0, '%d outlier windows under icount' % b['tsc_outliers'])
    expect(b['tsc_spread_ppm'] < 1000, 'spread %d ppm under icount' % b['tsc_spread_ppm'])
    expect(b['tsc_hpet_hz'] and b['tsc_pmtimer_hz'], 'both references should be measured')
    expect(b['tsc_disagree_ppm'] < 1000, 'hpet and pmtimer disagree by %d ppm' % b['tsc_disagree_ppm'])
    expect(b['tsc_warning'] is False, 'warning raised with agreeing sources')
    expect('clock sources disagree' not in r.log, 'warning printed with agreeing sources')


@case
def tsc_calibration_pmtimer_only(ctx):
    # Without an HPET the PM timer is the source; the record says so.
    r = ctx.boot('quiet', extra=['-machine', 'hpet=off'])
    expect_ok(r)
    b = boot_record(r)
    expect(b['tsc_source'] == 'pmtimer', 'source %s with hpet=off' % b['tsc_source'])
    expect(b['tsc_hpet_hz'] is None, 'an HPET rate without an HPET')
    expect(b['tsc_pmtimer_hz'] == b['tsc_hz'], 'the answer is not the PM timer median')
    expect(b['tsc_windows'] >= 5, 'only %d windows' % b['tsc_windows'])
