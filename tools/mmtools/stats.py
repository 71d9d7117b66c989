"""Summary statistics, one implementation for every tool.

sd is the sample standard deviation (n - 1), stderr = sd / sqrt(n).  With
no values everything is None; with one value sd and stderr are 0.0 (not
None), because the tables print a single run as its value with no spread
and the CSVs need a number.  None values in the input are skipped: a
counter one kernel lacks is missing, not zero."""
import math
from collections import namedtuple

Summary = namedtuple('Summary', 'n mean sd stderr')


def summary(xs):
    xs = [x for x in xs if x is not None]
    n = len(xs)
    if n == 0:
        return Summary(0, None, None, None)
    m = math.fsum(xs) / n
    if n == 1:
        return Summary(1, m, 0.0, 0.0)
    sd = math.sqrt(math.fsum((x - m) ** 2 for x in xs) / (n - 1))
    return Summary(n, m, sd, sd / math.sqrt(n))


def mean_stderr(xs):
    s = summary(xs)
    return s.mean, s.stderr


def mean_sd(xs):
    s = summary(xs)
    return s.mean, s.sd
