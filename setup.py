"""The wheel's one step that pyproject.toml cannot say: the top-level ``templates/`` (every text the service sends
and its pages) is copied into the built package as ``chat/templates/``, where :mod:`chat.render` finds it when no
checkout is around. The rest of the build is configured in pyproject.toml; an editable install (``pip install -e``)
copies nothing and keeps rendering from the checkout's ``templates/``."""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent


class BuildWithTemplates(build_py):
    """``build_py`` that also puts ``templates/`` into the built ``chat`` package."""

    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return
        target = Path(self.build_lib) / "chat" / "templates"
        shutil.rmtree(target, ignore_errors=True)
        shutil.copytree(HERE / "templates", target, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))


setup(cmdclass={"build_py": BuildWithTemplates})
