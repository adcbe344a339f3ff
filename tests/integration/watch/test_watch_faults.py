"""A full disk under the report directory and the spool: counted, logged once, the agent keeps probing."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.fixture
def tiny_disks(tmp_path: Path) -> Iterator[tuple[Path, Path]]:
    """Two 64 KiB tmpfs mounts (root in the sandbox)."""
    mounts = [tmp_path / "reports", tmp_path / "spool"]
    for mount in mounts:
        mount.mkdir()
        subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(mount)], check=True)
    try:
        yield mounts[0], mounts[1]
    finally:
        for mount in mounts:
            subprocess.run(["umount", "-l", str(mount)], check=False)


@pytest.mark.netns
def test_a_full_disk_is_counted_logged_once_and_probing_goes_on(start_watch, tiny_disks) -> None:
    reports_dir, spool_dir = tiny_disks
    agent = start_watch("127.0.0.1:1", "--interval", "100ms", "--timeout", "2s", "--report-dir", str(reports_dir),
                        "--report-topic", "kdiag-reports", "--spool-dir", str(spool_dir))
    agent.wait_ready()

    def dropped(sink: str) -> float:
        return agent.metric("kdiag_sink_dropped_reports_total", f'reason="disk_full",sink="{sink}"') or 0

    agent.wait_for(lambda: dropped("directory") >= 5 and dropped("topic") >= 5, 60, "reports dropped on a full disk")
    probes = agent.metric("kdiag_probes_total", 'result="failure"')
    agent.wait_for(lambda: agent.metric("kdiag_probes_total", 'result="failure"') >= probes + 10, 30,
                   "probing going on")
    assert agent.metric("kdiag_sink_delivered_reports_total", 'sink="directory"') >= 1
    assert agent.metric("kdiag_sink_spool_bytes", 'sink="topic"') <= 64 * 1024
    assert agent.get("/livez")[0] == 200
    code, seconds = agent.terminate()
    assert code == 0 and seconds < 2.0
    log = agent.stderr().splitlines()
    assert len([line for line in log if f"report directory {reports_dir}: No space left on device" in line]) == 1
    assert len([line for line in log if f"spool {spool_dir}: No space left on device" in line]) == 1
