"""``explain`` for Kerberos (SASL/GSSAPI): the KDC does not know the service principal the client asked for.

The client families' patterns (librdkafka's ``GSSAPI Error: ... (Server kafka/host@REALM not found in
Kerberos database)``) report a :data:`~kdiag.explain.sightings.KERBEROS_PRINCIPAL` sighting whose
``detail`` is that principal; :func:`kerberos_principal_unknown` turns the lines into the finding
``kdiag bootstrap`` raises (:mod:`kdiag.diagnose.rules.kerberos`), with the same kinds of fix.
"""

from __future__ import annotations

from kdiag.explain.builders.sasl import sasl_protocol
from kdiag.explain.shared import client_said, consequence_sentence, evidence, with_confirm
from kdiag.explain.subject import Context, Subject
from kdiag.explain.sightings import KERBEROS_PRINCIPAL
from kdiag.finding import Finding, make_finding

NOT_FOUND = "not found in Kerberos database"


def kerberos_principal_unknown(subject: Subject, context: Context) -> Finding:
    if KERBEROS_PRINCIPAL not in subject.symptoms:
        return _java_terminated(subject, context)
    asked = subject.first("detail") or "the service principal"
    service, _, rest = asked.partition("/") if "/" in asked else ("", "", "")  # (a KDC's words without the name)
    principal_host = rest.split("@", 1)[0]
    where = subject.where
    connected = (subject.host or "").lower().strip("[]")
    if service == "krbtgt":  # a cross-realm ticket-granting principal: the host was mapped to another realm
        return _cross_realm(subject, context, asked, principal_host)
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
    protocol = sasl_protocol(subject, context)
    confirm = context.confirm(fallback=subject.endpoint, protocol=protocol,
                              settings=("sasl.mechanisms=GSSAPI", f"sasl.kerberos.service.name={service or 'kafka'}"))
    named = f"service principal {asked}" if subject.first("detail") else "service principal the client asked for"
    title = f"The KDC has no {named}: GSSAPI clients cannot log in to {where}"
    return make_finding("KERBEROS_PRINCIPAL_UNKNOWN", "error", title,
                        f"{client_said(subject)} {meaning}{consequence_sentence(context)}",
                        evidence(subject, context, confirm, principal=asked, service_name=service or None),
                        with_confirm("\n".join(lines), confirm))


def _cross_realm(subject: Subject, context: Context, asked: str, realm: str) -> Finding:
    """``krbtgt/OTHER@REALM`` not found: the client's Kerberos library mapped the broker's host to realm OTHER (its
    [domain_realm], else the upper-cased domain of the name as canonicalised, an address's reverse DNS name by MIT's
    default rdns = true) and asked its own KDC for a way into that realm, which the KDC has no trust for."""
    host = subject.host or "<host>"
    domain = host.split(".", 1)[1] if "." in host else host
    meaning = (f"The KDC has no principal {asked}: the client asked it for a ticket into the realm {realm}, because its "
               f"Kerberos library mapped the broker's host to that realm, not to the realm the broker's principal is "
               "in. MIT Kerberos maps a host to a realm through krb5.conf's [domain_realm], else by the upper-cased "
               "domain of the name as it canonicalised it, and by default (rdns = true) that name is the reverse DNS "
               "(PTR) of the broker's address (an EC2 address's is *.compute.amazonaws.com).")
    lines = ["In /etc/krb5.conf (or the file KRB5_CONFIG / java.security.krb5.conf names) on the client's machine, map "
             "the broker's domain to the broker's realm and stop the name being canonicalised:",
             "  [libdefaults]", "      rdns = false", "      dns_canonicalize_hostname = false",
             "  [domain_realm]", f"      .{domain} = <BROKER'S REALM>",
             f"Check:  kvno -S kafka {host}    # the principal MIT Kerberos asks for, and in which realm"]
    confirm = context.confirm(fallback=subject.endpoint, protocol=sasl_protocol(subject, context),
                              settings=("sasl.mechanisms=GSSAPI", "sasl.kerberos.service.name=kafka"))
    title = f"The KDC has no principal {asked}: the client maps {subject.where} to the realm {realm}"
    return make_finding("KERBEROS_PRINCIPAL_UNKNOWN", "error", title,
                        f"{client_said(subject)} {meaning}{consequence_sentence(context)}",
                        evidence(subject, context, confirm, principal=asked, realm=realm),
                        with_confirm("\n".join(lines), confirm))


def _java_terminated(subject: Subject, context: Context) -> Finding:
    """Java's `terminated during authentication` from a client that logs in with Kerberos: the KDC refused a ticket
    (LOOKING_UP_SERVER is retried and logged at DEBUG only); the line names the host Java built the principal from."""
    host = (subject.host or "<host>").lower()
    asked = f"kafka/{host}@<REALM>"
    meaning = ("This client logs in with Kerberos (GSSAPI), and Kafka's Java client retries a Kerberos error quietly: "
               "at its default log level it says only that the connection was `terminated during authentication`, "
               "and the TLS and firewall guesses in that line do not apply. Most often the KDC has no service "
               f"principal for the host: the Java client asks for <sasl.kerberos.service.name>/{host}@REALM (the "
               "host in the line is the name it uses: the one given, or an address's reverse DNS name), and the KDC "
               "answers `Server not found in Kerberos database (7) - LOOKING_UP_SERVER` (the KDC's log says "
               "LOOKING_UP_SERVER with the principal; DEBUG logging of org.apache.kafka.common.security shows it "
               "in the client).")
    lines = [f"Check the principal from the client's machine:  kvno kafka/{host}@<REALM>",
             "If the KDC does not know it: bootstrap by the host name in the broker's keytab principal (not by address),"
             " or create the principal and add its key to the broker's keytab:",
             f"  kadmin -q \"addprinc -randkey {asked}\"",
             f"  kadmin -q \"ktadd -k /etc/kafka/kafka.keytab {asked}\""]
    confirm = context.confirm(fallback=subject.endpoint, protocol=sasl_protocol(subject, context),
                              settings=("sasl.mechanisms=GSSAPI", "sasl.kerberos.service.name=kafka"))
    title = f"The Java client's Kerberos login to {subject.where} fails before the broker (most often: no principal {asked})"
    return make_finding("KERBEROS_PRINCIPAL_UNKNOWN", "error", title,
                        f"{client_said(subject)} {meaning}{consequence_sentence(context)}",
                        evidence(subject, context, confirm, principal=asked), with_confirm("\n".join(lines), confirm))
