"""The right host, the wrong protocol: an HTTP port, a TLS listener, a SASL listener, each reached as plain Kafka.

The office network of ``healthy-single`` (:func:`~kdiag.lab.scenarios.healthy.office_topology`): a
client, the router with the office DNS, and the server ``kafka.example.test`` running one broker. Each
scenario adds one thing on the server that a client can connect to but not speak plaintext Kafka with:

* ``http-on-bootstrap-port``: Schema Registry's port (an HTTP API answering as its Jetty server does,
  :mod:`~kdiag.lab.scenarios._http_server`) given as the bootstrap address (``NOT_KAFKA``);
* ``tls-listener-plaintext-client``: an SSL listener and a client without ``security.protocol=SSL``
  (``TLS_EXPECTED``); then with SSL but not the CA (``TLS_CERT_UNTRUSTED``), then right (healthy);
* ``sasl-listener-no-credentials``: a SASL_PLAINTEXT listener and a client with no SASL settings
  (``SASL_REQUIRED``); then with them (healthy).

The TLS scenario's certificates are made while it comes up (:mod:`kdiag.lab.certs`), in the run's state
directory: ``{state_dir}/pki/ca.pem`` is the CA the right client trusts.
"""

from __future__ import annotations

from kdiag.lab.certs import PLAIN_USERS, pem_keystore, sasl_listener
from kdiag.lab.kafka import Listener
from kdiag.lab.scenarios.base import (STATE_DIR, LabProcess, LabStep, Scenario, Vantage, finding, healthy, problems,
                                      python_module)
from kdiag.lab.scenarios.healthy import SERVER_IP, SERVER_NAME, office_broker, office_topology

SCHEMA_REGISTRY_PORT = 8081
TLS_PORT = 9093
SASL_PORT = 9094
PKI = f"{STATE_DIR}/pki"
NO_METADATA = {"tcp": "ok", "metadata": "fail", "advertised": "skip", "roundtrip": "skip"}
"""The stages of a run whose bootstrap connects but gets no Kafka answer."""
# The broker's own, loopback-only listener: inter-broker traffic and nothing else.
LOCAL = Listener("LOCAL", "127.0.0.1", 9092)


# --------------------------------------------------------------------------- an HTTP server

HTTP_ON_BOOTSTRAP_PORT = Scenario(
    name="http-on-bootstrap-port",
    title="HTTP on the bootstrap port: bootstrap.servers given Schema Registry's address",
    seed="reference/protocol-lab-capture.md §1.5 (what kdiag sees on the socket): an HTTP status line where Kafka "
         "was expected",
    description=f"""\
The server runs Kafka on 9092 and Schema Registry (an HTTP API) on {SCHEMA_REGISTRY_PORT}, as Confluent
installations do. The application's configuration got the registry's address as bootstrap.servers:
{SERVER_NAME}:{SCHEMA_REGISTRY_PORT}. The TCP connection works, so "the port is open"; the client sends
a Kafka ApiVersions request and gets `HTTP/1.1 400 Illegal character CNTL=0x0` back from the registry's
Jetty, which librdkafka reads as a response size of over a billion bytes (`Invalid response size`) and
a Java client may try to allocate (`OutOfMemoryError: Java heap space`); neither says HTTP. kdiag reads
the first bytes, says NOT_KAFKA (this port speaks HTTP) and notes that {SCHEMA_REGISTRY_PORT} is Schema
Registry's usual port. The same host on 9092 is healthy. (The registry here is a small server answering
as Jetty does; Python's http.server would not do: it waits for the end of a request line that a Kafka
request never sends.)""",
    topology=office_topology("http"),
    brokers=(office_broker(),),
    processes=(LabProcess("schema-registry", "server",
                          python_module("kdiag.lab.scenarios._http_server", f"{SERVER_IP}:{SCHEMA_REGISTRY_PORT}"),
                          listens_on=(SCHEMA_REGISTRY_PORT,)),),
    vantages=(
        Vantage(
            "client-registry-port", host="client", bootstrap=f"{SERVER_NAME}:{SCHEMA_REGISTRY_PORT}",
            expect=problems(finding("NOT_KAFKA", title="speaks HTTP", fix="9092"),
                            stages=NO_METADATA),
            why="The port accepts the connection and answers the Kafka request with an HTTP 400 at once.",
        ),
        Vantage("client-kafka-port", host="client", bootstrap=f"{SERVER_NAME}:9092", expect=healthy(),
                why="The same server on Kafka's port: nothing wrong with the cluster itself."),
    ),
)


# --------------------------------------------------------------------------- a TLS listener

_TLS = Listener("SSL", "", TLS_PORT, "SSL")

TLS_LISTENER_PLAINTEXT_CLIENT = Scenario(
    name="tls-listener-plaintext-client",
    title="A TLS listener probed by a plaintext client",
    seed="reference/landscape-and-failure-modes.md §2 #8, #9 (plaintext client on a TLS port) and #11 (CA not "
         "trusted)",
    description=f"""\
The broker's client listener is SSL, with a certificate for {SERVER_NAME} signed by the company's own CA:
  listeners=SSL://:{TLS_PORT},LOCAL://127.0.0.1:9092
  advertised.listeners=SSL://{SERVER_NAME}:{TLS_PORT},LOCAL://127.0.0.1:9092
  listener.security.protocol.map=SSL:SSL,LOCAL:PLAINTEXT
The application leaves security.protocol at its default, PLAINTEXT. Its ApiVersions request reaches
the TLS listener, which answers with a TLS alert: librdkafka says `Disconnected while requesting
ApiVersion: might be caused by incorrect security.protocol configuration (connecting to a SSL
listener?)`, a Java client reads the alert as a 352 MB response size and dies with `OutOfMemoryError`.
kdiag reads the TLS record and says TLS_EXPECTED, with the client settings to use. The next mistake,
security.protocol=SSL without the company CA, fails certificate verification (TLS_CERT_UNTRUSTED); with
ssl.ca.location pointing at the CA, everything works.""",
    topology=office_topology("tls"),
    brokers=(office_broker(_TLS, LOCAL, advertised=(Listener("SSL", SERVER_NAME, TLS_PORT), LOCAL),
                           inter_broker="LOCAL", overrides=pem_keystore("SSL", f"{PKI}/broker-keystore.pem")),),
    setup=(LabStep("make the CA and the broker's certificate", "server",
                   python_module("kdiag.lab.certs", PKI, f"broker=DNS:{SERVER_NAME}"), when="before-brokers"),),
    vantages=(
        Vantage(
            "client-plaintext", host="client", bootstrap=f"{SERVER_NAME}:{TLS_PORT}",
            expect=problems(finding("TLS_EXPECTED", title=f"{SERVER_NAME}:{TLS_PORT} is a TLS listener",
                                    fix="security.protocol=SSL"),
                            stages=NO_METADATA),
            why="A plaintext Kafka request to a TLS listener: the answer is a TLS alert.",
        ),
        Vantage(
            "client-tls-without-ca", host="client", bootstrap=f"{SERVER_NAME}:{TLS_PORT}",
            args=("-X", "security.protocol=SSL"),
            expect=problems("TLS_CERT_UNTRUSTED", stages={"tcp": "ok", "tls": "fail"}),
            why="TLS now, but the broker's certificate is signed by the company CA, which this client does not trust.",
        ),
        Vantage(
            "client-tls", host="client", bootstrap=f"{SERVER_NAME}:{TLS_PORT}",
            args=("-X", "security.protocol=SSL", "-X", f"ssl.ca.location={PKI}/ca.pem"),
            expect=healthy(),
            why="TLS with the company CA: the certificate verifies for the advertised name, and the round trip works.",
        ),
    ),
)


# --------------------------------------------------------------------------- a SASL listener

_SASL = Listener("SASL", "", SASL_PORT, "SASL_PLAINTEXT")
_ALICE = ("-X", "security.protocol=SASL_PLAINTEXT", "-X", "sasl.mechanisms=PLAIN", "-X", "sasl.username=alice",
          "-X", f"sasl.password={PLAIN_USERS['alice']}")

SASL_LISTENER_NO_CREDENTIALS = Scenario(
    name="sasl-listener-no-credentials",
    title="A SASL listener probed by a client without SASL settings",
    seed="reference/landscape-and-failure-modes.md §2 #14: listener requires SASL, client has none",
    description=f"""\
The broker's client listener requires SASL (PLAIN and SCRAM-SHA-512 enabled):
  listeners=SASL://:{SASL_PORT},LOCAL://127.0.0.1:9092
  advertised.listeners=SASL://{SERVER_NAME}:{SASL_PORT},LOCAL://127.0.0.1:9092
  listener.security.protocol.map=SASL:SASL_PLAINTEXT,LOCAL:PLAINTEXT
  listener.name.sasl.sasl.enabled.mechanisms=PLAIN,SCRAM-SHA-512
The application has no security.protocol and no credentials. The broker wants a SaslHandshake before
anything else, gets a Metadata request, logs `Unexpected Kafka request of type METADATA during SASL
handshake.` and closes the connection: librdkafka says `Disconnected: verify that security.protocol is
correctly configured, broker might require SASL authentication`, the Java client just reconnects. kdiag
sees the listener close on a plain request while it answers a SaslHandshake, and says SASL_REQUIRED with
the mechanisms the listener offers and the client settings to add. With them (user alice, PLAIN) the
same client is healthy.""",
    topology=office_topology("sasl"),
    brokers=(office_broker(_SASL, LOCAL, advertised=(Listener("SASL", SERVER_NAME, SASL_PORT), LOCAL),
                           inter_broker="LOCAL", overrides=sasl_listener("SASL")),),
    vantages=(
        Vantage(
            "client-no-credentials", host="client", bootstrap=f"{SERVER_NAME}:{SASL_PORT}",
            expect=problems(finding("SASL_REQUIRED", title=f"{SERVER_NAME}:{SASL_PORT} requires SASL",
                                    fix="security.protocol=SASL_PLAINTEXT"),
                            stages=NO_METADATA),
            why="A plain Metadata request to a SASL listener: the broker closes the connection.",
        ),
        Vantage(
            "client-plain-login", host="client", bootstrap=f"{SERVER_NAME}:{SASL_PORT}", args=_ALICE,
            expect=healthy(),
            why="SASL_PLAINTEXT with PLAIN and alice's password: the login works, and so does the round trip.",
        ),
    ),
)

SCENARIOS = (HTTP_ON_BOOTSTRAP_PORT, TLS_LISTENER_PLAINTEXT_CLIENT, SASL_LISTENER_NO_CREDENTIALS)
