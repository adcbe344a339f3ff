"""The lab's set-up tools say a failed command in one line: theirs and what the command wrote on stderr."""

from __future__ import annotations

import subprocess

import pytest

from kdiag.lab import certs
from kdiag.lab.steptool import failed


def test_a_failed_command_is_one_line_with_its_own_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    error = subprocess.CalledProcessError(1, ["openssl", "req"], stderr=b"unable to load config\n")
    assert failed(error) == 1
    assert capsys.readouterr().err == (
        "error: Command '['openssl', 'req']' returned non-zero exit status 1.: unable to load config\n")


def test_certs_says_why_it_cannot_write_its_directory(tmp_path, capsys: pytest.CaptureFixture[str]) -> None:
    blocked = tmp_path / "a-file"
    blocked.write_text("not a directory")
    assert certs.main([str(blocked / "pki"), "broker=DNS:kafka.example.test"]) == 1
    [line] = capsys.readouterr().err.splitlines()
    assert line.startswith("error: ") and "a-file" in line
