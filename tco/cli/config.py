"""The user's config file: defaults for the CLI that a flag always overrides.

Where it is (``TCO_CONFIG`` names another file, which must exist; ``TCO_CONFIG=/dev/null``: none):
``$XDG_CONFIG_HOME/tco/config.toml`` (``~/.config/tco/``) on Linux, ``~/Library/Application Support/tco/config.toml``
on macOS, ``%APPDATA%\\tco\\config.toml`` on Windows.

```toml
locale = "en"         # the language and number format of the terminal, workbook and proposal (run, validate, plan)
output = "~/tco-out"  # the output folder of run, batch and sweep when -o is not given
```

A bad file is bad input (exit 2, the file, line and key named), not a silent default.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

KEYS = ("locale", "output")


def config_path() -> Path:
    """The config file's path on this platform (it may not exist)."""
    if os.environ.get("TCO_CONFIG"):
        return Path(os.environ["TCO_CONFIG"])
    if sys.platform == "win32":
        base = Path(os.environ.get("APPDATA") or Path.home() / "AppData" / "Roaming")
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Application Support"
    else:
        base = Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config")
    return base / "tco" / "config.toml"


def load(path: Path) -> dict:
    """The file's settings ({} if there is no file). Raises InputError for a bad one."""
    import tomllib

    from tco.errors import InputError, Problem, closest

    if not path.is_file():
        return {}
    try:
        text = path.read_text(encoding="utf-8-sig")
        data = tomllib.loads(text)
    except UnicodeDecodeError:
        raise InputError([Problem(str(path), "", "the config file is not UTF-8 text; save it as UTF-8")]) from None
    except tomllib.TOMLDecodeError as exc:
        raise InputError([Problem(str(path), "", f"TOML syntax error: {exc}")]) from None
    except OSError as exc:  # EIO while reading had no file name: `error: : Input/output error`
        raise InputError([Problem(str(path), "", f"cannot read the config file: {exc.strerror or exc}")]) from None
    except ValueError:  # an integer past Python's 4,300 digits: a traceback on every command (2026-12d T3)
        raise InputError([Problem(str(path), "", "an integer of more than 4,300 digits: too long to read")]) from None
    from tco.report.i18n import LOCALES
    from tco.scenario.messages import key_lines

    lines = key_lines(text)
    problems = [Problem(str(path), k, f"unknown setting; {closest(k, KEYS)}", lines.get((k,))) for k in data
                if k not in KEYS]
    if "locale" in data and data["locale"] not in LOCALES:
        problems.append(Problem(str(path), "locale", f"{data['locale']!r} is not one of {', '.join(LOCALES)}",
                                lines.get(("locale",))))
    if "output" in data and (not isinstance(data["output"], str) or not data["output"].strip()):
        problems.append(Problem(str(path), "output", "must be a folder name", lines.get(("output",))))
    if problems:
        raise InputError(problems)
    return data


def _given(argv: list[str], *flags: str) -> bool:
    return any(a in flags or any(a.startswith(f + "=") or (len(f) == 2 and a.startswith(f) and a != f)
                                 for f in flags) for a in argv)


def apply(args, argv: list[str]) -> None:
    """Fill the arguments the command line left out from the config file (a flag given always wins)."""
    path = config_path()
    if os.environ.get("TCO_CONFIG") and not path.is_file() and path != Path(os.devnull):  # named on purpose (a typo
        # must not fall back to the defaults in silence); TCO_CONFIG=/dev/null: no config file
        from tco.errors import InputError, Problem

        raise InputError([Problem(str(path), "TCO_CONFIG", "the config file TCO_CONFIG names is not a file")])
    settings = load(path)
    if not settings:
        return
    if "locale" in settings and getattr(args, "locale", "absent") is None:
        args.locale = settings["locale"]
    if "output" in settings and hasattr(args, "output") and not _given(argv, "-o", "--output"):
        args.output = str(Path(settings["output"]).expanduser())
