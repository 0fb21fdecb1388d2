"""The evaluation lab: question sets, token-level metrics, sweeps, answer judging and experiment records.

Modules: ``datasets`` (Chroma-format question sets), ``metrics`` (recall / precision / IoU on character
ranges, hit rate, MRR), ``sweep`` (strategies × grid, run comparison), ``judge`` (answers labelled by a
local LLM), ``records`` (runs stored in SQLite), ``statistics`` (paired intervals, p-values and exact tests
for comparing two configurations or several against a baseline) and ``export`` (CSV, JSON, trade-off plots).
"""
