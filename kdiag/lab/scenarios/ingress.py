"""An SNI-routed ingress (TLS passthrough) in front of a TLS listener, as Strimzi's ingress listener sets it up.

The office network of ``healthy-single``; its router plays the Kubernetes node running ingress-nginx
with ``--enable-ssl-passthrough`` (:mod:`~kdiag.lab.scenarios._sni_router`) on 192.0.2.1:443, routing
``bootstrap.kafka.example.test`` and ``broker-1.kafka.example.test`` to the broker's SSL listener and
everything else to its default backend. The office DNS points those two names, and the older
``kafka.example.test``, at the ingress.
"""

from __future__ import annotations

from kdiag.lab.certs import pem_keystore
from kdiag.lab.kafka import Listener
from kdiag.lab.scenarios.base import (STATE_DIR, LabProcess, LabStep, Scenario, Vantage, finding, healthy, problems,
                                      python_module)
from kdiag.lab.scenarios.healthy import OFFICE_DNS, SERVER_IP, office_broker, office_topology

BOOTSTRAP_HOST = "bootstrap.kafka.example.test"
BROKER_HOST = "broker-1.kafka.example.test"
OLD_NAME = "kafka.example.test"
TLS_PORT = 9093
PKI = f"{STATE_DIR}/pki"
TLS = ("-X", "security.protocol=SSL", "-X", f"ssl.ca.location={PKI}/ca.pem")
LOCAL = Listener("LOCAL", "127.0.0.1", 9092)
MISSED = ("INGRESS_DEFAULT_BACKEND", "TLS_CERT_UNTRUSTED")

SNI_INGRESS = Scenario(
    name="sni-ingress",
    title="An SNI-routed ingress: bootstrapping by IP or an unrouted name reaches the default backend",
    seed="reference/landscape-and-failure-modes.md §2 #24: SNI-routed ingress (Strimzi ingress/routes)",
    description=f"""\
A broker with an SSL listener and a certificate for its routed names, behind an ingress that passes
TLS through by SNI:
  advertised.listeners=SSL://{BROKER_HOST}:443,LOCAL://127.0.0.1:9092
  ingress routes: {BOOTSTRAP_HOST} and {BROKER_HOST} -> the broker; anything else -> default backend
A client bootstrapping with the ingress's IP ({OFFICE_DNS}:443) sends no SNI, and one using the old name
{OLD_NAME} sends a name no route has: both reach ingress-nginx's default backend, whose "Kubernetes
Ingress Controller Fake Certificate" fails verification (librdkafka `certificate verify failed`; with
verification off the answer is HTTP 404, not Kafka). kdiag recognises the default certificate and says
INGRESS_DEFAULT_BACKEND (beside TLS_CERT_UNTRUSTED), with the openssl s_client -servername check and
Strimzi's ingress listener. Bootstrapping with {BOOTSTRAP_HOST} works: the SNI matches, and so does every
advertised broker name.""",
    topology=office_topology("ingress", records={BOOTSTRAP_HOST: OFFICE_DNS, BROKER_HOST: OFFICE_DNS,
                                                OLD_NAME: OFFICE_DNS}),
    brokers=(office_broker(Listener("SSL", "", TLS_PORT, "SSL"), LOCAL,
                           advertised=(Listener("SSL", BROKER_HOST, 443), LOCAL), inter_broker="LOCAL",
                           overrides=pem_keystore("SSL", f"{PKI}/broker-keystore.pem")),),
    processes=(LabProcess("ingress-nginx", "router", python_module(
        "kdiag.lab.scenarios._sni_router", f"{OFFICE_DNS}:443", f"{BOOTSTRAP_HOST}={SERVER_IP}:{TLS_PORT}",
        f"{BROKER_HOST}={SERVER_IP}:{TLS_PORT}"), listens_on=(443,)),),
    setup=(LabStep("make the CA and the broker's certificate", "server",
                   python_module("kdiag.lab.certs", PKI, f"broker=DNS:{BOOTSTRAP_HOST},DNS:{BROKER_HOST}"),
                   when="before-brokers"),),
    vantages=(
        Vantage("client-by-ip", host="client", bootstrap=f"{OFFICE_DNS}:443", args=TLS,
                expect=problems(finding(MISSED[0], title=("default backend", "the client sent none"),
                                        fix=("-servername", "type: ingress")), MISSED[1]),
                why="No SNI for an IP address: the ingress sends the connection to its default backend."),
        Vantage("client-old-name", host="client", bootstrap=f"{OLD_NAME}:443", args=TLS,
                expect=problems(finding(MISSED[0], title=f"no route matches {OLD_NAME}"), MISSED[1]),
                why=f"{OLD_NAME} resolves to the ingress, but no route has that name."),
        Vantage("client-routed", host="client", bootstrap=f"{BOOTSTRAP_HOST}:443", args=TLS, expect=healthy(),
                why="The bootstrap host and the advertised broker host are both routed to the broker."),
    ),
)

SCENARIOS = (SNI_INGRESS,)
