"""Fixtures shared by the integration tests: real Kafka brokers started from the Maven Central jars.

None of them skips. When Java, Maven or a broker cannot start, the fixture raises and the test errors,
because in CI an integration test that did not run must not look like one that passed.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from kdiag.lab.kafka import DEFAULT_VERSIONS, KAFKA_VERSION, KafkaBroker, loopback_specs


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
