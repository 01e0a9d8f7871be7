"""The Inputs sheet (every scenario input and resolved price, input-styled, with a defined name and
a unit) and the Catalog sheet (every price and spec used, with its source and date)."""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING

from tco.domain import FxBasePath, FxModel, GrowthModel, Redundancy, TrainingMethod, is_monte_carlo
from tco.timeline import calendar as demand
from tco.timeline import fx_lists
from tco.report.workbook.book import Book, abs_cell, reform_periods

if TYPE_CHECKING:
    from tco.results import Results

EXCEL_EPOCH = dt.date(1899, 12, 30)


def excel_date(month: str) -> float:
    y, m = (int(x) for x in month.split("-"))
    return float((dt.date(y, m, 1) - EXCEL_EPOCH).days)


class _Writer:
    """Writes input rows one under the other and defines a name for each value cell."""

    def __init__(self, book: Book, ws, sheet: str):
        self.book, self.ws, self.sheet, self.r = book, ws, sheet, 0

    def section(self, text: str) -> None:
        self.r += 1
        self.ws.write_string(self.r, 0, text, self.book.fmt("h2"))
        self.r += 1

    def flag(self) -> None:
        """Restrict the value written last to 0 or 1 (a yes/no input)."""
        self.ws.data_validation(self.r - 1, 1, self.r - 1, 1, {"validate": "list", "source": [0, 1]})

    def add(self, name: str | None, key_label: str, value, unit: str, fmt: str = "in_num", source: str = "",
            extra: list | None = None, extra_fmts: list | None = None) -> None:
        """One input: label, value (blank when None), unit, source; `extra` adds more values in C, D
        (in `extra_fmts`, else in `fmt`)."""
        ws, b = self.ws, self.book
        ws.write_string(self.r, 0, key_label)
        fmts = [fmt] + (extra_fmts or [fmt] * len(extra or []))
        for j, (v, f) in enumerate(zip([value] + (extra or []), fmts)):
            c = 1 + j
            if v is None:
                ws.write_blank(self.r, c, None, b.fmt(f))
            elif isinstance(v, str):
                ws.write_string(self.r, c, v, b.fmt("lbl_text"))  # a label of how the file was generated, not an input
            else:
                ws.write_number(self.r, c, float(v), b.fmt(f))
            if f.startswith("in_") and not isinstance(v, str):
                b.inputs.append((key_label, abs_cell(self.sheet, self.r, c), 0.0 if v is None else float(v)))
            if name and not isinstance(v, str):  # with extra values, "@" in the name becomes lo, hi, p
                b.name(name.replace("@", ["lo", "hi", "p"][j]) if extra else name, abs_cell(self.sheet, self.r, c))
        if unit:
            ws.write_string(self.r, 4, unit, b.fmt("small"))
        if source:
            ws.write_string(self.r, 5, source, b.fmt("small"))
        self.r += 1


def write_inputs(book: Book, res: Results) -> None:
    """The Inputs sheet, top to bottom: constants, levers, general and FX, demand, the given paths, the daily
    profile, the model and its serving, training, the tax reform periods, then each option's prices."""
    from tco.report.workbook.levers import write_levers
    from tco.report.workbook.option_inputs import write_option_inputs

    book.scaling = dict(res.efficiencies.scaling_efficiency)
    tr = res.scenario.training
    book.training_precision = tr.precision
    book.training_mfu = dict(res.efficiencies.training_mfu) if tr.mfu is None and tr.gpu_hours is None else None
    w = _sheet_head(book)
    _constants(w, book.t)
    write_levers(book, w)
    _general(w, res)
    _demand(w, res.scenario)
    _users_list(w, res.scenario.inference.users)
    _fx_list(w, res)
    _profile(w, res.scenario.inference)
    _model(w, res)
    _serving_inputs(w, book.t, res)
    _training(w, res)
    _reform(w, res)
    write_option_inputs(book, w, res)
    w.ws.print_area(0, 0, w.r, 1 + len(res.options))


def _sheet_head(book: Book) -> _Writer:
    """Column widths, title, legend and column heads; a writer placed under them."""
    sheet = book.sheets["inputs"]
    ws = book.wb.get_worksheet_by_name(sheet)
    t = book.t
    for first, last, width in ((0, 0, 48), (1, 1, 18), (2, 3, 12), (4, 4, 14), (5, 5, 60)):
        ws.set_column(first, last, width)
    ws.write_string(0, 0, t("sh_inputs"), book.fmt("title"))
    ws.write_string(0, 2, t("inputs_legend"), book.fmt("small"))
    for c, k in enumerate(("col_item", "col_value", "", "", "unit", "col_source")):
        if k:
            ws.write_string(1, c, t(k), book.fmt("head"))
    w = _Writer(book, ws, sheet)
    w.r = 2
    ws.freeze_panes(2, 1)
    return w


def _general(w: _Writer, res: Results) -> None:
    """Start date, discount rate, and the FX model with its base path and (Monte Carlo) parameters."""
    s, fx, book, t = res.scenario, res.scenario.fx, w.book, w.book.t
    w.section(t("sec_general"))
    w.add("in_start_date", t("start_date"), excel_date(s.scenario.start), "", "in_date")
    w.add("in_discount_rate", t("discount_rate"), s.scenario.discount_rate, t("u_per_year"), "in_pct")
    w.add("in_usdbrl", t("usdbrl"), fx.usdbrl, "BRL/USD", "in_num4")
    w.add(None, t("fx_model"), book.term("fxm", fx.model), "")
    base = _base_path(res)
    w.add(None, t("wb_fx_base_path"), book.term("fxb", base), "", "in_num",
          res.fx_info.base.source if res.fx_info else "")
    if base == FxBasePath.FORWARD:
        w.add("in_brl_rate", t("brl_rate"), fx.brl_rate, t("u_per_year"), "in_pct")
        w.add("in_usd_rate", t("usd_rate"), fx.usd_rate, t("u_per_year"), "in_pct")
    if fx.model == FxModel.GBM and fx.drift is not None:
        w.add("in_fx_drift", t("fx_drift"), fx.drift, t("u_per_year"), "in_num6")
    info = res.fx_info
    if is_monte_carlo(fx.model) and info is not None:
        mc: list[tuple[str, float | None, str]] = [(t("volatility"), info.volatility, "eng_pct"),
                                                   (t("paths"), info.paths, "eng_int"), (t("seed"), info.seed, "eng_gen")]
        if fx.model == FxModel.BOOTSTRAP:
            mc.append((t("block_months"), fx.block_months, "eng_int"))
        for lab, v, fmt in mc:
            if v is not None:
                w.add(None, lab, float(v), "", fmt, t("mc_input_note"))


def _base_path(res: Results) -> str:
    return res.fx_info.base.path if res.fx_info else FxBasePath.SPOT


def _demand(w: _Writer, s) -> None:
    """When serving and training start, the users curve of the growth model, the load per user and the fleet's
    utilization target and redundancy."""
    inf, tr, g, book, t = s.inference, s.training, s.inference.users, w.book, w.book.t
    w.section(t("sec_demand"))
    w.add("in_inf_start", t("inf_start"), inf.start_month, "t", "in_int")
    if tr.method != TrainingMethod.NONE:
        w.add("in_train_start", t("train_start"), tr.start_month, "t", "in_int")
    w.add(None, t("growth_model"), book.term("growth", g.model), "")
    users_u = t("u_users")
    if g.model == GrowthModel.LINEAR:
        w.add("in_start_users", t("start_users"), g.start_users, users_u, "in_int")
        w.add("in_end_users", t("end_users"), g.end_users, users_u, "in_int")
    elif g.model == GrowthModel.COMPOUND:
        w.add("in_start_users", t("start_users"), g.start_users, users_u, "in_int")
        w.add("in_growth_rate", t("growth_rate"), g.monthly_growth_rate, t("u_per_month"), "in_pct")
        if g.max_users is not None:
            w.add("in_max_users", t("max_users"), g.max_users, users_u, "in_int")
    elif g.model == GrowthModel.LOGISTIC:
        w.add("in_start_users", t("start_users"), g.start_users, users_u, "in_int")
        w.add("in_ceiling_users", t("ceiling_users"), g.ceiling_users, users_u, "in_int")
        w.add("in_steepness", t("steepness"), g.steepness_per_month, t("u_per_month"), "in_num4")
    w.add("in_rpud", t("wl_requests"), inf.requests_per_user_per_day, t("u_rpud"), "in_num")
    w.add("in_adpw", t("adpw"), inf.active_days_per_week, t("u_adpw"), "in_num")
    w.add("in_in_tokens", t("in_tokens"), inf.input_tokens_per_request, "tokens", "in_int")
    w.add("in_out_tokens", t("out_tokens"), inf.output_tokens_per_request, "tokens", "in_int")
    w.add("in_egress_kb", t("egress_kb"), inf.egress_kb_per_request, "kB/req", "in_num")
    w.add("in_storage_gb", t("storage_gb"), inf.storage_gb, "GB", "in_int")
    w.add("in_utilization", t("utilization"), inf.utilization_target_share, "", "in_pct")
    w.add("in_n1", t("n_plus_1"), 1 if inf.redundancy == Redundancy.N_PLUS_1 else 0, "", "in_int")
    w.flag()


def _name_range(w: _Writer, name: str, first: int, last: int, c: int) -> None:
    """Name the cells of column `c` in the rows first..last (0-based) of the Inputs sheet."""
    w.book.name(name, f"{abs_cell(w.sheet, first, c)}:{abs_cell(w.sheet, last, c).split('!')[1]}")


def _users_list(w: _Writer, g) -> None:
    """The users given month by month (the list growth model), named in_users_list."""
    if g.model != GrowthModel.LIST:
        return
    t = w.book.t
    w.section(t("sec_users_list"))
    first = w.r
    for month_k, n_users in enumerate(g.users, start=1):
        w.add(None, f"k = {month_k}", n_users, t("u_users"), "in_int")
    _name_range(w, "in_users_list", first, w.r - 1, 1)


def _fx_list(w: _Writer, res) -> None:
    """The FX path the Timeline's fx row reads, when it is given month by month: a list, or the Focus weights
    (fx_t = spot × w_t + b_t: the spot's weight in B, the survey's part in C)."""
    s, t = res.scenario, w.book.t
    lists = fx_lists(s.fx, s.scenario.start, s.scenario.horizon_months)
    given, weights, parts = lists["fx_list"], lists["fx_w"], lists["fx_b"]
    if given is None and (weights is None or parts is None):
        return
    w.section(t("sec_fx_list", path=w.book.term("fxb", _base_path(res))))
    first = w.r
    if given is not None:
        for m, v in enumerate(given, start=1):
            w.add(None, f"t = {m}", v, "BRL/USD", "in_num4")
    else:
        for m, (v, b) in enumerate(zip(weights or [], parts or []), start=1):
            w.add(None, f"t = {m}", v, "w / BRL/USD", "in_num6", t("fx_focus_row") if m == 1 else "", [b],
                  ["in_num4"])
    names = (("in_fx_list", 1),) if given is not None else (("in_fx_w", 1), ("in_fx_b", 2))
    for name, c in names:
        _name_range(w, name, first, w.r - 1, c)


def _profile(w: _Writer, inf) -> None:
    """The share of a day's requests in each hour (24 inputs, named in_profile)."""
    w.section(w.book.t("sec_profile"))
    raw = inf.daily_profile if not isinstance(inf.daily_profile, str) else demand.profile(inf.daily_profile)
    w.book.rows["profile_first_input"] = w.r
    for h in range(24):
        w.add(f"in_profile_{h:02d}", w.book.t("hour", h=h), float(raw[h]), "", "in_num6",
              inf.daily_profile if isinstance(inf.daily_profile, str) and h == 0 else "")
    _name_range(w, "in_profile", w.r - 24, w.r - 1, 1)


def _model(w: _Writer, res: Results) -> None:
    """The model's architecture and number formats, the serving targets and the efficiencies."""
    from tco.sizing import BYTES_PER_PARAM, KV_RESERVE_SHARE, PREFILL_MIX_SHARE
    from tco.sizing.calibrate import model_spec
    from tco.sizing.replica import attention_shape

    s, inf, m, t = res.scenario, res.scenario.inference, res.model, w.book.t
    w.section(t("sec_model"))
    w.add(None, t("src_model"), m.model, "", source=m.source)
    w.add("in_params_b", t("params_b"), m.params_b, "1e9", "in_num")
    w.add("in_active_params_b", t("active_params_b"), m.active_params_b, "1e9", "in_num")
    w.add("in_layers", t("col_layers"), m.layers, "", "in_int")
    w.add("in_kv_heads", t("col_kv_heads"), m.kv_heads, "", "in_int")
    w.add("in_head_dim", t("col_head_dim"), m.head_dim, "", "in_int")
    heads, attn_dim = attention_shape(model_spec(m, s.model.precision, s.model.kv_precision))
    w.add("in_heads", t("sv_heads"), heads, "", "in_int")
    w.add("in_attn_dim", t("sv_attn_dim"), attn_dim, "", "in_num")
    w.add("in_attn_dim_prompt", t("attn_dim_prompt"), float(getattr(m, "prompt_attention_head_dim", 0.0) or 0.0), "",
          "in_num", t("attn_dim_prompt_src"))
    w.add("in_weight_bytes", t("weight_bytes"), BYTES_PER_PARAM[s.model.precision], "B", "in_num", s.model.precision)
    w.add("in_kv_bytes", t("kv_bytes"), BYTES_PER_PARAM[s.model.kv_precision], "B", "in_num", s.model.kv_precision)
    spec = model_spec(m, s.model.precision, s.model.kv_precision)
    w.add("in_wide_params_b", t("wide_params_b"), spec.wide_params / 1e9, "1e9", "in_num", t("wide_params_src"))
    w.add("in_wide_bytes", t("wide_bytes"), BYTES_PER_PARAM[spec.wide_precision or s.model.precision], "B", "in_num",
          spec.wide_precision or s.model.precision)
    w.add("in_embed_params_b", t("embed_params_b"), spec.embed_params / 1e9, "1e9", "in_num", t("embed_params_src"))
    w.add("in_head_params_b", t("head_params_b"), spec.head_params / 1e9, "1e9", "in_num", t("head_params_src"))
    w.add("in_vocab_bytes", t("vocab_bytes"), BYTES_PER_PARAM[spec.vocab_precision or s.model.precision], "B", "in_num",
          spec.vocab_precision or s.model.precision)
    w.add("in_target_tps", t("target_tps"), inf.tokens_per_second_per_user, "tokens/s", "in_num")
    w.add("in_max_batch", t("max_batch"), inf.max_batch_sequences, "seq", "in_int")
    w.add("in_kv_reserve", t("kv_reserve"), KV_RESERVE_SHARE[inf.framework], "", "in_pct", inf.framework)
    w.add("in_prefill_mix", t("prefill_mix"), PREFILL_MIX_SHARE[inf.framework], "", "in_pct", inf.framework)
    w.add("in_mem_usable", t("mem_usable"), inf.memory_usable_share, "", "in_pct")
    w.add("in_bw_eff", t("bw_eff"), res.efficiencies.bandwidth_efficiency_share, "", "in_pct")
    w.add("in_fl_eff", t("fl_eff"), res.efficiencies.flops_efficiency_share, "", "in_pct")


def _training(w: _Writer, res: Results) -> None:
    """The training method and what sizes it: GPU-hours given, or MFU, tokens and epochs; servers given, or days."""
    tr, t = res.scenario.training, w.book.t
    if tr.method == TrainingMethod.NONE:
        return
    w.add(None, t("train_method"), w.book.term("method", tr.method), "")
    w.add(None, t("train_precision"), tr.precision, "")
    if tr.gpu_hours is not None:
        w.add("in_gpu_hours", t("gpu_hours_given"), tr.gpu_hours, "GPU·h", "in_num")
    else:
        if tr.mfu is not None:
            w.add("in_mfu", t("eff_mfu"), tr.mfu, "", "in_pct")
        else:
            table = res.efficiencies.training_mfu
            w.add("in_moe_mfu_a", t("moe_mfu_a"), table["moe_a"], "", "in_num4", t("moe_mfu_src"))
            w.add("in_moe_mfu_k", t("moe_mfu_k"), table["moe_k"], "", "in_num4", t("moe_mfu_src"))
            w.add("in_moe_mfu_lowp", t("moe_mfu_lowp"), table.get("moe_lowp", 1.0) if tr.precision != "bf16" else 1.0,
                  "", "in_num4", t("moe_mfu_src"))
            w.add("in_tr_width_k", t("tr_width_k"), table.get("width_k", 0.0), "", "in_num4", t("moe_mfu_src"))
            w.add("in_tr_hidden_ref", t("tr_hidden_ref"), table.get("hidden_ref", 8192.0), "", "in_int",
                  t("moe_mfu_src"))
        w.add("in_train_tokens", t("train_tokens"), tr.tokens, "tokens", "in_sci")
        w.add("in_epochs", t("epochs"), tr.epochs, "", "in_num")
        # training sequence length and attention width (issue 21): the causal attention's FLOPs per token, as the
        # engine sized them (one model, so every option's training cluster has the same two)
        ts = next(iter(res.training_by_option.values()), None)
        if ts is not None:  # no option trains: no training cell reads them
            w.add("in_tr_seq_len", t("tr_seq_len"), ts.sequence_length, "tokens", "in_int",
                  "" if tr.sequence_length else t("tr_seq_len_default"))
            w.add("in_attn_width", t("tr_attn_width"), ts.attention_width, "", "in_int", t("tr_attn_width_src"))
    w.add("in_act_share", t("act_share"), tr.activation_memory_share, "", "in_pct")
    if tr.method == TrainingMethod.LORA:
        w.add("in_lora_share", t("lora_share"), tr.lora_trainable_share, "", "in_pct")
    if tr.servers is not None:
        w.add("in_train_servers", t("train_servers_given"), tr.servers, "", "in_int")
    else:
        w.add("in_target_days", t("target_days"), tr.target_days, "d", "in_num")


def _reform(w: _Writer, res) -> None:
    """Each tax reform period (LC 214/2025): its first and last month and its rates, with status and source."""
    periods, t = reform_periods(res), w.book.t
    if not periods:
        return
    w.section(t("sec_reform"))
    for j, per in enumerate(periods, start=1):
        note = f"{per.status}: {per.source} ({per.as_of})"
        w.add(f"in_rf{j}_from", t("rf_from", j=j, pid=per.period_id), excel_date(per.start), "", "in_date", note)
        last = per.until if per.until and per.until < res.months[-1] else res.months[-1]
        w.add(f"in_rf{j}_until", t("rf_until", j=j, pid=per.period_id), excel_date(last), "", "in_date",
              "" if per.until else t("rf_open"))
        w.add(f"in_rf{j}_pc", t("rf_pc", j=j), per.pis_cofins_share, "", "in_pct")
        w.add(f"in_rf{j}_iss", t("rf_iss", j=j), per.iss_share, "", "in_pct")
        w.add(f"in_rf{j}_cbs", t("rf_cbs", j=j), per.cbs_rate, "", "in_pct")
        w.add(f"in_rf{j}_ibs", t("rf_ibs", j=j), per.ibs_rate, "", "in_pct")


def _constants(w: _Writer, t) -> None:
    """The named constants (tco.constants), each with its unit and source: fixed, not inputs."""
    from tco.constants import ALL

    w.section(t("sec_constants"))
    for c in ALL:
        w.add(c.name, t(c.name), c.value, c.unit, "cst_gen", t("csrc_" + c.name))


def _serving_inputs(w, t, res: Results) -> None:
    """The rest of the serving model's inputs (tco.sizing.replica): architecture, TTFT target, calibration."""
    from tco.sizing import speculative_dict

    m, inf = res.model, res.scenario.inference
    cal = res.efficiencies.serving_calibration
    w.add(None, t("calibration"), cal["name"], "", source=cal["source"])
    w.add("in_hidden", t("hidden"), m.hidden_size or m.kv_heads * m.head_dim, "", "in_int")
    w.add("in_experts", t("experts"), m.experts, "", "in_int")
    w.add("in_experts_k", t("experts_k"), m.experts_per_token, "", "in_int")
    w.add("in_moe_layers", t("moe_layers"), (m.moe_layers or m.layers) if m.experts else 0, "", "in_int")
    w.add("in_ttft", t("ttft_target"), inf.time_to_first_token_seconds or 0.0, "s", "in_num")
    w.add("in_link_eff", t("link_eff"), cal["interconnect_share"], "", "in_pct", cal["name"])
    w.add("in_overhead", t("overhead"), cal["step_overhead_seconds"], "s", "in_num6", cal["name"])
    w.add("in_coll_lat", t("coll_lat"), cal["collective_latency_seconds"], "s", "in_num6", cal["name"])
    w.add("in_seq_over", t("sv_seq_over"), cal["sequence_overhead_seconds"], "s", "in_num6", cal["name"])
    w.add("in_layer_over", t("sv_layer_over"), cal["layer_overhead_seconds"], "s", "in_num6", cal["name"])
    spec = speculative_dict(res.scenario)  # issue 21: MTP speculative decoding (1 and 1 without it)
    w.add("in_spec_tokens", t("spec_tokens"), 1.0 + spec["draft_tokens"], "", "in_num")
    w.add("in_spec_accept", t("spec_accept"), spec["accepted_tokens_per_step"], "", "in_num",
          "" if spec["method"] == "none" else f"MTP, a = {spec['acceptance_share']:g}: 1 + a + … + aⁿ")
