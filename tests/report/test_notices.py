"""Every notice the engine can raise has words in both locales, with the same placeholders."""

from __future__ import annotations

import ast
import string
from pathlib import Path

from tco.domain import Notice
from tco.report import notices

PKG = Path(__file__).resolve().parents[2] / "tco"


def _placeholders(template: str) -> set[str]:
    return {f for _, f, _, _ in string.Formatter().parse(template) if f}


def test_both_locales_have_the_same_placeholders_as_the_declared_params():
    from tco.report.i18n import catalog

    for code, kinds in notices.PARAMS.items():
        for loc in ("pt-BR", "en"):
            assert _placeholders(catalog(loc)[f"notice_{code}"]) == set(kinds), (code, loc)
    declared = {k.removeprefix("notice_") for k in catalog("en") if k.startswith("notice_")}
    assert declared == set(notices.PARAMS)  # no sentence without its parameters, and none left over


def test_every_code_the_engine_raises_is_worded():
    """Scan the package for Notice("<code>", …) and check each code has a template."""
    raised = set()
    for path in PKG.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Notice" and node.args
                    and isinstance(node.args[0], ast.Constant)):
                raised.add(node.args[0].value)
    assert raised, "the scan found no Notice(...) call"
    assert raised <= set(notices.PARAMS), raised - set(notices.PARAMS)


def test_a_notice_in_each_locale():
    n = Notice("multi_server_pcie", "Opção A", {"servers": 1200, "ic": "pcie", "gpu": "L4", "efficiency": 0.5})
    assert notices.line(n, "pt-BR") == ("Opção A: o treinamento ocupa 1.200 servidores PCIe de L4; a rede entre "
                                        "servidores não é modelada (eficiência de escala de 50% assumida): confirme "
                                        "que esse cluster é viável.")
    assert notices.text(n, "en").startswith("training spans 1,200 PCIe servers of L4;")


def test_grouped_names_every_option_once():
    a = Notice("price_estimate", "A", {"offer": "x"})
    b = Notice("price_estimate", "B", {"offer": "x"})
    c = Notice("price_estimate", "A", {"offer": "x"})
    assert notices.grouped([a, b, c], "en", " and ") == [
        "A and B: the price of x is an illustrative estimate, not a quote; replace it with a provider's quote."]
