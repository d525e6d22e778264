"""The locked dependencies (``requirements/``, issue 44): every range of ``pyproject.toml`` is met by the version a
lock file pins, the virtualenv the tests run in has exactly ``requirements/dev.txt``'s versions (so CI and the image
run what the tests ran), the broker subclass's kombu and redis-py / gunicorn are held to the versions tested, honcho
is no runtime dependency, and the set-up script, CI, the image and compose use pinned versions."""

from __future__ import annotations

import re
import tomllib
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from packaging.markers import default_environment
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[2]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
PIN = re.compile(r"^([A-Za-z0-9_.-]+)==([^ \\]+)(?: ; (.*?))? *\\?$", re.M)


def pins(name: str) -> dict[str, tuple[Version, str]]:
    """A lock file's pins: canonical name -> (version, marker or '')."""
    text = (ROOT / "requirements" / name).read_text()
    return {canonicalize_name(m[1]): (Version(m[2]), m[3] or "") for m in PIN.finditer(text)}


def requirements(*extras: str) -> list[Requirement]:
    out = [Requirement(r) for r in PROJECT["dependencies"]]
    for extra in extras:
        out += [Requirement(r) for r in PROJECT["optional-dependencies"][extra]]
    return out


def test_every_range_is_met_by_the_version_locked() -> None:
    for lock, extras in (("runtime.txt", ()), ("dev.txt", ("test", "run-local"))):
        locked = pins(lock)
        for req in requirements(*extras):
            name = canonicalize_name(req.name)
            assert name in locked, f"{req.name} is not in requirements/{lock}: run uv pip compile (requirements/README.md)"
            assert req.specifier.contains(locked[name][0], prereleases=True), f"{lock}: {name}=={locked[name][0]} not {req}"
    runtime, dev = pins("runtime.txt"), pins("dev.txt")
    assert {n: runtime[n][0] for n in runtime} == {n: dev[n][0] for n in runtime}  # the tests run the image's versions


def test_the_tests_run_exactly_the_locked_versions() -> None:
    env = default_environment()
    wrong = {}
    for name, (pinned, marker) in pins("dev.txt").items():
        if marker and not Requirement(f"x; {marker}").marker.evaluate(env):  # type: ignore[union-attr]
            continue
        try:
            installed = Version(version(name))
        except PackageNotFoundError:
            installed = None
        if installed != pinned:
            wrong[name] = f"{installed} installed, {pinned} locked"
    assert not wrong, wrong


def test_the_subclassed_and_the_served_libraries_are_held_to_what_is_tested() -> None:
    spec = {canonicalize_name(r.name): r.specifier for r in requirements()}
    locked = pins("runtime.txt")
    for name, untested in (("kombu", ["5.6.0", "5.8.0", "6.0.0"]), ("redis", ["5.0.0", "8.3.0", "9.0.0"]),
                           ("gunicorn", ["22.0.0", "27.1.0", "28.0.0"])):
        assert spec[name].contains(locked[name][0])
        assert not any(spec[name].contains(v) for v in untested), f"{name}: {spec[name]} admits an untested version"
    assert "honcho" not in spec and "honcho" not in locked  # run-local's, not the service's
    assert "honcho" in pins("dev.txt")


def test_setup_ci_image_and_compose_install_pinned_versions() -> None:
    setup = (ROOT / "scripts" / "_setup.sh").read_text()
    assert "LOCK=requirements/dev.txt" in setup and '--require-hashes -r "$LOCK"' in setup and "--no-deps -e ." in setup
    assert "_setup.sh" in (ROOT / ".ci" / "run").read_text()
    docker = (ROOT / "deploy" / "Dockerfile").read_text()
    assert "--require-hashes -r /tmp/runtime.txt" in docker and "--no-deps /wheels/*.whl" in docker
    images = re.findall(r"^FROM (\S+)", docker, re.M) + re.findall(r"^\s+image: (\S+)", (ROOT / "deploy" / "compose.yaml").read_text(), re.M)
    loose = [i for i in images if i != "slowspades:latest" and not re.search(r":v?\d+\.\d+\.\d+", i)]
    assert not loose, f"images not pinned to a version: {loose}"
