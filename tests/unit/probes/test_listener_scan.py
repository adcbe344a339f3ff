"""The scan of the bootstrap host's other ports (``probes.listeners``) against fake brokers on loopback."""

from __future__ import annotations

import socket

from probes.codec import MetadataBroker
from probes.deadline import Deadline
from probes.listeners import candidate_ports, scan_listeners
from probes.results import AdvertisedAddress, DnsResult, ListenerProbe, TcpResult
from tests.fakebroker import API_VERSIONS, METADATA, FakeBroker, answer_api_versions, answer_metadata, respond

SWEEP: list = []  # the scan's first connection only checks the port is open, and hangs up
ADVERTISED_CHECK: list = []  # resolving and connecting to an advertised address sends nothing either


def closed_port() -> int:
    with socket.create_server(("127.0.0.1", 0)) as probe:
        return probe.getsockname()[1]


def listener_script(advertised: MetadataBroker, cluster_id: str = "c1") -> list:
    return [respond(API_VERSIONS, answer_api_versions()),
            respond(METADATA, answer_metadata(brokers=(advertised,), cluster_id=cluster_id, controller_id=1))]


def scan(ports, **kwargs):
    return scan_listeners("localhost", "127.0.0.1", ports, deadline=Deadline.after(5), connect_timeout=1.0, **kwargs)


def test_a_listener_whose_advertised_address_works_here_is_usable():
    with FakeBroker(SWEEP, [], ADVERTISED_CHECK) as fake:
        fake.scripts[1] = tuple(listener_script(MetadataBroker(1, "127.0.0.1", fake.port)))
        closed = closed_port()
        result = scan([closed, fake.port], cluster_id="c1")
    assert result.ports == (closed, fake.port)
    assert result.listeners == (ListenerProbe(fake.port, "ok", "c1",
                                              (AdvertisedAddress(1, "127.0.0.1", fake.port, "ok", "ok"),)),)
    assert result.usable == result.listeners and result.open_ports == {fake.port}
    assert result.reason is None


def test_an_advertised_address_the_run_already_checked_is_not_checked_again():
    known = {("kafka0", 29092): (DnsResult("kafka0", "nxdomain"), TcpResult("skip"))}
    with FakeBroker(SWEEP, listener_script(MetadataBroker(1, "kafka0", 29092))) as fake:
        result = scan([fake.port], cluster_id="c1", known=known)
        assert fake.connections == 2  # the sweep and the listener: nothing for kafka0
    (listener,) = result.listeners
    assert listener.brokers == (AdvertisedAddress(1, "kafka0", 29092, "nxdomain", "skip"),)
    assert not listener.usable and result.usable == ()


def test_a_listener_of_another_cluster_is_marked_so():
    with FakeBroker(SWEEP, listener_script(MetadataBroker(1, "127.0.0.1", 1), cluster_id="other")) as fake:
        result = scan([fake.port], cluster_id="c1")
    (listener,) = result.listeners
    assert (listener.status, listener.cluster_id, listener.brokers) == ("other_cluster", "other", ())
    assert "belongs to cluster other" in listener.error


def test_a_port_that_is_not_kafka_is_listed_with_what_it_is():
    http = b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n"
    from tests.fakebroker import close, send

    with FakeBroker(SWEEP, [send(http), close()]) as fake:
        result = scan([fake.port], cluster_id="c1")
    (listener,) = result.listeners
    assert listener.status == "not_kafka" and not listener.usable


def test_without_a_cluster_id_to_match_any_kafka_listener_counts():
    """The bootstrap port refused: there is no metadata yet, so no cluster id to compare with."""
    with FakeBroker(SWEEP, [], ADVERTISED_CHECK) as fake:
        fake.scripts[1] = tuple(listener_script(MetadataBroker(1, "127.0.0.1", fake.port), cluster_id="c9"))
        result = scan([fake.port], cluster_id=None)
    assert [listener.usable for listener in result.listeners] == [True]


def test_nothing_to_try_is_an_empty_scan():
    assert scan([], cluster_id="c1").listeners == ()


def test_candidates_are_the_usual_ports_the_neighbours_and_the_advertised_ones_never_the_bootstrap_port():
    ports = candidate_ports(9092, advertised=[9092, 31000])
    assert 9092 not in ports and {9090, 9091, 9093, 9094, 19092, 29092, 31000} <= set(ports)
    assert list(ports) == sorted(ports)
    assert all(0 < p < 65536 for p in candidate_ports(65535)) and all(p > 0 for p in candidate_ports(1))
