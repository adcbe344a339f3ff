"""Copy-paste fix text, built from what the report observed.

A fix names real hosts and ports from the report: the broker's current advertised endpoint, the
bootstrap endpoint this machine actually used, the ports already taken. Placeholders appear only for
facts no report can hold (another broker's public name, a security group id, a password).

Listener changes come in both forms users meet: ``server.properties`` lines and the Docker
``KAFKA_*`` environment of the broker's service.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from kdiag.diagnose.facts import (bootstrap_addresses, bootstrap_used, broker_index, client_uses_sasl, client_uses_tls,
                                  security_protocol, vantage_address)
from kdiag.diagnose.hosts import (BITNAMI_HELM, CONFLUENT_CLOUD, CONTAINER_ID, DOCKER, EC2_INTERNAL, EVENT_HUBS, KUBERNETES,
                                  KUBERNETES_OTHER, MSK, SINGLE_LABEL, STRIMZI, Deployment, classify_host,
                                  detect_deployment, is_loopback)
from kdiag.diagnose.wording import join_words, plural
from kdiag.report import BrokerReport, Endpoint, Report
from probes.hostport import hostport

BIND_ALL = "0.0.0.0"
_PORT_BASES = (9092, 19092, 29092, 39092, 49092)
KRAFT_NOTE = ("With KRaft, keep the CONTROLLER listener in listeners= and listener.security.protocol.map= "
              "(KAFKA_LISTENERS / KAFKA_LISTENER_SECURITY_PROTOCOL_MAP) as it is; keep any other listener you "
              "already have the same way.")


KUBERNETES_NOTE = ("On Kubernetes the operator or chart writes these lines: give each broker its own external "
                   "address there (Strimzi: an external listener of type loadbalancer, nodeport or ingress, with "
                   "configuration.brokers[].advertisedHost; Bitnami chart: externalAccess.enabled with one service "
                   "per broker). A single load balancer or port-forward in front of all brokers cannot work.")


IMAGE_NOTE = ("The Docker lines are for the apache/kafka and confluentinc/cp-kafka images (KAFKA_ plus the setting's "
              "name); the bitnami/kafka image reads KAFKA_CFG_ instead: KAFKA_CFG_LISTENERS, "
              "KAFKA_CFG_ADVERTISED_LISTENERS, KAFKA_CFG_LISTENER_SECURITY_PROTOCOL_MAP, "
              "KAFKA_CFG_INTER_BROKER_LISTENER_NAME.")


def docker_env_name(prop: str) -> str:
    """The Confluent/Apache Kafka image's environment name for a broker property:
    ``advertised.listeners`` -> ``KAFKA_ADVERTISED_LISTENERS``."""
    return "KAFKA_" + prop.upper().replace(".", "_").replace("-", "__")


def properties_block(node_id: int | None, settings: Sequence[tuple[str, str]], *, comment: str | None = None) -> str:
    """``server.properties`` lines under a comment naming the broker."""
    head = f"# broker {node_id} (node.id={node_id}): server.properties" if node_id is not None else \
        "# every broker: server.properties"
    lines = [head] + ([f"# {comment}"] if comment else []) + [f"{name}={value}" for name, value in settings]
    return "\n".join(lines)


def docker_block(node_id: int | None, settings: Sequence[tuple[str, str]], *, publish: Sequence[int] = ()) -> str:
    """The same settings as the Docker image's environment, plus the ports to publish."""
    who = f"broker {node_id}" if node_id is not None else "every broker"
    lines = [f"# {who}: Docker, in the broker service's environment:"]
    lines += [f"{docker_env_name(name)}: {value}" for name, value in settings]
    if publish:
        lines.append("# and in the service's ports:")
        lines.extend(f'#   - "{port}:{port}"' for port in publish)
    return "\n".join(lines)


def property_lines(node_id: int | None, settings: Sequence[tuple[str, str]], *, comment: str | None = None,
                   publish: Sequence[int] = ()) -> str:
    """Broker properties in both forms: server.properties lines, then the Docker environment."""
    return (properties_block(node_id, settings, comment=comment) + "\n\n"
            + docker_block(node_id, settings, publish=publish))


# --- one broker's listeners, rendered two ways ----------------------------------------------------


@dataclass(frozen=True)
class Listener:
    name: str
    protocol: str
    bind_port: int
    advertised_host: str
    advertised_port: int
    bind_host: str = BIND_ALL

    @property
    def bind(self) -> str:
        return f"{self.name}://{hostport(self.bind_host, self.bind_port)}"

    @property
    def advertised(self) -> str:
        return f"{self.name}://{hostport(self.advertised_host, self.advertised_port)}"


@dataclass(frozen=True)
class BrokerListeners:
    """The listener lines one broker needs."""

    node_id: int
    listeners: tuple[Listener, ...]
    inter_broker: str | None = None
    publish: tuple[int, ...] = ()  # ports to publish from the container (host port = container port)
    comment: str | None = None

    @property
    def needs_protocol_map(self) -> bool:
        return any(listener.name != listener.protocol for listener in self.listeners)

    @property
    def protocol_map(self) -> str:
        return ",".join(f"{listener.name}:{listener.protocol}" for listener in self.listeners)

    def settings(self) -> list[tuple[str, str]]:
        """The broker properties, in order, as (name, value)."""
        pairs = [("listeners", ",".join(listener.bind for listener in self.listeners)),
                 ("advertised.listeners", ",".join(listener.advertised for listener in self.listeners))]
        if self.needs_protocol_map:
            pairs.append(("listener.security.protocol.map", self.protocol_map))
        if self.inter_broker:
            pairs.append(("inter.broker.listener.name", self.inter_broker))
        return pairs

    def server_properties(self) -> str:
        return properties_block(self.node_id, self.settings(), comment=self.comment)

    def docker_environment(self) -> str:
        return docker_block(self.node_id, self.settings(), publish=self.publish)

    def render(self) -> str:
        return property_lines(self.node_id, self.settings(), comment=self.comment, publish=self.publish)


# --- where each broker should be reachable from outside ------------------------------------------


@dataclass(frozen=True)
class ExternalAddress:
    host: str
    known: bool  # False: a placeholder the user fills in


def shares_external_host(report: Report, brokers: Sequence[BrokerReport]) -> bool:
    """All brokers sit behind the address this machine bootstrapped with (one Docker host, a tunnel),
    so they need one external port each rather than one name each."""
    used = bootstrap_used(report)
    if used is None or report.cluster is None or len(report.cluster.brokers) <= 1:
        return False
    if is_loopback(used.host):
        return True
    # Container or pod names on every broker: they sit behind one host. Brokers that advertise names of
    # their own beside them (a cluster with one broker misadvertised) are not behind the bootstrap host.
    every = (*brokers, *report.cluster.brokers)
    return all(classify_host(b.host).kind in (SINGLE_LABEL, CONTAINER_ID) for b in every)


def external_address(report: Report, broker: BrokerReport, *, shared: bool) -> ExternalAddress:
    """The address outside clients should be given for ``broker``."""
    used = bootstrap_used(report)
    single = report.cluster is None or len(report.cluster.brokers) <= 1
    kind = classify_host(broker.host)
    if used is not None and is_loopback(used.host) and kind.kind == KUBERNETES:
        # a kubectl port-forward: 127.0.0.1 is this machine only, never an address to advertise
        return ExternalAddress(f"<external address of broker {broker.node_id}: its LoadBalancer, NodePort or "
                               "Ingress host>", False)
    if used is not None and (single or shared):
        return ExternalAddress(used.host, True)
    if kind.kind == EC2_INTERNAL:
        return ExternalAddress(f"<public DNS name of broker {broker.node_id}, "
                               f"ec2-A-B-C-D.{kind.region}.compute.amazonaws.com>", False)
    return ExternalAddress(f"<address clients outside use for broker {broker.node_id}>", False)


def free_port_base(report: Report, count: int) -> int:
    """A port (or a run of ``count`` ports) no broker advertises and no bootstrap address uses."""
    taken = {e.port for e in report.bootstrap}
    if report.cluster is not None:
        taken.update(b.port for b in report.cluster.brokers)
    if report.other_listeners is not None:  # ports of the bootstrap host that something listens on
        taken.update(report.other_listeners.open_ports)
    for base in _PORT_BASES:
        if all(base + i not in taken for i in range(count)):
            return base
    return max(taken, default=19092) + 1000


def listener_protocol(report: Report) -> str:
    protocol = security_protocol(report)
    return protocol if protocol in ("PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL") else "PLAINTEXT"


# --- Option 1 / Option 2 -------------------------------------------------------------------------


def _cluster_size(report: Report) -> int:
    return 1 if report.cluster is None else max(1, len(report.cluster.brokers))


def _option_one(report: Report, brokers: Sequence[BrokerReport], used: Endpoint, *, shared: bool,
                allow_loopback: bool) -> str | None:
    """One listener per broker, advertising the address the client used (the seed's Option 1)."""
    if is_loopback(used.host) and not allow_loopback:
        return None
    single = _cluster_size(report) == 1
    if shared and not single and len({b.port for b in brokers}) < len(brokers):
        return None  # one host for all brokers needs one port each; Option 2 assigns them
    protocol = listener_protocol(report)
    blocks = []
    for broker in brokers:
        target = external_address(report, broker, shared=shared)
        port = used.port if single else broker.port
        comment = None
        if port != broker.port:
            comment = (f"port {port} is the one this machine reached; it is published (forwarded) to the "
                       f"broker's {broker.port}")
        listener = Listener(protocol, protocol, broker.port, target.host, port)
        blocks.append(BrokerListeners(broker.node_id, (listener,), comment=comment).render())
    if single:
        where = hostport(used.host, used.port)
    elif shared:
        where = f"{used.host} with its own port"
    else:
        where = "its own outside address"
    return (f"one listener per broker, advertising {where}. Use it only if that address also resolves "
            "and connects from the brokers themselves and from every other client, inside the network too:\n\n"
            + "\n\n".join(blocks))


def _option_two(report: Report, brokers: Sequence[BrokerReport], used: Endpoint, *, shared: bool) -> str:
    """Keep the current advertised address for the inside, add an EXTERNAL listener for the outside."""
    protocol = listener_protocol(report)
    size = _cluster_size(report)
    base = free_port_base(report, size if shared else 1)
    loopback_kept = any(is_loopback(b.host) for b in brokers)
    kept = "LOCAL" if loopback_kept else "INTERNAL"
    inter_broker = kept if (not loopback_kept or size == 1) else None
    blocks, ports, outside = [], [], []
    for broker in brokers:
        target = external_address(report, broker, shared=shared)
        port = base + (broker_index(report.cluster, broker.node_id) if shared and report.cluster else 0)
        ports.append(port)
        if target.known:
            outside.append(hostport(target.host, port))
        listeners = (Listener(kept, protocol, broker.port, broker.host, broker.port),
                     Listener("EXTERNAL", protocol, port, target.host, port))
        blocks.append(BrokerListeners(broker.node_id, listeners, inter_broker=inter_broker, publish=(port,)).render())
    inside = join_words(sorted({hostport(b.host, b.port) for b in brokers}))
    if loopback_kept:
        users = "clients on the broker's own machine"
    else:
        users = "the brokers and the clients inside that network"
    if len(outside) == len(brokers):
        external = f"the address this machine used ({used.host})"
    else:
        external = "the address clients outside that network use for the broker"
    head = (f"two listeners per broker. {kept} keeps {inside} for {users}; EXTERNAL, on a new port, "
            f"advertises {external}:")
    port_list = join_words(sorted(set(ports)))
    if is_loopback(used.host):
        tail = [f"Then publish {plural(len(set(ports)), 'port')} {port_list} from the "
                f"{plural(len(brokers), 'container')}."]
        who = "Clients on this machine"
    else:
        tail = [f"Then allow TCP {port_list} through the firewall or security group, and publish or forward it to "
                "the broker if it sits behind Docker or NAT."]
        who = "Clients outside"
    if outside:
        tail.append(f"{who} bootstrap with {','.join(dict.fromkeys(outside))}.")
    if inter_broker is None:
        tail.append(f"Keep inter.broker.listener.name (KAFKA_INTER_BROKER_LISTENER_NAME) on a listener the other "
                    f"brokers can reach, not {kept}: it advertises loopback.")
    return head + "\n\n" + "\n\n".join(blocks) + "\n\n" + " ".join(tail)


def other_listener_hint(report: Report, *, then: str = "") -> str | None:
    """The quickest way out when the run found one: bootstrap through a listener that works from here."""
    scan = report.other_listeners
    usable = () if scan is None else scan.usable
    if not usable:
        return None
    endpoints = join_words(f"{hostport(scan.host, listener.port)}" for listener in usable)
    return (f"Quickest, with no broker change: the bootstrap host has a listener that works from here. Bootstrap "
            f"with {endpoints} instead (see OTHER_LISTENER_WORKS){then}.")


def advertise_reachable_fix(report: Report, brokers: Sequence[BrokerReport], *, shared: bool | None = None,
                            keep_inside: bool = True) -> str:
    """The seed's two ways out, one block per affected broker: advertise what the client used
    (Option 1), or keep the inside address and add an EXTERNAL listener (Option 2).

    ``keep_inside`` False drops Option 2 (the current address is useless even inside, e.g. 0.0.0.0);
    ``shared`` forces "all brokers behind the bootstrap host, one port each" (a NAT in front of them).
    """
    used = bootstrap_used(report)
    if used is None or not brokers:
        return ""
    if shared is None:
        shared = shares_external_host(report, brokers)
    options = [_option_one(report, brokers, used, shared=shared, allow_loopback=not keep_inside)]
    if keep_inside:
        options.append(_option_two(report, brokers, used, shared=shared))
    quickest = other_listener_hint(report, then="; change the brokers as below only if clients here must use "
                                   f"{hostport(used.host, used.port)}")
    # Numbered from 1 whichever options apply (Option 1 has none for a loopback bootstrap address).
    text = [quickest] if quickest else []
    text += [f"Option {number}: {option}" for number, option in enumerate(filter(None, options), start=1)]
    if any(not external_address(report, b, shared=shared).known for b in brokers):
        text.append("Replace each <...> with the address clients outside the network use for that broker.")
    note = deployment_note(report, per_broker_endpoints=True)
    if note:
        text.append(note)
    elif any(classify_host(b.host).kind == KUBERNETES for b in brokers):
        text.append(KUBERNETES_NOTE)
    if any(classify_host(b.host).kind in (SINGLE_LABEL, CONTAINER_ID) for b in brokers) and IMAGE_NOTE not in text:
        text.append(IMAGE_NOTE)
    text.append(KRAFT_NOTE)
    return "\n\n".join(text)


def hosts_file_workaround(report: Report, brokers: Sequence[BrokerReport]) -> str | None:
    """The one-machine stopgap: map the advertised name to the address the bootstrap resolved to."""
    used = bootstrap_used(report)
    if used is None or (_cluster_size(report) > 1 and not shares_external_host(report, brokers)):
        return None
    if is_loopback(used.host):
        address = "127.0.0.1"
    else:
        addresses = bootstrap_addresses(report, used)
        if not addresses:
            return None
        address = addresses[0]
    if any(b.port != used.port for b in brokers):
        return None  # the name alone would still lead to a port that is not open from here
    names = " ".join(dict.fromkeys(b.host for b in brokers))
    return (f"Stopgap for this machine only (tests, not production): add to /etc/hosts\n{address} {names}")


# --- the network path ----------------------------------------------------------------------------


def open_port_fix(report: Report, targets: Sequence[tuple[str, int, str]], status: str) -> str:
    """What to check and change when ``host:port`` is refused, filtered or unroutable from here.

    ``targets`` are ``(label, port, host)``, e.g. ``("broker 2", 9092, "10.0.0.12")``.
    """
    me = vantage_address(report)
    protocol = listener_protocol(report)
    source = (f"{me}/128" if ":" in me else f"{me}/32") if me else "<this machine's public IP>/32"
    behind_nat = me is not None and classify_host(me).local_only
    ports = sorted({port for _, port, _ in targets})
    lines: list[str] = []
    checks = [f"nc -vz {host} {port}" for _, port, host in targets]
    if status == "refused":
        lines.append("Nothing accepted the connection: check the broker is running and listening on that port "
                     "on an interface this machine can reach. On the broker machine:")
        lines.extend(f"  ss -ltnp 'sport = :{port}'" for port in ports)
        lines.append("The broker must bind the port it advertises on all interfaces (not 127.0.0.1), and in Docker "
                     "publish it:")
        for port in ports:
            lines.append(f"  listeners={protocol}://0.0.0.0:{port}")
            lines.append(f"  KAFKA_LISTENERS: {protocol}://0.0.0.0:{port}")
            lines.append(f'  ports: ["{port}:{port}"]')
        lines.append("If a firewall REJECTs the port, allow it:")
    elif status == "timeout":
        lines.append("The connection attempt got no answer: a firewall or security group drops it. Allow it "
                     "(often the bootstrap port is open but the brokers' own ports are not):")
    else:
        lines.append("There is no route from this machine to that address (VPN, peering, route table, or a "
                     "private address reached from outside its network). Make it routable, and allow the port:")
    for port in ports:
        lines.append(f"  aws ec2 authorize-security-group-ingress --group-id <broker security group> "
                     f"--protocol tcp --port {port} --cidr {source}")
        lines.append(f"  iptables -I INPUT -p tcp --dport {port} -s {source} -j ACCEPT    # on the broker host")
    if behind_nat:
        lines.append(f"  ({me} is this machine's private address; if it reaches the broker through NAT, allow its "
                     "public IP instead.)")
    lines.append("Check again from this machine:")
    lines.extend(f"  {check}" for check in dict.fromkeys(checks))
    return "\n".join(lines)


def distinct_addresses_fix(report: Report, groups: Sequence[Sequence[BrokerReport]]) -> str:
    """Give every broker its own advertised host:port (one block per broker that must change)."""
    protocol = listener_protocol(report)
    blocks = []
    for group in groups:
        first = group[0]
        for offset, broker in enumerate(group[1:], start=1):
            port = first.port + offset
            listener = Listener(protocol, protocol, broker.port, first.host, port)
            comment = (f"either broker {broker.node_id}'s own host name with port {broker.port}, or port {port} on "
                       f"{first.host} forwarded to broker {broker.node_id} only")
            blocks.append(BrokerListeners(broker.node_id, (listener,), comment=comment).render())
    return ("Each broker must advertise an address that reaches that broker and no other (a load balancer "
            "needs one port per broker). For example, keep the first and change the others:\n\n"
            + "\n\n".join(blocks) + "\n\n" + KRAFT_NOTE)


# --- client settings ------------------------------------------------------------------------------


_JAAS_MODULES = {
    "PLAIN": "org.apache.kafka.common.security.plain.PlainLoginModule",
    "SCRAM-SHA-256": "org.apache.kafka.common.security.scram.ScramLoginModule",
    "SCRAM-SHA-512": "org.apache.kafka.common.security.scram.ScramLoginModule",
    "OAUTHBEARER": "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule",
    "AWS_MSK_IAM": "software.amazon.msk.auth.iam.IAMLoginModule",
}


def client_settings_fix(report: Report, *, protocol: str, mechanism: str | None = None,
                        ca_needed: bool = False) -> str:
    """The client side: librdkafka ``-X`` settings and the Java ``client.properties`` lines."""
    used = bootstrap_used(report)
    target = hostport(used.host, used.port) if used else "<bootstrap>"
    rd = [f"security.protocol={protocol}"]
    java = [f"security.protocol={protocol}"]
    if ca_needed:  # only when the broker's CA is not a public one the system already trusts
        rd.append("ssl.ca.location=<ca.pem>")
        java.append("ssl.truststore.location=<truststore.jks>")
    if mechanism:
        rd.append(f"sasl.mechanisms={mechanism}")
        java.append(f"sasl.mechanism={mechanism}")
        if mechanism in ("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"):
            rd.extend(["sasl.username=<user>", "sasl.password=<password>"])
            java.append(f"sasl.jaas.config={_JAAS_MODULES[mechanism]} required "
                        'username="<user>" password="<password>";')
        elif mechanism in _JAAS_MODULES:
            java.append(f"sasl.jaas.config={_JAAS_MODULES[mechanism]} required;")
    x_flags = " ".join(f"-X {line}" for line in rd)
    msk = msk_port_hint(report, protocol, mechanism)
    return ((f"{msk}\n\n" if msk else "")
            + "librdkafka clients (confluent-kafka, kcat, kdiag -X):\n"
            + "\n".join(rd)
            + "\n\nJava clients (client.properties, --command-config):\n"
            + "\n".join(java)
            + f"\n\nCheck with:  kdiag bootstrap {target} {x_flags}"
            + ("\n\n<ca.pem> / <truststore.jks>: the CA that signed the broker certificates; leave them out if it "
               "is a public CA (Confluent Cloud, MSK) the system already trusts." if ca_needed else ""))


def secure_protocol_for(report: Report, *, tls: bool | None = None, sasl: bool | None = None) -> str:
    """The security.protocol the client needs, keeping what it already has of TLS and SASL."""
    use_tls = client_uses_tls(report) if tls is None else tls
    use_sasl = client_uses_sasl(report) if sasl is None else sasl
    if use_sasl:
        return "SASL_SSL" if use_tls else "SASL_PLAINTEXT"
    return "SSL" if use_tls else "PLAINTEXT"


# --- the fix in the deployment tool's own terms ----------------------------------------------------------


def report_deployment(report: Report) -> Deployment | None:
    """The deployment the report's names point to: the bootstrap's first, then the advertised brokers'."""
    hosts = [e.host for e in report.bootstrap]
    if report.cluster is not None:
        hosts += [b.host for b in report.cluster.brokers]
    return detect_deployment(hosts)


def _node_ids(report: Report) -> list[int]:
    return sorted(b.node_id for b in report.cluster.brokers) if report.cluster is not None else [0]


def strimzi_listener(deployment: Deployment, node_ids: Sequence[int], *, tls: bool) -> str:
    """A Strimzi ``Kafka`` resource's external listener with one advertised host and port per broker."""
    brokers = "\n".join(f"            - broker: {node}\n              advertisedHost: <external name of broker {node}>"
                        f"\n              advertisedPort: 9094" for node in node_ids)
    return (f"apiVersion: kafka.strimzi.io/v1beta2\nkind: Kafka\nmetadata:\n  name: {deployment.cluster or '<cluster>'}"
            f"\n  namespace: {deployment.namespace or '<namespace>'}\nspec:\n  kafka:\n    listeners:\n"
            "      # keep your internal listeners (plain 9092, tls 9093) as they are, and add:\n"
            "      - name: external\n        port: 9094\n"
            "        type: loadbalancer      # one Service per broker plus a bootstrap Service (or nodeport, ingress)\n"
            f"        tls: {'true' if tls else 'false'}\n        configuration:\n          brokers:\n{brokers}")


def bitnami_values(node_ids: Sequence[int]) -> str:
    """The Bitnami Kafka chart's ``externalAccess`` values: one LoadBalancer Service per broker."""
    count = len(node_ids)
    ips = ", ".join(f"<external IP of broker {i}>" for i in range(count))
    return ("externalAccess:\n  enabled: true\n  controller:\n    service:\n      type: LoadBalancer\n"
            f"      ports:\n        external: 9094\n      loadBalancerIPs: [{ips}]\n"
            "  # with broker-only pods, the same under externalAccess.broker.service\n"
            "  autoDiscovery:\n    enabled: false   # true lets the chart read the assigned addresses (needs RBAC)")


def deployment_note(report: Report, *, per_broker_endpoints: bool = False) -> str | None:
    """How to make the change in the tool that runs the brokers, saying which one was assumed and why;
    None when the names point to no known tool. The generic lines stay in the fix beside it."""
    deployment = report_deployment(report)
    if deployment is None:
        return None
    assumed = f"Assumed {_DEPLOYMENT_NAMES[deployment.kind]}, because {deployment.reason}."
    node_ids = _node_ids(report)
    tls = client_uses_tls(report)
    used = bootstrap_used(report)
    port_forward = used is not None and is_loopback(used.host) and deployment.kind in (STRIMZI, BITNAMI_HELM,
                                                                                        KUBERNETES_OTHER)
    parts = [assumed]
    if port_forward:
        parts.append("kubectl port-forward reaches one pod from this machine only: never advertise 127.0.0.1 or "
                     "localhost for a broker. To test from here, forward every broker pod's port and map each "
                     "advertised name to 127.0.0.1 in /etc/hosts (see the stopgap), or run the client inside the "
                     "cluster:  kubectl run kcat --rm -it --restart=Never --image=edenhill/kcat:1.7.1 -- -b "
                     "<bootstrap service>:9092 -L")
    if deployment.kind == STRIMZI:
        parts.append("Strimzi writes listeners= and advertised.listeners= from the Kafka resource: do not edit "
                     "server.properties in the pods. Add an external listener with each broker's own address "
                     "(kubectl edit kafka " + (deployment.cluster or "<cluster>")
                     + (f" -n {deployment.namespace}" if deployment.namespace else "") + "):\n\n"
                     + strimzi_listener(deployment, node_ids, tls=tls)
                     + "\n\nThen bootstrap with the external bootstrap Service's address (kubectl get kafka "
                     + (deployment.cluster or "<cluster>")
                     + " -o jsonpath='{.status.listeners[?(@.name==\"external\")].bootstrapServers}').")
    elif deployment.kind == BITNAMI_HELM:
        parts.append("The Bitnami chart writes the listeners from its values: turn on externalAccess, which gives "
                     "every broker its own Service and advertises it on the EXTERNAL listener:\n\n"
                     + bitnami_values(node_ids)
                     + f"\n\n  helm upgrade {deployment.cluster or '<release>'} oci://registry-1.docker.io/bitnamicharts/"
                     "kafka --reuse-values -f external-access.yaml")
    elif deployment.kind == KUBERNETES_OTHER:
        parts.append(KUBERNETES_NOTE + " Confluent for Kubernetes: spec.listeners.external.externalAccess "
                     "(type loadBalancer with a domain, or nodePort) on the Kafka resource.")
    elif deployment.kind == DOCKER:
        return assumed  # IMAGE_NOTE, for the image's environment names, comes with the container names
    else:
        parts.append(_MANAGED_NOTES[deployment.kind](deployment))
    if per_broker_endpoints and deployment.managed:
        parts.append("The broker lines above do not apply to a managed service: the fix is on the client or the "
                     "network side.")
    return "\n\n".join(parts)


_DEPLOYMENT_NAMES = {
    STRIMZI: "Strimzi on Kubernetes", BITNAMI_HELM: "the Bitnami Kafka Helm chart on Kubernetes",
    KUBERNETES_OTHER: "Kubernetes (no operator recognised)", MSK: "Amazon MSK",
    CONFLUENT_CLOUD: "Confluent Cloud", EVENT_HUBS: "Azure Event Hubs", DOCKER: "Docker",
}


def _msk_note(deployment: Deployment) -> str:
    return ("MSK's brokers are not yours to reconfigure; the bootstrap string and port choose the listener. Inside "
            "the VPC: 9092 plaintext, 9094 TLS, 9096 SASL/SCRAM, 9098 IAM; with public access: 9194 TLS, 9196 "
            "SASL/SCRAM, 9198 IAM. Take the string for your client's authentication from "
            "`aws kafka get-bootstrap-brokers --cluster-arn <arn>` (BootstrapBrokerStringPublicSaslScram for "
            "9196, ...), and allow that port on every broker in the cluster's security group, from this machine's "
            "address.")


def _confluent_cloud_note(deployment: Deployment) -> str:
    return ("Confluent Cloud's brokers are not yours to reconfigure. Use the cluster's bootstrap string on port "
            "9092 with security.protocol=SASL_SSL, sasl.mechanisms=PLAIN and an API key as user name and secret. "
            "With private networking (PrivateLink, VPC peering), the zonal broker names resolve only through the "
            "private DNS zone: create it in the client's network with a wildcard record per availability zone "
            "(*.<az-id>.<domain>) pointing to that zone's endpoint, and check each broker name resolves to the "
            "endpoint of its own zone.")


def _event_hubs_note(deployment: Deployment) -> str:
    namespace = deployment.cluster or "<namespace>"
    return (f"Event Hubs speaks Kafka on {namespace}.servicebus.windows.net:9093 only, with "
            "security.protocol=SASL_SSL, sasl.mechanisms=PLAIN, sasl.username=$ConnectionString and the "
            "namespace's connection string as the password. Its load balancer drops connections idle for "
            "240 s: set connections.max.idle.ms=180000 (librdkafka: socket.keepalive.enable=true, "
            "metadata.max.age.ms=180000).")


_MANAGED_NOTES = {MSK: _msk_note, CONFLUENT_CLOUD: _confluent_cloud_note, EVENT_HUBS: _event_hubs_note}


# --- Amazon MSK's port families ---------------------------------------------------------------------

MSK_PORTS = {
    9092: ("PLAINTEXT", None, "plaintext, inside the VPC"),
    9094: ("SSL", None, "TLS, inside the VPC"),
    9096: ("SASL_SSL", "SCRAM-SHA-512", "SASL/SCRAM over TLS, inside the VPC"),
    9098: ("SASL_SSL", "AWS_MSK_IAM", "IAM over TLS, inside the VPC"),
    9194: ("SSL", None, "TLS, public access"),
    9196: ("SASL_SSL", "SCRAM-SHA-512", "SASL/SCRAM over TLS, public access"),
    9198: ("SASL_SSL", "AWS_MSK_IAM", "IAM over TLS, public access"),
}
"""Amazon MSK's listener on each port: the security.protocol and SASL mechanism it wants, and who may use it."""


def msk_port_hint(report: Report, protocol: str | None = None, mechanism: str | None = None) -> str | None:
    """For an MSK bootstrap: what the port used speaks, and the port that speaks what the client needs."""
    deployment = report_deployment(report)
    used = bootstrap_used(report)
    if deployment is None or deployment.kind != MSK or used is None:
        return None
    here = MSK_PORTS.get(used.port)
    public = used.port >= 9194 or (here is None and used.port not in MSK_PORTS)
    wanted = [port for port, (p, m, _who) in MSK_PORTS.items()
              if p == (protocol or security_protocol(report)) and (mechanism is None or m == mechanism)
              and (port >= 9194) == public]
    lines = [f"Assumed Amazon MSK, because {deployment.reason}. MSK has one listener per port: 9092 plaintext, 9094 "
             "TLS, 9096 SASL/SCRAM, 9098 IAM inside the VPC; 9194 TLS, 9196 SASL/SCRAM, 9198 IAM with public access."]
    if here is not None:
        lines.append(f"Port {used.port} is {here[2]} (security.protocol={here[0]}"
                     + (f", sasl.mechanism={here[1]}" if here[1] else "") + ").")
    if wanted and used.port not in wanted:
        lines.append(f"For these client settings use port {join_words(wanted)}: the matching bootstrap string from "
                     "`aws kafka get-bootstrap-brokers --cluster-arn <arn>`.")
    return " ".join(lines)
