"""A broker too old for a request kdiag needs: ApiVersions said which versions it speaks, and none is kdiag's.

The probes pick every request's version from the broker's ApiVersions answer (``probes.kafka.version_for``);
when the ranges miss, the check or the SASL exchange keeps the gap (``VersionGap``) and this rule names
the request, both ranges and what follows: the protocol decides, not a list of Kafka releases.
"""

from __future__ import annotations

from collections.abc import Iterator

from kdiag.diagnose.rule import Rule, finding
from kdiag.diagnose.rules.protocol import probed
from kdiag.diagnose.rules.sasl import sasl_targets
from kdiag.finding import Finding
from probes.results import VersionGap

_WHAT_FAILS = {
    "Metadata": "no client can learn the brokers and topics from it",
    "SaslHandshake": ("kdiag cannot log in to check it (Kafka before 1.0 speaks only SaslHandshake v0, raw SASL "
                      "tokens without SaslAuthenticate); clients that still speak v0 can"),
    "SaslAuthenticate": "kdiag cannot log in to check it",
    "FindCoordinator": "consumer groups cannot find their coordinator",
    "ListOffsets": "consumers cannot find where to start reading",
}


def _gaps(report) -> Iterator[tuple[str, VersionGap]]:
    """Each version gap the probes met, where. A listener that offers no Metadata at all is not an old
    broker (every broker has had Metadata since 0.8): it is most likely a KRaft controller's listener, a
    reading ``rules.unexplained`` gives."""
    for target in probed(report):
        gap = target.kafka.version_gap
        if gap is not None and not is_controller_like(gap):
            yield target.label, gap
    for target in sasl_targets(report):
        if target.sasl is not None and target.sasl.version_gap is not None:
            yield target.label, target.sasl.version_gap


def is_controller_like(gap: VersionGap) -> bool:
    """ApiVersions answered, but Metadata is not offered at all: what a KRaft controller listener does."""
    return gap.api == "Metadata" and gap.broker_max is None


def _broker_too_old(report) -> Finding | None:
    gaps = {}
    for where, gap in _gaps(report):
        gaps.setdefault(gap, []).append(where)
    if not gaps:
        return None
    gap, where = next(iter(gaps.items()))
    older = gap.broker_too_old
    offered = (f"offers no {gap.api} at all" if gap.broker_max is None else
               f"speaks {gap.api} v{gap.broker_min} to v{gap.broker_max}")
    title = (f"The broker is too old for kdiag's {gap.api} request ({offered}; kdiag needs "
             f"v{gap.kdiag_min} or later)" if older else
             f"The broker is newer than kdiag's {gap.api} request ({offered}; kdiag speaks up to v{gap.kdiag_max})")
    explanation = (f"ApiVersions, the first request on every connection, lists the versions of each request the "
                   f"broker speaks. At {' and '.join(where)} it {offered}, and kdiag speaks "
                   f"v{gap.kdiag_min} to v{gap.kdiag_max}: no version is shared, so "
                   f"{_WHAT_FAILS.get(gap.api, 'this check cannot run')}. This is a fact of the protocol, not "
                   "a network fault.")
    fix = (f"Upgrade the broker to a release that speaks {gap.api} v{gap.kdiag_min} or later, or check it with "
           "a client of its own era. The broker's versions, as it lists them:\n"
           "  kafka-broker-api-versions.sh --bootstrap-server <host:port>\n"
           "  kcat -b <host:port> -X api.version.request=true -X debug=protocol -L" if older else
           "Upgrade kdiag: this broker has dropped the versions kdiag speaks.")
    evidence = {"api": gap.api, "broker_min_version": gap.broker_min, "broker_max_version": gap.broker_max,
                "kdiag_min_version": gap.kdiag_min, "kdiag_max_version": gap.kdiag_max, "where": where,
                "other_gaps": [str(g) for g in list(gaps)[1:]]}
    return finding("BROKER_TOO_OLD", "error", title, explanation, evidence, fix)


RULES = (
    Rule("BROKER_TOO_OLD", "The broker speaks no version of a request kdiag needs", "error", _broker_too_old),
)
