"""A broker that cannot start is named by its first error, however long its shutdown log is after it."""

from __future__ import annotations

from pathlib import Path

from kdiag.lab.kafka import KafkaStartError, first_log_error

BIND_FAILURE = """\
[2026-11-25 15:34:02,101] INFO Registered kafka:type=kafka.Log4jController MBean (kafka.utils.Log4jControllerRegistration$)
[2026-11-25 15:34:02,808] ERROR Unable to start acceptor for PLAINTEXT (kafka.network.DataPlaneAcceptor)
org.apache.kafka.common.KafkaException: Socket server failed to bind to 203.0.113.99:9092: Cannot assign requested address.
\tat org.apache.kafka.server.ServerSocketFactory$KafkaServerSocketFactory.openServerSocket(ServerSocketFactory.java:56)
\tat kafka.network.Acceptor.openServerSocket(SocketServer.scala:615)
\t... 16 more
Caused by: java.net.BindException: Cannot assign requested address
\tat java.base/sun.nio.ch.Net.bind0(Native Method)
\t... 18 more
[2026-11-25 15:34:02,809] ERROR [BrokerServer id=1] Fatal error during broker startup. Prepare to shutdown (kafka.server.BrokerServer)
java.util.concurrent.CompletionException: org.apache.kafka.common.KafkaException: Socket server failed to bind
"""
SHUTDOWN = "".join(
    f"[2026-11-25 15:34:03,{n:03d}] INFO [Component {n}] shut down completely (kafka.server.X)\n" for n in range(40)
)


def test_the_first_error_is_its_record_and_exception_chain_without_stack_frames() -> None:
    assert first_log_error(BIND_FAILURE + SHUTDOWN) == [
        "[2026-11-25 15:34:02,808] ERROR Unable to start acceptor for PLAINTEXT (kafka.network.DataPlaneAcceptor)",
        "org.apache.kafka.common.KafkaException: Socket server failed to bind to 203.0.113.99:9092: "
        "Cannot assign requested address.",
        "Caused by: java.net.BindException: Cannot assign requested address",
    ]


def test_the_message_keeps_the_cause_when_the_shutdown_pushed_it_out_of_the_tail(tmp_path: Path) -> None:
    text = BIND_FAILURE + SHUTDOWN
    tail = text.splitlines()[-20:]
    assert not any("203.0.113.99" in line for line in tail)  # the failure of CI run 13: the tail alone lost it

    error = KafkaStartError(
        "broker 1 exited with status 1 during start-up", version="4.4.0", workdir=tmp_path,
        log_tail=tail, first_error=first_log_error(text),
    )  # fmt: skip

    before_tail = str(error).split("--- last 20 lines of the log ---")[0]
    assert "Socket server failed to bind to 203.0.113.99:9092" in before_tail
    assert error.first_error[0].endswith("(kafka.network.DataPlaneAcceptor)")


def test_a_log_without_errors_adds_no_section(tmp_path: Path) -> None:
    assert first_log_error(SHUTDOWN) == []
    assert "first error" not in str(KafkaStartError("timed out", version="4.4.0", workdir=tmp_path, log_tail=["x"]))


def test_the_quoted_error_is_bounded_in_lines_and_width() -> None:
    huge = "[2026-11-25 15:34:02,808] FATAL " + "x" * 10_000 + "\n" + "Caused by: y\n" * 1_000
    found = first_log_error(huge)
    assert len(found) == 12
    assert max(map(len, found)) == 300
