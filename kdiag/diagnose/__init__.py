"""The diagnosis rules: pure functions that turn a report's facts into findings.

``diagnose(report)`` runs every rule in ``RULES`` and returns the findings, errors first, then
warnings, then infos, each group in the order of ``RULES``. (What each finding id means, for every
command that raises one, is ``kdiag.catalog``, the catalog ``kdiag findings`` prints.) A healthy report yields no findings at all. The
CLI, the sidecar and the fleet job all call this, and ``run_rule`` runs one check by id (like
``brew doctor CHECK``).
"""

from __future__ import annotations

from kdiag.diagnose.hosts import HostKind, classify_host, is_loopback
from kdiag.diagnose.rule import Rule
from kdiag.diagnose.rules import (addressing, advertised, bootstrap, idle, ingress, kerberos, listeners, loadbalancer,
                                  peers, protocol, sasl, tls, topics, unexplained, versions)
from kdiag.finding import Finding, by_severity
from kdiag.report import Report

_EXPLAINING: tuple[Rule, ...] = (bootstrap.RULES + protocol.RULES + versions.RULES + peers.RULES + tls.RULES
                                 + sasl.RULES + kerberos.RULES + advertised.RULES + topics.RULES + listeners.RULES
                                 + addressing.RULES + loadbalancer.RULES + ingress.RULES + idle.RULES)
# The last rule reads the others' findings: a failed stage none of them explains still gets a hypothesis.
RULES: tuple[Rule, ...] = _EXPLAINING + (unexplained.rule(_EXPLAINING),)

_BY_ID = {rule.id: rule for rule in RULES}
if len(_BY_ID) != len(RULES):
    raise RuntimeError("diagnosis rule ids must be unique")


class UnknownRule(LookupError):
    """No rule has that id."""

    def __init__(self, rule_id: str) -> None:
        super().__init__(f"no diagnosis rule {rule_id!r}; known: {', '.join(_BY_ID)}")
        self.rule_id = rule_id


def rule_ids() -> tuple[str, ...]:
    return tuple(_BY_ID)


def get_rule(rule_id: str) -> Rule:
    try:
        return _BY_ID[rule_id.upper()]
    except KeyError:
        raise UnknownRule(rule_id) from None


def run_rule(report: Report, rule_id: str) -> tuple[Finding, ...]:
    """One rule's findings for this report (empty when healthy); UnknownRule for an unknown id."""
    return get_rule(rule_id).run(report)


def diagnose(report: Report) -> tuple[Finding, ...]:
    """Every rule's findings: errors, then warnings, then infos; the order of ``RULES`` within each."""
    return by_severity([f for rule in RULES for f in rule.run(report)])


__all__ = ["RULES", "HostKind", "Rule", "UnknownRule", "classify_host", "diagnose", "get_rule", "is_loopback",
           "rule_ids", "run_rule"]
