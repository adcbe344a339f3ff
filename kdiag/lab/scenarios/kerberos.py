"""Kerberos (SASL/GSSAPI) with a real MIT KDC: the service principal a client asks for is not the broker's.

A client using GSSAPI asks the KDC for a ticket to ``<sasl.kerberos.service.name>/<host>@REALM``, where
``host`` is the name it connects to as its Kerberos library canonicalises it: MIT's defaults
(``dns_canonicalize_hostname = true``, ``rdns = true``) resolve the name forward and then take the
**reverse DNS** name of its address. When that differs from the principal the broker's keytab holds,
the KDC answers "Server not found in Kerberos database" and the client never gets to Kafka.

The network: ``laptop`` (192.0.2.10) and ``app-server`` (192.0.2.130) -- ``router`` (the company DNS)
-- ``server`` (198.51.100.10) running the broker, and ``kdc`` (203.0.113.88) running ``krb5kdc``
(:mod:`kdiag.lab.kdc`). The DNS gives ``kafka.example.test`` and the machine's own name
``server1.example.test`` the server's address, and its reverse record (PTR) is ``server1.example.test``.
The KDC knows ``kafka/kafka.example.test@EXAMPLE.TEST`` (the broker's keytab) and the user ``alice``;
each client host has alice's ticket in its credentials cache.
"""

from __future__ import annotations

from kdiag.lab.kafka import Listener
from kdiag.lab.netns import Dns, Host, Link, Route, Topology
from kdiag.lab.scenarios.base import (STATE_DIR, Expect, LabProcess, LabStep, Scenario, Vantage, finding, problems,
                                      python_module)
from kdiag.lab.scenarios.healthy import SERVER_IP, SERVER_NAME, office_broker

REALM = "EXAMPLE.TEST"
MACHINE_NAME = "server1.example.test"
"""The server's own name: what the reverse DNS of its address says."""
KDC_IP = "203.0.113.88"
GSSAPI_PORT = 9094
KDC_DIR = f"{STATE_DIR}/kdc"
SERVICE_PRINCIPAL = f"kafka/{SERVER_NAME}"
LOCAL = Listener("LOCAL", "127.0.0.1", 9092)
GSSAPI = ("-X", "security.protocol=SASL_PLAINTEXT", "-X", "sasl.mechanisms=GSSAPI",
          "-X", "sasl.kerberos.service.name=kafka")
"""The client settings of every vantage."""
NOT_AUTHENTICATED = {"tcp": "ok", "sasl": "warn", "metadata": "skip", "roundtrip": "skip"}
"""kdiag checks the listener enables GSSAPI but does not log in: no metadata to read, and no round trip
(confluent-kafka's wheels are built without GSSAPI)."""


def kerberos_topology() -> Topology:
    return Topology(
        name="krb",
        hosts=(Host("laptop", resolv=["192.0.2.1"]), Host("app-server", resolv=["192.0.2.1"]),
               Host("router", forward=True), Host("server", resolv=["192.0.2.1"]),
               Host("kdc", resolv=["192.0.2.1"])),
        links=(
            Link("laptop", "192.0.2.10/25", "router", "192.0.2.1/25"),
            Link("app-server", "192.0.2.130/25", "router", "192.0.2.129/25"),
            Link("router", "198.51.100.1/24", "server", f"{SERVER_IP}/24"),
            Link("router", "203.0.113.1/24", "kdc", f"{KDC_IP}/24"),
        ),
        routes=(Route("laptop", "default", "192.0.2.1"), Route("app-server", "default", "192.0.2.129"),
                Route("server", "default", "198.51.100.1"), Route("kdc", "default", "203.0.113.1")),
        # The first record of an address gives its PTR: the machine's name, not the service's.
        dns=(Dns("router", "192.0.2.1", records={MACHINE_NAME: SERVER_IP, SERVER_NAME: SERVER_IP,
                                                  "kdc.example.test": KDC_IP}),),
    )


def _host_step(host: str, *options: str) -> LabStep:
    what = "Kerberos settings" + (" and alice's ticket" if "--kinit" in options else "")
    return LabStep(f"{host}'s {what}", host,
                   python_module("kdiag.lab.kdc", "host", KDC_DIR, "--realm", REALM, "--kdc", KDC_IP, *options),
                   when="before-brokers")


_LISTENER = "KRB"
_JAAS = (f'com.sun.security.auth.module.Krb5LoginModule required useKeyTab=true storeKey=true '
         f'keyTab="{KDC_DIR}/broker.keytab" principal="{SERVICE_PRINCIPAL}@{REALM}";')

KERBEROS_PRINCIPAL_MISMATCH = Scenario(
    name="kerberos-principal-mismatch",
    title="Kerberos: the service principal built from the name (or its reverse DNS) is not in the KDC",
    seed="reference/landscape-and-failure-modes.md §2 #18: Kerberos / reverse DNS",
    description=f"""\
The broker's client listener is SASL_PLAINTEXT with GSSAPI, its keytab holding
{SERVICE_PRINCIPAL}@{REALM}, the only Kafka service principal the company KDC (a real MIT krb5kdc)
knows:
  listeners=KRB://:{GSSAPI_PORT},LOCAL://127.0.0.1:9092
  advertised.listeners=KRB://{SERVER_NAME}:{GSSAPI_PORT},LOCAL://127.0.0.1:9092
  listener.name.krb.sasl.enabled.mechanisms=GSSAPI   sasl.kerberos.service.name=kafka
The DNS resolves {SERVER_NAME} to {SERVER_IP}, whose reverse record is the machine's own name,
{MACHINE_NAME}. Every client has a ticket for alice and sasl.kerberos.service.name=kafka.
* The app server's /etc/krb5.conf has rdns = false and dns_canonicalize_hostname = false: it asks for
  kafka/{SERVER_NAME}@{REALM}, which exists (kvno says so).
* The laptop's /etc/krb5.conf keeps MIT's defaults: {SERVER_NAME} is canonicalised through the reverse
  DNS to {MACHINE_NAME}, and the KDC has no kafka/{MACHINE_NAME}@{REALM}: librdkafka logs `Server
  kafka/{MACHINE_NAME}@{REALM} not found in Kerberos database` and never authenticates.
  A Java client on the same laptop logs in: Kafka's Java client names the host as given and the JDK
  ignores rdns, so "it works from Java but not from Python" is this.
* The app server bootstrapping by address ({SERVER_IP}) asks for kafka/{SERVER_IP}@{REALM}: not found.
  A Java client there asks for kafka/{MACHINE_NAME}@{REALM} (it names an address by its reverse DNS):
  not found either, and it logs only `terminated during authentication` at its default level.
kdiag cannot log in with GSSAPI, but it proves the listener enables it, works out the principal each
client asks for (the name, its forward and reverse DNS, the realm from krb5.conf), and asks the KDC with
`kvno` through the client's own credentials cache: KERBEROS_PRINCIPAL_UNKNOWN, with the principal to
create, the name to use, or rdns = false.""",
    topology=kerberos_topology(),
    brokers=(office_broker(Listener(_LISTENER, "", GSSAPI_PORT, "SASL_PLAINTEXT"), LOCAL,
                           advertised=(Listener(_LISTENER, SERVER_NAME, GSSAPI_PORT), LOCAL), inter_broker="LOCAL",
                           overrides={"sasl.kerberos.service.name": "kafka",
                                      f"listener.name.{_LISTENER.lower()}.sasl.enabled.mechanisms": "GSSAPI",
                                      f"listener.name.{_LISTENER.lower()}.gssapi.sasl.jaas.config": _JAAS}),),
    processes=(LabProcess("kdc", "kdc", python_module("kdiag.lab.kdc", "serve", KDC_DIR, "--realm", REALM,
                                                      "--principal", f"broker={SERVICE_PRINCIPAL}",
                                                      "--principal", "alice=alice"),
                          listens_on=(88,)),),
    setup=(_host_step("server"),
           _host_step("laptop", "--kinit", "alice"),
           _host_step("app-server", "--rdns", "false", "--dns-canonicalize-hostname", "false", "--kinit", "alice")),
    vantages=(
        Vantage(
            "app-server", host="app-server", bootstrap=f"{SERVER_NAME}:{GSSAPI_PORT}", args=GSSAPI,
            expect=Expect(0, (), NOT_AUTHENTICATED),
            why=f"rdns = false: the client asks for kafka/{SERVER_NAME}@{REALM}, which the KDC knows.",
        ),
        Vantage(
            "laptop-rdns", host="laptop", bootstrap=f"{SERVER_NAME}:{GSSAPI_PORT}", args=GSSAPI,
            expect=problems(finding("KERBEROS_PRINCIPAL_UNKNOWN", title=f"kafka/{MACHINE_NAME}@{REALM}",
                                    fix=("rdns = false", f"kafka/{MACHINE_NAME}@{REALM}")),
                            stages=NOT_AUTHENTICATED),
            why=f"MIT's default rdns = true turns {SERVER_NAME} into {MACHINE_NAME} (the PTR record): the KDC has "
                f"no kafka/{MACHINE_NAME}.",
        ),
        Vantage(
            "app-server-by-address", host="app-server", bootstrap=f"{SERVER_IP}:{GSSAPI_PORT}", args=GSSAPI,
            expect=problems(finding("KERBEROS_PRINCIPAL_UNKNOWN", title=f"kafka/{SERVER_IP}@{REALM}",
                                    fix=("not by address", f"kafka/{SERVER_IP}@{REALM}")),
                            stages=NOT_AUTHENTICATED),
            why=f"Bootstrapping by address with rdns = false: the client asks for kafka/{SERVER_IP}@{REALM}.",
        ),
    ),
)

SCENARIOS = (KERBEROS_PRINCIPAL_MISMATCH,)
