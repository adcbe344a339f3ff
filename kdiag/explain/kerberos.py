"""``explain`` for Kerberos (SASL/GSSAPI): the KDC does not know the service principal the client asked for.

The client families' patterns (librdkafka's ``GSSAPI Error: ... (Server kafka/host@REALM not found in
Kerberos database)``) report a :data:`~kdiag.explain.sightings.KERBEROS_PRINCIPAL` sighting whose
``detail`` is that principal; :func:`kerberos_principal_unknown` turns the lines into the finding
``kdiag bootstrap`` raises (:mod:`kdiag.diagnose.rules.kerberos`), with the same kinds of fix.
"""

from __future__ import annotations

from kdiag.explain.builders import Context, Subject, _sasl_protocol, client_said, consequence_sentence, evidence, with_confirm
from kdiag.finding import Finding, make_finding

NOT_FOUND = "not found in Kerberos database"


def kerberos_principal_unknown(subject: Subject, context: Context) -> Finding:
    asked = subject.first("detail") or "the service principal"
    service, _, rest = asked.partition("/")
    principal_host = rest.split("@", 1)[0]
    where = subject.where
    connected = (subject.host or "").lower().strip("[]")
    renamed = bool(connected) and principal_host.lower() != connected
    meaning = (f"The KDC has no service principal {asked}, so the client gets no ticket for the broker and never "
               "authenticates. A Kerberos client asks for <sasl.kerberos.service.name>/<host>@REALM, with host the "
               "name it connects to as its Kerberos library canonicalises it (MIT's defaults: the forward lookup, "
               "then the reverse DNS of the address, rdns = true).")
    if renamed:
        meaning += (f" The client connected to {subject.host} but asked for {principal_host}: the name was "
                    "canonicalised, most likely through the reverse DNS (PTR) of its address.")
    lines = []
    if renamed:
        lines += [f"If the broker's principal is {service}/{connected}@REALM, stop the client canonicalising the "
                  "name: in /etc/krb5.conf (or the file KRB5_CONFIG / java.security.krb5.conf names)",
                  "  [libdefaults]",
                  "      rdns = false",
                  "      dns_canonicalize_hostname = false"]
    lines += ["Or connect with the host name in the broker's keytab principal (bootstrap.servers and every broker's "
              "advertised name), or create the principal the client asks for and add its key to the broker's keytab:",
              f"  kadmin -q \"addprinc -randkey {asked}\"",
              f"  kadmin -q \"ktadd -k /etc/kafka/kafka.keytab {asked}\"",
              f"sasl.kerberos.service.name must be the first part of the broker's principal ({service or 'kafka'}).",
              f"Check:  kvno -S {service or 'kafka'} {subject.host or '<host>'}    # the principal MIT Kerberos asks "
              "for, and whether the KDC has it"]
    protocol = _sasl_protocol(subject, context)
    confirm = context.confirm(fallback=subject.endpoint, protocol=protocol,
                              settings=("sasl.mechanisms=GSSAPI", f"sasl.kerberos.service.name={service or 'kafka'}"))
    title = f"The KDC has no service principal {asked}: GSSAPI clients cannot log in to {where}"
    return make_finding("KERBEROS_PRINCIPAL_UNKNOWN", "error", title,
                        f"{client_said(subject)} {meaning}{consequence_sentence(context)}",
                        evidence(subject, context, confirm, principal=asked, service_name=service or None),
                        with_confirm("\n".join(lines), confirm))
