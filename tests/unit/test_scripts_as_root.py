"""The README's two commands need no ``sudo`` in front: as root they run as they are, as a normal
user they run themselves again through sudo, and without sudo they say so in one line."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
NOBODY = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="switching to another user needs root")  # CI is root


@pytest.fixture
def script() -> Iterator[Path]:
    """A script that sources scripts/as-root as the real ones do, and a fake sudo beside it, in a
    directory the unprivileged user can enter (pytest's tmp_path is root's alone)."""
    tmp_path = Path(tempfile.mkdtemp(prefix="kdiag-as-root-"))
    shutil.copy(REPO / "scripts" / "as-root", tmp_path / "as-root")
    path = tmp_path / "task"
    path.write_text('#!/usr/bin/env bash\nset -euo pipefail\n. "$(dirname "$0")/as-root"\necho "ran as $(id -u): $*"\n')
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "sudo").write_text('#!/bin/sh\necho "sudo $*"\n')
    for executable in (path, tmp_path / "bin" / "sudo"):
        executable.chmod(0o755)
    tmp_path.chmod(0o755)
    yield path
    shutil.rmtree(tmp_path)


def run(argv: list[str], path: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, capture_output=True, text=True, env={"PATH": path}, timeout=30, check=False)


def test_as_root_the_script_runs_as_it_is_without_sudo(script):
    done = run([str(script), "a", "b"], f"{script.parent / 'bin'}:/usr/bin:/bin")
    assert (done.returncode, done.stdout) == (0, "ran as 0: a b\n")


def test_as_a_normal_user_the_script_runs_itself_again_through_sudo_keeping_the_environment(script):
    done = run([*NOBODY, str(script), "a", "b"], f"{script.parent / 'bin'}:/usr/bin:/bin")
    assert (done.returncode, done.stdout) == (0, f"sudo --preserve-env {script} a b\n")


def test_a_normal_user_without_sudo_gets_one_line_saying_root_is_needed(script):
    done = run([*NOBODY, str(script)], "/usr/bin:/bin")
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr == "task: needs root (apt, network namespaces): run it as root, or install sudo\n"


@pytest.mark.parametrize("name", ["setup", "test", "demo"])
def test_the_scripts_that_need_root_source_as_root_before_anything_else(name):
    lines = (REPO / "scripts" / name).read_text().splitlines()
    code = [line for line in lines if line and not line.startswith("#")]
    assert code[:2] == ["set -euo pipefail", '. "$(dirname "$0")/as-root"']
