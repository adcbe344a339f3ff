"""Amazon MSK's port families: one listener per port, and a client on the wrong one.

An MSK cluster has a listener per authentication and network path: 9092 plaintext, 9094 TLS, 9096
SASL/SCRAM, 9098 IAM inside the VPC; 9194, 9196, 9198 with public access. The bootstrap strings differ
only by port, so a client easily gets the TLS string with SCRAM settings, or no TLS at all. Modelled
in the office network of ``healthy-single`` with a lab DNS that answers MSK-style names (nothing leaves
the lab): one broker ``b-1.demo.a1b2c3.c2.kafka.us-east-1.amazonaws.com`` with the TLS listener on 9094
and SASL/SCRAM over TLS on 9096.
"""

from __future__ import annotations

from kdiag.lab.certs import pem_keystore, sasl_listener
from kdiag.lab.kafka import Listener
from kdiag.lab.scenarios.base import (STATE_DIR, LabStep, Scenario, Vantage, finding, healthy, problems,
                                      python_module)
from kdiag.lab.scenarios.healthy import SERVER_IP, office_broker, office_topology

BROKER = "b-1.demo.a1b2c3.c2.kafka.us-east-1.amazonaws.com"
PKI = f"{STATE_DIR}/pki"
TLS_CA = ("-X", f"ssl.ca.location={PKI}/ca.pem")
SCRAM = ("-X", "security.protocol=SASL_SSL", "-X", "sasl.mechanisms=SCRAM-SHA-512", "-X", "sasl.username=alice",
         "-X", "sasl.password=alice-secret", *TLS_CA)
LOCAL = Listener("LOCAL", "127.0.0.1", 9092)

MSK_WRONG_PORT = Scenario(
    name="msk-wrong-port",
    title="MSK's port families: a plaintext client and a SCRAM client on the TLS port 9094",
    seed="reference/landscape-and-failure-modes.md §2 #20: MSK on the wrong string or port",
    description=f"""\
An MSK-style broker, {BROKER}, with TLS on 9094 and SASL/SCRAM over TLS on 9096 (as MSK
has them inside the VPC). Two clients took the TLS bootstrap string,
{BROKER}:9094: one without security.protocol (librdkafka `Disconnected while
requesting ApiVersion: might be caused by incorrect security.protocol configuration (connecting to a SSL
listener?)`), one with SCRAM settings (`Unexpected handshake request with client mechanism
SCRAM-SHA-512, enabled mechanisms are []`). kdiag says TLS_EXPECTED and SASL_MECHANISM_MISMATCH as for
any broker, and because the name is MSK's, the fix says so and names the port family: 9094 is TLS,
SASL/SCRAM is 9096 (9196 with public access). With TLS and the CA, 9094 is healthy.""",
    topology=office_topology("msk", records={BROKER: SERVER_IP}),
    brokers=(office_broker(Listener("TLS", "", 9094, "SSL"), Listener("SCRAM", "", 9096, "SASL_SSL"), LOCAL,
                           advertised=(Listener("TLS", BROKER, 9094), Listener("SCRAM", BROKER, 9096), LOCAL),
                           inter_broker="LOCAL",
                           overrides={**pem_keystore("TLS", f"{PKI}/broker-keystore.pem"),
                                      **pem_keystore("SCRAM", f"{PKI}/broker-keystore.pem"),
                                      **sasl_listener("SCRAM")}),),
    setup=(LabStep("make the CA and the broker's certificate", "server",
                   python_module("kdiag.lab.certs", PKI, f"broker=DNS:{BROKER}"), when="before-brokers"),),
    vantages=(
        Vantage("client-plaintext", host="client", bootstrap=f"{BROKER}:9094",
                expect=problems(finding("TLS_EXPECTED", title=f"{BROKER}:9094",
                                        fix=("Assumed Amazon MSK", "Port 9094 is TLS, inside the VPC"))),
                why="No security.protocol on MSK's TLS port: the answer is a TLS alert."),
        Vantage("client-scram-on-tls-port", host="client", bootstrap=f"{BROKER}:9094", args=SCRAM,
                expect=problems(finding("SASL_MECHANISM_MISMATCH", title="has none",
                                        fix=("Assumed Amazon MSK", "9096 SASL/SCRAM"))),
                why="SCRAM settings on the TLS-only listener: it has no SASL mechanism at all."),
        Vantage("client-tls", host="client", bootstrap=f"{BROKER}:9094",
                args=("-X", "security.protocol=SSL", *TLS_CA), expect=healthy(),
                why="TLS with the CA on the TLS port: the right pairing."),
    ),
)

SCENARIOS = (MSK_WRONG_PORT,)
