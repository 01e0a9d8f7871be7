"""The options' inputs side by side on the Inputs sheet: one row per parameter, one column per option (the union of
the options' parameters, in order; a parameter an option does not have is blank). Each value cell keeps its defined
name (``in_o<i>_<name>``) and its source as a cell comment."""

from __future__ import annotations

from tco.domain import CostLine, Currency, FleetKind, FleetMode
from tco.report import i18n
from tco.report.workbook.book import Book, abs_cell, merged
from tco.report.workbook.owned import add_validation, owned_inputs
from tco.sizing import peak_tflops
from tco.sizing.precision_rules import attention_format, kept_wide
from tco.sizing.vocab_rules import vocab_format

EGRESS_PARTS = ("lo", "hi", "p")


class _Column:
    """Collects one option's inputs as the Inputs writer's ``add``/``flag`` would write them."""

    def __init__(self, t):
        self.t = t
        self.rows: dict[str, dict] = {}
        self.last: str | None = None

    def add(self, name: str | None, key_label: str, value, unit: str, fmt: str = "in_num", source: str = "",
            extra: list | None = None, extra_fmts: list | None = None) -> None:
        if extra:  # an egress tier: from, to, price on three rows
            assert name is not None
            fmts = [fmt] + (extra_fmts or [fmt] * len(extra))
            units = unit.split("; ")
            j = int(name.split("_", 2)[2][2:-2])  # in_o<i>_eg<j>_@
            for part, v, f in zip(EGRESS_PARTS, [value] + extra, fmts):
                key = name.replace("@", part).split("_", 2)[2]
                self._put(key, self.t("egress_tier_" + part, j=j), name.replace("@", part), v,
                          units[-1] if part == "p" else units[0], f, source if part == "lo" else "")
            return
        key = name.split("_", 2)[2] if name else key_label
        self._put(key, key_label, name, value, unit, fmt, source)

    def _put(self, key, label, name, value, unit, fmt, source) -> None:
        self.rows[key] = {"label": label, "name": name, "value": value, "unit": unit, "fmt": fmt, "source": source,
                          "flag": False}
        self.last = key

    def flag(self) -> None:
        if self.last is not None:
            self.rows[self.last]["flag"] = True


def write_option_inputs(book: Book, w, res) -> None:
    """The table of the options' inputs at the writer's row."""
    t = book.t
    ws, sheet = w.ws, w.sheet
    cols = []
    for i, o in enumerate(res.options, start=1):
        c = _Column(t)
        _option_inputs(book, c, i, o, res.scenario, _wide_format(res))
        cols.append(c)
    keys = merged([list(c.rows) for c in cols])
    w.r += 1
    ws.write_string(w.r, 0, t("sec_options"), book.fmt("h1"))
    ws.write_string(w.r, 1 + len(cols), t("unit"), book.fmt("h1"))
    for j, o in enumerate(res.options):
        ws.write_string(w.r, 1 + j, o.name, book.fmt("h1"))  # scenario text: always a string
    ws.set_column(1, len(cols), 20)
    w.r += 1
    for key in keys:
        got = [c.rows.get(key) for c in cols]
        first = next(g for g in got if g is not None)
        ws.write_string(w.r, 0, first["label"])
        units = sorted({g["unit"] for g in got if g is not None and g["unit"]})
        if units:
            ws.write_string(w.r, 1 + len(cols), " | ".join(units), book.fmt("small"))
        for j, g in enumerate(got):
            if g is not None:
                _cell(book, ws, sheet, w.r, 1 + j, g)
        w.r += 1


def _cell(book: Book, ws, sheet: str, r: int, c: int, g: dict) -> None:
    v, f = g["value"], g["fmt"]
    if v is None:
        ws.write_blank(r, c, None, book.fmt(f))
    elif isinstance(v, str):
        ws.write_string(r, c, v, book.fmt("lbl_text"))  # how the file was generated, not an input
    else:
        ws.write_number(r, c, float(v), book.fmt(f))
        if g["name"]:
            book.name(g["name"], abs_cell(sheet, r, c))
        if f.startswith("in_"):
            book.inputs.append((g["label"], abs_cell(sheet, r, c), float(v)))
        if g["flag"]:
            ws.data_validation(r, c, r, c, {"validate": "list", "source": [0, 1]})
        add_validation(ws, r, c, g["name"])
    if g["source"]:
        ws.write_comment(r, c, g["source"], {"x_scale": 2, "y_scale": 1.5})


def _wide_format(res) -> str:
    """The format of the layers the scenario's checkpoint keeps wider than its weights (precision_rules.kept_wide)."""
    m, prec = res.model, res.scenario.model.precision
    return kept_wide(getattr(m, "family", ""), prec, float(getattr(m, "attention_params_b", 0.0) or 0.0))[1] or prec


def _option_inputs(book: Book, w: _Column, i: int, o, s, wide: str) -> None:
    """One option's column, top to bottom: its fleet and serving prices, the serving hardware, the training fleet,
    the price factors and storage, the taxes of its invoices, the credits its buyer takes back, the egress tiers."""
    p = f"in_o{i}_"
    _serving_prices(book, w, p, o.resolved)
    _serving_hardware(book, w, p, o, s, wide)
    if o.resolved.training is not None:
        _training_fleet(book, w, p, o.resolved)
    _factors_and_storage(book, w, p, o)
    uses = _taxes(book, w, p, o)
    b_uses = _brl_invoice_taxes(book, w, p, o)
    _credits(book, w, p, o.resolved, uses + b_uses)
    _egress_tiers(book, w, p, o)
    owned_inputs(book, w, p, o)


def _price_unit(book: Book, fleet) -> tuple[str, str]:
    """A fleet's price unit and input format: US$ per hour, or R$ per month."""
    if fleet.currency == Currency.USD:
        return "US$/h", "in_usd_unit"
    return "R$" + book.t("per_month"), "in_brl"


def _serving_prices(book: Book, w: _Column, p: str, r) -> None:
    """The fleet mode, the serving offer and its price; a dedicated setup fee, a cloud upfront payment, or the
    committed baseline (k servers per term at the price, the hours above at the burst price)."""
    t, inf = book.t, r.inference
    w.add(None, t("col_fleet"),
          f"{book.term('fleet', r.fleet)}; {t('autoscale')}: {book.term('onoff', bool(r.autoscale))}; "
          f"{t('col_pricing')}: {book.term('pricing', inf.pricing)}", "")
    w.add(None, t("wl_inf_offer"), inf.offer_id, "", source=f"{inf.gpus_per_server} × {inf.gpu.gpu}")
    unit, fmt = _price_unit(book, inf)
    if r.owned is not None:  # bought servers: no rental price nor setup fee drives them (the owned inputs do)
        return
    w.add(p + "inf_price", t("inf_price"), inf.price, unit, fmt, f"{inf.price_source} ({inf.price_as_of})")
    if inf.kind == FleetKind.DEDICATED:
        w.add(p + "setup", t("setup_fee"), inf.setup_fee_brl, "R$", "in_brl")
    if inf.kind == FleetKind.CLOUD and inf.upfront_usd > 0:  # paid as each term starts; inf_price is the effective rate
        w.add(p + "upfront", t("upfront"), inf.upfront_usd, "US$", "in_usd_unit",
              f"{inf.price_source} ({inf.price_as_of})")
        w.add(p + "up_term", t("up_term"), inf.upfront_term_months, t("months"), "in_int")
    if r.committed is not None:
        w.add(p + "burst_price", t("burst_price"), r.burst.price, "US$/h", "in_usd_unit",
              f"{r.burst.pricing}: {r.burst.price_source} ({r.burst.price_as_of})")
        w.add(p + "commit_term", t("commit_term"), r.commit_term_months, t("months"),
              "in_int")
        for j, k in enumerate(r.committed, 1):
            w.add(p + f"commit_{j}", t("commit_n", j=j), k, "", "in_int")


def _serving_hardware(book: Book, w: _Column, p: str, o, s, wide: str) -> None:
    """The serving server: GPUs, memory, bandwidth, peak TFLOPS at the model's precision, link and network."""
    t, inf = book.t, o.resolved.inference
    w.add(p + "inf_gps", t("inf_gps"), inf.gpus_per_server, "GPU", "in_int")
    w.add(p + "inf_mem", t("inf_mem"), inf.gpu.memory_gb, "GB", "in_num")
    w.add(p + "inf_bw", t("inf_bw"), inf.gpu.bandwidth_tbs, "TB/s", "in_num", f"{inf.gpu.source} ({inf.gpu.as_of})")
    w.add(p + "inf_tflops", t("inf_tflops"), peak_tflops(inf.gpu, s.model.precision), "TFLOPS", "in_num",
          s.model.precision)
    attn = attention_format(s.model.kv_precision)
    w.add(p + "inf_attn_tflops", t("inf_attn_tflops"), peak_tflops(inf.gpu, attn), "TFLOPS", "in_num",
          t("inf_attn_tflops_src", kv=s.model.kv_precision, fmt=attn))
    w.add(p + "inf_wide_tflops", t("inf_wide_tflops"), peak_tflops(inf.gpu, wide), "TFLOPS", "in_num",
          t("inf_wide_tflops_src", fmt=wide))
    fp4 = s.model.precision == "fp4" and bool(inf.gpu.fp4_tflops)
    w.add(p + "inf_fp4_gemm", t("inf_fp4_gemm"), int(fp4), "-", "in_int", t("inf_fp4_gemm_src"))
    head = vocab_format(s.model.precision)
    w.add(p + "inf_vocab_tflops", t("inf_vocab_tflops"), peak_tflops(inf.gpu, head), "TFLOPS", "in_num",
          t("inf_vocab_tflops_src", fmt=head))
    hw = o.replica_candidates[0]  # the link and network the engine used (tco.sizing.calibrate.hardware_for, interconnect.csv)
    w.add(p + "inf_link", t("inf_link"), hw["link_gbs"], "GB/s", "in_num", f"{inf.gpu.interconnect}, {inf.gpu.gpu}")
    w.add(p + "inf_net", t("inf_net"), hw["network_gbps"], "Gb/s", "in_num", t("net_note"))
    w.add(p + "inf_link_lat", t("sv_link_lat"), hw["link_lat"], "s", "in_num6", t("sv_link_lat_src"))
    w.add(p + "inf_net_lat", t("sv_net_lat"), hw["net_lat"], "s", "in_num6", t("sv_net_lat_src"))
    w.add(p + "inf_link_share", t("sv_link_share"), hw["link_share"], "", "in_pct", t("sv_link_share_src"))


def _training_fleet(book: Book, w: _Column, p: str, r) -> None:
    """The training offer; its price, setup and minimum term when it is a fleet of its own; its server."""
    from tco.sizing.training_rules import multi_gpu_scaling

    t, tr = book.t, r.training
    w.add(None, t("wl_offer"), tr.offer_id, "", source=f"{tr.gpus_per_server} × {tr.gpu.gpu}")
    if r.fleet == FleetMode.SEPARATE:
        unit, fmt = _price_unit(book, tr)
        w.add(p + "tr_price", t("tr_price"), tr.price, unit, fmt, f"{tr.price_source} ({tr.price_as_of})")
        if tr.kind == FleetKind.DEDICATED:
            w.add(p + "tr_setup", t("tr_setup_fee"), tr.setup_fee_brl, "R$", "in_brl")
            w.add(p + "tr_min_term", t("tr_min_term"), tr.min_term_months, t("months"), "in_int")
    from tco.sizing import dense_peak, training_mfu_base

    prec = book.training_precision
    w.add(p + "tr_tflops", t("tr_tflops", prec=prec), dense_peak(tr.gpu, prec) or tr.gpu.bf16_tflops, "TFLOPS",
          "in_num", f"{tr.gpu.source} ({tr.gpu.as_of})")
    if book.training_mfu is not None:
        w.add(p + "tr_mfu_base", t("tr_mfu_base", gen=tr.gpu.generation, prec=prec),
              training_mfu_base(tr.gpu, prec, book.training_mfu), "", "in_pct", t("moe_mfu_src"))
    w.add(p + "tr_gps", t("tr_gps"), tr.gpus_per_server, "GPU", "in_int")
    w.add(p + "tr_mem", t("tr_mem"), tr.gpu.memory_gb, "GB", "in_num")
    scaling = multi_gpu_scaling(tr.gpu.interconnect, book.scaling)  # the catalog's, or the fallback
    w.add(p + "tr_scaling", t("tr_scaling", ic=tr.gpu.interconnect), scaling, "", "in_pct")


def _factors_and_storage(book: Book, w: _Column, p: str, o) -> None:
    """The yearly price factors the option's rules read (indexation, price trend) and the storage price."""
    from tco.report.workbook.deps import live

    t, r = book.t, o.resolved
    _, used = live(o.costs)  # a price factor of the other kind of fleet drives nothing: not an input
    if "o.index" in used:
        w.add(p + "index", t("index_rate"), r.indexation_rate, t("u_per_year"), "in_pct")
    if "o.trend" in used:
        w.add(p + "trend", t("trend_rate"), r.price_trend_rate, t("u_per_year"), "in_pct")
    w.add(p + "storage", t("storage_price"), r.storage_usd_per_gb_month, "US$/GB" + t("per_month"), "in_usd_unit",
          r.storage_source)


def _taxes(book: Book, w: _Column, p: str, o) -> tuple[str, ...]:
    """The tax profile of the option's taxed invoice, its billing and the rates its method has (a rate that drives
    nothing is not an input); returns the taxes it has."""
    from tco.costs.tax_rules import USES

    t, r = book.t, o.resolved
    tax = r.brl_tax if o.costs.currency[CostLine.TAXES] == Currency.BRL else r.tax
    w.add(None, t("col_tax_profile"), tax.profile_id, "", "lbl_text",
          source=f"{book.term('taxm', tax.method)}: {getattr(tax, 'label_' + i18n.language(book.locale))}")
    if r.billing is not None:
        w.add(None, t("br_billing"), r.billing.mode, "", "lbl_text", source=f"{r.billing.status}: {r.billing.source}")
    uses = USES[tax.method]
    for k in uses:
        w.add(p + k, book.term("col", k + "_rate"), tax.rates.get(k + "_rate", 0.0), "", "in_pct",
              f"{tax.source} ({tax.as_of})" if k == uses[0] else "")
    if not uses:
        w.add(None, t("tax_none"), t("na"), "", "lbl_text")
    if "pis_cofins" in uses:
        w.add(p + "credit", t("creditable"), 1 if tax.pis_cofins_creditable else 0, "", "in_int")
        w.flag()
    return uses


def _brl_invoice_taxes(book: Book, w: _Column, p: str, o) -> tuple[str, ...]:
    """The BRL invoice of a hybrid: its own tax profile and rates, for its credits; returns the taxes it has."""
    from tco.report.workbook.book import hybrid_brl_invoice
    from tco.costs.tax_rules import USES

    if not hybrid_brl_invoice(o):
        return ()
    t, bt = book.t, o.resolved.brl_tax
    b_uses = USES[bt.method]
    w.add(None, t("col_tax_profile") + " — " + t("brl_invoice"), bt.profile_id, "", "lbl_text",
          source=f"{book.term('taxm', bt.method)}: {getattr(bt, 'label_' + i18n.language(book.locale))}")
    for k in b_uses:
        w.add(p + "b_" + k, book.term("col", k + "_rate") + " — " + t("brl_invoice"),
              bt.rates.get(k + "_rate", 0.0), "", "in_pct",
              f"{bt.source} ({bt.as_of})" if k == b_uses[0] else "")
    if "pis_cofins" in b_uses:
        w.add(p + "b_credit", t("creditable") + " — " + t("brl_invoice"), 1 if bt.pis_cofins_creditable else 0, "",
              "in_int")
        w.flag()
    return b_uses


def _credits(book: Book, w: _Column, p: str, r, taxed: tuple[str, ...]) -> None:
    """The buyer's regime and, for each creditable tax some invoice has, whether the regime takes it back."""
    from tco.costs.tax_rules import CREDITABLE
    from tco.domain.taxes import REGIMES

    t = book.t
    w.add(None, t("tax_regime"), r.regime or "—", "", "lbl_text")
    credited = REGIMES.get(r.regime or "", ())
    for k in CREDITABLE:
        if k in taxed:
            w.add(p + "cr_" + k, t("cr_" + k), 1 if k in credited else 0, "", "in_int")
            w.flag()


def _egress_tiers(book: Book, w: _Column, p: str, o) -> None:
    """Each egress tier: from, to and price (an open top or an unverified price is a label, not a number to edit:
    the rules do not read it)."""
    t, eg = book.t, o.resolved.egress
    eg_usd = o.costs.currency[CostLine.EGRESS] == Currency.USD
    for j, (lo, hi, price) in enumerate(eg.tiers, start=1):
        note = eg.egress_id + (f" — {eg.source[:120]} ({eg.as_of})" if j == 1 else "")
        if price is None:
            note = t("unverified") + "; " + note
        if hi is None:
            note = t("unbounded") + "; " + note
        w.add(f"{p}eg{j}_@", t("egress_tier", j=j), lo, "GB; " + ("US$/GB" if eg_usd else "R$/GB"),
              "in_num", note, extra=[t("open_top") if hi is None else hi, t("unpriced") if price is None else price],
              extra_fmts=["in_num", "in_usd_unit" if eg_usd else "in_brl_unit"])
