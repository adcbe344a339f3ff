"""Helpers for the capture tests: synthetic conversations written to a real pcap, then analysed."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import pytest

from kdiag.capture.flows import CaptureAnalyzer
from kdiag.capture.model import CaptureSummary, CaptureWarning
from kdiag.capture.pcapio import LINKTYPE_ETHERNET, open_capture
from kdiag.capture.synthetic import write_pcap
from kdiag.capture.timeline import summarize


class Analysed:
    def __init__(self, analyzer: CaptureAnalyzer, summary: CaptureSummary) -> None:
        self.analyzer = analyzer
        self.summary = summary

    @property
    def warnings(self) -> list[str]:
        return [f"{w.packet}: {w.message}" for w in self.summary.warnings]

    @property
    def brokers(self) -> list[tuple]:
        return [[(b.node_id, b.host, b.port, b.rack) for b in md.brokers] for md in self.summary.metadata]


@pytest.fixture
def analyse(tmp_path: Path):
    """``analyse(packets, ports=(), linktype=..., statuses=None)``: writes the packets to a pcap,
    reads it back through the streaming reader and returns the analyzer and its summary."""
    counter = iter(range(1_000_000))

    def run(packets: Iterable[tuple[float, bytes]], *, ports=(), linktype: int = LINKTYPE_ETHERNET,
            statuses=None, keep_events: int = 1000, **limits) -> Analysed:
        path = tmp_path / f"capture{next(counter)}.pcap"
        write_pcap(str(path), packets, linktype)
        reader, stream = open_capture(str(path))
        with stream:
            analyzer = CaptureAnalyzer(ports=ports, keep_events=keep_events, **limits)
            analyzer.feed_packets(reader)
            analyzer.finish()
        warnings = [CaptureWarning(p, m) for p, m in reader.warnings]
        return Analysed(analyzer, summarize(analyzer, source=str(path), statuses=statuses, warnings=warnings))

    return run
