"""The evaluation lab: question sets, sweeps, run records and trade-off plots."""
