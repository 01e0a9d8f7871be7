"""The brand of the PDF proposal: the package's example brand, or the seller's folder beside the scenario.

    folder(scenario, path)     the brand folder [proposal] brand names (relative to the scenario file), or None
    problems(scenario, path)   what is wrong with it, as located input problems (exit 2): no folder, no theme.toml,
                               a bad colour, a missing, foreign or oversized logo
    theme(scenario, path)      (the theme the PDF uses, the folder its logo is served from or None)

A brand folder holds a ``theme.toml`` like ``tco/templates/theme.toml`` (provider, contact, colours) and the logo it
names; nothing in the installed package is edited. The package's own theme is an example (``[provider] example =
true``): a proposal made with it is marked "exemplo" on the cover and in the footer, and the seller is told.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from tco.errors import InputError, Problem

TEMPLATES = Path(__file__).resolve().parents[1] / "templates"
"""The templates folder: proposal.html.j2, proposal.css, theme.toml (the example brand), logo, fonts/."""
_HEX = re.compile(r"^#(?:[0-9a-fA-F]{3}){1,2}$")
DEFAULT_PALETTE = ("#1f3b63", "#e07b39", "#3a9e8f", "#9bb7d4", "#8c2d3c", "#d4b13f", "#5b5b5b", "#b07cc6")
"""The chart series' colours when a theme gives none (the example theme's palette)."""
DEFAULT_COLORS = {"primary": "#1f3b63", "accent": "#e07b39", "text": "#1d1d1f", "muted": "#5f6670", "rule": "#c9ced6",
                  "shade": "#eef2f7"}

MAX_LOGO_BYTES = 512 * 1024
"""The largest logo a brand may carry [bytes]: a logo is a mark on the cover, not a photograph; a larger file bloats
every proposal sent by e-mail."""
LOGO_TYPES = (".svg", ".png", ".jpg", ".jpeg")


def folder(scenario, scenario_path: str | Path | None) -> Path | None:
    """The brand folder named by `[proposal] brand`, relative to the scenario's folder; None when not named."""
    p = scenario.proposal
    if p is None or not p.brand:
        return None
    base = Path(scenario_path).parent if scenario_path else Path.cwd()
    return base / p.brand


def example_brand(scenario) -> bool:
    """True when the proposal would carry the package's example brand: no [proposal] brand folder, and the
    package's theme.toml still marked `example = true`."""
    p = scenario.proposal
    return not (p is not None and p.brand) and is_example(load_theme(TEMPLATES / "theme.toml"))


def problems(scenario, scenario_path: str | Path | None, lines: dict | None = None) -> list[Problem]:
    """Every problem of the brand folder, each naming the file (empty when the brand is sound or not named)."""
    d = folder(scenario, scenario_path)
    if d is None:
        return []
    file = str(scenario_path or "<scenario>")
    line = (lines or {}).get(("proposal", "brand"))
    if not d.is_dir():
        return [Problem(file, "proposal.brand", f"brand folder {d} does not exist (it is read relative to the "
                        "scenario's folder)", line)]
    path = d / "theme.toml"
    if not path.is_file():
        return [Problem(file, "proposal.brand", f"brand folder {d} has no theme.toml (copy tco/templates/theme.toml "
                        "and edit it)", line)]
    try:
        th = load_theme(path)
    except InputError as exc:  # a 5,000-digit number: located at its key, in the words of every tco file (T4)
        return list(exc.problems)
    except (ValueError, tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        return [Problem(str(path), "theme", str(exc).removeprefix(f"{path}: "), None)]
    except OSError as exc:  # EIO while reading had no file name: `error: : Input/output error`
        return [Problem(str(path), "theme", f"cannot read the brand's theme.toml: {exc.strerror or exc}", None)]
    out = []
    if not th["provider"].get("name"):
        out.append(Problem(str(path), "provider.name", "the brand's provider name is empty", None))
    logo = str(th["provider"].get("logo") or "")
    if logo:
        img = (d / logo).resolve()
        if not img.is_relative_to(d.resolve()):
            out.append(Problem(str(path), "provider.logo", f"logo {logo!r} is outside the brand folder", None))
        elif not img.is_file():
            out.append(Problem(str(img), "provider.logo", f"logo file {logo!r} not found in {d}", None))
        elif img.suffix.lower() not in LOGO_TYPES:
            out.append(Problem(str(img), "provider.logo", f"logo {logo!r} is not an image the proposal shows "
                               f"({', '.join(LOGO_TYPES)})", None))
        elif img.stat().st_size > MAX_LOGO_BYTES:
            out.append(Problem(str(img), "provider.logo", f"logo {logo!r} is {img.stat().st_size:,} bytes, more than "
                               f"{MAX_LOGO_BYTES:,}: use a smaller or vector (SVG) logo", None))
    return out


def theme(scenario, scenario_path: str | Path | None, templates: Path) -> tuple[dict, Path | None]:
    """(the theme, the brand folder to serve the logo from): the brand folder's when named (its logo as a file URL
    inside it; `problems` must be empty), else the package's example theme."""
    d = folder(scenario, scenario_path)
    if d is None:
        return load_theme(templates / "theme.toml"), None
    th = load_theme(d / "theme.toml")
    th["provider"]["example"] = False  # a seller's own brand is never the example
    logo = th["provider"].get("logo")
    if logo:
        th["provider"]["logo"] = (d / str(logo)).resolve().as_uri()
    return th, d.resolve()


def load_theme(path: Path = TEMPLATES / "theme.toml") -> dict:
    """The branding: provider, contact, colours (hex only, so a colour cannot inject CSS)."""
    from tco.scenario.toml import loads  # tomllib's, with an integer past 4,300 digits a located InputError

    theme = loads(path.read_text(encoding="utf-8"), str(path))
    _check_shape(theme, path)
    colors = theme.setdefault("colors", {})
    for key, value in list(colors.items()):
        bad = [v for v in (value if isinstance(value, list) else [value]) if not _HEX.match(str(v))]
        if bad:
            raise ValueError(f"{path}: colors.{key} = {bad[0]!r} is not a hex colour like '#1f3b63'")
    for key, value in DEFAULT_COLORS.items():
        colors.setdefault(key, value)
    colors.setdefault("palette", list(DEFAULT_PALETTE))
    provider = theme.setdefault("provider", {})
    for key in ("name", "short_name", "tagline", "logo"):
        provider.setdefault(key, "")
    theme.setdefault("contact", {})
    return theme


def _check_shape(theme: dict, path: Path) -> None:
    """ValueError naming the key when a section is not a table or a provider/contact value is not text (`example`
    a true/false): the proposal joins and shows them as text."""
    for section in ("provider", "contact", "colors"):
        value = theme.get(section, {})
        if not isinstance(value, dict):
            raise ValueError(f"{path}: [{section}] must be a table, got {str(value)[:60]!r}")
    for section in ("provider", "contact"):
        for key, value in theme.get(section, {}).items():
            ok = isinstance(value, bool) if key == "example" else isinstance(value, str)
            if not ok:
                raise ValueError(f"{path}: {section}.{key} = {str(value)[:60]!r} must be "
                                 + ("true or false" if key == "example" else "text, in quotes"))


def is_example(th: dict) -> bool:
    """True for the package's example brand (made-up name and contacts)."""
    return bool(th.get("provider", {}).get("example"))
