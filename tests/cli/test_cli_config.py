"""The user's config file: where it is on each platform, its defaults filled in, a flag always winning, a bad
file located."""

from types import SimpleNamespace

import pytest

from tco.cli import config
from tco.errors import InputError


def test_where_it_is(monkeypatch, tmp_path):
    monkeypatch.delenv("TCO_CONFIG", raising=False)
    monkeypatch.setattr(config.sys, "platform", "linux")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    assert config.config_path() == tmp_path / "tco" / "config.toml"
    monkeypatch.setattr(config.sys, "platform", "win32")
    monkeypatch.setenv("APPDATA", str(tmp_path / "roam"))
    assert config.config_path() == tmp_path / "roam" / "tco" / "config.toml"
    monkeypatch.setenv("TCO_CONFIG", str(tmp_path / "mine.toml"))
    assert config.config_path() == tmp_path / "mine.toml"


def test_defaults_filled_and_flags_win(monkeypatch, tmp_path):
    f = tmp_path / "c.toml"
    f.write_text('locale = "en"\noutput = "out-from-config"\n')
    monkeypatch.setenv("TCO_CONFIG", str(f))
    args = SimpleNamespace(locale=None, output="output")
    config.apply(args, ["run", "s.toml"])
    assert (args.locale, args.output) == ("en", "out-from-config")
    args = SimpleNamespace(locale="pt-BR", output="mine")
    config.apply(args, ["run", "s.toml", "--locale", "pt-BR", "-omine"])
    assert (args.locale, args.output) == ("pt-BR", "mine")
    args = SimpleNamespace()  # a command without those arguments is left alone
    config.apply(args, ["offers"])
    assert vars(args) == {}


def test_a_bad_file_is_located(monkeypatch, tmp_path):
    f = tmp_path / "c.toml"
    f.write_text('locale = "fr"\nouptut = "x"\n')
    monkeypatch.setenv("TCO_CONFIG", str(f))
    with pytest.raises(InputError) as exc:
        config.apply(SimpleNamespace(locale=None), ["validate", "x"])
    msgs = [str(p) for p in exc.value.problems]
    assert f"{f}:2: [ouptut] unknown setting; did you mean 'output'?" in msgs
    assert any(f"{f}:1: [locale] 'fr' is not one of" in m for m in msgs)
