"""Ports for one broker come from one ``free_ports`` call, and that is why they never collide.

The kernel may hand a port out again as soon as the socket that drew it is closed. Here it always does:
a fake kernel whose ``bind(port 0)`` gives the lowest port no socket holds, the worst a real kernel may
do and what made CI's module-scoped broker draw one port for two listeners (``loopback_specs`` then
separate ``free_port()`` calls; Kafka refused the configuration and every test on that broker errored).
"""

from __future__ import annotations

import ast
from pathlib import Path
from types import SimpleNamespace

import pytest

from kdiag.lab import kafka
from kdiag.lab.kafka import free_ports, loopback_specs, two_listener_spec

REPO = Path(__file__).resolve().parents[3]
FIRST_PORT = 40000


class ReusingKernel:
    """``bind((host, 0))`` draws the lowest port that no open socket holds."""

    def __init__(self) -> None:
        self.held: set[int] = set()

    def socket(self, *_args: object) -> ReusingKernel.Socket:
        return ReusingKernel.Socket(self)

    class Socket:
        def __init__(self, kernel: ReusingKernel) -> None:
            self.kernel, self.port = kernel, None

        def bind(self, address: tuple[str, int]) -> None:
            assert address[1] == 0
            self.port = min(set(range(FIRST_PORT, FIRST_PORT + 100)) - self.kernel.held)
            self.kernel.held.add(self.port)

        def getsockname(self) -> tuple[str, int]:
            return "127.0.0.1", self.port

        def __enter__(self) -> ReusingKernel.Socket:
            return self

        def __exit__(self, *_exc: object) -> None:
            self.kernel.held.discard(self.port)


@pytest.fixture
def kernel(monkeypatch: pytest.MonkeyPatch) -> ReusingKernel:
    kernel = ReusingKernel()
    monkeypatch.setattr(kafka, "socket", SimpleNamespace(socket=kernel.socket, AF_INET=2, AF_INET6=10,
                                                         SOCK_STREAM=1))
    return kernel


def broker_ports(spec: kafka.BrokerSpec) -> list[int]:
    return [listener.port for listener in spec.listeners] + [spec.controller_port]


def test_two_calls_may_draw_one_port_which_is_why_a_broker_takes_its_ports_in_one(kernel: ReusingKernel) -> None:
    [first] = free_ports(1)
    [second] = free_ports(1)
    assert first == second
    assert kernel.held == set()  # every socket is closed once the ports are chosen


def test_a_broker_and_its_extra_listeners_from_one_call_never_collide(kernel: ReusingKernel) -> None:
    client, controller, *extra = free_ports(7)
    spec = loopback_specs(1, ports=(client, controller))[0]
    ports = [*broker_ports(spec), *extra]
    assert len(set(ports)) == len(ports) == 7


def test_the_two_listener_broker_draws_its_ports_in_one_call(kernel: ReusingKernel) -> None:
    spec = two_listener_spec("ip-10-0-0-1.ec2.internal")
    assert len(set(broker_ports(spec))) == 3
    external, controller, internal, dead = free_ports(4)
    spec = two_listener_spec("127.0.0.1", dead, ports=(external, controller, internal))
    assert sorted([*broker_ports(spec), spec.advertised[1].port]) == sorted([external, controller, internal, dead])


def test_three_brokers_from_one_call_never_collide(kernel: ReusingKernel) -> None:
    specs = loopback_specs(3)
    ports = [port for spec in specs for port in broker_ports(spec)]
    assert len(set(ports)) == len(ports) == 6


def test_loopback_specs_refuses_ports_of_the_wrong_count_or_repeated() -> None:
    with pytest.raises(ValueError, match="needs 2 distinct ports"):
        loopback_specs(1, ports=(40000, 40000))
    with pytest.raises(ValueError, match="needs 4 distinct ports"):
        loopback_specs(2, ports=(40000, 40001))


def test_free_ports_is_the_one_way_tests_and_the_lab_pick_ports() -> None:
    """No other port picker: a ``free_port()`` beside it invites two calls for one broker again."""
    pickers = []
    for root in ("kdiag", "tests", "probes", "bench"):
        for path in (REPO / root).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.FunctionDef) and node.name == "free_port":
                    pickers.append(f"{path.relative_to(REPO)}:{node.lineno}")
    assert pickers == []
