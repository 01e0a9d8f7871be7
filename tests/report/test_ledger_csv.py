"""tco.report.ledger_csv: the ledger as a FOCUS-style CSV, read back with csv.reader as a spreadsheet or a FinOps
tool would read it.

Checks: the rows are the ledger's rows (same count, same amounts to the last bit, in the billing currency and in BRL),
the billing periods (December rolls into January), the FOCUS categories, and CSV injection: any text cell that
starts with = + - @ tab or CR is neutralised and still round-trips through csv.reader whole."""

from __future__ import annotations

import csv
import dataclasses
import io
from collections import defaultdict
from types import SimpleNamespace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tco.ledger import Ledger
from tco.report import ledger_csv
from tco.report.ledger_csv import COLUMNS, RISKY_LEAD, render, text_cell


def _rows(res) -> list[dict]:
    return list(csv.DictReader(io.StringIO(render(res))))


@pytest.fixture(scope="module")
def seed_rows(seed_results):
    return _rows(seed_results)


def _one_option(res, option: str, **fleet_changes) -> SimpleNamespace:
    """A results stand-in whose ledger holds only ``option`` (its fleets changed as given): what ``render`` reads."""
    series = tuple(dataclasses.replace(x, fleet=dataclasses.replace(x.fleet, **fleet_changes)) if fleet_changes else x
                   for x in res.ledger.of(option))
    return SimpleNamespace(ledger=Ledger(res.ledger.months, res.ledger.usdbrl, series))


# --- text cells -------------------------------------------------------------------------------------------------

def test_text_cell_prefixes_each_risky_lead_with_a_quote():
    assert text_cell("=1+1") == "'=1+1"
    assert text_cell("+55 11") == "'+55 11"
    assert text_cell("-2+3") == "'-2+3"
    assert text_cell("@SUM(A1)") == "'@SUM(A1)"
    assert text_cell("\t=x") == "'\t=x"
    assert text_cell("\r=x") == "'\r=x"


def test_text_cell_leaves_ordinary_text_alone():
    assert text_cell("Dedicado BR — 8x H200") == "Dedicado BR — 8x H200"
    assert text_cell("a=b") == "a=b"  # only the first character matters
    assert text_cell("") == ""
    assert text_cell(" =x") == " =x"  # a leading space is not read as a formula


@settings(max_examples=300, deadline=None)
@given(text=st.text())
def test_text_cell_never_starts_with_a_risky_character_and_loses_nothing(text):
    out = text_cell(text)
    assert not out.startswith(RISKY_LEAD)
    assert out == text or (out == "'" + text and text.startswith(RISKY_LEAD))


_NAMES = st.one_of(st.text(min_size=1),
                   st.builds(lambda lead, rest: lead + rest, st.sampled_from(RISKY_LEAD), st.text()),
                   st.sampled_from(['=HYPERLINK("http://evil.example","x")', "a,b", 'say "hi"', "two\nlines",
                                    "cr\rinside", "+cmd|' /C calc'!A0"]))


@settings(max_examples=60, deadline=None)
@given(name=_NAMES)
def test_any_option_name_reaches_the_csv_neutralised_and_whole(seed_results, name):
    """Whatever the scenario names an option (commas, quotes, line breaks, a formula), csv.reader gives back one row
    per ledger row, each with 18 columns, the name neutralised exactly as text_cell does it."""
    src = seed_results.ledger.of(seed_results.options[0].name)
    ledger = Ledger(seed_results.ledger.months, seed_results.ledger.usdbrl,
                    tuple(dataclasses.replace(x, option=name) for x in src))
    text = render(SimpleNamespace(ledger=ledger))
    rows = list(csv.reader(io.StringIO(text, newline="")))
    assert rows[0] == list(COLUMNS)
    body = rows[1:]
    assert len(body) == len(list(ledger.rows()))
    assert all(len(r) == len(COLUMNS) for r in body)
    assert {r[COLUMNS.index("x_Option")] for r in body} == {text_cell(name)}


# --- the ledger, row for row -------------------------------------------------------------------------------------

def test_header_is_the_focus_columns(seed_results):
    first = render(seed_results).split("\n", 1)[0]
    assert next(csv.reader([first])) == list(COLUMNS)
    assert COLUMNS[:4] == ("BillingPeriodStart", "BillingPeriodEnd", "ChargePeriodStart", "ChargePeriodEnd")


def test_one_csv_row_per_ledger_row(seed_results, seed_rows):
    assert len(seed_rows) == len(list(seed_results.ledger.rows())) > 0
    assert all(float(r["BilledCost"]) != 0.0 for r in seed_rows)  # zero amounts are left out, as in the ledger


def test_amounts_add_up_to_each_line_in_its_own_currency(seed_results, seed_rows):
    """Σ BilledCost of an option's line = the ledger series' amount in the billing currency; the taxes line as the sum
    of its component rows, credits negative."""
    got: dict[tuple[str, str], float] = defaultdict(float)
    for r in seed_rows:
        got[r["x_Option"], r["x_CostLine"]] += float(r["BilledCost"])
    for x in seed_results.ledger.series:
        assert got[x.option, x.line] == pytest.approx(float(x.amount.sum()), rel=1e-12, abs=1e-9), (x.option, x.line)


def test_brl_amounts_add_up_to_each_option_tco(seed_results, seed_rows):
    for o in seed_results.options:
        brl = sum(float(r["x_BilledCostBRL"]) for r in seed_rows if r["x_Option"] == o.name)
        assert brl == pytest.approx(o.tco.deterministic, rel=1e-12)


def test_brl_amount_is_the_billed_cost_at_the_month_rate(seed_results, seed_rows):
    months = list(seed_results.months)
    for r in seed_rows:
        i = months.index(r["BillingPeriodStart"][:7])
        rate = float(r["x_ExchangeRateUSDBRL"])
        assert rate == (float(seed_results.ledger.usdbrl[i]) if r["BillingCurrency"] == "USD" else 1.0)
        assert float(r["x_BilledCostBRL"]) == pytest.approx(float(r["BilledCost"]) * rate, rel=1e-12)


def test_numbers_are_written_exactly_and_unquoted(seed_results):
    """Numbers are Python's shortest exact repr: float(text) gives back the engine's float bit for bit."""
    text = render(seed_results)
    first_row = text.split("\n")[1]
    x = seed_results.ledger.series[0]  # first option, training compute, first month
    assert f",{float(x.amount[0])!r}," in first_row  # unquoted
    row = next(csv.DictReader(io.StringIO(text)))
    assert float(row["BilledCost"]) == float(x.amount[0])
    assert float(row["x_ServerHours"]) == float(x.quantity[0])
    assert row["x_CostLine"] == x.line == "training_compute"


def test_server_hours_only_on_compute_lines(seed_rows):
    for r in seed_rows:
        compute = r["x_CostLine"] in ("training_compute", "inference_compute")
        assert (r["x_ServerHours"] != "") == compute, r


def test_billing_periods_run_month_start_to_next_month_start(seed_rows):
    by_start = {r["BillingPeriodStart"]: r["BillingPeriodEnd"] for r in seed_rows}
    assert by_start["2027-01-01"] == "2027-02-01"
    assert by_start["2027-12-01"] == "2028-01-01"  # December rolls into the next year
    assert by_start["2029-12-01"] == "2030-01-01"
    assert all(r["ChargePeriodStart"] == r["BillingPeriodStart"] and r["ChargePeriodEnd"] == r["BillingPeriodEnd"]
               for r in seed_rows)


def test_focus_categories(seed_rows):
    for r in seed_rows:
        line, component = r["x_CostLine"], r["x_TaxComponent"]
        expected = ("Credit" if component == "credits" else "Tax" if line == "taxes"
                    else "Purchase" if line == "setup" else "Usage")
        assert r["ChargeCategory"] == expected
        assert r["ServiceCategory"] == ledger_csv.SERVICE[line]
        assert (component != "") == (line == "taxes")
    assert {r["ServiceCategory"] for r in seed_rows if r["x_CostLine"] == "egress"} == {"Networking"}
    # a credit is written as on a bill: negative
    credits = [float(r["BilledCost"]) for r in seed_rows if r["ChargeCategory"] == "Credit"]
    assert credits and all(c < 0 for c in credits)


def test_a_month_of_tax_rows_adds_up_to_the_taxes_line(seed_results, seed_rows):
    o = seed_results.options[0].name
    taxes = seed_results.ledger.line(o, "taxes")
    i = 5
    month = seed_results.months[i]
    rows = [r for r in seed_rows if r["x_Option"] == o and r["x_CostLine"] == "taxes"
            and r["BillingPeriodStart"].startswith(month)]
    # Σ taxes − credits = the line
    assert sum(float(r["BilledCost"]) for r in rows) == pytest.approx(float(taxes.amount[i]), rel=1e-12)
    assert len(rows) >= 2


def test_provider_region_and_offer_come_from_the_fleet_that_bills_the_line(seed_results, seed_rows):
    hybrid = next(o for o in seed_results.options if o.kind == "hybrid")
    rows = [r for r in seed_rows if r["x_Option"] == hybrid.name]
    training = {(r["ProviderName"], r["ResourceType"]) for r in rows if r["x_CostLine"] == "training_compute"}
    serving = {(r["ProviderName"], r["ResourceType"]) for r in rows if r["x_CostLine"] == "inference_compute"}
    assert training == {(hybrid.resolved.training.provider, hybrid.resolved.training.offer_id)}
    assert serving == {(hybrid.resolved.inference.provider, hybrid.resolved.inference.offer_id)}
    assert training != serving


@pytest.mark.parametrize(("pricing", "category"), [("on_demand", "Standard"), ("spot", "Dynamic"),
                                                   ("reserved_1yr", "Committed"), ("monthly", "Committed")])
def test_pricing_category_of_the_plain_pricings(seed_results, pricing, category):
    aws = next(o for o in seed_results.options if o.resolved.inference.pricing == "on_demand")
    rows = _rows(_one_option(seed_results, aws.name, pricing=pricing))
    assert {r["PricingCategory"] for r in rows} == {category}


# Was a table of five pricings: every other commitment (savings plans, CUDs, ri_*_upfront_effective, reserved_2yr/5yr)
# was written 'Standard' instead of FOCUS 'Committed'.
@pytest.mark.parametrize("pricing", ["savings_plan_ec2_3yr", "cud_1yr", "ri_3yr_standard_all_upfront_effective",
                                     "reserved_5yr"])
def test_every_committed_pricing_is_focus_committed(seed_results, pricing):
    aws = next(o for o in seed_results.options if o.resolved.inference.pricing == "on_demand")
    rows = _rows(_one_option(seed_results, aws.name, pricing=pricing))
    assert {r["PricingCategory"] for r in rows} == {"Committed"}


def test_pricing_category_by_hand():
    from tco.report.ledger_csv import pricing_category

    assert [pricing_category(p) for p in ("", "on_demand", "spot", "monthly", "savings_plan_ec2_3yr", "cud_3yr",
                                          "capacity_block")] == [
        "Standard", "Standard", "Dynamic", "Committed", "Committed", "Committed", "Committed"]
