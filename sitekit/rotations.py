"""How many commits a rotation spans: every experiment file runs under the held-out condition once in
HELD_OUT commits (nox -s heldout), and every experiment's notebook calls run once in NOTEBOOKS commits
(nox -s notebooks). The noxfile reads this file by path (it imports nothing of sitekit); the Run it yourself
page states NOTEBOOKS.

With HELD_OUT = 6 the longest file (Lab 2's 24-block sweep, ~470 s, ~820 s under the held-out condition) has a
slot to itself and the others carry ~420 s of committed wall time each (experiments.rotation balances them).
The notebooks' replay rotates over twice as many slots: the tests session has just run every experiment
fresh, so this checks the notebook's path to the same numbers, at about a twelfth of the experiments' time per
commit.
"""

HELD_OUT = 6
NOTEBOOKS = 12
