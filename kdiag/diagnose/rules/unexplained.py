"""The last word on a failed stage no other rule explains: the most likely readings, hedged, and the command
that would make one certain. A failed stage never ends a report with no hypothesis at all.

``hypothesis(report, others)`` runs after every other rule (``kdiag.diagnose``): it says nothing when one of
them found an error or a warning, or when no stage failed.
"""

from __future__ import annotations

from collections.abc import Sequence

from kdiag.diagnose.facts import bootstrap_used
from kdiag.diagnose.rule import Rule, finding
from kdiag.diagnose.rules.versions import is_controller_like
from kdiag.finding import Finding
from kdiag.report import Report
from probes.hostport import hostport

_UNKNOWN = "a fault kdiag has no rule for"
_READINGS = {  # stage: (the likely reading in a few words, in full, the command that makes it certain)
    "dns": ("a resolver that cannot answer",
            "the resolver this machine uses cannot answer for the bootstrap host (a VPN or split-horizon DNS "
            "that is not up)",
            "getent hosts {host}; dig {host}"),
    "tcp": ("a firewall in the path",
            "a firewall or security group between this machine and the bootstrap address",
            "nc -vz {host} {port}"),
    "tls": ("a TLS setting the listener refuses",
            "a TLS setting of the client that the listener does not accept (protocol version, cipher, client "
            "certificate), or a middlebox that ends TLS itself",
            "openssl s_client -connect {host}:{port} -servername {host} -showcerts"),
    "sasl": ("a login the listener refused",
             "the listener or a proxy in front of it ended the SASL login without saying why: rejected "
             "credentials or a mechanism it does not allow",
             "the broker's log at the time of the run (Failed authentication ...); kcat -b {host}:{port} "
             "-X debug=security,broker -L with the same settings"),
    "metadata": ("a broker that cannot answer Metadata yet",
                 "the broker accepted the connection but could not answer Metadata: a broker still starting, "
                 "one whose controller or ZooKeeper is unavailable, or an ACL that refuses this client",
                 "kafka-broker-api-versions.sh --bootstrap-server {host}:{port}; the broker's server.log"),
    "advertised": ("an address usable only inside the cluster's network",
                   "an advertised broker's address that works inside the cluster's network but not from here",
                   "kcat -b {host}:{port} -L (the brokers it lists are the addresses clients use)"),
    "roundtrip": ("the cluster refuses this client's messages",
                  "the cluster refuses this client's produce or consume (ACLs, quotas, a topic policy), or a "
                  "broker in the path failed mid-way",
                  "the client log lines in the round trip's evidence; the broker's server.log"),
}


_CONTROLLER = ("a KRaft controller's listener, not a broker's",
               "the port answered ApiVersions but offers no Metadata at all, which every broker has had since Kafka "
               "0.8: a KRaft controller listener (controller.listener.names) answers so; clients bootstrap with "
               "a broker listener",
               "grep -E '^(listeners|controller.listener.names|advertised.listeners)=' server.properties on the "
               "broker at {host}")


def hypothesis(report: Report, others: Sequence[Finding]) -> Finding | None:
    if any(f.severity in ("error", "warning") for f in others):
        return None
    failed = [s for s in report.stages if s.failed]
    if not failed:
        return None
    stage = failed[0]
    short, reading, command = _READINGS.get(stage.name, (_UNKNOWN, _UNKNOWN, "the stage's summary"))
    kafka = getattr(stage.detail, "kafka", None)
    if stage.name == "metadata" and kafka is not None and kafka.version_gap is not None \
            and is_controller_like(kafka.version_gap):
        short, reading, command = _CONTROLLER
    used = bootstrap_used(report) or (report.bootstrap[0] if report.bootstrap else None)
    host, port = (used.host, used.port) if used is not None else ("<host>", 9092)
    certain = command.format(host=host, port=port)
    title = f"Stage {stage.name} failed in a way kdiag has no rule for: likely {short}"
    explanation = (f"The {stage.name} stage failed: {stage.summary}. No rule matches these facts exactly. The most "
                   f"likely reading: {reading}. It is a hypothesis, not a diagnosis: the stage summary and its "
                   "detail are what kdiag saw.")
    fix = f"To make it certain ({hostport(host, port)}):\n  {certain}"
    evidence = {"stage": stage.name, "status": stage.status, "summary": stage.summary,
                "failed_stages": [s.name for s in failed]}
    return finding("STAGE_FAILED_UNEXPLAINED", "warning", title, explanation, evidence, fix)


def rule(others: Sequence[Rule]) -> Rule:
    """The rule that gives a hypothesis when none of ``others`` explains a failed stage."""

    def check(report: Report) -> Finding | None:
        return hypothesis(report, [f for other in others for f in other.run(report)])

    return Rule("STAGE_FAILED_UNEXPLAINED", "A stage failed and no other rule explains it: the likely reading",
                "warning", check)


__all__: Sequence[str] = ("hypothesis", "rule")
