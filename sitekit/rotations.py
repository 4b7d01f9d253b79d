"""How many commits CI's rotations span. The experiment files fall into GROUPS groups balanced on committed wall
time (experiments.rotation); each CI run carries one group, alternately: a run at an even commit count runs group
(count // 2) mod GROUPS fresh on the tuned seeds (CI's `nox -s tests`, besides every record a submission adds or
changes, which the run that lands it reproduces), and a run at an odd count runs that group under the held-out
condition (nox -s heldout). So every experiment file is reproduced fresh once in EXPERIMENTS commits and meets
the held-out condition once in HELD_OUT commits, and no CI run carries two groups. Every experiment's notebook
calls run once in NOTEBOOKS commits (nox -s notebooks). The noxfile reads this file by path (it imports nothing
of sitekit); the Run it yourself page states NOTEBOOKS, How we check and CONTRIBUTING state EXPERIMENTS.

Why one group a run: an experiment file runs in one process (a file's claims share its training runs), so the
longest file sets the floor of the step it is in. Lab 2's 24-block sweep alone is ~620 s of committed wall time
(~820 s under the held-out condition) and has a group to itself; the others carry ~450 s each. Carrying a fresh
group and a held-out group in every run made every CI run pay for two of them (the last measured .ci/run took
4,014 s against a 45-minute budget); one group a run costs each experiment one reproduction per 12 commits in
each condition instead of one per 6.
"""

GROUPS = 6
EXPERIMENTS = 2 * GROUPS  # commits in which every experiment file is reproduced fresh once
HELD_OUT = 2 * GROUPS  # commits in which every experiment file meets the held-out condition once
NOTEBOOKS = 12


def turn(count: int) -> tuple[str, int]:
    """The group of experiment files CI's run at `count` commits carries, and where: ("fresh", g) on even counts,
    ("heldout", g) on odd ones, g = (count // 2) mod GROUPS. Over any 2 * GROUPS consecutive counts each group
    takes each condition exactly once."""
    return ("heldout" if count % 2 else "fresh"), (count // 2) % GROUPS
