"""Fixtures shared by the integration tests: real Kafka brokers started from the Maven Central jars, and
for the real-client explain tests a filtered port and a broker certificate.

None of them skips. When Java, Maven or a broker cannot start, the fixture raises and the test errors,
because in CI an integration test that did not run must not look like one that passed.
"""

from __future__ import annotations

import select
import socket
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from kdiag.lab.kafka import DEFAULT_VERSIONS, KAFKA_VERSION, KafkaBroker, loopback_specs
from tests.waiting import wait_until


@pytest.fixture(scope="session", params=DEFAULT_VERSIONS)
def kafka_version(request: pytest.FixtureRequest) -> str:
    """Each supported Kafka version in turn; only the tests that ask for it are parametrised."""
    return request.param


@pytest.fixture(scope="session")
def kafka_broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[KafkaBroker]:
    """One single-node broker of the default version for the whole session: a PLAINTEXT listener on
    127.0.0.1 at a free port, advertised as bound (``kafka_broker.bootstrap_servers``)."""
    spec = loopback_specs(1)[0]
    with KafkaBroker.start(spec, version=KAFKA_VERSION, workdir=tmp_path_factory.mktemp("kafka-broker")) as broker:
        yield broker


# --- for the real-client explain tests (tests/integration/real_clients.py) ------------------------------


@pytest.fixture(scope="module")
def filtered_port() -> Iterator[int]:
    """A port whose connects time out, as behind a firewall that drops them: a listening socket whose
    accept queue is full and never drained, so the kernel drops every further SYN."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(0)
    port = server.getsockname()[1]
    fillers = []
    for _ in range(4):
        filler = socket.socket()
        filler.setblocking(False)
        filler.connect_ex(("127.0.0.1", port))
        fillers.append(filler)
    # the queue is full once the first filler's handshake completed (the kernel holds no more than one)
    wait_until(lambda: select.select([], fillers[:1], [], 0)[1], 5, "the first filler connected")
    probe = socket.socket()
    probe.settimeout(1.0)
    try:
        with pytest.raises(TimeoutError):
            probe.connect(("127.0.0.1", port))
    finally:
        probe.close()
    yield port
    for sock in (*fillers, server):
        sock.close()


@pytest.fixture(scope="module")
def certificates(tmp_path_factory) -> Path:
    """A self-signed broker certificate for kafka.example.test only (not localhost, not 127.0.0.1)."""
    where = tmp_path_factory.mktemp("tls")
    keystore, pem, trust = where / "broker.p12", where / "ca.pem", where / "trust.p12"
    for argv in (
        ["keytool", "-genkeypair", "-alias", "broker", "-keyalg", "RSA", "-keysize", "2048", "-keystore", keystore,
         "-storetype", "PKCS12", "-storepass", "changeit", "-keypass", "changeit", "-dname", "CN=kafka.example.test",
         "-ext", "SAN=dns:kafka.example.test", "-validity", "7"],
        ["keytool", "-exportcert", "-alias", "broker", "-keystore", keystore, "-storepass", "changeit", "-rfc",
         "-file", pem],
        ["keytool", "-importcert", "-alias", "ca", "-file", pem, "-keystore", trust, "-storetype", "PKCS12",
         "-storepass", "changeit", "-noprompt"],
    ):
        subprocess.run([str(a) for a in argv], check=True, capture_output=True, timeout=60)
    return where
