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


def welch(xs, ys):
    """Welch's t of mean(xs) - mean(ys) and its degrees of freedom
    (Welch-Satterthwaite); (None, None) when a side has fewer than two
    values or neither side varies."""
    a, b = summary(xs), summary(ys)
    if a.n < 2 or b.n < 2:
        return None, None
    va, vb = a.sd ** 2 / a.n, b.sd ** 2 / b.n
    if va + vb == 0:
        return None, None
    t = (a.mean - b.mean) / math.sqrt(va + vb)
    df = (va + vb) ** 2 / ((va ** 2 / (a.n - 1) if va else 0) + (vb ** 2 / (b.n - 1) if vb else 0))
    return t, df


def mann_whitney(xs, ys):
    """Mann-Whitney U of xs against ys (pairs where x > y, ties count a
    half; U of n*m) and its two-sided p: exact, by enumerating every split
    of the pooled values, when there are at most 200000 splits (10 + 10
    values), else the normal approximation.  (None, None) without
    values on both sides."""
    xs = [x for x in xs if x is not None]
    ys = [y for y in ys if y is not None]
    n, m = len(xs), len(ys)
    if not n or not m:
        return None, None

    def u_of(a, b):
        return sum(1.0 if x > y else 0.5 if x == y else 0.0 for x in a for y in b)

    u = u_of(xs, ys)
    mid = n * m / 2.0
    if math.comb(n + m, n) <= 200000:
        import itertools
        pool = xs + ys
        dev, hits, total = abs(u - mid), 0, 0
        for pick in itertools.combinations(range(n + m), n):
            chosen = set(pick)
            a = [pool[i] for i in pick]
            b = [pool[i] for i in range(n + m) if i not in chosen]
            total += 1
            if abs(u_of(a, b) - mid) >= dev - 1e-9:
                hits += 1
        return u, hits / total
    sd = math.sqrt(n * m * (n + m + 1) / 12.0)
    z = (abs(u - mid) - 0.5) / sd if sd else 0.0
    return u, math.erfc(max(z, 0.0) / math.sqrt(2))
