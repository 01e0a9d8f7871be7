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


def test_another_host_is_served_with_a_warning(monkeypatch, tmp_path, capsys):
    import uvicorn

    from tco.web import jobs

    calls = []

    class NoPool:
        def shutdown(self, **kw):
            calls.append("shutdown")

    monkeypatch.setattr(jobs, "pool", lambda n: NoPool())
    monkeypatch.setattr(uvicorn, "run", lambda app, **kw: calls.append(kw))
    monkeypatch.chdir(tmp_path)
    assert main(["serve", "--host", "0.0.0.0", "--port", "8123"]) == 0
    out, err = capsys.readouterr()
    assert "warning: serving on 0.0.0.0" in err and "no login" in err
    assert "http://0.0.0.0:8123/" in out
    assert calls[0]["host"] == "0.0.0.0" and calls[0]["port"] == 8123 and calls[-1] == "shutdown"
    assert main(["serve"]) == 0
    assert "warning" not in capsys.readouterr().err  # 127.0.0.1 by default: no warning
