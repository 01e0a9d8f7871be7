"""The sales desk's form and the scenario (tco.web.fields): values shown, the form written back, problems placed."""

import tomllib
from pathlib import Path

from tco.web import fields as F

SEED = Path(__file__).resolve().parents[2] / "scenarios" / "seed_70b_h200.toml"


def seed() -> dict:
    return tomllib.loads(SEED.read_text(encoding="utf-8"))


def _kept(data: dict) -> dict:
    return {f"opt.{i}.keep": "on" for i in range(len(data["options"]))}


def test_groups_hold_every_field_and_every_path_is_unique():
    assert {f.group for f in F.FIELDS} <= set(F.GROUPS)
    assert len(F.BY_PATH) == len(F.FIELDS)


def test_values_shows_the_scenario_as_typed():
    v = F.values(seed())
    assert v["scenario.client"] == "Exemplo Advogados Associados S.A."
    assert v["training.tokens"] == "2000000000"  # 2.0e9, a whole number, shown without ".0"
    assert v["fx.usdbrl"] == "5.4"
    assert v["inference.users.ceiling_users"] == "8000"
    assert v["proposal.taxes_included"] == "true"
    assert v["proposal.date"] == "2026-11-30"
    assert v["inference.users.end_users"] == ""  # a logistic curve has none


def test_typed_reads_numbers_and_keeps_other_text():
    assert F.typed(" 25 ", "number") == 25
    assert F.typed("0,14", "number") == 0.14  # the pt-BR decimal comma
    assert F.typed("2.0e9", "number") == 2.0e9
    assert F.typed("30 tok/s", "number") == "30 tok/s"  # left to the schema, which says what is wrong
    assert F.typed("", "number") is None
    assert F.typed("1.000,5", "number") == "1.000,5"  # ambiguous: not guessed


def test_the_form_unchanged_gives_the_same_scenario():
    data = seed()
    form = {**F.values(data), **_kept(data), "proposal.taxes_included:present": "1"}
    new, _ = F.apply(data, form)
    assert new == data


def test_a_blank_field_removes_its_key_and_an_edit_is_written():
    data = seed()
    form = {**F.values(data), **_kept(data), "proposal.min_term_months": "", "inference.tokens_per_second_per_user":
            "40", "scenario.horizon_months": "24"}
    new, _ = F.apply(data, form)
    assert "min_term_months" not in new["proposal"]
    assert new["inference"]["tokens_per_second_per_user"] == 40
    assert new["scenario"]["horizon_months"] == 24


def test_an_unticked_checkbox_is_false():
    data = seed()
    form = {**F.values(data), **_kept(data), "proposal.taxes_included:present": "1"}
    del form["proposal.taxes_included"]
    assert F.apply(data, form)[0]["proposal"]["taxes_included"] is False


def test_users_curve_writes_only_its_model_keys():
    data = seed()
    form = {**F.values(data), **_kept(data), "inference.users.model": "linear", "inference.users.start_users": "100",
            "inference.users.end_users": "900", "inference.users.ceiling_users": "8000"}
    assert F.apply(data, form)[0]["inference"]["users"] == {"model": "linear", "start_users": 100, "end_users": 900}


def test_options_dropped_relabelled_and_added():
    data = seed()
    n = len(data["options"])
    form = {**F.values(data), **_kept(data), "opt.0.label": "Nosso 8x H200", "add.dedicated":
            "br-dedicated/sp/h200-nvl-1x", "add.cloud": "aws/us-east-1/p5en.48xlarge", "add.pricing": "reserved_1yr"}
    del form["opt.1.keep"]
    new, origin = F.apply(data, form)
    assert len(new["options"]) == n - 1 + 2
    assert new["options"][0]["label"] == "Nosso 8x H200"
    assert data["options"][1]["name"] not in [o["name"] for o in new["options"]]
    assert new["options"][-2] == {"name": "br-dedicated/sp/h200-nvl-1x", "training_offer": "br-dedicated/sp/h200-nvl-1x",
                                  "inference_offer": "br-dedicated/sp/h200-nvl-1x", "fleet": "shared"}
    assert new["options"][-1]["pricing"] == "reserved_1yr"
    assert origin[0] == "opt.0" and origin[1] == "opt.2" and origin[n + 0] == "add.cloud"


def test_problems_land_beside_their_field():
    assert F.field_of("inference.tokens_per_second_per_user", {}) == "inference.tokens_per_second_per_user"
    assert F.field_of("inference.users.ceiling_users", {}) == "inference.users.ceiling_users"
    assert F.field_of("proposal.owner.email.extra", {}) == "proposal.owner.email"  # the longest prefix
    assert F.field_of("options[2].pricing", {2: "opt.5"}) == "opt.5"
    assert F.field_of("fx.drift", {}) == ""  # not on the form: shown above it


def test_path_keys_are_found():
    assert F.path_keys({"scenario": {"catalog_dir": "x"}, "fx": {"history_csv": "h"}}) == ["scenario.catalog_dir",
                                                                                          "fx.history_csv"]
    assert F.path_keys(seed()) == []


def test_option_rows_sort_options_into_offer_and_competitors():
    rows = F.option_rows(seed(), {"br-dedicated/sp/hgx-h200-8x", "br-dedicated/sp/h200-nvl-1x"})
    # the seed's options in order: two dedicated (offer), five clouds (competitors), two hybrids serving on the
    # offered 1x H200 NVL (offer)
    assert [r["group"] for r in rows] == ["offer", "offer", "competitors", "competitors", "competitors", "competitors",
                                          "competitors", "offer", "offer"]


def test_schema_defaults_are_the_placeholders():
    assert F.schema_default("inference.active_days_per_week") == "7"
    assert F.schema_default("fx.paths") == "10000"
    assert F.schema_default("proposal.adjustment_index") == "IPCA"
    assert F.schema_default("scenario.horizon_months") == ""  # required: no default
    assert F.schema_default("nope.key") == ""
    for f in F.FIELDS:
        if f.kind == "bool":
            assert F.shown(f.default) == F.schema_default(f.path), f.path


def test_items_price_and_status_edited():
    data = seed()
    rows = F.item_rows(data)
    assert rows == [{"i": 0, "description": "Servidor dedicado com 1 GPU H200 NVL (141 GB), no pico de uso",
                     "quantity": "7", "brl_per_month": "17400", "setup_brl": "1740", "firm_quote": False}]
    form = {**F.values(data), **_kept(data), "item.0.brl_per_month": "14900,50", "item.0.quantity": "8",
            "item.0.firm_quote:present": "1", "item.0.firm_quote": "true"}
    item = F.apply(data, form)[0]["proposal"]["items"][0]
    assert item["brl_per_month"] == 14900.5 and item["firm_quote"] is True and item["quantity"] == 8
    assert F.field_of("proposal.items[0].brl_per_month", {}) == "item.0"
    unchanged = {**F.values(data), **_kept(data), "item.0.firm_quote:present": "1"}
    assert F.apply(data, unchanged)[0] == data  # an unticked box that was unticked changes nothing


def test_the_clients_cnpj_and_contact_are_fields_and_reach_the_scenario():
    data = seed()
    paths = [f.path for f in F.FIELDS if f.group == "client"]
    assert {"proposal.client_cnpj", "proposal.client_contact.name", "proposal.client_contact.email",
            "proposal.client_contact.phone"} <= set(paths)
    form = {**F.values(data), **_kept(data), "proposal.taxes_included:present": "1",
            "proposal.client_cnpj": "11.222.333/0001-81", "proposal.client_contact.name": "Ana Souza",
            "proposal.client_contact.email": "ana@exemplo.com.br"}
    new, _ = F.apply(data, form)
    assert new["proposal"]["client_cnpj"] == "11.222.333/0001-81"
    assert new["proposal"]["client_contact"] == {"name": "Ana Souza", "email": "ana@exemplo.com.br"}
