"""Rules for Kerberos (SASL/GSSAPI): the service principal a client asks for is not in the KDC.

A GSSAPI client asks the KDC for ``<sasl.kerberos.service.name>/<host>@REALM``, ``host`` being the name it
connects to as its Kerberos library canonicalises it (MIT's defaults: the forward lookup's canonical name,
then the reverse DNS name of its address). kdiag does not log in with GSSAPI; the ``sasl`` stage's
``kerberos`` check (``probes.kerberos``) works the name out from the client's krb5.conf and DNS, and asks
the KDC with ``kvno`` through the client's own credentials cache. This rule reads that check.
"""

from __future__ import annotations

from kdiag.diagnose.hosts import classify_host
from kdiag.diagnose.rule import Rule, finding
from kdiag.finding import Finding
from kdiag.report import Report, SaslDetail
from probes.hostport import hostport
from probes.kerberos import KerberosCheck, ServicePrincipal


def _check(report: Report) -> KerberosCheck | None:
    detail = report.detail("sasl")
    return detail.kerberos if isinstance(detail, SaslDetail) else None


def _port_of(report: Report, host: str) -> int:
    return next((t.port for t in report.bootstrap if t.host == host), 9092)


def _principal_unknown(report: Report) -> tuple[Finding, ...] | None:
    check = _check(report)
    if check is None or not check.unknown:
        return None
    return tuple(_finding(report, check, principal) for principal in check.unknown)


def _finding(report: Report, check: KerberosCheck, principal: ServicePrincipal) -> Finding:
    if principal.kdc_status != "unknown":
        return _java_finding(report, check, principal)
    asked = principal.kdc_principal or principal.principal
    if asked.endswith("@"):  # kvno names a referral (empty) realm: the realm it went to is krb5.conf's
        asked = principal.principal
    config = check.config
    where = hostport(principal.host, _port_of(report, principal.host))
    conf = config.path or "/etc/krb5.conf"
    host_part = asked.split("/", 1)[-1].split("@", 1)[0]
    by_reverse_dns = bool(principal.reverse_name) and host_part == principal.reverse_name.lower().rstrip(".") \
        and host_part != principal.host.lower()
    by_canonical = not by_reverse_dns and host_part != principal.host.lower()
    is_address = classify_host(principal.host).is_ip
    how = f"the name it connects to, {principal.host}"
    if by_reverse_dns:
        how += (f", resolved to {principal.address} and canonicalised through the reverse DNS (PTR) of that address "
                f"to {principal.reverse_name} (rdns = true, MIT's default, in {conf})")
    elif by_canonical:
        how += f", canonicalised by the forward lookup to {principal.canonical_host} (dns_canonicalize_hostname)"
    elif is_address:
        how += " (an address: without reverse DNS canonicalisation the principal holds the address itself)"
    title = f"The KDC has no service principal {asked}: GSSAPI clients cannot log in to {where}"
    explanation = (
        f"A Kerberos client on {where} asks the KDC for a ticket to {asked}: sasl.kerberos.service.name "
        f"({check.service}) and {how}. The KDC answered "
        f"\"{principal.kdc_message or 'Server not found in Kerberos database'}\" (kvno, with the client's "
        f"credentials cache{f' for {check.ccache_principal}' if check.ccache_principal else ''}), so the client "
        "never authenticates: librdkafka `GSSAPI Error: Unspecified GSS failure. Minor code may provide more "
        f"information (Server {asked} not found in Kerberos database)`, Java `Server not found in Kerberos "
        "database (7) - LOOKING_UP_SERVER`. The principal must match the host name clients use, for the bootstrap "
        "and for every broker's advertised name.")
    if principal.literal_status == "ok":
        explanation += f" The KDC does know {principal.literal_principal}: the name as written is right."
    if principal.java_principal and principal.java_status and principal.java_principal != asked:
        known = "knows it: Java clients log in" if principal.java_status == "ok" else "does not know it either"
        explanation += (f" A Java client asks for {principal.java_principal} instead ({_JAVA_NAMING}); the KDC "
                        f"{known}.")
    lines = []
    if principal.literal_status == "ok" and (by_reverse_dns or by_canonical):
        lines += [f"Stop the client canonicalising the name (the KDC knows {principal.literal_principal}): in "
                  f"{conf} (or the file java.security.krb5.conf / KRB5_CONFIG names)",
                  "  [libdefaults]"]
        lines += ["      rdns = false"] if by_reverse_dns else ["      dns_canonicalize_hostname = false"]
    if is_address:
        lines += [f"Bootstrap by the broker's host name, the one in its keytab's principal "
                  f"({check.service}/<host name>@REALM), not by address: a Kerberos principal names a host, "
                  f"and {principal.host} has none."]
    lines += ["Or create the principal the client asks for, and add its key to the broker's keytab "
              "(the broker's JAAS principal must be it, or use principal=\"*\" with several keys):",
              f"  kadmin -q \"addprinc -randkey {asked}\"",
              f"  kadmin -q \"ktadd -k /etc/kafka/kafka.keytab {asked}\""]
    if by_reverse_dns:
        lines += [f"Or make the reverse DNS of {principal.address} name the host of the principal the broker has."]
    if check.service != "kafka":
        lines += [f"sasl.kerberos.service.name ({check.service}) must be the first part of the broker's principal."]
    lines += [f"Check:  kvno -S {check.service} {principal.host}    # the principal MIT Kerberos asks for, "
              "and whether the KDC has it"]
    evidence = {"bootstrap": where, "principal": asked, "literal_principal": principal.literal_principal,
                "literal_known": principal.literal_status == "ok" if principal.literal_status else None,
                "service_name": check.service, "host": principal.host, "address": principal.address,
                "canonical_host": principal.canonical_host, "reverse_dns": principal.reverse_name,
                "rdns": config.rdns, "dns_canonicalize_hostname": config.dns_canonicalize_hostname,
                "default_realm": config.default_realm, "krb5_conf": config.path,
                "client_principal": check.ccache_principal, "kdc_message": principal.kdc_message}
    return finding("KERBEROS_PRINCIPAL_UNKNOWN", "error", title, explanation, evidence, "\n".join(lines))


_JAVA_NAMING = ("Kafka's Java client names the host as given, or an address by its reverse DNS, and the JDK "
                "ignores krb5.conf's rdns")


def _java_finding(report: Report, check: KerberosCheck, principal: ServicePrincipal) -> Finding:
    """librdkafka's principal exists, a Java client's does not (an address whose reverse DNS names another host)."""
    asked = principal.java_principal or principal.principal
    where = hostport(principal.host, _port_of(report, principal.host))
    title = f"The KDC has no service principal {asked}: Java GSSAPI clients cannot log in to {where}"
    explanation = (f"A Java client on {where} asks the KDC for {asked} ({_JAVA_NAMING}), and the KDC does not know "
                   f"it (kvno). MIT Kerberos clients (librdkafka) ask for {principal.kdc_principal or principal.principal}"
                   ", which it knows. The Java client logs only `terminated during authentication` at its default "
                   "level (the Kerberos error, LOOKING_UP_SERVER, is retried quietly).")
    fix = "\n".join([
        f"Bootstrap Java clients by the host name in the broker's principal, not by address ({principal.host}).",
        "Or create the principal Java clients ask for, and add its key to the broker's keytab:",
        f"  kadmin -q \"addprinc -randkey {asked}\"",
        f"  kadmin -q \"ktadd -k /etc/kafka/kafka.keytab {asked}\"",
        f"Check:  kvno {asked}"])
    evidence = {"bootstrap": where, "principal": asked, "client": "java", "host": principal.host,
                "address": principal.address, "reverse_dns": principal.reverse_name,
                "mit_principal": principal.kdc_principal or principal.principal, "service_name": check.service,
                "client_principal": check.ccache_principal}
    return finding("KERBEROS_PRINCIPAL_UNKNOWN", "error", title, explanation, evidence, fix)


RULES = (
    Rule("KERBEROS_PRINCIPAL_UNKNOWN", "The Kerberos service principal a GSSAPI client asks for is not in the KDC",
         "error", _principal_unknown),
)
