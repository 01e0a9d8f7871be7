"""tco: lifecycle TCO of an AI model, dedicated (BRL) vs public cloud (USD).

The library in three calls (see ``tco.api``)::

    import tco
    res = tco.run("scenarios/seed_70b_h200.toml")   # load, check, size, cost, FX risk, analysis
    tco.write(res, "output")                        # JSON, CSV ledger, workbook, proposal
"""

__version__ = "0.1.0"

from tco.api import Inputs, check, load, run, write  # noqa: E402  (light: api imports the pipeline lazily)

__all__ = ["Inputs", "__version__", "check", "load", "run", "write"]
