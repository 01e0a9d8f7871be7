"""The sweep's tidy table (one row per case and option; one row with the error for a failed case) and the
writing of a sweep's files, all of them or none.

The Parquet file records the sweep file's hash and the number of cases in its metadata, so ``--resume`` can
tell that a table belongs to the same sweep and skip the cases it already has. Rows are sorted by case (an
option's rows in the scenario's order), so a resumed sweep's table equals an uninterrupted one's.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from typing import Callable

META_KEY = b"tco_sweep"


def frame(rows: list[dict], columns: list[str]):
    """The rows as a pandas DataFrame in `columns` order, sorted by case (stable: options keep their order)."""
    import pandas as pd

    df = pd.DataFrame(rows, columns=columns)
    return df.sort_values("case", kind="stable").reset_index(drop=True)


def write_parquet(df, path: Path, sha256: str, total: int) -> None:
    """`df` as Parquet with the sweep's hash and case count in the schema's metadata."""
    import json

    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.Table.from_pandas(df, preserve_index=False)
    meta = dict(table.schema.metadata or {})
    meta[META_KEY] = json.dumps({"sweep_sha256": sha256, "cases": total}).encode()
    pq.write_table(table.replace_schema_metadata(meta), path)


TEXT_COLUMNS = frozenset({"option", "kind", "feasible", "leader", "fleet", "inference_offer", "training_offer",
                          "breakeven_versus", "users_challenger", "error"})
"""The table's columns that hold text or true/false (the axes' too); every other one holds numbers."""


def tampered(df, columns: list[str], axes: tuple[str, ...], cases: list[tuple]) -> str | None:
    """Why the table `df` cannot be this sweep's (its columns, case numbers, axis values or number columns are
    not what the sweep writes), or None. The hash in the metadata is copied with the file: this reads the rows."""
    import pandas as pd

    if list(df.columns) != list(columns):
        return "its columns are not the ones this sweep writes"
    case = df["case"]
    if len(df) and (not pd.api.types.is_integer_dtype(case) or not case.between(0, len(cases) - 1).all()):
        return f"its case numbers are not this sweep's (whole numbers from 0 to {len(cases) - 1:,})"
    if df.duplicated(["case", "option"]).any():
        return "a case's option appears twice"
    for c in columns:
        if c not in TEXT_COLUMNS and c not in axes and not (pd.api.types.is_numeric_dtype(df[c]) or df[c].isna().all()):
            return f"its column {c!r} holds text where the sweep writes numbers"
    for i, a in enumerate(axes):
        if list(df[a]) != [cases[k][i] for k in case]:
            return f"its {a!r} values are not the ones of this sweep's cases"
    return None


def read_done(path: Path, sha256: str, total: int, columns: list[str] | None = None, axes: tuple[str, ...] = (),
              cases: list[tuple] | None = None) -> list[dict] | None:
    """The rows of an earlier run of this sweep at `path` (None if there is no table). Raises InputError for a
    table of another sweep (a changed sweep file makes other cases: resuming would mix them), and, given the
    sweep's `columns`, axis columns and `cases`, for a table whose rows are not this sweep's (``tampered``)."""
    import json

    import pyarrow.parquet as pq

    from tco.errors import InputError, Problem

    if not path.is_file():
        return None
    try:
        table = pq.read_table(path)
        meta = json.loads((table.schema.metadata or {}).get(META_KEY, b"{}"))
    except Exception as exc:  # noqa: BLE001  (a file that is not a sweep's Parquet)
        raise InputError([Problem(str(path), "", f"cannot resume: not a readable sweep table ({exc})")]) from None
    if meta.get("sweep_sha256") != sha256 or meta.get("cases") != total:
        raise InputError([Problem(str(path), "", "cannot resume: this table was written by a different sweep file "
                                  "(its cases would not match); remove it or write to another folder with -o")])
    df = table.to_pandas()
    why = tampered(df, columns, axes, cases) if columns is not None and cases is not None else None
    if why:
        raise InputError([Problem(str(path), "", f"cannot resume: {why}; remove the table or write to another "
                                  "folder with -o")])
    return df.astype(object).where(df.notna(), None).to_dict("records")  # a missing cell None, as run_case writes it
    # (not NaN: a NaN `error` is truthy, and every resumed case of a table with one failure counted as failed)


def publish_files(out_dir: Path, render: Callable[[Path], list[str]]) -> list[Path]:
    """Call ``render(tmp)`` to write files into a private temporary folder inside `out_dir` (created if needed),
    then move them into `out_dir` under its lock: all of them or, on any failure, none (a folder this call made
    is removed again)."""
    from tco.output import TEMP_PREFIX
    from tco.output.publish import folder_lock, publish

    created = not out_dir.exists()
    out_dir.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f"{TEMP_PREFIX}{os.getpid()}-", dir=out_dir))
    try:
        names = render(tmp)
        with folder_lock(out_dir):
            return publish(tmp, out_dir, names)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        if created and not any(out_dir.iterdir()):
            out_dir.rmdir()
        raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
