"""Saved proposals: each proposal the desk generated, kept with its scenario text, number, client, date and
status (draft, sent, signed) in one SQLite file, ``<data folder>/proposals.sqlite``.

The scenario text is kept byte for byte: re-opening a proposal runs the same text, so its files come out the
same. A proposal is one row per scenario text (its SHA-256); generating it again keeps the row and its status.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import sqlite3
from pathlib import Path

STATUSES = ("draft", "sent", "signed")
FILE = "proposals.sqlite"
MAX_ID = 2**63 - 1
"""The largest row id SQLite stores; a larger number from the URL is no proposal (not an OverflowError)."""

_SCHEMA = """
create table if not exists proposals (
    id integer primary key,
    sha256 text not null unique,
    number text not null,
    client text not null,
    name text not null,
    stem text not null,
    status text not null default 'draft' check (status in ('draft', 'sent', 'signed')),
    created text not null,
    scenario text not null
)"""


def _connect(folder: Path) -> sqlite3.Connection:
    folder.mkdir(parents=True, exist_ok=True)
    con = sqlite3.connect(folder / FILE, timeout=10)
    con.row_factory = sqlite3.Row
    con.execute(_SCHEMA)
    return con


def unusable(folder: Path) -> str | None:
    """Why `folder` cannot keep the proposals (not a folder, not writable, a proposals.sqlite that is not the desk's
    database), or None."""
    try:
        with contextlib_closing(_connect(folder)) as con:
            con.execute("select count(*) from proposals").fetchone()
            con.execute("begin immediate")  # takes the write lock: a read-only file or folder fails here
            con.rollback()
    except (OSError, sqlite3.Error) as exc:
        return f"cannot keep the proposals there ({exc})"
    return None


def save(folder: Path, text: str, *, number: str, client: str, name: str, stem: str,
         now: _dt.datetime | None = None) -> int:
    """Keep a generated proposal (or find it again: the same text is one row); returns its id."""
    sha = hashlib.sha256(text.encode("utf-8")).hexdigest()
    created = (now or _dt.datetime.now()).isoformat(timespec="seconds")
    with contextlib_closing(_connect(folder)) as con, con:
        con.execute("insert into proposals (sha256, number, client, name, stem, created, scenario) "
                    "values (?, ?, ?, ?, ?, ?, ?) on conflict (sha256) do nothing",
                    (sha, number, client, name, stem, created, text))
        return int(con.execute("select id from proposals where sha256 = ?", (sha,)).fetchone()["id"])


def listed(folder: Path) -> list[dict]:
    """Every saved proposal, newest first (without the scenario text)."""
    if not (folder / FILE).is_file():
        return []
    with contextlib_closing(_connect(folder)) as con:
        rows = con.execute("select id, number, client, name, stem, status, created from proposals "
                           "order by created desc, id desc").fetchall()
    return [dict(r) for r in rows]


def get(folder: Path, pid: int) -> dict | None:
    """One saved proposal with its scenario text, or None."""
    if not (folder / FILE).is_file() or not 0 < pid <= MAX_ID:
        return None
    with contextlib_closing(_connect(folder)) as con:
        row = con.execute("select * from proposals where id = ?", (pid,)).fetchone()
    return dict(row) if row else None


def set_status(folder: Path, pid: int, status: str) -> bool:
    """Mark a proposal draft, sent or signed; False for an unknown id. ValueError for another status."""
    if status not in STATUSES:
        raise ValueError(f"unknown status {status!r}; choose from {', '.join(STATUSES)}")
    if not 0 < pid <= MAX_ID:
        return False
    with contextlib_closing(_connect(folder)) as con, con:
        return con.execute("update proposals set status = ? where id = ?", (status, pid)).rowcount == 1


def contextlib_closing(con: sqlite3.Connection):
    """`con`, closed on leaving the block (sqlite3's own context manager only commits)."""
    import contextlib

    return contextlib.closing(con)
