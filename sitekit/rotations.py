"""How many commits a rotation spans: every experiment file runs under the held-out condition once in
HELD_OUT commits (nox -s heldout), fresh on the tuned seeds once in EXPERIMENTS commits (CI's `nox -s tests`,
besides every record a submission adds or changes, which the run that lands it reproduces), and every
experiment's notebook calls run once in NOTEBOOKS commits (nox -s notebooks). The noxfile reads this file
by path (it imports nothing of sitekit); the Run it yourself page states NOTEBOOKS, How we check and
CONTRIBUTING state EXPERIMENTS.

With HELD_OUT = 6 the longest file (Lab 2's 24-block sweep, ~470 s, ~820 s under the held-out condition) has a
slot to itself and the others carry ~420 s of committed wall time each (experiments.rotation balances them).
The fresh run uses the same balanced slots, half a turn apart, so no CI run carries the longest slot twice.
The notebooks' replay rotates over twice as many slots: the tests session has just run or reproduced each
experiment's record, so this checks the notebook's path to the same numbers, at about a twelfth of the
experiments' time per commit.
"""

HELD_OUT = 6
NOTEBOOKS = 12
EXPERIMENTS = 6  # CI's fresh run of the tuned seeds: slot (commit count + 3) mod 6, plus what a submission changed
EXPERIMENTS_OFFSET = 3  # half a turn from the held-out slot: the two longest slots never fall in one run
