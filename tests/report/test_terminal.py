"""tco.report.terminal: what the CLI prints, read back from stdout as a user sees it.

The summary table ranks the feasible options by TCO with the margin over the best worked from the totals; an
infeasible option is shown with its speed instead of a rank; every notice gets one warning line; names print
literally (no markup, no escape sequences). Also the tornado and catalog-offer tables."""

from __future__ import annotations

import dataclasses
from dataclasses import replace
import io
import re
import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console

from tco.findings import Tornado, TornadoRow
from tco.report import fmt, terminal
from tco.report.i18n import t

CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def _norm(s: str) -> str:
    return unicodedata.normalize("NFKC", s).replace("\xa0", " ")


def _table_rows(out: str) -> list[list[str]]:
    """The body rows of a rich table (cells between │), a wrapped row's continuation lines folded into it."""
    rows: list[list[str]] = []
    for line in out.splitlines():
        if not line.startswith("│"):
            continue
        cells = [c.strip() for c in line.strip("│").split("│")]
        if cells[0] == "" and rows:
            rows[-1] = [f"{a} {b}".strip() for a, b in zip(rows[-1], cells, strict=True)]
        else:
            rows.append(cells)
    return rows


# --- literal text ------------------------------------------------------------------------------------------------

def test_literal_shows_control_characters_as_hex():
    assert terminal.literal("a\x1b[31mred") == "a\\x1b[31mred"
    assert terminal.literal("bell\x07") == "bell\\x07"
    assert terminal.literal("\x9b") == "\\x9b"  # the 8-bit CSI, as dangerous as ESC [
    assert terminal.literal("tab\there\nnext") == "tab\there\nnext"  # tab and newline are layout, kept
    assert terminal.literal(42) == "42"


@settings(max_examples=300, deadline=None)
@given(text=st.text())
def test_literal_leaves_no_control_character_and_changes_nothing_else(text):
    out = terminal.literal(text)
    assert not CONTROL.search(out)
    if not CONTROL.search(text):
        assert out == text


@settings(max_examples=300, deadline=None)
@given(text=st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\n\r\t:"), max_size=40)
       | st.text(alphabet="\\[]/ab@#", max_size=16))
def test_plain_prints_through_rich_exactly_as_literal(text):
    """Markup like [bold] or [/] in a name is printed as typed, not interpreted (nor does it raise)."""
    console = Console(file=io.StringIO(), width=10_000, color_system=None, highlight=False, soft_wrap=True)
    console.print(terminal.plain(text), end="")
    assert console.file.getvalue() == terminal.literal(text)


@pytest.mark.parametrize("text", ["\\", "Plano\\", "Plano\\\\", "[b]x\\", "x\\[b]", "\\[", "a\\[1", "\\\\[b]"])
def test_backslashes_and_brackets_print_as_typed(text):
    # Was: 'Plano\\' printed 'Plano\\\\' (rich's escape doubles a single trailing backslash) and '\\[' printed '['
    # (rich reads a backslash before any bracket as an escape); found by the property above.
    console = Console(file=io.StringIO(), width=200, color_system=None, highlight=False)
    console.print(terminal.plain(text), end="")
    assert console.file.getvalue() == text


def test_plain_escapes_markup():
    console = Console(file=io.StringIO(), width=200, color_system=None)
    console.print(terminal.plain("[red]Plano[/red] \x1b[2J"))
    assert console.file.getvalue() == "[red]Plano[/red] \\x1b[2J\n"


def test_option_names_print_literally_emoji_codes_and_markup_too(capsys):
    # Was: an option named 'Plano :fire:' printed as 'Plano 🔥' (rich replaces emoji codes unless the Console is made
    # with emoji=False), and the tornado's title took the names without escaping their markup.
    terminal.tornado_table(replace(TORNADO, challenger="Plano :fire:", leader="[bold]Lider[/bold] :x:"), "en")
    out = capsys.readouterr().out
    assert "Plano :fire:" in out and "[bold]Lider[/bold] :x:" in out and "\U0001f525" not in out


def test_every_console_of_the_package_is_made_without_emoji_codes():
    import ast
    from pathlib import Path

    import tco

    made = []
    for path in Path(tco.__file__).parent.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Console":
                emoji = [k.value for k in node.keywords if k.arg == "emoji"]
                made.append((path.name, node.lineno, isinstance(emoji[0], ast.Constant) and emoji[0].value is False
                             if emoji else False))
    assert made and all(ok for *_, ok in made), [m for m in made if not m[2]]


# --- the summary --------------------------------------------------------------------------------------------------

def test_summary_ranks_by_tco_with_the_margin_over_the_best(small_run, capsys):
    terminal.summary(small_run, [])
    out = _norm(capsys.readouterr().out)
    loc = small_run.scenario.scenario.locale
    ranked = sorted(small_run.options, key=lambda o: o.tco.deterministic)
    rows = _table_rows(out)
    assert [r[0] for r in rows] == [str(i) for i in range(1, len(ranked) + 1)]
    assert [r[1] for r in rows] == [o.name for o in ranked]
    best = ranked[0].tco.deterministic
    assert rows[0][3] == t("best", loc)
    for r, o in zip(rows[1:], ranked[1:], strict=True):
        # "+27,2%": (TCO / best TCO − 1) as a percentage with one decimal
        assert r[3] == "+" + fmt.percent(o.tco.deterministic / best - 1, loc)
        assert r[2] == _norm(fmt.money(o.tco.deterministic, loc, False))
        assert r[4] == _norm(fmt.money(o.npv.deterministic, loc, False))
        assert r[6] == _norm(fmt.money(float(o.lines_brl["egress"].sum()), loc, False))


def test_summary_cost_per_million_tokens_keeps_cents(small_run, capsys):
    terminal.summary(small_run, [])
    rows = _table_rows(_norm(capsys.readouterr().out))
    loc = small_run.scenario.scenario.locale
    first = min(small_run.options, key=lambda o: o.tco.deterministic)
    assert rows[0][7] == _norm(fmt.money(first.cost_per_million_tokens_brl, loc))
    assert "," in rows[0][7]  # pt-BR cents


def test_summary_has_one_warning_line_per_notice_and_names_the_files_written(small_run, capsys):
    terminal.summary(small_run, ["/tmp/tests-out/a.json", "/tmp/tests-out/a.xlsx"])
    out = capsys.readouterr().out
    loc = small_run.scenario.scenario.locale
    from tco.report import view
    from tco.report import offer_checks as proposal_checks

    ours = proposal_checks.notices(view.build(small_run), small_run.scenario)  # the proposal's own checks too
    # the example brand, and the best plan trains on an unverified, undated row
    assert [n.code for n in ours] == ["brand_example", "plan_unverified"]
    warned = re.findall(rf"^{re.escape(t('term_warning', loc))} ", out, flags=re.M)
    assert len(warned) == len(small_run.notices) + len(ours) > 1
    assert t("term_wrote", loc, path="/tmp/tests-out/a.json") in out
    assert t("term_wrote", loc, path="/tmp/tests-out/a.xlsx") in out


def test_an_infeasible_option_shows_its_speed_instead_of_a_rank(small_run, capsys):
    slow = small_run.options[0]
    options = [dataclasses.replace(o, replica=dataclasses.replace(o.replica, target_met=False)) if o is slow else o
               for o in small_run.options]
    terminal.summary(dataclasses.replace(small_run, options=options), [])
    rows = _table_rows(_norm(capsys.readouterr().out))
    loc = small_run.scenario.scenario.locale
    assert rows[-1][0] == "—" and rows[-1][1] == slow.name
    assert rows[-1][3] == _norm(t("term_infeasible", loc,
                                  tps=fmt.number(slow.achieved_tokens_per_second_per_user, loc, 1)))
    assert [r[0] for r in rows[:-1]] == [str(i) for i in range(1, len(options))]
    assert slow.name not in [r[1] for r in rows[:-1]]


def test_a_name_with_markup_and_escapes_prints_literally(small_run, capsys):
    o = small_run.options[0]
    options = [dataclasses.replace(o, name="[bold]X\x1b[2J[/]")] + list(small_run.options[1:])
    terminal.summary(dataclasses.replace(small_run, options=options), [])
    out = capsys.readouterr().out
    assert "\x1b" not in out
    assert "[bold]X\\x1b[2J[/]" in _norm(out)


# --- tornado and offers -------------------------------------------------------------------------------------------

TORNADO = Tornado(challenger="A", leader="B", base_diff_brl=1000.0,
                  rows=(TornadoRow(input="usdbrl", unit="× spot", label="USD/BRL", metric="tco", low=4.5, high=6.5,
                                   base_diff_brl=1000.0, low_diff_brl=-500.0, high_diff_brl=2500.0, swing_brl=3000.0),))


def test_tornado_table_in_english(capsys):
    terminal.tornado_table(TORNADO, "en")
    out = capsys.readouterr().out
    assert t("term_tornado_title", "en", challenger="A", leader="B", base="R$1,000") in out
    (row,) = _table_rows(out)
    assert row[0] == t("sens_in_usdbrl", "en")
    assert row[1].startswith("4.5 – 6.5 ")
    assert row[3:] == ["-R$500", "R$2,500", "R$3,000"]


def test_tornado_table_in_portuguese_formats_the_numbers_as_pt_br(capsys):
    rows = (replace(TORNADO.rows[0], low=4.25, high=6.75, swing_brl=1234567.0),)
    terminal.tornado_table(replace(TORNADO, rows=rows), "pt-BR")
    (row,) = _table_rows(_norm(capsys.readouterr().out))
    assert row[1].startswith("4,25 – 6,75 ")
    assert row[5] == "R$ 1.234.567"


def test_tornado_with_one_option_says_there_is_nothing_to_compare(capsys):
    terminal.tornado_table(Tornado(leader="A", challenger=None), "en")
    assert capsys.readouterr().out.strip() == t("term_one_option", "en")


def test_offers_table_filters_by_gpu(seed_inputs, capsys):
    cat = seed_inputs.catalog
    terminal.offers_table(cat, "h200", "en")
    rows = _table_rows(capsys.readouterr().out)
    expected = sum(len(cat.offer(i).prices) if cat.offer(i).kind == "cloud" else 1
                   for i in cat.offer_ids if "h200" in cat.offer(i).gpu.lower())
    assert len(rows) == expected > 0
    assert all("H200" in r[1] for r in rows)


def test_offers_table_with_no_match_lists_the_catalog_gpus(seed_inputs, capsys):
    terminal.offers_table(seed_inputs.catalog, "Z999", "en")
    out = capsys.readouterr().out
    assert "'Z999'" in out
    gpus = {seed_inputs.catalog.offer(i).gpu for i in seed_inputs.catalog.offer_ids}
    usable = gpus & set(seed_inputs.catalog.gpus)  # review L12: a GPU without a gpus.csv row is not offered as a choice
    assert all(g in out.replace("\n", "") for g in usable) and all(g not in out for g in gpus - usable)


# Was: piped to a file (rich width 170) the table was squeezed: long pricing names took the room, hourly prices were
# cut ('US$ 7.8218…') and the as_of column dropped.
def test_offers_table_prints_every_price_and_date_in_full(seed_inputs, capsys):
    cat = seed_inputs.catalog
    terminal.offers_table(cat, "L4", "en")
    out = capsys.readouterr().out
    o = cat.offer("aws/sa-east-1/g6.12xlarge")
    p = o.prices["on_demand"]
    assert f"US$ {fmt.number(p.usd_per_hour, 'en', 4)}" in out
    assert p.as_of in out


def test_the_ranked_table_fits_a_narrow_terminal(small_run):
    """At 80 and 100 columns columns are left out (egress first) and the names wrap; the frame is never broken."""
    import io

    from rich.console import Console

    for width in (80, 100, 150):
        buf = io.StringIO()
        Console(file=buf, width=width, emoji=False).print(terminal._ranked_table(small_run, "en", width))
        lines = buf.getvalue().splitlines()
        assert max(len(x) for x in lines) <= width
        frame = [x for x in lines if x[:1] in "┏┃┡│└"]
        assert frame and all(len(x) == len(frame[0]) for x in frame)  # every row of the box as wide as its top
        header = next(x for x in lines if x.startswith("┃"))
        assert (terminal.t("line_egress", "en") in header) == (width == 150)  # the first column left out


def test_fitting_drops_columns_in_order():
    headers = {k: "h" for k in terminal.RANKED_COLUMNS}
    cells = [["1", "name", "x" * 10, "x" * 10, "x" * 10, "x" * 20, "x" * 10, "x" * 10]]
    # widths 1 + 16 + 10 + 10 + 10 + 20 + 10 + 10 = 87, frame 3 · 8 + 1 = 25: 112
    assert terminal.fitting(headers, cells, 112) == list(terminal.RANKED_COLUMNS)
    assert "line_egress" not in terminal.fitting(headers, cells, 111)
    assert terminal.fitting(headers, cells, 40) == ["col_rank", "col_option", "col_tco"]
