"""Review L6: a long client or scenario name (the schema allows 200 characters) keeps the proposal's running header and
footer on one line each: the template shortens them at a word, with an ellipsis, and the page clips what is left."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

import tco
from tco.report import proposal

ROOT = Path(__file__).resolve().parents[3]
SMALL = ROOT / "scenarios" / "assistant_8b_l4.toml"
LONG = ("Indústria Exemplo de Componentes Eletrônicos e Sistemas Embarcados Sociedade Anônima — Unidade de Pesquisa "
        "Aplicada, Engenharia de Produto e Inovação Aberta do Vale do Paraíba")
pytestmark = pytest.mark.skipif(shutil.which("pdftotext") is None, reason="pdftotext (poppler-utils) not installed")
pytestmark = [pytestmark, pytest.mark.slow]


def test_review_l6_a_long_client_keeps_header_and_footer_on_one_line(tmp_path):
    text = SMALL.read_text(encoding="utf-8")
    text, n = re.subn(r'(?m)^client = "[^"]*"$', f'client = "{LONG}"', text)
    assert n == 1 and len(LONG) > 150
    path = tmp_path / "long.toml"
    path.write_text(text, encoding="utf-8")
    pdf = tmp_path / "p.pdf"
    pdf.write_bytes(proposal.render(tco.run(path, paths=50, sensitivity=False)))
    page2 = subprocess.run(["pdftotext", "-f", "2", "-l", "2", "-layout", str(pdf), "-"], check=True,
                           capture_output=True, text=True).stdout
    lines = [ln.strip() for ln in page2.splitlines() if ln.strip()]
    header, footer = lines[0], lines[-1]
    assert header.endswith("…") and "Indústria Exemplo" in header and "Vale do Paraíba" not in page2
    assert "…" in footer and footer.endswith("Página 2 de " + footer.rsplit(" de ", 1)[1])
    png = subprocess.run(["pdftoppm", "-f", "2", "-l", "2", "-r", "20", "-png", str(pdf), str(tmp_path / "p")],
                         capture_output=True, text=True)
    assert png.returncode == 0 and png.stderr == ""  # no malformed glyph map (an ellipsis drawn by CSS had one)
