"""A connection held idle, then asked again: does something in the path drop idle connections?

Cloud load balancers and NAT gateways forget a TCP flow after it has been idle for a while (Azure's
load balancer after 4 minutes, Event Hubs after 10, an AWS NAT gateway after 350 s, a home router
sooner) and then drop its packets silently. The client learns of it only when its next request
times out: librdkafka `1 request(s) timed out: disconnect (after 240000ms in state UP)`. kdiag keeps
the bootstrap connection idle for the time asked, then sends a Metadata request on it.
"""

from __future__ import annotations

import time

from probes.kafka import ConnectionClosed, KafkaConnection, KafkaProbeError
from probes.results import IdleCheck


def hold_idle(conn: KafkaConnection, *, seconds: float, answer_timeout: float) -> IdleCheck:
    """Keep ``conn`` idle ``seconds``, then ask for Metadata and wait ``answer_timeout`` for the answer."""
    started = time.monotonic()
    time.sleep(max(0.0, seconds))
    asked = time.monotonic()
    idle = round(asked - started, 1)
    try:
        conn.metadata(timeout=answer_timeout, topics=())
    except ConnectionClosed as exc:
        return IdleCheck("closed", idle, round((time.monotonic() - asked) * 1000, 1), str(exc))
    except KafkaProbeError as exc:
        status = "timeout" if exc.foreign is not None and exc.foreign.kind == "stalled" else "error"
        return IdleCheck(status, idle, round((time.monotonic() - asked) * 1000, 1), str(exc))
    return IdleCheck("ok", idle, round((time.monotonic() - asked) * 1000, 1))
