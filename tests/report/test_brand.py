"""tco.report.brand: the seller's brand folder beside the scenario, its located problems, and the package's
example brand marked as such."""

from __future__ import annotations

from pathlib import Path

import pytest

from tco.report import brand
from tco.report.brand import TEMPLATES, load_theme
from tco.scenario import load_text

from conftest import SEED

TEXT = SEED.read_text(encoding="utf-8")
SVG = b'<svg xmlns="http://www.w3.org/2000/svg" width="120" height="40"><rect width="120" height="40"/></svg>'


def _scenario(folder: str = "brand"):
    return load_text(TEXT.replace("[proposal]\n", f'[proposal]\nbrand = "{folder}"\n', 1), "s.toml")


def _brand(tmp_path: Path, theme: str, files: dict[str, bytes] | None = None) -> Path:
    d = tmp_path / "brand"
    d.mkdir()
    (d / "theme.toml").write_text(theme, encoding="utf-8")
    for name, data in (files or {}).items():
        (d / name).write_bytes(data)
    return tmp_path / "s.toml"


THEME = '[provider]\nname = "Acme GPU Ltda."\nlogo = "acme.svg"\n[contact]\nemail = "vendas@acme.example"\n'


def test_the_package_theme_is_the_example_and_no_brand_is_named_by_default():
    assert brand.is_example(load_theme(TEMPLATES / "theme.toml"))
    s = load_text(TEXT, "s.toml")
    assert brand.folder(s, "x/s.toml") is None and brand.problems(s, "x/s.toml") == []
    th, served = brand.theme(s, "x/s.toml", TEMPLATES)
    assert brand.is_example(th) and served is None


def test_a_sound_brand_folder_beside_the_scenario(tmp_path):
    path = _brand(tmp_path, THEME, {"acme.svg": SVG})
    s = _scenario()
    assert brand.folder(s, path) == tmp_path / "brand"
    assert brand.problems(s, path) == []
    th, served = brand.theme(s, path, TEMPLATES)
    assert th["provider"]["name"] == "Acme GPU Ltda." and not brand.is_example(th)
    assert th["provider"]["logo"] == (tmp_path / "brand" / "acme.svg").resolve().as_uri()
    assert served == (tmp_path / "brand").resolve()
    assert th["colors"]["primary"] == "#1f3b63"  # colours not given: the defaults


@pytest.mark.parametrize("case, expect", [
    ("no folder", "brand folder"),
    ("no theme", "has no theme.toml"),
    ("no logo", "logo file 'acme.svg' not found"),
    ("big logo", "more than 524,288"),
    ("outside", "outside the brand folder"),
    ("not an image", "is not an image"),
    ("bad colour", "is not a hex colour"),
])
def test_brand_problems_name_the_file(tmp_path, case, expect):
    s = _scenario()
    path = tmp_path / "s.toml"
    if case == "no theme":
        (tmp_path / "brand").mkdir()
    elif case == "no logo":
        path = _brand(tmp_path, THEME)
    elif case == "big logo":
        path = _brand(tmp_path, THEME, {"acme.svg": b" " * (brand.MAX_LOGO_BYTES + 1)})
    elif case == "outside":
        path = _brand(tmp_path, THEME.replace("acme.svg", "../secret.svg"))
        (tmp_path / "secret.svg").write_bytes(SVG)
    elif case == "not an image":
        path = _brand(tmp_path, THEME.replace("acme.svg", "acme.txt"), {"acme.txt": b"x"})
    elif case == "bad colour":
        path = _brand(tmp_path, THEME + '[colors]\nprimary = "red; }"\n', {"acme.svg": SVG})
    problems = brand.problems(s, path, {("proposal", "brand"): 12})
    assert len(problems) == 1 and expect in problems[0].message, problems
    p = problems[0]
    if case in ("no folder", "no theme"):
        assert (p.file, p.key, p.line) == (str(path), "proposal.brand", 12)
    else:
        assert str(tmp_path / "brand") in p.file or str(tmp_path) in p.file


def test_a_run_with_a_bad_brand_exits_2_and_writes_nothing(tmp_path):
    from tco.cli import main

    (tmp_path / "s.toml").write_text(TEXT.replace("[proposal]\n", '[proposal]\nbrand = "nowhere"\n', 1),
                                     encoding="utf-8")
    out = tmp_path / "out"
    assert main(["run", str(tmp_path / "s.toml"), "-o", str(out), "--formats", "json"]) == 2
    assert not out.exists() or not any(out.iterdir())
