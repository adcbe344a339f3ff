"""BROKER_TOO_OLD from a log's lines: the client and the broker share no version of a request. ``kdiag bootstrap``
raises it from the broker's ApiVersions answer (:mod:`kdiag.diagnose.rules.versions`); explain from the words a client
or an old broker prints for the same gap (:mod:`kdiag.explain.clients.versions`), with the same kinds of fix: upgrade
the broker, or make the client speak the broker's versions.
"""

from __future__ import annotations

import re

from kdiag.diagnose.rule import finding
from kdiag.explain.shared import client_said, consequence_sentence, evidence, with_confirm
from kdiag.explain.sightings import BOOTSTRAP_DISCONNECTED, BROKER, CONNECTION_CLOSED, VERSION_GAP
from kdiag.explain.subject import Context, Subject
from kdiag.finding import Finding

_RANGES = re.compile(r"version in range \[(\d+),(\d+)\]\. The supported range is \[(\d+),(\d+)\]")

# How each family of client is told to speak an older broker's versions.
PIN_VERSIONS = ("Or make the client speak the broker's versions: librdkafka (confluent-kafka, kcat) "
                "api.version.request=false with broker.version.fallback=<the broker's version> for a broker before "
                "0.10; Sarama config.Version = sarama.V0_10_2_0 (the broker's); kafka-python and aiokafka "
                "api_version=(0, 10, 2) (or None, to ask the broker); franz-go kgo.MaxVersions(kversion.V0_10_2()); "
                "the Java clients and tools of the broker's own release.")


def broker_too_old(subject: Subject, context: Context) -> Finding:
    detail = subject.first("detail") or "a request: "
    api, _, words = detail.partition(": ")
    ranges = _RANGES.search(words)
    versions = {}
    if ranges:
        client_min, client_max, broker_min, broker_max = (int(v) for v in ranges.groups())
        versions = {"client_min_version": client_min, "client_max_version": client_max,
                    "broker_min_version": broker_min, "broker_max_version": broker_max}
        offered = (f" The client needs {api} v{client_min} to v{client_max}; the broker speaks v{broker_min} to "
                   f"v{broker_max}.")
    else:
        offered = ""
    if subject.symptoms & {CONNECTION_CLOSED, BOOTSTRAP_DISCONNECTED}:  # a hang-up at the version exchange, a reading
        api = "ApiVersions"
        said = (f"{client_said(subject)} The broker hung up while the client asked for its versions, or its answer "
                "ended before the client read all it expected: a broker before 0.10 does not know ApiVersions and "
                "closes the connection on it, and a client that reads a newer answer's format than an old broker "
                "sends runs out of bytes the same way.")
    elif VERSION_GAP not in subject.symptoms:  # a client that gave up, a reading
        api = "a request"
        said = (f"{client_said(subject)} A client that sends its requests at the version its own setting names, "
                "without asking the broker (Sarama's config.Version, V2_1_0 by default since 1.41), gets no answer "
                "from a broker older than that version: the broker closes the connection on a version it does not "
                "know, and the client runs out of brokers.")
    elif re.search(r"\bEOF$", words):  # a hang-up on a request after the connection had served others
        said = (f"{client_said(subject)} The broker closed the connection on {api} after it had answered the "
                "client's other requests (metadata, offsets), so TLS and SASL are not what failed. A client that "
                "sends a request at the version its own setting names, without asking the broker (Sarama's "
                "config.Version, V2_1_0 by default since 1.41: Fetch v10, Produce v7), gets exactly that from a "
                "server that does not speak the version.")
    elif "bytes available" in words:  # Java's protocol reader ran out of bytes in a message
        said = (f"{client_said(subject)} A message was laid out as another version than its reader expected: a client "
                "reading an older broker's answer (a Java client before 0.10.2 does not ask the broker's versions "
                "first), or a broker reading a newer client's request.")
    elif BROKER in subject.clients:
        said = (f"{client_said(subject)} That is the broker's side: a client sent it {api} in a version (or a request) "
                "the broker does not know, and the broker closed the connection instead of answering, which the client "
                "sees as a connection closed or timed out with no reason.")
    else:
        said = f"{client_said(subject)} The broker's ApiVersions answer lists no version of {api} the client speaks."
    meaning = (f"{said}{offered} The broker is older than the request (consumer groups need 0.9, ApiVersions 0.10, "
               "ListOffsets v1 0.10.1, transactions and headers 0.11, IncrementalAlterConfigs 2.3), or, less often, "
               "the client is older than what the broker still speaks (Kafka 4.0 dropped the oldest versions). This "
               "is a fact of the protocol, not a network fault.")
    fix = ("Upgrade the broker to a release that speaks the request, or use a client of the broker's era for it. "
           f"{PIN_VERSIONS} The broker's versions, as it lists them:\n"
           "  kafka-broker-api-versions.sh --bootstrap-server <host:port>")
    confirm = context.confirm(fallback=subject.endpoint)
    title = (f"The broker does not speak the client's {api} request" if api and not api.startswith("a request") else
             "The client and the broker share no version of a request")
    return finding("BROKER_TOO_OLD", "error", title,
                   f"{meaning}{consequence_sentence(context)}",
                   evidence(subject, context, confirm, api=api, **versions), with_confirm(fix, confirm))
