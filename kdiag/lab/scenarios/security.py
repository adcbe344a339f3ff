"""Authorization and authentication mismatches: an ACL-denied topic, and a SASL client on a plain listener.

The office network of ``healthy-single``; its broker runs Kafka's standard KRaft authorizer
(``StandardAuthorizer``) with ``allow.everyone.if.no.acl.found=false`` and three listeners:
SASL_PLAINTEXT on 9094 (PLAIN users ``admin``, the super user, and ``alice``, who has no ACL), PLAINTEXT
on 9093 for legacy clients, and the loopback-only LOCAL listener between broker and controller.
The topic ``orders`` exists; only ``admin`` may use it.
"""

from __future__ import annotations

from kdiag.lab.certs import PLAIN_USERS, sasl_listener
from kdiag.lab.kafka import Listener
from kdiag.lab.scenarios.base import LabStep, Scenario, Vantage, finding, healthy, problems, python_module
from kdiag.lab.scenarios.healthy import SERVER_NAME, office_broker, office_topology

SASL_PORT = 9094
PLAIN_PORT = 9093
TOPIC = "orders"
LOCAL = Listener("LOCAL", "127.0.0.1", 9092)


def login(user: str) -> tuple[str, ...]:
    return ("-X", "security.protocol=SASL_PLAINTEXT", "-X", "sasl.mechanisms=PLAIN", "-X", f"sasl.username={user}",
            "-X", f"sasl.password={PLAIN_USERS[user]}")


AUTHORIZER = {
    "authorizer.class.name": "org.apache.kafka.metadata.authorizer.StandardAuthorizer",
    "allow.everyone.if.no.acl.found": "false",
    # admin is the operator; ANONYMOUS is the broker itself on the LOCAL and CONTROLLER listeners.
    "super.users": "User:admin;User:ANONYMOUS",
}

ACL_DENIED = Scenario(
    name="topic-acl-denied",
    title="ACLs: a SASL user without a grant on the topic, and a SASL client on a plain listener",
    seed="reference/landscape-and-failure-modes.md §2 #16 (client uses SASL, listener has none) and the contract's "
         "TOPIC_AUTHORIZATION_FAILED",
    description=f"""\
A broker with the standard authorizer and no ACL for alice:
  authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer
  allow.everyone.if.no.acl.found=false
  super.users=User:admin;User:ANONYMOUS
  listeners=SASL://:{SASL_PORT},PLAIN://:{PLAIN_PORT},LOCAL://127.0.0.1:9092
alice logs in fine (SASL works) and the connection is healthy, but every request about {TOPIC} is
denied: a Java producer fails with `TopicAuthorizationException: Not authorized to access topics:
[{TOPIC}]`, librdkafka with `Broker: Topic authorization failed`. Her metadata does not even list the
topic. kdiag's round trip on --topic {TOPIC} says TOPIC_AUTHORIZATION_FAILED with the kafka-acls.sh lines
to grant it; admin, a super user, is healthy on the same topic.

The same client settings pointed at the PLAINTEXT port {PLAIN_PORT}: the client sends a SaslHandshake to a
listener without SASL, and the broker answers `Unexpected handshake request with client mechanism PLAIN,
enabled mechanisms are []` (UNSUPPORTED_SASL_MECHANISM with an empty list). The cause is the port, not
the mechanism: kdiag must say that this listener has no SASL at all.""",
    topology=office_topology("acl"),
    brokers=(office_broker(Listener("SASL", "", SASL_PORT, "SASL_PLAINTEXT"), Listener("PLAIN", "", PLAIN_PORT),
                           LOCAL,
                           advertised=(Listener("SASL", SERVER_NAME, SASL_PORT),
                                       Listener("PLAIN", SERVER_NAME, PLAIN_PORT), LOCAL),
                           inter_broker="LOCAL", overrides={**sasl_listener("SASL"), **AUTHORIZER}),),
    setup=(LabStep("create the topic", "server", python_module("kdiag.lab.scenarios._topics", "127.0.0.1:9092",
                                                               f"{TOPIC}=1")),),
    vantages=(
        Vantage("client-alice", host="client", bootstrap=f"{SERVER_NAME}:{SASL_PORT}", args=(*login("alice"),
                                                                                          "--topic", TOPIC),
                expect=problems(finding("TOPIC_AUTHORIZATION_FAILED", title=TOPIC,
                                        fix=f"--operation Write --operation Read --topic {TOPIC}"),
                                stages={"sasl": "ok", "metadata": "ok", "advertised": "ok", "roundtrip": "fail"}),
                why="alice authenticates, but no ACL lets her describe, write or read orders."),
        Vantage("client-admin", host="client", bootstrap=f"{SERVER_NAME}:{SASL_PORT}", args=(*login("admin"),
                                                                                          "--topic", TOPIC),
                expect=healthy(),
                why="admin is a super user: the same topic works."),
        Vantage("client-sasl-on-plain-port", host="client", bootstrap=f"{SERVER_NAME}:{PLAIN_PORT}",
                args=login("alice"),
                expect=problems(finding("SASL_MECHANISM_MISMATCH", title=(f"{SERVER_NAME}:{PLAIN_PORT}", "has none"),
                                        fix="security.protocol=PLAINTEXT")),
                why="SASL settings on the PLAINTEXT listener: it has no SASL mechanism at all."),
    ),
)

SCENARIOS = (ACL_DENIED,)
