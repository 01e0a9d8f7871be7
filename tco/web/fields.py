"""The sales desk's form: its fields, grouped as a salesperson thinks, and the two ways between the form and a
scenario (a scenario's data shown in the fields; the fields posted back written into the scenario's data).

A field's name is its key path in the scenario (``inference.tokens_per_second_per_user``), so a problem the schema
finds (``Problem.key``) lands beside the field that holds it. The options are rows (``opt.<i>.*``: keep it, its
label, its pricing) plus one new dedicated server and one new competitor to add. Values go into the scenario as
typed: a number where the text is one, else the text itself, so the schema's own message says what is wrong.
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass

GROUPS = ("client", "model", "workload", "training", "offer", "competitors", "constraints", "terms", "fx")
"""The form's sections, in the order a salesperson fills them."""


@dataclass(frozen=True)
class Field:
    path: str
    """Key path in the scenario, and the input's name."""
    group: str
    kind: str
    """'text', 'textarea', 'int', 'number', 'select', 'bool', 'date' or 'month'."""
    unit: str = ""
    """The unit's i18n key (web_u_…), '' for none."""
    choices: tuple[str, ...] = ()
    """A select's values; ('models',) = the catalog's models."""
    show: str = ""
    """For the users' curve: the growth model this field belongs to ('' = always)."""
    default: bool | None = None
    """A checkbox's state when the scenario leaves the key out (the schema's default)."""


F = Field
FIELDS: tuple[Field, ...] = (
    F("scenario.client", "client", "text"),
    F("proposal.client_cnpj", "client", "text"),
    F("proposal.client_contact.name", "client", "text"),
    F("proposal.client_contact.email", "client", "text"),
    F("proposal.client_contact.phone", "client", "text"),
    F("scenario.name", "client", "text"),
    F("proposal.client_need", "client", "textarea"),
    F("scenario.prepared_by", "client", "text"),
    F("proposal.owner.name", "client", "text"),
    F("proposal.owner.email", "client", "text"),
    F("proposal.owner.phone", "client", "text"),
    F("scenario.locale", "client", "select", choices=("pt-BR", "en")),
    F("model.id", "model", "select", choices=("models",)),
    F("model.precision", "model", "select", choices=("bf16", "fp8")),
    F("model.kv_precision", "model", "select", choices=("bf16", "fp8")),
    F("inference.users.model", "workload", "select", choices=("linear", "logistic", "compound", "list")),
    F("inference.users.start_users", "workload", "int", "web_u_users"),
    F("inference.users.end_users", "workload", "int", "web_u_users", show="linear"),
    F("inference.users.ceiling_users", "workload", "int", "web_u_users", show="logistic"),
    F("inference.users.steepness_per_month", "workload", "number", "web_u_per_month", show="logistic"),
    F("inference.users.monthly_growth_rate", "workload", "number", "web_u_share_month", show="compound"),
    F("inference.users.max_users", "workload", "int", "web_u_users", show="compound"),
    F("inference.start_month", "workload", "int", "web_u_month_n"),
    F("inference.requests_per_user_per_day", "workload", "number", "web_u_requests"),
    F("inference.input_tokens_per_request", "workload", "number", "web_u_tokens"),
    F("inference.output_tokens_per_request", "workload", "number", "web_u_tokens"),
    F("inference.tokens_per_second_per_user", "workload", "number", "web_u_tok_s"),
    F("inference.daily_profile", "workload", "select", choices=("business_hours", "flat")),
    F("inference.active_days_per_week", "workload", "number", "web_u_days_week"),
    F("inference.redundancy", "workload", "select", choices=("none", "n+1")),
    F("inference.storage_gb", "workload", "number", "web_u_gb"),
    F("training.method", "training", "select", choices=("none", "lora", "full", "pretrain")),
    F("training.tokens", "training", "number", "web_u_tokens"),
    F("training.epochs", "training", "number"),
    F("training.start_month", "training", "int", "web_u_month_n"),
    F("training.target_days", "training", "number", "web_u_days"),
    F("scenario.start", "offer", "month"),
    F("scenario.horizon_months", "offer", "int", "web_u_months"),
    F("proposal.min_term_months", "offer", "int", "web_u_months"),
    F("plan.brazil_only", "constraints", "bool", default=False),
    F("proposal.included.datacenter_city", "constraints", "text"),
    F("proposal.included.sla_share", "constraints", "number", "web_u_share"),
    F("proposal.included.support_hours", "constraints", "text"),
    F("proposal.number", "terms", "text"),
    F("proposal.version", "terms", "int"),
    F("proposal.date", "terms", "date"),
    F("proposal.valid_until", "terms", "date"),
    F("proposal.adjustment_index", "terms", "select", choices=("IPCA", "IGP-M", "none")),
    F("proposal.payment_terms", "terms", "text"),
    F("proposal.taxes_included", "terms", "bool", default=True),
    F("fx.usdbrl", "fx", "number", "web_u_brl_usd"),
    F("fx.volatility", "fx", "number", "web_u_share_year"),
    F("fx.paths", "fx", "int", "web_u_paths"),
    F("scenario.discount_rate", "fx", "number", "web_u_share_year"),
)
BY_PATH = {f.path: f for f in FIELDS}

USERS_KEYS = {"linear": ("end_users",), "logistic": ("ceiling_users", "steepness_per_month"),
              "compound": ("monthly_growth_rate", "max_users")}
"""The keys of each growth model the form writes, beside `model` and `start_users`."""

PATH_KEYS = (("scenario", "catalog_dir"), ("fx", "history_csv"), ("inference", "calibration"), ("proposal", "brand"))
"""Keys whose value is a path to another file: the desk reads none of them (an engineer runs those with `tco run`)."""

_INT = re.compile(r"^[+-]?\d+$")
_REAL = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$")


def get(data: dict, path: str):
    """The value at a dotted key path, or None."""
    for part in path.split("."):
        if not isinstance(data, dict) or part not in data:
            return None
        data = data[part]
    return data


def _put(data: dict, path: str, value) -> None:
    """Set (or, for None, remove) the value at a dotted path, creating tables on the way."""
    *head, last = path.split(".")
    for part in head:
        nxt = data.get(part)
        if not isinstance(nxt, dict):
            if value is None:
                return
            nxt = data[part] = {}
        data = nxt
    if value is None:
        data.pop(last, None)
    else:
        data[last] = value


def shown(value) -> str:
    """A scenario value as the text of its input ('' for none; true/false for a checkbox's state)."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    if isinstance(value, (list, dict)):
        return ""
    return str(value)


def values(data: dict) -> dict[str, str]:
    """Every field's text, read from scenario data."""
    return {f.path: shown(f.default if f.kind == "bool" and get(data, f.path) is None else get(data, f.path))
            for f in FIELDS}


def typed(text: str, kind: str):
    """The posted text as the scenario value: None when blank, a number where it reads as one (a comma taken as
    the decimal point, as pt-BR writes it), a date's text as text (the schema reads it), else the text."""
    text = text.strip()
    if text == "":
        return None
    if kind in ("int", "number"):
        plain = text.replace(",", ".") if text.count(",") == 1 and "." not in text else text
        if _INT.match(plain):
            try:
                return int(plain)
            except ValueError:  # past Python's 4,300 digits: a 500 traceback (2026-12d W9); inf, refused by the schema
                return float(plain)
        if _REAL.match(plain):
            return float(plain)
    return text


def option_rows(data: dict, dedicated: set[str]) -> list[dict]:
    """The scenario's options as rows of the form: index, name, label, offers, pricing, and which section
    they sit in ('offer' when the serving fleet is a dedicated server, else 'competitors')."""
    rows = []
    for i, o in enumerate(data.get("options") or []):
        if not isinstance(o, dict):
            continue
        serving = str(o.get("inference_offer") or "")
        rows.append({"i": i, "name": shown(o.get("name")), "label": shown(o.get("label")), "serving": serving,
                     "training": shown(o.get("training_offer")), "pricing": shown(o.get("pricing")),
                     "group": "offer" if serving in dedicated else "competitors"})
    return rows


ITEM_KEYS = (("description", "text"), ("quantity", "int"), ("brl_per_month", "number"), ("setup_brl", "number"))
"""The keys of a `[[proposal.items]]` row the form edits (and `firm_quote`, a checkbox)."""


def item_rows(data: dict) -> list[dict]:
    """The proposal's priced items as rows of the form (its firm-or-estimate price status among them)."""
    items = (data.get("proposal") or {}).get("items") if isinstance(data.get("proposal"), dict) else None
    return [{"i": i, **{k: shown(it.get(k)) for k, _ in ITEM_KEYS}, "firm_quote": bool(it.get("firm_quote"))}
            for i, it in enumerate(items or []) if isinstance(it, dict)]


def _items(base: list, form) -> list:
    """The items after the form: each row's keys as edited (a row without its inputs posted stays as it was)."""
    out = []
    for i, it in enumerate(base):
        if not isinstance(it, dict):
            out.append(it)
            continue
        it = dict(it)
        for k, kind in ITEM_KEYS:
            name = f"item.{i}.{k}"
            if name in form and form.get(name, "").strip() != shown(it.get(k)):
                _put(it, k, typed(form.get(name, ""), kind))
        if f"item.{i}.firm_quote:present" in form:
            firm = form.get(f"item.{i}.firm_quote") == "true"
            if firm != bool(it.get("firm_quote")):
                it["firm_quote"] = firm
        out.append(it)
    return out


def _unique(name: str, taken: set[str]) -> str:
    out, n = name, 2
    while out in taken:
        out, n = f"{name} ({n})", n + 1
    taken.add(out)
    return out


def _options(base: list, form) -> tuple[list, dict[int, str]]:
    """The options after the form: the rows kept (label and pricing as edited) and the ones added; and, for
    each option's index in the new list, the form row it came from (for messages)."""
    out: list[dict] = []
    origin: dict[int, str] = {}
    for i, o in enumerate(base):
        if not isinstance(o, dict) or form.get(f"opt.{i}.keep") != "on":
            continue
        o = dict(o)
        for k in ("label", "pricing"):
            if f"opt.{i}.{k}" in form:
                _put(o, k, typed(form.get(f"opt.{i}.{k}", ""), "text"))
        origin[len(out)] = f"opt.{i}"
        out.append(o)
    taken = {str(o.get("name")) for o in out}
    ded = form.get("add.dedicated", "").strip()
    if ded:
        origin[len(out)] = "add.dedicated"
        out.append({"name": _unique(ded, taken), "training_offer": ded, "inference_offer": ded, "fleet": "shared"})
    cloud, pricing = form.get("add.cloud", "").strip(), form.get("add.pricing", "").strip() or "on_demand"
    if cloud:
        origin[len(out)] = "add.cloud"
        out.append({"name": _unique(f"{cloud} ({pricing})", taken), "training_offer": cloud,
                    "inference_offer": cloud, "pricing": pricing})
    return out, origin


def apply(base: dict, form) -> tuple[dict, dict[int, str]]:
    """The scenario data with the posted form written into a copy of `base` (a mapping of input name → text);
    a blank field removes its key, so the schema's default applies. Returns the data and the option origins
    (`_options`)."""
    data = copy.deepcopy(base)
    before = values(base)
    for f in FIELDS:
        if f.path.startswith("inference.users."):
            continue
        if f.kind == "bool" and f"{f.path}:present" in form:  # a checkbox that is not ticked is not posted at all
            text = "true" if form.get(f.path) == "true" else "false"
        elif f.path in form:
            text = form.get(f.path, "").strip()
        else:
            continue
        if text != before[f.path]:  # a field left as shown leaves the scenario as it was
            _put(data, f.path, (text == "true") if f.kind == "bool" else typed(text, f.kind))
    model = form.get("inference.users.model", "").strip()
    posted = {k: form.get(f"inference.users.{k}", "").strip() for k in ("model", "start_users", *USERS_KEYS.get(model, ()))}
    # the curve is written whole, with its model's keys only, when one of them changed (a list stays as it is)
    if model in USERS_KEYS and any(v != before[f"inference.users.{k}"] for k, v in posted.items()):
        users = {k: v if k == "model" else typed(v, "number") for k, v in posted.items()}
        _put(data, "inference.users", {k: v for k, v in users.items() if v is not None})
    items = (base.get("proposal") or {}).get("items") if isinstance(base.get("proposal"), dict) else None
    if isinstance(items, list) and items:
        data["proposal"]["items"] = _items(items, form)
    for section in ("proposal", "plan"):
        if data.get(section) == {}:
            del data[section]
    opts, origin = _options(base.get("options") or [], form)
    data["options"] = opts
    return data, origin


def field_of(key: str, origin: dict[int, str]) -> str:
    """The input a problem's key path belongs to: the field of that path (or of its longest prefix), an option's
    row for ``options[i]…``, else '' (shown above the form)."""
    m = re.match(r"^options\[(\d+)\]", key)
    if m:
        return origin.get(int(m.group(1)), "")
    m = re.match(r"^proposal\.items\[(\d+)\]", key)
    if m:
        return f"item.{m.group(1)}"
    parts = key.split(".")
    while parts:
        if ".".join(parts) in BY_PATH:
            return ".".join(parts)
        parts.pop()
    return ""


def path_keys(data: dict) -> list[str]:
    """The keys naming another file (PATH_KEYS) that the data sets."""
    return [f"{s}.{k}" for s, k in PATH_KEYS if isinstance(data.get(s), dict) and k in data[s]]


def schema_default(path: str) -> str:
    """The schema's default of a field's key as the text of its input ('' when it has none, or is required): shown
    greyed in a blank input, the value the run uses when the key is left out."""
    from typing import get_args

    from pydantic import BaseModel
    from pydantic_core import PydanticUndefined

    from tco.scenario import Scenario

    model: type[BaseModel] | None = Scenario
    parts = path.split(".")
    for i, part in enumerate(parts):
        info = model.model_fields.get(part) if model is not None else None
        if info is None:
            return ""
        if i == len(parts) - 1:
            d = info.get_default(call_default_factory=True) if info.default is not PydanticUndefined or \
                info.default_factory is not None else None
            return shown(d)
        ann = info.annotation
        model = next((a for a in (ann, *get_args(ann)) if isinstance(a, type) and issubclass(a, BaseModel)), None)
    return ""
