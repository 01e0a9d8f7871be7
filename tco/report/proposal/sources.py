"""Catalog sources as a client reads them: the hosts a source cites (or its first clause), and its date in
the locale. The full source text stays in the JSON and the workbook."""

from __future__ import annotations

import re

from tco.report import fmt
from tco.report.i18n import t

_URL = re.compile(r"https?://([^/\s)\]'\"<>]+)((?:/[^\s)\]'\";,<>]*)?)")
_DOMAIN = re.compile(r"(?<![\w@./:-])((?:[a-z0-9-]+\.)+(?:com|org|net|io|ai|dev|sh|to|gov|edu|co|cloud)(?:\.br)?)"
                     r"(?![\w-])", re.IGNORECASE)
_ISO = re.compile(r"\d{4}-\d{2}(?:-\d{2})?")
_UNREACHED = re.compile(r"\b(?:not reachable|unreachable|unresolvable|could not be reached|not re-?pulled|"
                        r"not re-?read|failed to (?:load|fetch|resolve))\b", re.IGNORECASE)
SOURCE_CAP = 64
"""Longest concise source shown [characters]; longer ones end in an ellipsis (the full text is in the JSON)."""


def _hosts(text: str) -> list[str]:
    """The web hosts a catalog source names, in order, once each (github.com/owner/repo for GitHub links)."""
    found = []
    for m in _URL.finditer(text):
        host = _bare(m.group(1))
        parts = [x for x in m.group(2).split("/") if x]
        if host == "github.com" and len(parts) >= 2:
            host = f"github.com/{parts[0]}/{parts[1]}"
        found.append((m.start(), host))
    blanked = _URL.sub(lambda m: " " * len(m.group(0)), text)
    found += [(m.start(), _bare(m.group(1))) for m in _DOMAIN.finditer(blanked)]
    out = []
    for _, h in sorted(found):
        if h not in out:
            out.append(h)
    return out


def _reached(text: str) -> str:
    """The source without its clauses (split at ';') that say a host was not reached: a client reads the hosts
    the figures were taken from, not one the catalog says it could not read."""
    kept = [c for c in text.split(";") if not _UNREACHED.search(c)]
    return ";".join(kept)


def _bare(host: str) -> str:
    """A host in lower case without a leading "www." when a domain remains: "WWW.aws.com" → "aws.com", but
    "www.com" stays (stripped, it would read "com")."""
    host = host.lower()
    rest = host.removeprefix("www.")
    return rest if "." in rest else host


def _clip(text: str, cap: int = SOURCE_CAP) -> str:
    text = " ".join(text.split())
    if len(text) <= cap:
        return text
    cut = text[:cap - 1].rsplit(" ", 1)[0] if " " in text[:cap - 1] else text[:cap - 1]
    return cut.rstrip(" ,:;.-") + "…"


def _first_clause(text: str, cap: int = SOURCE_CAP) -> str:
    """The text up to its first ';', '(', ": '" or sentence end, capped at `cap` characters."""
    text = re.sub(r"@[0-9a-f]{7,40}\b", "", text)  # commit hashes: in the JSON, not for a reader
    text = re.sub(r"^(?:reference|derived|provisional)\b:?\s*", "", text.strip(), flags=re.IGNORECASE)
    head = re.split(r";|\s?\(|: '|\.\s", text, maxsplit=1)[0].strip().rstrip(":,")
    return _clip(head or text, cap)


def _short_source(text: str | None, loc: str, estimate: bool = False, max_hosts: int = 3) -> str:
    """A catalog source as a client reads it: the hosts it cites (at most `max_hosts`, then "+ N"), or its
    first clause when it cites none. The full text stays in the JSON and the workbook."""
    if not text or not text.strip():
        return "—"
    reached = _reached(text)
    hosts = _hosts(reached)
    if not hosts:
        return _first_clause(reached or text)
    shown = ", ".join(hosts[:max_hosts])
    if len(hosts) > max_hosts:
        shown += t("src_more", loc, n=len(hosts) - max_hosts)
    return t("src_estimate_from", loc, hosts=shown) if estimate else shown


def _as_of(text: str | None, loc: str) -> str:
    """A catalog date in the locale ("2025-11-30" → "30/11/2025"); "undated …" → "sem data", with the date it
    was checked on when the note gives one."""
    if not text:
        return t("as_of_undated", loc)
    s = str(text).strip()
    m = _ISO.match(s)
    if m:
        return fmt.iso_date(m.group(0), loc)
    if s.lower().startswith("undated"):
        later = _ISO.search(s)
        return (t("as_of_undated_checked", loc, date=fmt.iso_date(later.group(0), loc)) if later
                else t("as_of_undated", loc))
    return _first_clause(s, 32)

