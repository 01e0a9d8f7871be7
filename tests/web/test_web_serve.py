"""`python -m tco serve` (tco.web.serve): its arguments, the hosts it accepts, its refusals."""

from tco.cli import main
from tco.cli.args import parser
from tco.web import serve


def test_arguments_and_their_defaults():
    p, _ = parser()
    a = p.parse_args(["serve"])
    assert (a.host, a.port, a.scenarios, a.data, a.workers) == ("127.0.0.1", 8000, None, None, 2)
    a = p.parse_args(["serve", "--host", "0.0.0.0", "--port", "9000", "--scenarios", "s", "--data", "d"])
    assert (a.host, a.port, a.scenarios, a.data) == ("0.0.0.0", 9000, "s", "d")


def test_bad_port_is_an_argument_error(capsys):
    assert main(["serve", "--port", "0"]) == 2
    assert "must be 1 or more" in capsys.readouterr().err


def test_missing_scenarios_folder_is_refused(tmp_path, capsys):
    assert main(["serve", "--scenarios", str(tmp_path / "none")]) == 2
    assert "folder not found" in capsys.readouterr().err


def test_local_binding_accepts_local_names_only():
    assert serve.hosts_for("127.0.0.1", 8000) == ("127.0.0.1", "localhost", "::1")
    assert serve.hosts_for("0.0.0.0", 8000) == ("*",)


def test_the_web_stack_is_installed_with_the_test_extra():
    assert serve.missing_dependency() is None
