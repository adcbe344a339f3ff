"""Capture entry points the commands call: decode a file (``kdiag pcap``), and start and finish the
live capture around a probe (``kdiag bootstrap --capture``). Capture problems become ``UsageError``:
one line and exit 2 at kdiag's boundary.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from kdiag.exitstatus import UsageError

if TYPE_CHECKING:
    from kdiag.capture.live import LiveCapture
    from kdiag.capture.model import CaptureSummary
    from kdiag.report import Endpoint, Report


def capture_error(exc: Exception) -> Exception:
    """A capture problem as kdiag's usage error (one line, exit 2)."""
    return UsageError(str(exc))


def analyse_file(path: str, *, ports: Iterable[int] = (), keep_events: int = 0) -> CaptureSummary:
    from kdiag.capture.flows import CaptureAnalyzer
    from kdiag.capture.model import CaptureWarning
    from kdiag.capture.pcapio import CaptureError, open_capture
    from kdiag.capture.timeline import summarize

    ports = tuple(ports)
    bad = [p for p in ports if not 1 <= p <= 65535]
    if bad:
        raise capture_error(ValueError(f"--port {bad[0]} is not a TCP port (1-65535)"))
    try:
        reader, stream = open_capture(path)
    except CaptureError as exc:
        raise capture_error(exc) from None
    except OSError as exc:
        raise capture_error(OSError(f"cannot read {path}: {exc.strerror or exc}")) from None
    with stream:
        analyzer = CaptureAnalyzer(ports=ports, keep_events=keep_events)
        try:
            analyzer.feed_packets(reader)
        except OSError as exc:  # the file became unreadable mid-way: keep what was decoded
            reader.warnings.append((analyzer.packets + 1, f"reading stopped: {exc.strerror or exc}"))
        analyzer.finish()
    warnings = [CaptureWarning(packet, message) for packet, message in reader.warnings]
    return summarize(analyzer, source=path, warnings=warnings)


def start_live_capture(targets: Sequence[Endpoint], *, iface: str | None = None,
                       pcap_out: str | None = None) -> LiveCapture:
    """Starts sniffing before the probe's first packet. ``targets`` are the bootstrap endpoints:
    their ports are read as Kafka whatever the bytes. Raises ``UsageError`` (one line, exit 2)
    when capturing is not permitted, the interface does not exist or ``pcap_out`` is unwritable."""
    from kdiag.capture.live import LiveCapture
    from kdiag.capture.pcapio import CaptureError

    capture = LiveCapture(iface=iface, kafka_ports={t.port for t in targets}, pcap_out=pcap_out)
    try:
        capture.start()
    except CaptureError as exc:
        raise capture_error(exc) from None
    return capture


def finish_live_capture(capture: LiveCapture, report: Report | None = None) -> CaptureSummary:
    """Stops the capture; the summary marks the advertised hosts ``report`` found unusable."""
    capture.stop()
    if report is None:
        return capture.summary()
    return capture.summary(broker_statuses(report), broker_resolutions(report))


def broker_statuses(report: Report) -> dict[tuple[str, int], str]:
    """``(host, port) -> status`` of each advertised broker (and the coordinator): the first stage
    that failed for it (dns, then tcp, then kafka), or ``ok``."""
    statuses: dict[tuple[str, int], str] = {}
    cluster = report.cluster
    for broker in cluster.brokers if cluster else ():
        statuses[(broker.host, broker.port)] = next(
            (s for s in (broker.dns.status, broker.tcp.status, broker.kafka.status) if s not in ("ok", "skip")), "ok")
    coordinator = cluster.coordinator if cluster else None
    if coordinator is not None and coordinator.host and coordinator.port:
        for result in (coordinator.dns, coordinator.tcp):
            if result is not None and result.status not in ("ok", "skip"):
                statuses.setdefault((coordinator.host, coordinator.port), result.status)
                break
    return statuses


def broker_resolutions(report: Report) -> dict[str, tuple[str, ...]]:
    """Each advertised name and the addresses this run resolved it to."""
    cluster = report.cluster
    return {b.host: tuple(b.dns.addresses) for b in (cluster.brokers if cluster else ()) if b.dns.addresses}
