"""The package's metadata as pip reads it on a fresh machine."""

from __future__ import annotations

import tomllib

from tests.conftest import ROOT


def test_the_licence_is_an_spdx_expression_so_installing_warns_of_nothing() -> None:
    # setuptools 77 and later deprecate the TOML-table form ({ text = ... }), with a warning on
    # every install; the SPDX string needs setuptools 77 to build
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert project["project"]["license"] == "MIT"
    assert "setuptools>=77" in project["build-system"]["requires"]
