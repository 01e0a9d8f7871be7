"""Loaders of the price files: cloud_offers.csv, dedicated_offers.csv, providers.csv, egress_tiers.csv and
storage.csv; every price row with its status, source and date."""

from __future__ import annotations

from dataclasses import replace

from tco import constants
from tco.catalog.rows import Rows, all_given
from tco.catalog.types import (
    BR_BILLING, MAX_BRL_PER_MONTH, MAX_USD_PER_HOUR, STATUS_ALIASES, STATUSES, CloudOffer, CloudPrice, DedicatedOffer,
    EgressTable, Provider, StoragePrice,
)
from tco.errors import Problem, closest


def _status(r: Rows, line: int, row: dict, default: str) -> str:
    st = (row.get("status") or default).strip()
    st = STATUS_ALIASES.get(st, st)
    if st not in STATUSES:
        r.problems.append(Problem(str(r.path), "status", f"unknown status {st!r}; {closest(st, list(STATUSES))}", line))
    return st



INDEXATIONS = ("ipca", "igpm", "incc", "none")
"""What a dedicated contract's price is indexed to (the scenario's indexation_rate gives the yearly figure)."""

HOURS_PER_MONTH = constants.HOURS_PER_MONTH.value


def _row_identity(r: Rows, line: int, row: dict, seen: dict[tuple[str, str], int], key: tuple[str, str]) -> None:
    """Where a row comes from and that its id is its provider's and new in this file (a later file may replace a
    row; one file may not give it twice)."""
    r.provenance(line, row)
    oid, provider = key[0].strip(), (row.get("provider") or "").strip()
    if oid and provider and oid.split("/")[0] != provider:
        r.problems.append(Problem(str(r.path), "provider", f"offer {oid!r} starts with {oid.split('/')[0]!r} but its "
                                  f"provider is {provider!r}; an offer id starts with its provider", line))
    if oid and key in seen:
        what = f"offer {oid!r}" + (f" with pricing {key[1]!r}" if key[1] else "")
        r.problems.append(Problem(str(r.path), "offer_id", f"{what} is already given on line {seen[key]}; give it "
                                  "once (a file in catalog_dir replaces the shipped row)", line))
    seen.setdefault(key, line)


def _indexation(r: Rows, line: int, row: dict) -> None:
    v = (row.get("indexation") or "ipca").strip()
    if v not in INDEXATIONS:
        r.problems.append(Problem(str(r.path), "indexation", f"unknown indexation {v!r}; "
                                  f"{closest(v, list(INDEXATIONS))}", line))


def _upfront_within_term(r: Rows, line: int, usd: float | None, upfront: float | None, term: float | None) -> None:
    """An upfront payment is part of the effective hourly rate over the term, so it cannot exceed that rate times
    the term's hours (1 % allowed for rounding: AWS's year is 8,760 h = 12 × 730)."""
    if usd and upfront and term and upfront > usd * HOURS_PER_MONTH * term * 1.01:
        r.problems.append(Problem(str(r.path), "upfront_usd", f"upfront {upfront:,.2f} USD is more than the effective "
                                  f"rate over the whole term ({usd:g} USD/h × {HOURS_PER_MONTH:g} h × {term:g} months "
                                  f"= {usd * HOURS_PER_MONTH * term:,.2f} USD)", line))


def load_cloud(paths, problems):
    heads: dict[str, tuple[str, str, str, str, int]] = {}  # offer id → its last row's fields (a later file wins)
    prices_of: dict[str, dict[str, CloudPrice]] = {}  # offer id → its prices, one per pricing, over every file
    for p in paths:
        r = Rows(p, ("offer_id", "provider", "region", "instance", "gpu", "gpu_count", "pricing", "usd_per_hour",
                      "source", "as_of"))
        seen: dict[tuple[str, str], int] = {}
        for line, row in r.rows:
            _row_identity(r, line, row, seen, (row.get("offer_id", ""), row.get("pricing", "")))
            count = r.num(line, row, "gpu_count", lo=1, hi=1024, integer=True)
            usd = r.num(line, row, "usd_per_hour", False, lo=0, hi=MAX_USD_PER_HOUR, lo_open=True)
            oid = r.text(line, row, "offer_id")
            if count is None or not oid or (usd is None and (row.get("usd_per_hour") or "").strip()):
                continue
            term = r.num(line, row, "term_months", False, lo=1, hi=120, integer=True)
            upfront = r.num(line, row, "upfront_usd", False, lo=0, hi=1e9)
            _upfront_within_term(r, line, usd, upfront, term)
            price = CloudPrice(usd, _status(r, line, row, "listed"), row["source"], row["as_of"], upfront,
                               int(term) if term else None, row.get("note") or "")
            prices_of.setdefault(oid, {})[row["pricing"]] = price
            heads[oid] = (row["provider"], row["region"], row["instance"], row["gpu"], int(count))
        problems += r.problems
    return {oid: CloudOffer(oid, provider, region, instance, gpu, count, prices_of[oid])
            for oid, (provider, region, instance, gpu, count) in heads.items()}



def load_dedicated(paths, problems):
    out = {}
    for p in paths:
        r = Rows(p, ("offer_id", "provider", "gpu", "gpu_count", "brl_per_month", "setup_fee_brl",
                      "min_term_months", "source", "as_of"))
        seen: dict[tuple[str, str], int] = {}
        for line, row in r.rows:
            _row_identity(r, line, row, seen, (row.get("offer_id", ""), ""))
            _indexation(r, line, row)
            vals = all_given([r.num(line, row, "gpu_count", lo=1, hi=1024, integer=True),
                               r.num(line, row, "brl_per_month", lo=0, hi=MAX_BRL_PER_MONTH, lo_open=True),
                               r.num(line, row, "setup_fee_brl", lo=0, hi=MAX_BRL_PER_MONTH),
                               r.num(line, row, "min_term_months", lo=1, hi=240, integer=True)])
            if vals is None or not r.text(line, row, "offer_id"):
                continue
            low = r.num(line, row, "brl_per_month_low", False, lo=0, hi=MAX_BRL_PER_MONTH, lo_open=True)
            high = r.num(line, row, "brl_per_month_high", False, lo=0, hi=MAX_BRL_PER_MONTH, lo_open=True)
            if (low is not None and low > vals[1]) or (high is not None and high < vals[1]):
                shown = " ≤ ".join("—" if v is None else f"{v:g}" for v in (low, vals[1], high))
                r.problems.append(Problem(str(p), "brl_per_month", "the price range must hold brl_per_month_low ≤ "
                                          f"brl_per_month ≤ brl_per_month_high, got {shown}", line))
            out[row["offer_id"]] = DedicatedOffer(row["offer_id"], row["provider"], row["gpu"], int(vals[0]), vals[1],
                                                  vals[2], int(vals[3]), row.get("indexation", "ipca"),
                                                  _status(r, line, row, "estimate"), row.get("derivation", ""),
                                                  row["source"], row["as_of"],
                                                  brl_per_month_low=low, brl_per_month_high=high)
        problems += r.problems
    return out



def load_providers(paths, problems):
    out = {}
    for p in paths:
        r = Rows(p, ("provider", "br_billing", "br_billing_source", "as_of"))
        for line, row in r.rows:
            r.provenance(line, row, "br_billing_source")
            if row["br_billing"] not in BR_BILLING:
                r.problems.append(Problem(str(p), "br_billing", f"br_billing must be one of {', '.join(BR_BILLING)}; "
                                          f"{closest(row['br_billing'], list(BR_BILLING))}", line))
            out[row["provider"]] = Provider(row["provider"], row.get("name") or row["provider"], row["br_billing"],
                                            row.get("br_billing_status") or "unverified", row["br_billing_source"],
                                            row["as_of"])
        problems += r.problems
    return out



def with_billing(offers: dict, providers: dict[str, Provider]) -> dict:
    """Copy each provider's Brazilian billing mode onto its offers."""
    out = {}
    for oid, o in offers.items():
        pv = providers.get(o.provider)
        out[oid] = replace(o, br_billing=pv.br_billing, br_billing_source=pv.br_billing_source) if pv else o
    return out



def load_egress(paths, problems):
    tiers: dict[str, list] = {}
    meta: dict[str, tuple[str, str]] = {}
    for p in paths:
        r = Rows(p, ("egress_id", "tier_from_gb", "tier_to_gb", "usd_per_gb", "source", "as_of"))
        replaced = set()
        for line, row in r.rows:
            eid = row["egress_id"]
            r.provenance(line, row)
            if p != paths[0] and eid not in replaced:  # a user file replaces a whole table
                tiers[eid] = []
                replaced.add(eid)
            lo = r.num(line, row, "tier_from_gb", lo=0, hi=1e12)
            hi = r.num(line, row, "tier_to_gb", False, lo=0, hi=1e12, lo_open=True)
            price = r.num(line, row, "usd_per_gb", False, lo=0, hi=100)
            if lo is None:
                continue
            if hi is not None and hi <= lo:
                r.problems.append(Problem(str(p), "tier_to_gb", f"tier ends ({hi:g} GB) before it starts ({lo:g} GB)",
                                          line))
                continue
            tiers.setdefault(eid, []).append((lo, hi, price))
            meta[eid] = (row["source"], row["as_of"])
        problems += r.problems
    out = {}
    for eid, ts in tiers.items():
        ts.sort(key=lambda t: t[0])
        prev_hi = 0.0
        for lo, hi, _ in ts:
            if abs(lo - prev_hi) > 1e-9:
                problems.append(Problem(str(paths[-1]), eid, f"egress tiers are not contiguous at {lo} GB"))
            prev_hi = hi if hi is not None else float("inf")
        out[eid] = EgressTable(eid, tuple(ts), *meta[eid])
    return out



def load_storage(paths, problems):
    out = {}
    for p in paths:
        r = Rows(p, ("storage_id", "usd_per_gb_month", "source", "as_of"))
        for line, row in r.rows:
            r.provenance(line, row)
            out[row["storage_id"]] = StoragePrice(row["storage_id"],
                                                  r.num(line, row, "usd_per_gb_month", False, lo=0, hi=100),
                                                  row.get("status", ""), row["source"], row["as_of"])
        problems += r.problems
    return out
