"""explain's builders: from the lines about one endpoint, topic or listener (``Subject``) and what the whole log
says (``Context``) to a finding with the report's id, evidence shape and fix. One module per finding family,
as ``kdiag.diagnose.rules`` has one per rule family (``bootstrap``, ``addressing``, ``advertised``, ``tls``,
``ingress``, ``sasl``, ``kerberos``, ``topics``, ``protocol``, ``idle``, ``peers``, ``versions``, ``sizes``); ``BUILDERS`` maps each id to its builder.
"""

from __future__ import annotations

from collections.abc import Callable

from kdiag.explain.builders.addressing import address_family_split
from kdiag.explain.builders.advertised import (advertised_loopback, advertised_nonroutable, advertised_unreachable,
                                               advertised_unresolvable)
from kdiag.explain.builders.bootstrap import bootstrap_connect, bootstrap_unresolvable
from kdiag.explain.builders.idle import idle_connection_dropped
from kdiag.explain.builders.ingress import ingress_default_backend
from kdiag.explain.builders.kerberos import kerberos_principal_unknown
from kdiag.explain.builders.peers import (advertised_wrong_broker, broker_closed_connection, broker_stalled,
                                         load_balanced_bootstrap)
from kdiag.explain.builders.protocol import not_kafka
from kdiag.explain.builders.sizes import too_large
from kdiag.explain.builders.sasl import sasl_auth_failed, sasl_mechanism, sasl_required
from kdiag.explain.builders.tls import (tls_cert_untrusted, tls_client_cert_rejected, tls_client_cert_required,
                                        tls_expected, tls_hostname_mismatch, tls_unexpected)
from kdiag.explain.builders.topics import no_leader, topic_authorization, topic_not_found
from kdiag.explain.builders.versions import broker_too_old
from kdiag.explain.subject import Context, Subject
from kdiag.finding import Finding

BUILDERS: dict[str, Callable[[Subject, Context], Finding]] = {
    "ADVERTISED_ADDRESS_FAMILY_SPLIT": address_family_split,
    "BOOTSTRAP_UNRESOLVABLE": bootstrap_unresolvable,
    "BOOTSTRAP_REFUSED": bootstrap_connect,
    "BOOTSTRAP_TIMEOUT": bootstrap_connect,
    "BOOTSTRAP_UNREACHABLE": bootstrap_connect,
    "ADVERTISED_UNRESOLVABLE": advertised_unresolvable,
    "ADVERTISED_LOOPBACK": advertised_loopback,
    "ADVERTISED_UNREACHABLE": advertised_unreachable,
    "ADVERTISED_NONROUTABLE": advertised_nonroutable,
    "TLS_EXPECTED": tls_expected,
    "TLS_UNEXPECTED": tls_unexpected,
    "TLS_CERT_UNTRUSTED": tls_cert_untrusted,
    "TLS_HOSTNAME_MISMATCH": tls_hostname_mismatch,
    "TLS_CLIENT_CERT_REQUIRED": tls_client_cert_required,
    "TLS_CLIENT_CERT_REJECTED": tls_client_cert_rejected,
    "SASL_REQUIRED": sasl_required,
    "SASL_MECHANISM_MISMATCH": sasl_mechanism,
    "SASL_AUTH_FAILED": sasl_auth_failed,
    "TOPIC_NOT_FOUND": topic_not_found,
    "TOPIC_AUTHORIZATION_FAILED": topic_authorization,
    "NO_LEADER": no_leader,
    "NOT_KAFKA": not_kafka,
    "KERBEROS_PRINCIPAL_UNKNOWN": kerberos_principal_unknown,
    "IDLE_CONNECTION_DROPPED": idle_connection_dropped,
    "INGRESS_DEFAULT_BACKEND": ingress_default_backend,
    "BROKER_CLOSED_CONNECTION": broker_closed_connection,
    "BROKER_STALLED": broker_stalled,
    "ADVERTISED_WRONG_BROKER": advertised_wrong_broker,
    "LOAD_BALANCED_BOOTSTRAP": load_balanced_bootstrap,
    "BROKER_TOO_OLD": broker_too_old,
    "ROUNDTRIP_FAILED": too_large,
}
