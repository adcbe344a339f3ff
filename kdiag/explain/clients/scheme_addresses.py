"""A bootstrap address written as a listener is (``SASL_PLAINTEXT://kafka:9092``, advertised.listeners' form), in the
words of the clients that dial it as written. The Go clients take host:port and nothing else:

- franz-go's parseBrokerAddr (pkg/kgo/client.go) gives an address net.SplitHostPort cannot split ("too many colons")
  to the default port whole, so the seed's ``addr`` is ``[SASL_PLAINTEXT://kafka:9092]:9092`` (net.JoinHostPort
  brackets a host with a colon), and the dial looks up a host named ``SASL_PLAINTEXT://kafka:9092``;
- Sarama and kafka-go hand the address to net.Dial, whose words are ``dial tcp: address SASL_PLAINTEXT://kafka:9092:
  too many colons in address`` (or, bracketed, ``dial tcp: lookup SASL_PLAINTEXT://kafka:9092: no such host``).

Certain, and certainly the bootstrap: no resolver has a name with ``://`` in it, and a broker's metadata names hosts,
never a listener's scheme, so only the client's own configuration can hold one. (librdkafka and the Java client strip
a scheme from bootstrap.servers themselves: their lines never show one dialled.)
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from kdiag.explain.sightings import BOOTSTRAP, GO, RESOLVE, Item, Pattern, ScanState, Sighting, registrar

PATTERNS: list[Pattern] = []
pattern = registrar(PATTERNS)

_SCHEME = r"(?P<scheme>[A-Za-z][A-Za-z0-9_+-]{0,40})://"
ROLE_FROM = ("a listener's scheme comes only from the client's own configuration: a broker's metadata names hosts, "
             "never a scheme")


def scheme_sighting(scheme: str, rest: str, port: int | None, status: str, words: str) -> Sighting:
    """What the client looked up: the whole address, scheme and all, as its host."""
    return Sighting(RESOLVE, GO, f"{scheme}://{rest}", port, role=BOOTSTRAP, status=status, detail=words,
                    role_from=ROLE_FROM)


@pattern("go.franz_seed_with_scheme", GO, "://",
         rf"(?:\"addr\":\"|\baddr: ?|\baddr=)\[{_SCHEME}(?P<rest>[^\]\s\"]{{1,255}})\]:(?P<port>\d{{1,5}})",
         '{"level":"warn","logger":"kafka_client","msg":"unable to open connection to broker",'
         '"addr":"[SASL_SSL://kafka-1.example:9092]:9092","broker":"seed_0"}')
def _franz_seed_with_scheme(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield scheme_sighting(m.group("scheme"), m.group("rest"), int(m.group("port")), "nxdomain", m.group(0))


@pattern("go.dial_address_with_scheme", GO, "://",
         rf"dial tcp: (?P<verb>address|lookup) {_SCHEME}(?P<rest>[^\s:/]{{1,255}})(?::(?P<port>\d{{1,5}}))?"
         r"(?::\s*(?P<why>[^\n]{0,80}))?",
         "[sarama] Failed to connect to broker PLAINTEXT://kafka-1.example:9092: dial tcp: address "
         "PLAINTEXT://kafka-1.example:9092: too many colons in address")
def _dial_address_with_scheme(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    port = int(m.group("port")) if m.group("port") else None
    status = "nxdomain" if m.group("verb") == "lookup" else "error"  # "too many colons": never looked up at all
    yield scheme_sighting(m.group("scheme"), m.group("rest") + (f":{port}" if port else ""), port, status, m.group(0))


# A port taken from a Kubernetes service link: for every Service, the kubelet sets <NAME>_PORT=tcp://<ip>:<port> in
# each container of the namespace (enableServiceLinks, on by default), so an application that builds its broker
# address from a variable named like that (REDPANDA_PORT, KAFKA_PORT) dials ``host:tcp://ip:port``, which Go looks up
# whole as a name ("lookup kafka.ns.svc.cluster.local:tcp://10.0.0.5:9092: no such host"). Certain and certainly the
# bootstrap, as any address with a scheme in it: only the client's own configuration holds one.
SERVICE_LINK = re.compile(r"(?P<host>[A-Za-z0-9_.-]{1,253}):(?P<link>(?:tcp|udp)://(?P<ip>[0-9A-Fa-f.:\[\]]{2,45}):"
                          r"(?P<port>\d{1,5}))")
"""``host:tcp://ip:port``: an address whose port is a service link's value, as the lookup names it and as
builders.bootstrap reads the host it gives."""
SERVICE_LINK_FROM = ("the address's port is a Kubernetes service link's value (<SERVICE>_PORT=tcp://ip:port, set in "
                     "every container of the namespace unless the pod has enableServiceLinks: false): the client's own "
                     "configuration built it from that variable")


@pattern("go.lookup_service_link_port", GO, "://",
         rf"lookup {SERVICE_LINK.pattern}(?: on \S+?)?: (?P<why>no such host|server misbehaving|i/o timeout)",
         "failed to dial: failed to open connection to [kafka.ns.svc.cluster.local:tcp://10.0.0.5:9092]:9092: dial "
         "tcp: lookup kafka.ns.svc.cluster.local:tcp://10.0.0.5:9092: no such host")
def _lookup_service_link_port(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield Sighting(RESOLVE, GO, f"{m.group('host')}:{m.group('link')}", int(m.group("port")), role=BOOTSTRAP,
                   status="nxdomain", detail=m.group(0), role_from=SERVICE_LINK_FROM)
