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


def test_welch_known_figures():
    # By hand: means 2 and 5, variances 1 and 1, n 3 each:
    # t = -3 / sqrt(2/3), df = (2/3)^2 / (2 * (1/3)^2 / 2) = 4.
    t, df = stats.welch([1, 2, 3], [4, 5, 6])
    assert t == pytest.approx(-3 / math.sqrt(2 / 3))
    assert df == pytest.approx(4.0)
    assert stats.welch([1], [2, 3]) == (None, None)
    assert stats.welch([2, 2], [2, 2]) == (None, None)


def test_mann_whitney_exact():
    # Fully separated 5 against 5: U 25 of 25, and only the two extreme
    # splits of C(10,5) = 252 are as far out: p = 2/252.
    u, p = stats.mann_whitney([6, 7, 8, 9, 10], [1, 2, 3, 4, 5])
    assert u == 25 and p == pytest.approx(2 / 252)
    # Ties count a half; identical samples are not different at all.
    u, p = stats.mann_whitney([1, 1], [1, 1])
    assert u == 2 and p == pytest.approx(1.0)
    assert stats.mann_whitney([], [1]) == (None, None)


def test_mann_whitney_normal_beyond_exact():
    # 12 against 12 has C(24,12) > 200000 splits: the normal
    # approximation, still far from 1 for separated samples.
    u, p = stats.mann_whitney(list(range(100, 112)), list(range(12)))
    assert u == 144 and p < 0.001
