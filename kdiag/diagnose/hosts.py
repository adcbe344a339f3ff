"""What kind of host a broker advertises, read from the name or address alone (no lookups).

``classify_host("ip-172-31-18-160.us-west-2.compute.internal")`` says it is an EC2 private DNS
name for 172.31.18.160 that resolves only inside its VPC; the rules put that sentence in front of
the user, and the fix builders use ``scope`` to decide which addresses other machines can use.
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass, replace

# kind values, in the order classify_host tries them
UNSPECIFIED = "unspecified"  # 0.0.0.0, ::
LOOPBACK = "loopback"  # localhost, 127.0.0.0/8, ::1
LINK_LOCAL = "link_local"  # 169.254.0.0/16, fe80::/10
PRIVATE_IP = "private_ip"  # RFC 1918, fc00::/7
CGNAT_IP = "cgnat_ip"  # 100.64.0.0/10 (RFC 6598)
DOCUMENTATION_IP = "documentation_ip"  # 192.0.2.0/24, 198.51.100.0/24, 203.0.113.0/24, 2001:db8::/32
PUBLIC_IP = "public_ip"
EC2_INTERNAL = "ec2_internal"  # ip-a-b-c-d.<region>.compute.internal, ip-a-b-c-d.ec2.internal
EC2_PUBLIC = "ec2_public"  # ec2-a-b-c-d.<region>.compute.amazonaws.com
KUBERNETES = "kubernetes"  # *.svc.cluster.local, *.svc, *.pod.cluster.local
CONTAINER_ID = "container_id"  # 12 (or 64) hex digits: Docker's default hostname
SINGLE_LABEL = "single_label"  # kafka0, broker, kafka-0: a container, service or pod name
FQDN = "fqdn"

# scope values: who can use the address
SCOPE_NONE = "none"  # nobody can connect to it
SCOPE_SELF = "self"  # every machine reaches itself
SCOPE_LOCAL = "local"  # only machines inside one private network (VPC, Docker network, cluster)
SCOPE_GLOBAL = "global"  # anyone the network allows

_CGNAT = ipaddress.ip_network("100.64.0.0/10")
_DOCUMENTATION = tuple(ipaddress.ip_network(n) for n in
                       ("192.0.2.0/24", "198.51.100.0/24", "203.0.113.0/24", "2001:db8::/32"))
_RFC1918 = tuple(ipaddress.ip_network(n) for n in ("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16"))
_ULA = ipaddress.ip_network("fc00::/7")

_OCTET = r"(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)"
_DASHED_IP = rf"{_OCTET}-{_OCTET}-{_OCTET}-{_OCTET}"
_EC2_INTERNAL = re.compile(rf"^ip-{_DASHED_IP}\.(?:(?P<region>[a-z0-9-]+)\.compute|ec2)\.internal$")
_EC2_INTERNAL_OTHER = re.compile(r"^[a-z0-9-]+\.(?:(?P<region>[a-z0-9-]+)\.compute|ec2)\.internal$")
_EC2_PUBLIC = re.compile(rf"^ec2-{_DASHED_IP}\.(?:(?P<region>[a-z0-9-]+)\.compute|compute-1)\.amazonaws\.com$")
_EC2_PUBLIC_OTHER = re.compile(r"^[a-z0-9.-]+\.(?:[a-z0-9-]+\.compute|compute-1)\.amazonaws\.com$")
_CONTAINER_ID = re.compile(r"^(?:[0-9a-f]{12}|[0-9a-f]{64})$")
_LABEL = re.compile(r"^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$")
_LOOPBACK_NAMES = ("localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback")


@dataclass(frozen=True)
class HostKind:
    """What an advertised host is: ``kind`` (a stable identifier), a one-line ``description``,
    ``scope`` (who can use it: none | self | local | global) and, when the name or literal carries
    one, the IP ``address`` (the private IP inside an EC2 internal name, the public IP inside an
    EC2 public name, the literal itself)."""

    kind: str
    description: str
    scope: str
    address: str | None = None
    region: str | None = None
    literal: bool = False  # the host is an IP literal, not a name

    @property
    def is_ip(self) -> bool:
        return self.literal

    @property
    def local_only(self) -> bool:
        """Usable only from inside one private network (or only from the machine itself)."""
        return self.scope in (SCOPE_LOCAL, SCOPE_SELF, SCOPE_NONE)


def normalise_host(host: str) -> str:
    """Lower case, no trailing dot, no IPv6 brackets."""
    host = host.strip().lower()
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    return host.rstrip(".")


def _ip(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(host.split("%", 1)[0])  # drop an IPv6 zone id
    except ValueError:
        return None


def _classify_ip(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> HostKind:
    return replace(_classify_address(ip), literal=True)


def _classify_address(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> HostKind:
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return _classify_address(ip.ipv4_mapped)
    text = str(ip)
    if ip.is_unspecified:
        return HostKind(UNSPECIFIED, f"the non-routable meta-address {text} (\"every interface\"): a bind address "
                        "for listeners=, not an address a client can connect to", SCOPE_NONE, text)
    if ip.is_loopback:
        return HostKind(LOOPBACK, f"a loopback address ({text}): every machine that connects to it reaches itself",
                        SCOPE_SELF, text)
    if ip.is_link_local:
        return HostKind(LINK_LOCAL, f"a link-local address ({text}): usable only on its own network segment",
                        SCOPE_LOCAL, text)
    if any(ip in net for net in _DOCUMENTATION):
        return HostKind(DOCUMENTATION_IP, f"a documentation-range address ({text}, RFC 5737/3849)", SCOPE_GLOBAL, text)
    if any(ip in net for net in _RFC1918):
        return HostKind(PRIVATE_IP, f"a private RFC 1918 address ({text}): routable only inside its own network "
                        "(VPC, LAN, Docker network)", SCOPE_LOCAL, text)
    if isinstance(ip, ipaddress.IPv6Address) and ip in _ULA:
        return HostKind(PRIVATE_IP, f"a unique local IPv6 address ({text}, fc00::/7): routable only inside its "
                        "own network", SCOPE_LOCAL, text)
    if ip in _CGNAT:
        return HostKind(CGNAT_IP, f"a carrier-grade NAT address ({text}, RFC 6598, also used by Tailscale): "
                        "routable only inside that provider's network", SCOPE_LOCAL, text)
    if ip.is_private or ip.is_reserved or ip.is_multicast:
        return HostKind(PRIVATE_IP, f"a special-purpose address ({text}) that is not globally routable",
                        SCOPE_LOCAL, text)
    return HostKind(PUBLIC_IP, f"a public IP address ({text})", SCOPE_GLOBAL, text)


def _dashed(match: re.Match[str]) -> str:
    return ".".join(match.group(i) for i in range(1, 5))


def _kubernetes(name: str) -> HostKind | None:
    labels = name.split(".")
    for suffix in (("svc", "cluster", "local"), ("svc",), ("pod", "cluster", "local"), ("cluster", "local")):
        if len(labels) > len(suffix) and tuple(labels[-len(suffix):]) == suffix:
            head = labels[:-len(suffix)]
            if suffix[0] == "svc" and len(head) >= 2:
                pod = f"pod {head[0]} of " if len(head) >= 3 else ""
                where = f"{pod}service {head[-2]} in namespace {head[-1]}"
            elif suffix[0] == "pod":
                where = "a pod address"
            else:
                where = "a cluster-internal name"
            return HostKind(KUBERNETES, f"a Kubernetes cluster DNS name ({where}): it resolves only inside that "
                            "Kubernetes cluster", SCOPE_LOCAL)
    return None


def classify_host(host: str) -> HostKind:
    """Classifies an advertised host (a name or an IP literal, IPv6 with or without brackets)."""
    name = normalise_host(host)
    ip = _ip(name)
    if ip is not None:
        return _classify_ip(ip)
    if not name:
        return HostKind(UNSPECIFIED, "an empty host name: no client can connect to it", SCOPE_NONE)
    if name in _LOOPBACK_NAMES or name.endswith(".localhost"):
        return HostKind(LOOPBACK, f"{name}, the loopback name: every machine that connects to it reaches itself",
                        SCOPE_SELF, "127.0.0.1")
    if m := _EC2_INTERNAL.match(name):
        address, region = _dashed(m), m.group("region") or "us-east-1"
        return HostKind(EC2_INTERNAL, f"an EC2 private DNS name (private IP {address}, region {region}): it "
                        "resolves only inside its VPC", SCOPE_LOCAL, address, region)
    if m := _EC2_INTERNAL_OTHER.match(name):
        region = m.group("region") or "us-east-1"
        return HostKind(EC2_INTERNAL, f"an EC2 private DNS name (region {region}): it resolves only inside its VPC",
                        SCOPE_LOCAL, None, region)
    if m := _EC2_PUBLIC.match(name):
        address, region = _dashed(m), m.group("region") or "us-east-1"
        return HostKind(EC2_PUBLIC, f"an EC2 public DNS name (public IP {address}, region {region}): it resolves "
                        "from anywhere, and inside the VPC to the instance's private IP", SCOPE_GLOBAL, address, region)
    if _EC2_PUBLIC_OTHER.match(name):
        return HostKind(EC2_PUBLIC, "an EC2 public DNS name: it resolves from anywhere", SCOPE_GLOBAL)
    if kind := _kubernetes(name):
        return kind
    if _CONTAINER_ID.match(name):
        return HostKind(CONTAINER_ID, f"a Docker container id ({name}, a container's default hostname): it resolves "
                        "only inside that container's Docker network, if at all", SCOPE_LOCAL)
    if "." not in name and _LABEL.match(name):
        return HostKind(SINGLE_LABEL, f"a bare single-label name ({name}), like a Docker container or Compose "
                        "service name or a Kubernetes pod name: it resolves only inside its own Docker or "
                        "Kubernetes network, or through a resolver search domain", SCOPE_LOCAL)
    return HostKind(FQDN, f"a DNS name ({name})", SCOPE_GLOBAL)


def is_loopback(host: str) -> bool:
    return classify_host(host).kind == LOOPBACK


def is_nonroutable(host: str) -> bool:
    return classify_host(host).kind == UNSPECIFIED


# --- the deployment a name gives away --------------------------------------------------------------

STRIMZI = "strimzi"
BITNAMI_HELM = "bitnami_helm"
KUBERNETES_OTHER = "kubernetes"
MSK = "msk"
CONFLUENT_CLOUD = "confluent_cloud"
EVENT_HUBS = "event_hubs"
DOCKER = "docker"

_STRIMZI = re.compile(r"^(?:(?P<pod>[a-z0-9-]+)\.)?(?P<cluster>[a-z0-9-]+)-kafka-(?:brokers|bootstrap)"
                      r"(?:\.(?P<namespace>[a-z0-9-]+))?(?:\.svc(?:\.cluster\.local)?)?$")
_BITNAMI = re.compile(r"^(?P<pod>(?P<release>[a-z0-9-]*kafka)-(?:controller|broker)-\d+)\.[a-z0-9-]*kafka-"
                      r"(?:controller|broker)-headless(?:\.(?P<namespace>[a-z0-9-]+))?(?:\.svc(?:\.cluster\.local)?)?$")
_MSK = re.compile(r"^(?:b|boot)-[a-z0-9-]+\.[a-z0-9.-]+\.kafka(?:-serverless)?\.(?P<region>[a-z0-9-]+)\.amazonaws\.com$")
_CONFLUENT_CLOUD = re.compile(r"\.confluent\.cloud$")
_EVENT_HUBS = re.compile(r"^(?P<namespace>[a-z0-9-]+)\.servicebus\.windows\.net$")


@dataclass(frozen=True)
class Deployment:
    """How the cluster is run, as its names give it away: ``kind`` (strimzi, bitnami_helm, kubernetes, msk,
    confluent_cloud, event_hubs, docker), ``managed`` (the user cannot change the brokers), ``reason``
    (which name said so, for the finding to say what it assumed and why), and the names it carries."""

    kind: str
    reason: str
    managed: bool = False
    cluster: str | None = None  # Strimzi's Kafka resource, the Helm release, the Event Hubs namespace
    namespace: str | None = None  # the Kubernetes namespace
    region: str | None = None


def detect_deployment(hosts: list[str] | tuple[str, ...], ports: tuple[int, ...] = ()) -> Deployment | None:
    """The deployment the first telling name among ``hosts`` (bootstrap, then advertised) points to; None if none."""
    for host in hosts:
        name = normalise_host(host)
        if m := _EVENT_HUBS.match(name):
            return Deployment(EVENT_HUBS, f"{name} is an Azure Event Hubs namespace (Kafka endpoint on port 9093)",
                              True, cluster=m.group("namespace"))
        if _CONFLUENT_CLOUD.search(name):
            return Deployment(CONFLUENT_CLOUD, f"{name} is a Confluent Cloud endpoint", True)
        if m := _MSK.match(name):
            return Deployment(MSK, f"{name} is an Amazon MSK broker or bootstrap name", True, region=m.group("region"))
    for host in hosts:
        name = normalise_host(host)
        strimzi = _STRIMZI.match(name)
        if strimzi and (".svc" in name or strimzi.group("pod")):
            return Deployment(STRIMZI, f"{name} follows Strimzi's naming (<cluster>-kafka-brokers / -kafka-bootstrap "
                              "services)", cluster=strimzi.group("cluster"), namespace=strimzi.group("namespace"))
        if bitnami := _BITNAMI.match(name):
            return Deployment(BITNAMI_HELM, f"{name} follows the Bitnami Helm chart's naming "
                              "(<release>-kafka-controller-N pods behind a -headless service)",
                              cluster=bitnami.group("release"), namespace=bitnami.group("namespace"))
        if classify_host(name).kind == KUBERNETES:
            labels = name.split(".")
            namespace = labels[labels.index("svc") - 1] if "svc" in labels and labels.index("svc") >= 2 else None
            return Deployment(KUBERNETES_OTHER, f"{name} is a Kubernetes cluster DNS name", namespace=namespace)
    for host in hosts:
        if classify_host(host).kind in (CONTAINER_ID,):
            return Deployment(DOCKER, f"{normalise_host(host)} is a Docker container id (a container's default "
                              "hostname)")
    return None
