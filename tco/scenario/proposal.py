"""The `[proposal]` section of a scenario: the commercial terms the PDF proposal offers.

Everything here is what the provider's seller writes, never what the engine computes: the proposal's
number and version, its dates, who owns it and who signs, the items priced (quantity × R$ per month,
setup), the minimum term, the price adjustment (index and month), payment terms, what the service
includes, the case beyond cost (where the data lives, billing, support) and the next steps.

Absent, the proposal derives its items from the recommended (or cheapest dedicated) option's fleet and
catalog prices and says once, plainly, that the offer is an estimate. Validated like every section:
strict types, unknown keys refused, errors naming file, line and key (`tco.scenario`).

    [proposal]
    number = "NE-2026-0142"
    version = 1
    date = 2026-11-30              # the document date: the PDF never reads the clock
    valid_until = 2026-12-30
    owner = { name = "Marina Costa", role = "Gerente de contas", email = "marina@…" }
    signatory = { name = "Ricardo Alves", role = "Diretor comercial" }
    min_term_months = 12
    adjustment_index = "IPCA"
    adjustment_month = 1
    payment_terms = "Mensal, 30 dias após a NFS-e"
    [[proposal.items]]
    description = "Servidor dedicado 1× H200 NVL"
    quantity = 8
    brl_per_month = 15300
    firm_quote = false
"""

from datetime import date
from typing import Annotated, Literal

from pydantic import AfterValidator, Field, model_validator

from tco.scenario.types import Frozen, Line, Name, Text  # the base types tco.scenario uses too


FIRST_DAY, LAST_DAY = date(1990, 1, 1), date(2200, 12, 31)
"""The earliest and latest day a [proposal] date may be: the years a scenario may start in (START_YEARS); the validity
and the next steps the proposal derives from its date (a month at most) stay inside the calendar (review M5)."""
Day = Annotated[date, Field(strict=False, ge=FIRST_DAY, le=LAST_DAY)]
"""A day from 1990-01-01 to 2200-12-31, written as a TOML date (2026-11-30) or text ("2026-11-30")."""
Money = Annotated[float, Field(ge=0.0, le=1e9)]


def cnpj_digits(text: str) -> str:
    """The 14 digits of a CNPJ written with or without its punctuation; ValueError naming what is wrong.

    The two check digits are Receita Federal's modulo-11 rule (Instrução Normativa RFB nº 2.119/2022, Anexo XV):
    weights 5,4,3,2,9,8,7,6,5,4,3,2 over the first 12 digits for the first, 6,5,4,3,2,9,8,7,6,5,4,3,2 over 13 for
    the second; a remainder r below 2 gives 0, else 11 − r.

    >>> cnpj_digits("11.222.333/0001-81")
    '11222333000181'
    """
    digits = "".join(c for c in text if c.isdigit())
    if len(digits) != 14 or any(c not in "0123456789./- " for c in text):
        raise ValueError(f"a CNPJ has 14 digits, written as 12.345.678/0001-95 (got {text!r})")
    if len(set(digits)) == 1:
        raise ValueError(f"{text!r} is not a CNPJ (one digit repeated)")
    for n in (12, 13):
        weights = list(range(n - 7, 1, -1)) + list(range(9, 1, -1))
        r = sum(int(d) * w for d, w in zip(digits[:n], weights)) % 11
        if int(digits[n]) != (0 if r < 2 else 11 - r):
            raise ValueError(f"{text!r}: check digit {n - 11} should be {0 if r < 2 else 11 - r}, not {digits[n]} "
                             "(a typo in the number?)")
    return digits


def formatted_cnpj(digits: str) -> str:
    """12.345.678/0001-95 from its 14 digits."""
    return f"{digits[:2]}.{digits[2:5]}.{digits[5:8]}/{digits[8:12]}-{digits[12:]}"


class Person(Frozen):
    name: Name
    """Full name, as it is signed."""
    role: Line = ""
    """Title (e.g. "Gerente de contas")."""
    email: Line = ""
    """E-mail address."""
    phone: Line = ""
    """Telephone."""


class Item(Frozen):
    description: Name
    """What is sold, in the client's words (e.g. "Servidor dedicado 1× H200 NVL, 141 GB")."""
    quantity: int = Field(ge=1, le=100_000)
    """How many (servers, licences…)."""
    brl_per_month: Money
    """Monthly fee per unit [BRL/month], taxes on the invoice included."""
    setup_brl: Money = 0.0
    """One-off setup per unit [BRL]."""
    firm_quote: bool = False
    """True: a firm price, valid until `valid_until`; false: an estimate the firm quote replaces."""

    @model_validator(mode="after")
    def _priced(self):
        if self.brl_per_month == 0 and self.setup_brl == 0:
            raise ValueError("an item priced at nothing (R$ 0 per month and no setup) would print R$ 0 in the offer: "
                             "give its price, or name what comes at no charge under [proposal.included]")
        return self


class Step(Frozen):
    what: Name
    """The step (e.g. "Benchmark do modelo no servidor ofertado")."""
    by: Day
    """Date the step is due."""
    who: Line = ""
    """Who does it."""


class Included(Frozen):
    hardware: Line = ""
    """The servers and GPUs (absent: the offered fleet in plain words)."""
    network: Line = ""
    """Network included (ports, bandwidth, public IPs)."""
    storage: Line = ""
    """Storage included."""
    management: Line = ""
    """Management included (operating system, monitoring, patching)."""
    support_hours: Line = ""
    """E.g. "24×7, em português"."""
    sla_share: Annotated[float, Field(gt=0.0, le=1.0)] | None = None
    """Monthly availability the provider commits to (0.999 = 99,9 %)."""
    datacenter_tier: Line = ""
    """E.g. "Tier III (Uptime Institute)"."""
    datacenter_city: Line = ""
    """City the data and servers stay in (data residency)."""
    latency_ms: Annotated[float, Field(gt=0.0, le=1000.0)] | None = None
    """Round-trip latency the provider measured to the client's users [ms] (blank: not stated)."""


Share = Annotated[float, Field(gt=0.0, le=1.0)]


class Credit(Frozen):
    below_share: Share
    """Monthly availability below which the credit applies (0.999 = 99,9 %); at most `[proposal.included]
    sla_share` when one is promised."""
    credit_share: Share
    """Credit on that month's fee (0.10 = 10 %)."""


class Contract(Frozen):
    """The contract terms a signed proposal names (`[proposal.contract]`): shown on the offer page; only the keys
    written are shown. Contradictions (a contract shorter than its minimum term, an early exit without a penalty,
    a firm quote dated after the proposal) are errors naming the key."""

    duration_months: int | None = Field(None, ge=1, le=240)
    """Contract duration (vigência) [months]."""
    renewal: Line = ""
    """How it renews (e.g. "automática por 12 meses, salvo aviso com 60 dias")."""
    sla_credits: list[Credit] = Field(default_factory=lambda: [], max_length=10)
    """Service credits by monthly availability (`[[proposal.contract.sla_credits]]`)."""
    support_response: Line = ""
    """Support response times (e.g. "severidade 1: 1 h; severidade 2: 4 h; demais: 1 dia útil")."""
    early_exit: Literal["not_allowed", "with_penalty"] = "not_allowed"
    """Termination before the minimum term: not allowed, or allowed with `early_exit_penalty_share`."""
    early_exit_penalty_share: Share | None = None
    """Penalty for leaving before the minimum term: this share of the fees left until its end."""
    exit_notice_days: int | None = Field(None, ge=0, le=365)
    """Notice to end the contract after the minimum term [days]."""
    late_payment: Line = ""
    """Late-payment terms (e.g. "multa de 2 % e juros de 1 % ao mês")."""
    data_protection: Text = ""
    """The LGPD clause: the roles (provider as operador), where the data stays, sub-processors, incidents."""
    data_return_days: int | None = Field(None, ge=0, le=365)
    """Days after the end of the contract to return the client's data, then erase it."""
    jurisdiction: Line = ""
    """Foro (e.g. "Comarca de São Paulo/SP")."""
    quote_reference: Line = ""
    """The firm quote's reference (with `firm_quote = true` items)."""
    quote_date: Day | None = None
    """The firm quote's date."""

    @model_validator(mode="after")
    def _exit(self):
        if self.early_exit == "with_penalty" and self.early_exit_penalty_share is None:
            raise ValueError("early_exit = 'with_penalty' needs early_exit_penalty_share (the share of the fees left "
                             "until the minimum term that leaving early costs)")
        if self.early_exit == "not_allowed" and self.early_exit_penalty_share is not None:
            raise ValueError("early_exit_penalty_share is set but early_exit = 'not_allowed': set early_exit = "
                             "'with_penalty' or remove the penalty")
        tiers = sorted(self.sla_credits, key=lambda c: -c.below_share)
        for hi, lo in zip(tiers, tiers[1:]):
            if hi.below_share == lo.below_share or lo.credit_share < hi.credit_share:
                raise ValueError(f"sla_credits: below {lo.below_share:g} the credit is {lo.credit_share:g}, but below "
                                 f"{hi.below_share:g} it is {hi.credit_share:g}; each tier needs its own below_share "
                                 "and a lower availability at least the credit of a higher one")
        return self


Residency = Literal["none", "training", "serving", "both"]


class Constraints(Frozen):
    """The client's constraints (`[proposal.constraints]`): what the recommendation and the plan search must respect.
    An option that breaks one is shown but never recommended; a plan that breaks one is not searched."""

    data_in_brazil: Residency = "none"
    """Which data must stay in Brazil: 'training' (the training data and run), 'serving' (the model and the users'
    requests), 'both', or 'none' (no residency asked)."""
    providers: list[Name] = Field(default_factory=lambda: [], max_length=50)
    """The providers the client accepts (catalog ids: 'aws', 'br-dedicated'…); empty: any provider."""


def breaches(c: "Constraints | None", training: tuple[str, str] | None, serving: tuple[str, str]) -> tuple[str, ...]:
    """The constraints a deployment breaks, as codes: 'training_outside_brazil', 'serving_outside_brazil',
    'provider_not_accepted:<provider>'. `training` and `serving` are (provider, region) of each fleet (training None
    when nothing is trained; a shared fleet trains where it serves)."""
    from tco.domain import BRAZIL_REGIONS

    if c is None:
        return ()
    out: list[str] = []
    if c.data_in_brazil in ("training", "both") and training is not None and training[1] not in BRAZIL_REGIONS:
        out.append("training_outside_brazil")
    if c.data_in_brazil in ("serving", "both") and serving[1] not in BRAZIL_REGIONS:
        out.append("serving_outside_brazil")
    for prov, _ in (x for x in (training, serving) if x is not None):
        code = f"provider_not_accepted:{prov}"
        if c.providers and prov not in c.providers and code not in out:
            out.append(code)
    return tuple(out)


def _none() -> list:
    """An empty list, as a default: a Python function, whose signature pydantic reads without tokenizing
    ``list``'s text signature (a 6 ms regular expression at each start)."""
    return []


class Proposal(Frozen):
    number: Line = ""
    """Proposal number (e.g. "NE-2026-0142")."""
    version: int = Field(1, ge=1, le=999)
    """Version of the proposal (1 for the first)."""
    date: Day | None = None
    """The document's date. Absent: the first day of the scenario's start month (never today's date)."""
    valid_until: Day | None = None
    """Last day the offer stands."""
    owner: Person | None = None
    """The provider's account owner (named on the cover and in next steps)."""
    signatory: Person | None = None
    """Who signs for the provider."""
    items: list[Item] = Field(default_factory=_none, max_length=50)
    """The items priced; absent: derived from the offered option's fleet and catalog prices (an estimate)."""
    min_term_months: int | None = Field(None, ge=1, le=240)
    """Minimum term of the contract [months] (absent: the catalog's for the offered fleet)."""
    adjustment_index: Literal["IPCA", "IGP-M", "none"] = "IPCA"
    """Index of the yearly price adjustment ('none': fixed prices)."""
    adjustment_month: int | None = Field(None, ge=1, le=12)
    """Month of the year the adjustment applies (absent: each contract anniversary)."""
    payment_terms: Line = ""
    """How and when the client pays (absent: monthly, in reais, against invoice)."""
    taxes_included: bool = True
    """True: the monthly fees include the taxes on the invoice (NFS-e)."""
    included: Included = Field(default_factory=Included)
    """What the service includes (`[proposal.included]`); only the keys written are shown."""
    next_steps: list[Step] = Field(default_factory=_none, max_length=10)
    """The steps to a signed contract, with dates (absent: benchmark, firm quote and signature, dated from `date`)."""
    client_need: Text = ""
    """One sentence: what the client needs, in the client's words."""
    client_cnpj: Annotated[Line, AfterValidator(lambda v: formatted_cnpj(cnpj_digits(v)) if v else v)] = ""
    """The client's CNPJ (12.345.678/0001-95; its check digits are checked), printed on the cover."""
    client_contact: Person | None = None
    """The client's contact for this proposal (name, role, e-mail, phone), printed on the cover."""
    contract: Contract = Field(default_factory=Contract)
    """The contract terms (`[proposal.contract]`: duration, renewal, SLA credits, support, exit, LGPD, foro, the
    firm quote's reference)."""
    constraints: Constraints | None = None
    """The client's constraints (`[proposal.constraints]`: data residency, accepted providers), enforced in the
    recommendation and the plan search."""
    brand: Line = ""
    """The seller's brand folder, relative to the scenario's folder: its theme.toml (provider, contact, colours) and
    logo (absent: the package's example brand, marked "exemplo" on the PDF)."""
    attach_scenario_comments: bool = False
    """True: the attached scenario keeps its comment lines (default: comments removed)."""

    @model_validator(mode="after")
    def _dates(self):
        if self.date and self.valid_until and self.valid_until < self.date:
            raise ValueError(f"valid_until {self.valid_until} is before the proposal's date {self.date}")
        early = [f"next_steps[{i}].by = {st.by}" for i, st in enumerate(self.next_steps)
                 if self.date and st.by < self.date]
        if early:
            raise ValueError(f"{', '.join(early)}: a step due before the proposal's date ({self.date}) is already late "
                             "when the client reads it")
        c = self.contract
        if c.duration_months and self.min_term_months and c.duration_months < self.min_term_months:
            raise ValueError(f"contract.duration_months = {c.duration_months} is shorter than min_term_months = "
                             f"{self.min_term_months}: the contract would end before its minimum term")
        sla = self.included.sla_share
        above = [f"contract.sla_credits[{i}].below_share = {t.below_share:g}" for i, t in enumerate(c.sla_credits)
                 if sla is not None and t.below_share > sla]
        if above:  # a credit owed in a month the promised availability is met (2026-12d K5)
            verb = "is" if len(above) == 1 else "are"
            raise ValueError(f"{', '.join(above)} {verb} above included.sla_share = {sla:g}: the credit would be owed "
                             "in months that meet the promised availability; give each tier a below_share at most the "
                             "SLA, or raise sla_share")
        if c.quote_date and self.date and c.quote_date > self.date:
            raise ValueError(f"contract.quote_date {c.quote_date} is after the proposal's date {self.date}: a proposal "
                             "cannot carry a quote not yet made")
        if (c.quote_reference or c.quote_date) and not (self.items and all(i.firm_quote for i in self.items)):
            raise ValueError("contract.quote_reference / quote_date name a firm quote, but the items are not all "
                             "firm_quote = true")
        return self
