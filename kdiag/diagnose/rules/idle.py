"""Rules for what happens to a connection left idle (``kdiag bootstrap --idle-check SECONDS``, or a
connection ``kdiag watch --idle-check DURATION`` keeps across its probes).

A NAT gateway, a cloud load balancer or a stateful firewall forgets a TCP flow after some idle time
and then drops its packets without a word. Kafka clients keep connections open for minutes between
requests (a consumer group's coordinator, a producer to a quiet topic), so the next request after a
pause hangs until ``request.timeout.ms`` and the connection is torn down: librdkafka `GroupCoordinator:
...: 1 request(s) timed out: disconnect (after 240000ms in state UP)`.
"""

from __future__ import annotations

from kdiag.diagnose.facts import bootstrap_used
from kdiag.diagnose.rule import Rule, finding
from kdiag.finding import Finding
from kdiag.report import Report
from probes.hostport import hostport


def _idle_dropped(report: Report) -> Finding | None:
    check = report.idle
    if check is None or check.status == "ok":
        return None
    used = bootstrap_used(report)
    where = hostport(used.host, used.port) if used else "the bootstrap address"
    idle_ms = int(check.idle_s * 1000)
    if check.status == "timeout":
        what = (f"the request after it got no answer within {check.answer_ms / 1000:.1f} s: something in the path "
                "forgot the connection and now drops its packets silently")
        title = f"A connection to {where} left idle for {check.idle_s:g} s was silently dropped"
    elif check.status == "closed":
        what = ("the request after it found the connection closed or reset: by something in the path that resets "
                "the flows it forgets (Azure's load balancer with TCP reset on idle), or by the broker itself, which "
                "closes connections idle past its connections.max.idle.ms (10 min by default) and all of them when "
                "it restarts")
        title = f"A connection to {where} left idle for {check.idle_s:g} s was closed"
    else:
        what = f"the request after it failed ({check.error})"
        title = f"A connection to {where} left idle for {check.idle_s:g} s failed"
    explanation = (f"kdiag kept its connection to {where} idle for {check.idle_s:g} s, then sent a Metadata request: "
                   f"{what}. The connection lasted {check.idle_s:g} s of silence; a flow that is still known answers in "
                   "milliseconds. Clients keep connections idle for minutes (a consumer's coordinator, a producer to "
                   "a quiet topic), so their next request hangs until request.timeout.ms and they reconnect: "
                   f"librdkafka `1 request(s) timed out: disconnect (after {idle_ms}ms in state UP)`, Java "
                   "`Disconnecting from node ... due to request timeout`. Typical idle limits: Azure's load "
                   "balancer 4 min, Event Hubs 10 min, an AWS NAT gateway 350 s.")
    limit = 180000 if idle_ms >= 240000 else max(1000, idle_ms // 2)  # 3 min under Azure's 4, else half
    fix = ("Make the clients close or use connections before the path forgets them, below the limit you measure "
           "(rerun with longer --idle-check values to find it):\n"
           f"  connections.max.idle.ms={limit}    # librdkafka and Java "
           "clients: close idle connections first\n"
           "  socket.keepalive.enable=true        # librdkafka: TCP keepalives (the OS interval must be shorter "
           "than the limit: net.ipv4.tcp_keepalive_time)\n"
           "  metadata.max.age.ms=180000          # a request on the connection every 3 minutes\n"
           "Or raise the limit in the path above the clients' idle time:\n"
           "  an Azure load balancer (an AKS Service of type LoadBalancer): the annotation\n"
           "    service.beta.kubernetes.io/azure-load-balancer-tcp-idle-timeout: \"30\"    # minutes, 4-100; with "
           "TCP reset on idle, clients learn of a drop at once\n"
           "  an AWS Network Load Balancer's TCP listener (60-6000 s; a TLS listener and a NAT gateway keep 350 s):\n"
           "    aws elbv2 modify-listener-attributes --listener-arn <arn> "
           "--attributes Key=tcp.idle_timeout.seconds,Value=1200\n"
           "  a Linux router or NAT: sysctl -w net.netfilter.nf_conntrack_tcp_timeout_established=<seconds>\n"
           f"Check:  kdiag bootstrap {where} --idle-check {check.idle_s:g} --timeout {check.idle_s + 10:g}")
    evidence = {"bootstrap": where, "idle_s": check.idle_s, "status": check.status, "answer_ms": check.answer_ms,
                "error": check.error}
    return finding("IDLE_CONNECTION_DROPPED", "error", title, explanation, evidence, fix)


RULES = (
    Rule("IDLE_CONNECTION_DROPPED", "A connection left idle is dropped by something in the path", "error",
         _idle_dropped),
)
