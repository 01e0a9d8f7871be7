"""tco.scenario.proposal: the [proposal] section's schema: dates as TOML dates or text, items, limits, the date
order, unknown keys; every error naming file, line and key (through the scenario loader)."""

from __future__ import annotations

from datetime import date

import pytest
from pydantic import ValidationError

from tco.errors import InputError
from tco.scenario import load_text
from tco.scenario.proposal import Constraints, Included, Item, Proposal, breaches

from conftest import SEED

TEXT = SEED.read_text(encoding="utf-8")


def _error(old: str, new: str) -> str:
    assert old in TEXT
    with pytest.raises(InputError) as e:
        load_text(TEXT.replace(old, new, 1), "s.toml")
    return str(e.value)


def test_defaults_and_dates():
    p = Proposal()
    assert (p.version, p.adjustment_index, p.taxes_included, p.items, p.date) == (1, "IPCA", True, [], None)
    q = Proposal(date="2026-11-30", valid_until=date(2026, 12, 30))      # text or a TOML date
    assert q.date == date(2026, 11, 30) and q.valid_until == date(2026, 12, 30)


def test_valid_until_before_the_date_is_refused_at_the_sections_line():
    line = TEXT[:TEXT.index("[proposal]\n")].count("\n") + 1     # a cross-key rule: the section's header line
    msg = _error('valid_until = "2026-12-30"', 'valid_until = "2026-11-01"')
    assert msg == f"s.toml:{line}: [proposal] valid_until 2026-11-01 is before the proposal's date 2026-11-30"


def test_limits_and_choices_name_the_key():
    assert "[proposal.min_term_months] Input should be greater than or equal to 1 (got 0)" in \
        _error("min_term_months = 3", "min_term_months = 0")
    assert "[proposal.adjustment_index] Input should be 'IPCA', 'IGP-M' or 'none' (got 'IGPM')" in \
        _error('adjustment_index = "IPCA"', 'adjustment_index = "IGPM"')
    assert "[proposal.sla] unknown key" in _error("version = 1\n", "version = 1\nsla = 0.99\n")


def test_the_seed_proposal():
    p = load_text(TEXT, "s.toml").proposal
    assert p.number == "NE-2026-0142" and p.min_term_months == 3 and p.date == date(2026, 11, 30)
    assert p.owner.name == "Equipe comercial" and p.signatory.name == "Diretoria comercial"


def test_items_and_included_bounds():
    it = Item(description="Servidor 1× H200 NVL", quantity=8, brl_per_month=15300.0)
    assert it.setup_brl == 0.0 and not it.firm_quote
    for bad in (dict(quantity=0), dict(brl_per_month=-1.0), dict(description=" ")):
        with pytest.raises(ValidationError):
            Item(**({"description": "x", "quantity": 1, "brl_per_month": 1.0} | bad))
    assert Included(sla_share=1.0).sla_share == 1.0
    with pytest.raises(ValidationError):
        Included(sla_share=0.0)                     # (0, 1]
    with pytest.raises(ValidationError):
        Proposal(items=[it] * 51)                   # at most 50 items


def test_review_l5_a_next_step_due_before_the_proposal_is_refused():
    line = TEXT[:TEXT.index("[proposal]\n")].count("\n") + 1
    msg = _error('by = "2026-12-11"', 'by = "2026-11-02"')
    assert msg == (f"s.toml:{line}: [proposal] next_steps[0].by = 2026-11-02: a step due before the proposal's date "
                   "(2026-11-30) is already late when the client reads it")


def test_review_l5_an_item_priced_at_nothing_is_refused_at_its_line():
    line = TEXT[:TEXT.index("[[proposal.items]]\n")].count("\n") + 1
    msg = _error("brl_per_month = 17400\nsetup_brl = 1740", "brl_per_month = 0\nsetup_brl = 0")
    assert msg.startswith(f"s.toml:{line}: [proposal.items[0]] an item priced at nothing (R$ 0 per month and no setup)")
    assert Item(description="x", quantity=1, brl_per_month=100.0).setup_brl == 0.0  # a monthly fee alone is a price
    assert Item(description="x", quantity=1, brl_per_month=0.0, setup_brl=500.0).brl_per_month == 0.0  # a one-off


def test_breaches_by_hand():
    both = Constraints(data_in_brazil="both")
    us, sp, br = ("aws", "us-east-1"), ("aws", "sa-east-1"), ("br-dedicated", "br")
    assert breaches(None, us, us) == ()
    assert breaches(Constraints(), us, us) == ()                                   # 'none': no residency asked
    assert breaches(both, sp, br) == ()
    assert breaches(both, us, br) == ("training_outside_brazil",)
    assert breaches(both, us, us) == ("training_outside_brazil", "serving_outside_brazil")
    assert breaches(both, None, br) == ()                                          # nothing trained
    assert breaches(Constraints(data_in_brazil="serving"), us, br) == ()
    assert breaches(Constraints(data_in_brazil="training"), sp, us) == ()
    only = Constraints(providers=["br-dedicated"])
    assert breaches(only, us, br) == ("provider_not_accepted:aws",)
    assert breaches(only, us, us) == ("provider_not_accepted:aws",)                # said once per provider


def test_the_seed_keeps_the_data_in_brazil():
    p = load_text(TEXT, "s.toml").proposal
    assert p.constraints == Constraints(data_in_brazil="both")
    assert "data_in_brazil = \"anywhere\"" not in TEXT
    msg = _error('data_in_brazil = "both"', 'data_in_brazil = "anywhere"')
    assert "proposal.constraints.data_in_brazil" in msg and "'both'" in msg


def test_contract_terms_that_contradict_each_other_are_refused_at_their_key():
    # an early exit with no penalty
    msg = _error('early_exit_penalty_share = 0.5\n', '')
    assert "proposal.contract" in msg and "needs early_exit_penalty_share" in msg
    # a penalty with no early exit
    msg = _error('early_exit = "with_penalty"\n', '')
    assert "early_exit = 'not_allowed'" in msg
    # a contract shorter than its minimum term
    msg = _error("duration_months = 36", "duration_months = 2")
    assert "shorter than min_term_months = 3" in msg
    # a quote reference on estimated items
    msg = _error("[proposal.contract]\n", '[proposal.contract]\nquote_reference = "Q-1"\n')
    assert "not all firm_quote = true" in msg


def test_a_quote_dated_after_the_proposal_is_refused():
    text = TEXT.replace("firm_quote = false", "firm_quote = true").replace(
        "[proposal.contract]\n", '[proposal.contract]\nquote_reference = "Q-1"\nquote_date = 2026-12-05\n')
    with pytest.raises(InputError) as e:
        load_text(text, "s.toml")
    assert "quote_date 2026-12-05 is after the proposal's date 2026-11-30" in str(e.value)


# --- the client's CNPJ and contact (issue 24: the desk's client group) -------------------------------------------

def test_cnpj_check_digits_by_hand():
    """11.222.333/0001-81: Σ(1,1,2,2,2,3,3,3,0,0,0,1 × 5,4,3,2,9,8,7,6,5,4,3,2) = 5+4+6+4+18+24+21+18+0+0+0+2 = 102,
    102 mod 11 = 3 → 11 − 3 = 8; then Σ(…,8 × 6,5,4,3,2,9,8,7,6,5,4,3,2) = 6+5+8+6+4+27+24+21+0+0+0+3+16 = 120,
    120 mod 11 = 10 → 11 − 10 = 1."""
    from tco.scenario.proposal import cnpj_digits, formatted_cnpj

    assert cnpj_digits("11.222.333/0001-81") == cnpj_digits("11222333000181") == "11222333000181"
    assert formatted_cnpj("11222333000181") == "11.222.333/0001-81"
    with pytest.raises(ValueError, match="check digit 1 should be 8, not 9"):
        cnpj_digits("11.222.333/0001-91")
    with pytest.raises(ValueError, match="check digit 2 should be 1, not 2"):
        cnpj_digits("11.222.333/0001-82")
    with pytest.raises(ValueError, match="14 digits"):
        cnpj_digits("11.222.333/0001")
    with pytest.raises(ValueError, match="one digit repeated"):
        cnpj_digits("00.000.000/0000-00")


def test_the_cnpj_is_kept_in_its_written_form_and_a_typo_is_located():
    p = Proposal(client_cnpj="11222333000181", client_contact={"name": "Ana Souza", "email": "ana@exemplo.com.br"})
    assert p.client_cnpj == "11.222.333/0001-81" and p.client_contact is not None and p.client_contact.name == "Ana Souza"
    line = TEXT[:TEXT.index("version = 1\n")].count("\n") + 1
    msg = _error("version = 1\n", 'version = 1\nclient_cnpj = "11.222.333/0001-91"\n')
    assert f"s.toml:{line + 1}: [proposal.client_cnpj]" in msg and "check digit 1 should be 8" in msg
    assert "[proposal.client_contact.mail] unknown key" in _error("version = 1\n",
                                                                    'version = 1\nclient_contact = { name = "A", mail = "a@b" }\n')


def test_the_cover_prints_the_cnpj_and_the_contact(seed_results):
    import dataclasses

    from tco.report import brand, proposal

    sc = seed_results.scenario
    p = Proposal.model_validate(sc.proposal.model_dump() | {"client_cnpj": "11222333000181", "client_contact": {
        "name": "Ana <b>Souza</b>", "role": "Diretora jurídica", "email": "ana@exemplo.com.br", "phone": "+55 11 3000-0000"}})
    res = dataclasses.replace(seed_results, scenario=sc.model_copy(update={"proposal": p}))
    theme, _ = brand.theme(res.scenario, "", proposal.TEMPLATES)
    html = proposal.render_html(proposal.context(res, [], theme))
    assert "11.222.333/0001-81" in html
    assert "Ana &lt;b&gt;Souza&lt;/b&gt;, Diretora jurídica, ana@exemplo.com.br, +55 11 3000-0000" in html  # escaped
