"""Smaller wrong answers and outside checks of a first run (issue 23 items 6 and 7), each through the public CLI or
``gpuhub.search()``, each written to fail before its fix."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from gpuhub.cli.commands import app

runner = CliRunner()


def test_plugin_new_refuses_the_name_of_a_shipped_provider(tmp_path: Path) -> None:
    # Was: `gpuhub plugin new aws` wrote gpuhub-aws/ (package gpuhub_aws), the real AWS plugin's names, silently.
    run = runner.invoke(app, ["plugin", "new", "aws", "--dir", str(tmp_path)])
    assert run.exit_code == 2 and run.stdout == ""
    assert run.stderr == ("error: NAME: 'aws' is the provider of the existing plugin gpuhub-aws (a second package of "
                          "that name would be refused as an impostor or shadow it): choose another name, e.g. myaws\n")
    assert list(tmp_path.iterdir()) == []
    ok = runner.invoke(app, ["plugin", "new", "mycloud", "--dir", str(tmp_path)])
    assert ok.exit_code == 0 and (tmp_path / "gpuhub-mycloud" / "gpuhub_mycloud" / "__init__.py").is_file()
