"""Sweeps: one question asked across thousands of scenarios (``python -m tco sweep SWEEP.toml``).

``spec`` reads the sweep file; ``cases`` lists the cases (grid or Latin hypercube, seeded); ``plan`` checks the
axes against the base scenario; ``case`` runs one case through ``tco.api`` (a client of the library, never beside
the engine); ``runner`` sends the cases to Dask in batches; ``table`` writes the tidy table; ``decision_map`` and
``map_sheet`` draw which option wins where; ``driver`` ties them together.
"""
