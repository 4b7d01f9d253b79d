"""Benchmark sweeps behind the Measured costs page (`nox -s bench`); not part of `nox -s tests`."""
