"""Checks that say how far they passed, and the seeds a claim runs on.

A claim's check asserts through `above`, `below` and `between` instead of a bare comparison. Each call
asserts that every value (one per seed, or per case) clears its threshold and leaves a `Margin`: the
worst value, the median and the range, how far the worst sits from the threshold relative to it, and in
units of the spread across the values. `claim.check` collects the margins of the check it applies; the
record keeps them, the receipt and the ledger show them, and the run prints the thinnest.

Two kinds of claim (the `claim` marker's `exact="..."` says which):

- **exact**: an identity, a shape, a count, bit-for-bit or rounding-level equality. It is asserted
  exactly, and needs no margin floor: it holds or it does not.
- **statistical** (the default): a measured finding that a different seed or processor could move. Its
  every margin must clear the floor, FLOOR_RELATIVE of the threshold or FLOOR_SPREADS times the
  seed-to-seed spread, so that a threshold the values only just clear fails the build here rather than
  on someone else's machine (CONTRIBUTING, "Margins").

This module knows nothing about pytest: the plugin wires it to the `claim` handle and the `seeds` fixture.
"""

from __future__ import annotations

import contextlib
import math
import os
import statistics
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

FLOOR_RELATIVE = 0.2  # the worst value clears its threshold by at least 20 % of the threshold...
FLOOR_SPREADS = 3.0  # ...or by at least three seed-to-seed standard deviations (with MIN_SPREAD_N values)
MIN_SPREAD_N = 3

# Seed sets. Seed i of a set with base b is b + i. "tuned" is the set the thresholds were written
# against; "held-out" was chosen once, when the sets were introduced, and no threshold is set by looking
# at it; any integer names a further base (CI runs held-out; anyone may run another).
SEED_SETS = {"tuned": 0, "held-out": 7_000_003}
SEEDS_ENV = "SITE_SEEDS"


class SeedSetError(ValueError):
    """An unknown seed set was asked for."""


def seed_base(name: str) -> int:
    """The base of a named seed set, or of an integer one (`--seeds 12345`)."""
    if name in SEED_SETS:
        return SEED_SETS[name]
    try:
        base = int(name)
    except ValueError:
        raise SeedSetError(
            f"unknown seed set {name!r} (from --seeds or {SEEDS_ENV}): use one of "
            f"{', '.join(SEED_SETS)}, or an integer base such as 12345"
        ) from None
    if base < 0:
        raise SeedSetError(f"seed set {name!r}: a base must be a non-negative integer")
    return base


@dataclass(frozen=True)
class Seeds:
    """The seed set a run hands its claims: `seeds(5)` is the first five seeds of the set."""

    name: str

    @property
    def base(self) -> int:
        return seed_base(self.name)

    def __call__(self, n: int) -> list[int]:
        if n < 1:
            raise ValueError(f"a claim needs at least one seed (asked for {n})")
        return [self.base + i for i in range(n)]

    def first(self) -> int:
        """The one seed of a claim that needs a single run."""
        return self.base


def chosen_seed_set(option: str | None = None) -> str:
    """The seed set this run uses: --seeds, else SITE_SEEDS, else 'tuned'."""
    name = option or os.environ.get(SEEDS_ENV) or "tuned"
    seed_base(name)  # fails early with the message above
    return name


@dataclass(frozen=True)
class Margin:
    """How far one assertion's values sat from its threshold."""

    what: str
    op: str  # ">" or "<" (the values must be above or below the threshold)
    threshold: float
    n: int
    worst: float
    median: float
    low: float
    high: float
    relative: float  # (worst − threshold)/|threshold| for ">", (threshold − worst)/|threshold| for "<"
    spread: float | None  # standard deviation of the values (None under MIN_SPREAD_N values)
    spreads: float | None  # |worst − threshold| in units of that spread (None where the spread is 0 or None)
    passed: bool
    values: tuple[float, ...] = field(default=(), repr=False, compare=False)  # what was checked (not recorded)

    @property
    def clears_floor(self) -> bool:
        if not self.passed:
            return False
        if self.relative >= FLOOR_RELATIVE - 1e-12:  # 1.2 over 1.0 is 20 %, rounding aside
            return True
        return self.spreads is not None and self.spreads >= FLOOR_SPREADS

    def as_record(self) -> dict[str, Any]:
        out = asdict(self)
        del out["values"]
        for key in ("relative", "spreads"):
            if isinstance(out[key], float) and not math.isfinite(out[key]):
                out[key] = repr(out[key])
        out["clears_floor"] = self.clears_floor
        return out


def _floats(values: float | Sequence[float]) -> list[float]:
    items = list(values) if isinstance(values, Sequence) and not isinstance(values, str) else [values]
    out = []
    for v in items:
        if isinstance(v, bool) or (not isinstance(v, (int, float)) and not hasattr(v, "__float__")):
            raise TypeError(f"a margin needs numbers, got {type(v).__name__}: {v!r}")
        out.append(float(v))
    if not out:
        raise ValueError("a margin needs at least one value")
    return out


def _sign(gap: float) -> float:
    return math.inf if gap > 0 else -math.inf if gap < 0 else 0.0


def margin(what: str, op: str, values: float | Sequence[float], threshold: float) -> Margin:
    """The margin of `values op threshold` (computed whether or not it holds)."""
    if op not in (">", "<"):
        raise ValueError(f"op must be '>' or '<', not {op!r}")
    xs = _floats(values)
    t = float(threshold)
    worst = min(xs) if op == ">" else max(xs)
    gap = worst - t if op == ">" else t - worst
    passed = all((x > t) if op == ">" else (x < t) for x in xs) and not any(math.isnan(x) for x in xs)
    relative = gap / abs(t) if t else _sign(gap)  # threshold 0 is a sign check: no scale to measure against
    spread = statistics.stdev(xs) if len(xs) >= MIN_SPREAD_N else None
    spreads = abs(gap) / spread if spread else None
    if spreads is not None and gap < 0:
        spreads = -spreads
    return Margin(
        what=what,
        op=op,
        threshold=t,
        n=len(xs),
        worst=worst,
        median=statistics.median(xs),
        low=min(xs),
        high=max(xs),
        relative=relative,
        spread=spread,
        spreads=spreads,
        passed=passed,
        values=tuple(xs),
    )


# Where the margins of the check being applied go (set by the plugin around one check call).
_SINK: list[list[Margin]] = []


@contextlib.contextmanager
def collecting() -> Iterator[list[Margin]]:
    """Collect the margins of every above/below/between call made inside the block."""
    found: list[Margin] = []
    _SINK.append(found)
    try:
        yield found
    finally:
        _SINK.pop()


def _assert(m: Margin) -> Margin:
    if _SINK:
        _SINK[-1].append(m)
    if not m.passed:
        side = "above" if m.op == ">" else "below"
        raise AssertionError(
            f"{m.what}: every value must be {side} {m.threshold:.6g}; worst {m.worst:.6g} "
            f"(median {m.median:.6g}, range {m.low:.6g} to {m.high:.6g}, {m.n} values)"
        )
    return m


def above(what: str, values: float | Sequence[float], threshold: float) -> Margin:
    """Assert every value is above `threshold`; return (and report) the margin."""
    return _assert(margin(what, ">", values, threshold))


def below(what: str, values: float | Sequence[float], threshold: float) -> Margin:
    """Assert every value is below `threshold`; return (and report) the margin."""
    return _assert(margin(what, "<", values, threshold))


def between(what: str, values: float | Sequence[float], low: float, high: float) -> tuple[Margin, Margin]:
    """Assert every value lies strictly between `low` and `high` (two margins, one per side)."""
    return above(f"{what} (low side)", values, low), below(f"{what} (high side)", values, high)


def relative(m: dict[str, Any]) -> float:
    """A margin record's relative margin (JSON keeps ±inf, a sign check's, as the text 'inf')."""
    return float(m["relative"])


def describe(m: dict[str, Any]) -> str:
    """A margin record in words: 'passes by 38 % (worst 1.38× the threshold; 4.1 spreads)'."""
    rel = relative(m)
    t, worst = m["threshold"], m["worst"]
    if not math.isfinite(rel):
        head = "clears a threshold of zero"
    elif rel >= 1 and m["op"] == ">" and t > 0:
        head = f"passes with the worst value {_times(worst / t)} the threshold"
    elif m["op"] == "<" and t > 0 and worst > 0 and worst < t / 10:
        head = f"passes with the worst value a factor of {_times(t / worst).removesuffix(' times')} under the threshold"
    else:
        head = f"passes by {100 * rel:.3g} %" if rel >= 0 else f"misses by {-100 * rel:.3g} %"
    spreads = m.get("spreads")
    if isinstance(spreads, (int, float)) and math.isfinite(spreads):
        head += f", {abs(spreads):.3g} seed-to-seed spreads"
    return head


def _times(ratio: float) -> str:
    """2.04 -> '2.04 times'; 1896 -> '1,896 times'; 1e10 -> '1e+10 times' (pages typeset the power)."""
    if ratio < 100:
        return f"{ratio:.3g} times"
    if ratio < 1e6:
        return f"{ratio:,.0f} times"
    return f"{ratio:.2g} times"


def thinnest(margins: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The margin of a claim nearest its threshold (relative), or None without margins."""
    return min(margins, key=relative) if margins else None


def paired_interval(differences: Sequence[float], confidence: float = 0.95) -> dict[str, float]:
    """A paired design's summary: the mean of the paired differences, its two-sided t interval, and the interval's
    half-width, which is the smallest mean difference this design could tell from zero given the spread it saw.

    Judged by the spread of the paired differences (not by either arm's spread between seeds); with n = 3 the t
    quantile is 4.30, so three seeds resolve only differences several times their own scatter."""
    from scipy import stats  # the claim side only: pages never import this

    d = _floats(differences)
    if len(d) < 2:
        raise ValueError(f"paired_interval needs at least 2 paired differences, got {len(d)}")
    mean = statistics.mean(d)
    half = float(stats.t.ppf(0.5 + confidence / 2, len(d) - 1)) * statistics.stdev(d) / math.sqrt(len(d))
    return {"n": len(d), "mean": mean, "low": mean - half, "high": mean + half, "half_width": half}
