import math
import statistics

import pytest

from mmtools import stats


def test_empty_is_none():
    assert stats.summary([]) == (0, None, None, None)
    assert stats.mean_stderr([]) == (None, None)
    assert stats.summary([None, None]).n == 0


def test_one_value_has_no_spread():
    assert stats.summary([7]) == (1, 7.0, 0.0, 0.0)


def test_matches_statistics_module():
    xs = [600, 700, 650.5, 1e9, 3]
    s = stats.summary(xs)
    assert s.n == 5
    assert s.mean == pytest.approx(statistics.mean(xs))
    assert s.sd == pytest.approx(statistics.stdev(xs))
    assert s.stderr == pytest.approx(statistics.stdev(xs) / math.sqrt(5))


def test_known_figures():
    # The canned matrix log: 600 and 700 ms -> 650 +- 50 (stderr).
    assert stats.mean_stderr([600, 700]) == pytest.approx((650.0, 50.0))
    assert stats.mean_sd([710, 690]) == pytest.approx((700.0, math.sqrt(200)))


def test_none_skipped_not_zero():
    assert stats.summary([None, 4, 6]).mean == 5.0
