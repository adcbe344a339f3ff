"""A connection cut off at the client's first request, in words that do not say whether TLS was on: Sarama's EOF
sending ApiVersions, "Failed to send ApiVersionsRequest" or (1.30+) "Error while sending ApiVersionsRequest" (broker.go
since 1.26.2 wraps the TCP connection in tls.Client, so with TLS on the handshake runs on that first write, and a
plaintext listener closes on the ClientHello).

TLS_UNEXPECTED is the likely reading either way. With TLS on in the paste (a ``-tls`` flag, security.protocol=SSL)
the other is a broker or proxy turning the connection away (a hang-up in the handshake, as
``tls_readings.hung_up_in_handshake`` reads every client's); without it the same EOF is also a plaintext client at a TLS
listener that closes without an alert, or a broker before 0.10 that does not know ApiVersions.
"""

from __future__ import annotations

from collections.abc import Mapping

from kdiag.explain.readings import Builder, alternative, likely_or
from kdiag.explain.subject import Context, Subject
from kdiag.finding import Finding

CUT_AT_FIRST_REQUEST = "EOF at the first request"
"""The start of the detail of a sighting read by ``first_request_readings``: TLS_UNEXPECTED likely, TLS or not."""

OTHERS = ("TLS_EXPECTED", "BROKER_TOO_OLD", "BROKER_CLOSED_CONNECTION")
OTHERS_WITH_TLS = ("BROKER_CLOSED_CONNECTION",)


def cut_at_first_request(subject: Subject) -> bool:
    """Every line of ``subject`` is a first request cut off, with nothing said of TLS."""
    return all(str(g.first.detail or "").startswith(CUT_AT_FIRST_REQUEST) for g in subject.groups)


def first_request_readings(built: Finding, subject: Subject, context: Context,
                           builders: Mapping[str, Builder], *, tls: bool) -> list[Finding]:
    """``built`` (TLS_UNEXPECTED) as the likely reading, with the other causes of the same EOF beside it; ``tls``:
    the paste shows the client uses TLS."""
    confirm = str(built.evidence.get("confirm") or "kdiag bootstrap <bootstrap.servers>")
    if tls:
        said = ("The connection closed at the client's first request, where its TLS handshake runs, with no TLS alert: "
                "a plaintext listener closes so on a ClientHello, and a broker or proxy turning connections away ends "
                f"the same (a TLS listener that refuses a handshake sends an alert). The other reading is {{other}}. "
                f"`{confirm}` decides.")
    else:
        said = ("The connection closed at the client's first request and the paste does not show whether the client "
                "uses TLS. With TLS on, that is a plaintext listener closing on the TLS handshake; without it, a TLS "
                "listener that closes without an alert, a broker too old for ApiVersions, or a broker or proxy turning "
                f"connections away end the same. The other reading is {{other}}. `{confirm}` decides.")
    others = [builders[i](alternative(subject, subject.role, i, subject.role_from or ""), context)
              for i in (OTHERS_WITH_TLS if tls else OTHERS)]
    return likely_or(built, others[0], said, more=others[1:], guess=CUT_AT_FIRST_REQUEST)
