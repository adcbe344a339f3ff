"""SASL_* from a client's lines: a listener that wants SASL the client does not send, a mechanism it does not
enable, credentials it rejects."""

from __future__ import annotations

from kdiag.diagnose.rule import finding
from kdiag.diagnose.wording import join_words
from kdiag.explain.clients.sasl_answers import OWN_WORDS
from kdiag.explain.implied import rule_fix
from kdiag.explain.shared import client_said, consequence_sentence, evidence, secured, with_confirm
from kdiag.explain.sightings import LIBRDKAFKA
from kdiag.explain.subject import Context, Subject
from kdiag.finding import Finding
from kdiag.report import Endpoint
from probes.results import KafkaCheck, SaslResult

def sasl_protocol(subject: Subject, context: Context) -> str:
    seen = subject.protocol or context.protocol or ""
    return seen if seen.startswith("SASL_") else ("SASL_SSL" if seen == "SSL" else "SASL_PLAINTEXT")


def sasl_required(subject: Subject, context: Context) -> Finding:
    if LIBRDKAFKA in subject.clients:
        meaning = ("The connection came up and the broker closed it at the first request; librdkafka's own hint: the "
                   "listener wants SASL authentication, and the client does not do SASL.")
    else:
        meaning = ("The broker received a Kafka request where it expected a SASL handshake: the listener's security "
                   "protocol is SASL_PLAINTEXT or SASL_SSL, and the client connects without SASL.")
    plain = "SSL" if (subject.protocol or context.protocol) == "SSL" else "PLAINTEXT"
    fix = rule_fix(secured(subject, context, kafka=KafkaCheck("auth_required"), protocol=plain), "SASL_REQUIRED")
    confirm = context.confirm(fallback=subject.endpoint, protocol="SASL_SSL" if plain == "SSL" else "SASL_PLAINTEXT",
                              settings=("sasl.mechanisms=<mechanism>", "sasl.username=<user>",
                                        "sasl.password=<password>"))
    return finding("SASL_REQUIRED", "error", f"The listener at {subject.where} requires SASL authentication, and the "
                   "client sends none", f"{client_said(subject)} {meaning}{consequence_sentence(context)}",
                   evidence(subject, context, confirm), with_confirm(fix, confirm))


def sasl_mechanism(subject: Subject, context: Context) -> Finding:
    # librdkafka's sasl.mechanisms defaults to GSSAPI; another client's line that names no mechanism leaves it unknown
    mechanism = subject.first("mechanism") or ("GSSAPI" if LIBRDKAFKA in subject.clients or not subject.clients else None)
    enabled = next((tuple(g.first.mechanisms) for g in subject.groups if g.first.mechanisms is not None), ())
    where = subject.where
    if mechanism is None:
        meaning = (f"The listener at {where} does not enable the SASL mechanism the client asks for (a SCRAM variant "
                   "where only PLAIN is enabled, PLAIN where only SCRAM is); the handshake fails before any "
                   "credentials are checked.")
    elif enabled:
        meaning = (f"The client asks for {mechanism}; the listener at {where} enables {join_words(enabled)}. The "
                   "handshake fails before any credentials are checked.")
    else:
        meaning = (f"The client asks for {mechanism}, and the listener at {where} has no SASL mechanism at all: it is "
                   "a PLAINTEXT or SSL listener (the wrong port), or its SASL is not set up.")
    if mechanism == "GSSAPI":
        meaning += " librdkafka's sasl.mechanisms defaults to GSSAPI (Kerberos) when it is not set."
    protocol = sasl_protocol(subject, context)
    sasl = SaslResult("unsupported_mechanism" if enabled else "not_sasl", mechanism=mechanism,
                      enabled_mechanisms=enabled, endpoint=str(subject.endpoint) if subject.endpoint else None)
    fix = rule_fix(secured(subject, context, sasl=sasl, protocol=protocol, mechanism=mechanism),
                   "SASL_MECHANISM_MISMATCH")
    confirm = context.confirm(fallback=subject.endpoint, protocol=protocol,
                              settings=(f"sasl.mechanisms={enabled[0] if enabled else '<mechanism>'}",))
    title = (f"The client's SASL mechanism {mechanism or ''} is not enabled on {where}".replace("  ", " ")
             + (f" (enabled: {join_words(enabled)})" if enabled else " (no SASL there)" if mechanism else ""))
    return finding("SASL_MECHANISM_MISMATCH", "error", title,
                   f"{client_said(subject)} {meaning}{consequence_sentence(context)}",
                   evidence(subject, context, confirm, client_mechanism=mechanism, sasl_mechanisms=list(enabled)),
                   with_confirm(fix, confirm))


_IAM_MEANING = ("The MSK listener at {where} took the IAM login (AWS_MSK_IAM signs each login with the client's AWS "
                "identity, there is no password) and denied it: the IAM role or user the client signs with has no "
                "policy that allows kafka-cluster:Connect on this cluster, or the identity is not the one intended (the "
                "default credential chain picked another one). From another AWS account (multi-VPC private "
                "connectivity), the cluster's own policy must grant that account too.")
_IAM_FIX = ("Check which identity the client signs with, on the client's machine:\n  aws sts get-caller-identity\n"
            "Allow it to connect (and to use the topics and groups it needs), in an IAM policy attached to that "
            "role or user:\n  {\"Effect\": \"Allow\", \"Action\": [\"kafka-cluster:Connect\", "
            "\"kafka-cluster:DescribeTopic\", \"kafka-cluster:ReadData\", \"kafka-cluster:WriteData\", "
            "\"kafka-cluster:DescribeGroup\", \"kafka-cluster:AlterGroup\"],\n   \"Resource\": [\"<cluster ARN>\", "
            "\"<topic ARN>\", \"<group ARN>\"]}\nAcross accounts, also add the client's account to the cluster "
            "policy (MSK console: the cluster's Properties, Security settings, cluster policy).")


def msk_iam(subject: Subject, mechanism: str | None, why: str) -> bool:
    """An MSK IAM login: the mechanism says so, or an MSK broker (``*.kafka.<region>.amazonaws.com``) answered at its
    IAM port (9098, 9198 public) or with IAM's own words (``Access denied``, after a request id)."""
    if (mechanism or "").upper() == "AWS_MSK_IAM":
        return True
    host = (subject.host or "").lower()
    return ".kafka." in host and host.endswith(".amazonaws.com") and \
        (subject.port in (9098, 9198) or "access denied" in why.lower())


def sasl_auth_failed(subject: Subject, context: Context) -> Finding:
    mechanism = subject.first("mechanism")
    why = subject.first("detail") or "Authentication failed"
    protocol = sasl_protocol(subject, context)
    sasl = SaslResult("auth_failed", mechanism=mechanism, error_message=why,
                      endpoint=str(subject.endpoint) if subject.endpoint else None)
    fix = rule_fix(secured(subject, context, sasl=sasl, protocol=protocol, mechanism=mechanism), "SASL_AUTH_FAILED")
    if msk_iam(subject, mechanism, why):  # an AWS identity, no user name or password
        meaning, fix = _IAM_MEANING.format(where=subject.where), _IAM_FIX
    elif OWN_WORDS in (subject.first("guess") or ""):  # words of the broker's own, not about the credentials
        meaning = (f"The listener at {subject.where} accepted the SASL handshake and then refused the login with words "
                   f"of its own (`{why}`) that do not speak of the credentials: they may be right, and the broker said "
                   "no for another reason, such as a managed service's network rule (Azure Event Hubs answers at this "
                   "step when the namespace's firewall or IP filter does not admit the client's address) or a policy "
                   "of the service's. If the words name such a rule, fix that; else check the credentials.")
    else:
        meaning = (f"The listener at {subject.where} accepted the SASL handshake and then rejected the credentials: the "
                   "user name or password is wrong, or the user does not exist on this cluster (SCRAM users are "
                   "created per cluster).")
    explanation = f"{client_said(subject)} {meaning}{consequence_sentence(context)}"
    iam = msk_iam(subject, mechanism, why)  # no password to try: the address, TLS and the mechanisms it offers
    fallback = Endpoint(subject.host, subject.port or 9098) if iam and subject.host else subject.endpoint
    confirm = context.confirm(fallback=fallback, protocol="SASL_SSL" if iam else protocol,
                              settings=() if iam else (f"sasl.mechanisms={mechanism or '<mechanism>'}",
                                                       "sasl.username=<user>", "sasl.password=<password>"))
    title = ("MSK denied the client's IAM login" if iam else
             "The broker rejected the client's SASL credentials" + (f" ({mechanism})" if mechanism else ""))
    return finding("SASL_AUTH_FAILED", "error", title, explanation,
                   evidence(subject, context, confirm, mechanism=mechanism), with_confirm(fix, confirm))


def on_reauthentication(subject: Subject, context: Context) -> bool:
    """The broker's ILLEGAL_SASL_STATE (in the Java client's words: "... enabled mechanisms are []", no list) in a
    paste whose connections logged in with a session lifetime: a request out of turn on a connection that had
    authenticated, its re-authentication."""
    return context.facts.sasl_reauth and all(g.first.mechanisms == () for g in subject.groups)


def reauthentication_refused(built: Finding, subject: Subject) -> Finding:
    """ILLEGAL_SASL_STATE on re-authentication: a note, not a mechanism the listener lacks (it accepted the login)."""
    explanation = (f"{client_said(subject)} The same paste shows the client's connections logging in with SASL and "
                   "being given a session lifetime, after which the client re-authenticates on the open connection "
                   "(KIP-368). The broker answers ILLEGAL_SASL_STATE to a SASL request that comes out of turn on a "
                   "connection that has authenticated: the re-authentication was refused, not the mechanism, which "
                   "the listener accepted at login. A lifetime shorter than the client's margin (a managed cluster's "
                   "connections.max.reauth.ms, an IAM or OAuth token about to expire) makes a client re-authenticate "
                   "back to back: upgrade the client (a release that lets a request through after each login) or "
                   "give the session a longer lifetime.")
    return Finding(built.id, "info", "ILLEGAL_SASL_STATE while re-authenticating a logged-in connection: not a "
                   "mechanism the listener lacks", explanation, built.evidence, "")
