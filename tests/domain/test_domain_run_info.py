"""The run's FX information and efficiencies write the JSON's keys exactly: the optional parts (the Focus edition,
the Monte Carlo parameters, the bootstrap's history) present only when the run has them."""

from tco.domain.run_info import BasePathInfo, Efficiencies, FocusEdition, FxInfo, MonteCarloInfo

SPOT = BasePathInfo(path="spot", label="spot held", source="fx.usdbrl")
FOCUS = BasePathInfo(path="focus", label="Focus median", source="focus.csv, edition 2026-11",
                     focus=FocusEdition(edition="2026-11", as_of="2026-11-28", status="sourced",
                                        year_ends={"2027": 5.5, "2028": 5.6}, held_from=None))
COMMON = {"model", "paths", "seed", "usdbrl", "volatility", "base_path_annual_change_rate", "base_path",
          "base_path_label", "base_path_source"}
FOCUS_KEYS = {"focus_edition", "focus_as_of", "focus_status", "focus_year_ends", "focus_held_from"}
MC_KEYS = {"drift", "centred_on", "antithetic", "chunk_paths"}


def info(base: BasePathInfo, mc: MonteCarloInfo | None = None, model: str = "fixed") -> FxInfo:
    return FxInfo(model=model, paths=1000, seed=7, usdbrl=5.4, volatility=0.15, base_path_annual_change_rate=0.02,
                  base=base, monte_carlo=mc)


def test_fixed_spot_writes_the_common_keys_only():
    d = info(SPOT).as_dict()
    assert set(d) == COMMON
    assert d["base_path"] == "spot" and d["base_path_source"] == "fx.usdbrl" and d["paths"] == 1000


def test_focus_adds_its_edition_with_held_from_as_null():
    d = info(FOCUS).as_dict()
    assert set(d) == COMMON | FOCUS_KEYS
    assert d["focus_held_from"] is None and d["focus_year_ends"] == {"2027": 5.5, "2028": 5.6}


def test_gbm_adds_the_monte_carlo_keys_without_the_bootstrap_ones():
    gbm = MonteCarloInfo(drift=0.01, centred_on="base path", antithetic=True, chunk_paths=4096)
    d = info(FOCUS, gbm, "gbm").as_dict()
    assert set(d) == COMMON | FOCUS_KEYS | MC_KEYS
    assert d["drift"] == 0.01 and d["antithetic"] is True and d["chunk_paths"] == 4096


def test_bootstrap_adds_its_block_and_history():
    boot = MonteCarloInfo(drift=None, centred_on="base path", antithetic=False, chunk_paths=4096, block_months=12,
                          history="usdbrl_monthly.csv")
    d = info(SPOT, boot, "bootstrap").as_dict()
    assert set(d) == COMMON | MC_KEYS | {"block_months", "history"}
    assert d["drift"] is None and d["block_months"] == 12 and d["history"] == "usdbrl_monthly.csv"


def test_efficiencies_write_defaults_used():
    e = Efficiencies(mfu=0.4, bandwidth_efficiency_share=0.8, flops_efficiency_share=0.6,
                     scaling_efficiency={"nvlink": 0.9}, serving_calibration={"name": "default"},
                     training_mfu={"base": {"bf16": 0.4}})
    assert e.as_dict() == {"mfu": 0.4, "bandwidth_efficiency_share": 0.8, "flops_efficiency_share": 0.6,
                           "scaling_efficiency": {"nvlink": 0.9}, "serving_calibration": {"name": "default"},
                           "training_mfu": {"base": {"bf16": 0.4}}}
