"""A sweep from checked work to its files: the cases run (on Dask or in this process), the finished rows kept
when the run is interrupted, an earlier table resumed, and the files written all at once:
``DIR/<stem>.parquet`` (and ``.csv`` on request), the decision map ``DIR/<stem>.map.svg`` and its workbook
``DIR/<stem>.map.xlsx``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from tco.sweep.case import row_columns
from tco.sweep.plan import Work


@dataclass
class Outcome:
    total: int
    done: int = 0
    """Cases in the table (resumed ones included)."""
    resumed: int = 0
    failed: int = 0
    interrupted: bool = False
    written: list[Path] = field(default_factory=list)


def table_path(work: Work, out_dir: Path) -> Path:
    return out_dir / f"{Path(work.path).stem}.parquet"


def locale_of(work: Work) -> str:
    from tco.report.i18n import LOCALES

    loc = work.base.data.get("scenario", {}).get("locale", "pt-BR")
    return loc if loc in LOCALES else "pt-BR"


def map_words(work: Work, cases: int, x: str, y: str) -> dict[str, str]:
    """The decision map's and its sheet's texts in the base scenario's locale."""
    from tco.report.i18n import t

    loc = locale_of(work)
    keys = ("base", "none", "boundary", "pale", "sheet_map", "sheet_cases", "legend", "case", "leader", "tco", "more")
    words = {k: t(f"sweep_map_{k}", loc) for k in keys}
    words["title"] = t("sweep_map_title", loc, x=x, y=y)
    words["subtitle"] = t("sweep_map_subtitle", loc, cases=f"{cases:,}", base=Path(work.base.path).name)
    return words


def csv_safe(df):
    """The table for the CSV: every text cell and column name that a spreadsheet would read as a formula (a leading
    =, +, -, @) written as text (the run's ledger CSV rule, ``tco.report.ledger_csv.text_cell``)."""
    import pandas as pd

    from tco.report.ledger_csv import text_cell

    out = df.copy()
    for c in out.columns:
        if not pd.api.types.is_numeric_dtype(out[c]):  # object or pandas' str dtype
            out[c] = out[c].map(lambda v: text_cell(v) if isinstance(v, str) else v)
    out.columns = [text_cell(c) for c in out.columns]
    return out


def write_outputs(work: Work, out_dir: Path, rows: list[dict], csv: bool) -> list[Path]:
    """The table (Parquet, CSV on request), the decision map (SVG) and its workbook, all or none."""
    from tco.sweep import decision_map, map_sheet
    from tco.sweep.table import frame, publish_files, write_parquet

    df = frame(rows, row_columns(work.base))
    stem = Path(work.path).stem
    axes = work.sweep.map_axes()
    order = [str(o.get("name")) for o in work.base.data.get("options", [])]

    def render(tmp: Path) -> list[str]:
        names = [f"{stem}.parquet"]
        write_parquet(df, tmp / names[0], work.sha256, len(work.cases))
        if csv:
            names.append(f"{stem}.csv")
            csv_safe(df).to_csv(tmp / names[-1], index=False)
        if axes is not None and len(df):
            x, y = axes
            point = dict(zip(work.base.columns, work.base_point))
            m = decision_map.build(df, x, y, (point[x], point[y]), order)
            words = map_words(work, m.cases, x, y)
            (tmp / f"{stem}.map.svg").write_text(decision_map.svg(m, words), encoding="utf-8")
            map_sheet.write(m, df, tmp / f"{stem}.map.xlsx", words)
            names += [f"{stem}.map.svg", f"{stem}.map.xlsx"]
        return names

    return publish_files(out_dir, render)


def check_inputs(work: Work, out_dir: Path, csv: bool) -> None:
    """An InputError when a file the sweep writes would land on the sweep file or its base scenario: `sweep s.csv -o .
    --csv` replaced the sweep file with its own table (red team 2026-12d O2). Checked before any case runs."""
    from tco.errors import InputError, Problem
    from tco.files import entry

    stem = Path(work.path).stem
    names = [f"{stem}.parquet", f"{stem}.map.svg", f"{stem}.map.xlsx"] + ([f"{stem}.csv"] if csv else [])
    inputs = {entry(f): f for f in (work.path, work.base.path)}
    hits = [(n, inputs[entry(out_dir / n)]) for n in names if entry(out_dir / n) in inputs]
    if hits:
        raise InputError([Problem(str(out_dir / n), "-o", f"would replace {f}, which this sweep reads; write the "
                                  "output to another folder (-o) or rename the input", None) for n, f in hits])


def resumed(work: Work, out_dir: Path) -> list[dict] | None:
    """The rows of this sweep's table in `out_dir` (None if none), checked row by row (``table.tampered``)."""
    from tco.sweep.table import read_done

    return read_done(table_path(work, out_dir), work.sha256, len(work.cases), row_columns(work.base),
                     work.base.columns, work.cases)


def run(work: Work, out_dir: str | Path, *, client=None, resume: bool = False, csv: bool = False,
        progress: Callable[[int], None] | None = None) -> Outcome:
    """Run the sweep's cases not yet in the table (all of them unless `resume`) and write its files.
    `progress(n)` is called with the number of cases each finished batch held. An interrupt (Ctrl-C) stops the
    cases and keeps what finished: the outcome says ``interrupted`` and the files hold the finished cases."""
    from tco.sweep.runner import execute
    out = Path(out_dir)
    rows: list[dict] = (resumed(work, out) or []) if resume else []
    have = {int(r["case"]) for r in rows}
    outcome = Outcome(len(work.cases), resumed=len(have))
    todo = [i for i in range(len(work.cases)) if i not in have]

    def on_rows(new: list[dict], cases: int) -> None:
        rows.extend(new)
        if progress is not None:
            progress(cases)

    try:
        execute(work.base, work.cases, todo, on_rows, client)
    except KeyboardInterrupt:
        outcome.interrupted = True
    outcome.done = len({int(r["case"]) for r in rows})
    outcome.failed = len({int(r["case"]) for r in rows if r.get("error")})
    if rows:
        outcome.written = write_outputs(work, out, rows, csv)
    return outcome
