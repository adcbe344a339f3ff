"""A Kafka broker on an EC2 instance, reached from a laptop on the internet and from inside its VPC.

Seed 003, "Connecting to Kafka on a Cloud Provider" and "Why can I connect to the broker, but the client
still fails?". One lab shape serves all three scenarios:

* ``ec2``: the instance. Its host name is ``ip-172-31-18-160.us-west-2.compute.internal`` (the broker JVM
  runs in a UTS namespace of that name, as on Amazon Linux), its private address 198.51.100.10, and its
  ``/etc/hosts`` names itself. Kafka runs here.
* ``vpc-app``: another instance in the same VPC (Kafka Connect, a producer service), 198.51.100.20.
* ``internet``: the internet and the VPC's router in one. It maps the instance's public IP 203.0.113.10
  to the private 198.51.100.10 (the 1:1 NAT of an internet gateway: ``DNAT 203.0.113.10:9092 ->
  198.51.100.10:9092``, the client's source address kept), answers the laptop's DNS at 192.0.2.1 (public
  DNS: only the public name exists) and the VPC's at 198.51.100.1 (AmazonProvidedDNS: the internal
  name, and, split-horizon, the public name as the private address, as AWS does, except in Option 2
  where the seed supposes the public name does not resolve inside).
* ``laptop``: a machine on the internet, 192.0.2.10.

The lab's addresses are documentation ranges (the real 54.191.84.122 and 172.31.18.160 cannot be used),
so ``ec2-54-191-84-122...`` resolves to 203.0.113.10 and ``ip-172-31-18-160...`` to 198.51.100.10.
"""

from __future__ import annotations

from kdiag.lab.kafka import BrokerSpec, Listener
from kdiag.lab.netns import Dnat, Dns, Host, Link, Route, Topology
from kdiag.lab.scenarios.base import LabBroker, Scenario, Vantage, finding, healthy, problems

INTERNAL_NAME = "ip-172-31-18-160.us-west-2.compute.internal"
PUBLIC_NAME = "ec2-54-191-84-122.us-west-2.compute.amazonaws.com"
PUBLIC_IP = "203.0.113.10"
PRIVATE_IP = "198.51.100.10"
VPC_APP_IP = "198.51.100.20"
PUBLIC_DNS = "192.0.2.1"
VPC_DNS = "198.51.100.1"
CONTROLLER_PORT = 9093

SEED = "seeds/003: Connecting to Kafka on a Cloud Provider; Why can I connect to the broker, but the client still fails?"


def aws_topology(name: str, *, ports: tuple[int, ...], public_name_resolves_inside: bool) -> Topology:
    """The laptop, the internet/VPC router, the broker's instance and a second VPC instance."""
    vpc_records = {INTERNAL_NAME: PRIVATE_IP}
    if public_name_resolves_inside:
        vpc_records[PUBLIC_NAME] = PRIVATE_IP
    return Topology(
        name=name,
        hosts=(
            Host("laptop", resolv=[PUBLIC_DNS]),
            Host("internet", forward=True),
            Host("ec2", hosts={INTERNAL_NAME: PRIVATE_IP}, resolv=[VPC_DNS]),
            Host("vpc-app", resolv=[VPC_DNS]),
        ),
        links=(
            Link("laptop", "192.0.2.10/24", "internet", f"{PUBLIC_DNS}/24"),
            Link("internet", f"{VPC_DNS}/28", "ec2", f"{PRIVATE_IP}/28"),
            Link("internet", "198.51.100.17/28", "vpc-app", f"{VPC_APP_IP}/28"),
        ),
        routes=(
            Route("laptop", "203.0.113.0/24", PUBLIC_DNS),
            Route("ec2", "default", VPC_DNS),
            Route("vpc-app", "default", "198.51.100.17"),
        ),
        dns=(
            Dns("internet", PUBLIC_DNS, records={PUBLIC_NAME: PUBLIC_IP}),
            Dns("internet", VPC_DNS, records=vpc_records),
        ),
        dnats=tuple(Dnat("internet", PUBLIC_IP, port, PRIVATE_IP, port, masquerade=False) for port in ports),
    )


def ec2_broker(listeners: tuple[Listener, ...], advertised: tuple[Listener, ...] | None = None,
               inter_broker: str | None = None) -> LabBroker:
    """Node 1 on the instance, under the instance's host name."""
    spec = BrokerSpec(node_id=1, listeners=listeners, advertised=advertised, inter_broker_listener=inter_broker,
                      controller_port=CONTROLLER_PORT, hostname=INTERNAL_NAME)
    return LabBroker("ec2", spec)


# --------------------------------------------------------------------------- the seed's broken case

EC2_INTERNAL_HOSTNAME = Scenario(
    name="ec2-internal-hostname",
    title="EC2 broker advertising its internal hostname, reached from a laptop",
    seed=SEED,
    description=f"""\
A broker on EC2 whose server.properties leaves the listener host to the default: listeners=PLAINTEXT://:9092
and no advertised.listeners. Kafka then advertises the machine's canonical host name, which on EC2 is the
instance's private DNS name {INTERNAL_NAME} (here the broker really runs under that host name; nothing
sets advertised.listeners). The laptop resolves the public name {PUBLIC_NAME}, connects to port 9092
through the public IP (the security group is open), and gets the metadata back: `broker 1 at
{INTERNAL_NAME}:9092`. That name does not exist outside the VPC, so every produce and fetch fails; the
Java producer only says `Expiring 1 record(s) for test-0: ... ms has passed since batch creation`, and
kafkacat `Failed to resolve '{INTERNAL_NAME}:9092'`. From the instance itself and from another machine in
the VPC the same name resolves, so it works there: "it works on the broker machine but not from my
laptop". kdiag from the laptop must name the internal host and give the seed's Option 1 (advertise the
public name) and Option 2 (an INTERNAL and an EXTERNAL listener) with the real names.""",
    topology=aws_topology("ec2int", ports=(9092,), public_name_resolves_inside=True),
    brokers=(ec2_broker((Listener("PLAINTEXT", "", 9092),)),),
    vantages=(
        Vantage(
            "laptop", host="laptop", bootstrap=f"{PUBLIC_NAME}:9092",
            expect=problems(
                finding(
                    "ADVERTISED_UNRESOLVABLE", title=INTERNAL_NAME,
                    fix=("Option 1", f"advertised.listeners=PLAINTEXT://{PUBLIC_NAME}:9092",
                         "Option 2", f"INTERNAL://{INTERNAL_NAME}:9092", f"EXTERNAL://{PUBLIC_NAME}:"),
                ),
                stages={"dns": "ok", "tcp": "ok", "metadata": "ok", "advertised": "fail", "roundtrip": "skip"},
            ),
            why="The seed's steps 1-2 and 4: the bootstrap through the public name works, the metadata names "
                f"{INTERNAL_NAME}, which public DNS answers NXDOMAIN.",
        ),
        Vantage(
            "ec2", host="ec2", bootstrap=f"{PUBLIC_NAME}:9092", expect=healthy(),
            why="The seed's step 3, from the broker machine itself: the public name resolves to the private "
                "address inside the VPC, and the advertised name is the machine's own.",
        ),
        Vantage(
            "vpc-app", host="vpc-app", bootstrap=f"{INTERNAL_NAME}:9092", expect=healthy(),
            why="Another instance in the VPC: the VPC resolver knows the internal name, so nothing is wrong here.",
        ),
    ),
)


# --------------------------------------------------------------------------- Option 1

EC2_OPTION1 = Scenario(
    name="ec2-option1",
    title="EC2, Option 1: one listener advertising the public name, resolvable inside and out",
    seed=SEED + " (Option 1: external hostnames are internally resolvable)",
    description=f"""\
The seed's first fix: when the external host name also resolves inside the cloud network, one listener
is enough. advertised.listeners=PLAINTEXT://{PUBLIC_NAME}:9092 (listeners left at PLAINTEXT://:9092).
The VPC resolver answers the public name with the private address (split horizon, as AWS does for EC2
public DNS names), the internet with the public IP, which the internet gateway maps to the instance.
Every client, on the laptop, on the instance and elsewhere in the VPC, bootstraps with the public name
and gets that same name back, which works from where it stands.""",
    topology=aws_topology("ec2opt1", ports=(9092,), public_name_resolves_inside=True),
    brokers=(ec2_broker((Listener("PLAINTEXT", "", 9092),), advertised=(Listener("PLAINTEXT", PUBLIC_NAME, 9092),)),),
    vantages=(
        Vantage("laptop", host="laptop", bootstrap=f"{PUBLIC_NAME}:9092", expect=healthy(),
                why="The public name resolves to the public IP, NATed to the instance: advertised and reachable."),
        Vantage("ec2", host="ec2", bootstrap=f"{PUBLIC_NAME}:9092", expect=healthy(),
                why="Inside the VPC the public name resolves to the private address (split horizon)."),
        Vantage("vpc-app", host="vpc-app", bootstrap=f"{PUBLIC_NAME}:9092", expect=healthy(),
                why="Same as on the instance: one name, resolvable everywhere, so one listener serves all."),
    ),
)


# --------------------------------------------------------------------------- Option 2

_OPTION2_LISTENERS = (Listener("INTERNAL", "", 19092), Listener("EXTERNAL", "", 9092))
_OPTION2_ADVERTISED = (Listener("INTERNAL", INTERNAL_NAME, 19092), Listener("EXTERNAL", PUBLIC_NAME, 9092))

EC2_OPTION2 = Scenario(
    name="ec2-option2",
    title="EC2, Option 2: an INTERNAL listener for the VPC, an EXTERNAL one for the internet",
    seed=SEED + " (Option 2: external addresses are not locally resolvable)",
    description=f"""\
The seed's second fix, for when the external address does not resolve inside the cloud network (here
the VPC resolver does not know {PUBLIC_NAME}): two listeners.
  listeners=INTERNAL://:19092,EXTERNAL://:9092
  advertised.listeners=INTERNAL://{INTERNAL_NAME}:19092,EXTERNAL://{PUBLIC_NAME}:9092
  listener.security.protocol.map=INTERNAL:PLAINTEXT,EXTERNAL:PLAINTEXT
  inter.broker.listener.name=INTERNAL
Clients in the VPC bootstrap on 19092 and get the internal name; the laptop bootstraps on 9092 and gets
the public name. The internet gateway forwards both ports (a security group open wider than it needs),
which lets the laptop make the classic mistake of bootstrapping on the INTERNAL port: the bootstrap
works, and the metadata hands it the internal name, which it cannot resolve. A broker answers
Metadata with the endpoints of the listener the request came in on only, so kdiag cannot see the
EXTERNAL listener from there; its Option 2 fix proposes an EXTERNAL listener on 9092, which is where the
real one is.""",
    topology=aws_topology("ec2opt2", ports=(9092, 19092), public_name_resolves_inside=False),
    brokers=(ec2_broker(_OPTION2_LISTENERS, advertised=_OPTION2_ADVERTISED, inter_broker="INTERNAL"),),
    vantages=(
        Vantage("laptop", host="laptop", bootstrap=f"{PUBLIC_NAME}:9092", expect=healthy(),
                why="EXTERNAL: the public name, resolvable and NATed to the instance."),
        Vantage("vpc-app", host="vpc-app", bootstrap=f"{INTERNAL_NAME}:19092", expect=healthy(),
                why="INTERNAL: the internal name, resolvable in the VPC."),
        Vantage("ec2", host="ec2", bootstrap=f"{INTERNAL_NAME}:19092", expect=healthy(),
                why="INTERNAL from the instance itself."),
        Vantage(
            "laptop-internal-port", host="laptop", bootstrap=f"{PUBLIC_NAME}:19092",
            expect=problems(
                finding("ADVERTISED_UNRESOLVABLE", title=INTERNAL_NAME,
                        fix=(f"Bootstrap with {PUBLIC_NAME}:9092 instead", "Option 2")),
                stages={"metadata": "ok", "advertised": "fail", "roundtrip": "skip"},
                hints=(finding("OTHER_LISTENER_WORKS", title=f"{PUBLIC_NAME}:9092",
                               fix=f"kdiag bootstrap {PUBLIC_NAME}:9092"),),
            ),
            why="The INTERNAL port reached from outside: its metadata advertises the internal name, NXDOMAIN on "
                "the internet. kdiag finds the EXTERNAL listener on 9092 of the same host, whose advertised "
                "public name works from the laptop, and points there first.",
        ),
        Vantage(
            "vpc-app-external-name", host="vpc-app", bootstrap=f"{PUBLIC_NAME}:9092",
            expect=problems("BOOTSTRAP_UNRESOLVABLE", stages={"dns": "fail"}),
            why="Why Option 2 exists: in this VPC the public name does not resolve, so an inside client must "
                "use the INTERNAL listener.",
        ),
    ),
)

SCENARIOS = (EC2_INTERNAL_HOSTNAME, EC2_OPTION1, EC2_OPTION2)
