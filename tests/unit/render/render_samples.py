"""Fixed reports for the renderer tests: one healthy cluster, one with the EC2 internal-name trap."""

from __future__ import annotations

from kdiag.finding import Finding
from kdiag.report import AdvertisedDetail, BrokerReport, Cluster, CoordinatorReport, Endpoint, Report, Stage, Vantage
from probes.results import DnsResult, IdentityCheck, KafkaCheck, TcpResult

EC2_PUBLIC = "ec2-54-191-84-122.us-west-2.compute.amazonaws.com"
EC2_INTERNAL = "ip-172-31-18-160.us-west-2.compute.internal"
VANTAGE = Vantage("laptop", ("192.0.2.10",))
WHEN = "2026-11-21T14:00:00Z"
PASSWORD = "hunter2-very-secret"
CLIENT = {"security.protocol": "SASL_SSL", "sasl.mechanisms": "PLAIN", "sasl.username": "alice",
          "sasl.password": PASSWORD}

FIX = """\
# server.properties on broker 1
listeners=INTERNAL://0.0.0.0:19092,EXTERNAL://0.0.0.0:9092
advertised.listeners=INTERNAL://ip-172-31-18-160.us-west-2.compute.internal:19092,EXTERNAL://ec2-54-191-84-122.us-west-2.compute.amazonaws.com:9092
listener.security.protocol.map=INTERNAL:PLAINTEXT,EXTERNAL:PLAINTEXT
inter.broker.listener.name=INTERNAL

# docker-compose environment
KAFKA_ADVERTISED_LISTENERS: INTERNAL://ip-172-31-18-160.us-west-2.compute.internal:19092,EXTERNAL://ec2-54-191-84-122.us-west-2.compute.amazonaws.com:9092"""


def _ok_broker(node_id: int, host: str, rack: str | None = None) -> BrokerReport:
    return BrokerReport(
        node_id=node_id, host=host, port=9092, rack=rack,
        dns=DnsResult(host=host, status="ok", addresses=(f"10.0.0.{node_id}",)),
        tcp=TcpResult(status="ok", address=f"10.0.0.{node_id}", port=9092, duration_ms=0.6),
        kafka=KafkaCheck(status="ok"),
        identity=IdentityCheck(status="ok" if node_id != 3 else "unverified"),
    )


def healthy_report() -> Report:
    brokers = tuple(_ok_broker(n, f"kafka-{n}.example.com", rack=f"use1-az{n}") for n in (1, 2, 3))
    return Report(
        bootstrap=(Endpoint("kafka-1.example.com", 9092), Endpoint("kafka-2.example.com", 9092)),
        stages=(
            Stage("dns", "ok", 3.14, "kafka-1.example.com resolves to 10.0.0.1"),
            Stage("tcp", "ok", 0.42, "connected to 10.0.0.1:9092"),
            Stage("metadata", "ok", 6.2, "3 brokers, cluster MkU3OEVBNTcwNTJENDM2Qg, Metadata v12"),
            Stage("advertised", "ok", 12.0, "3 of 3 advertised brokers reachable", AdvertisedDetail(3, 3)),
            Stage("roundtrip", "ok", 1234.5, "produced and consumed 1 record on kdiag-probe-0"),
        ),
        cluster=Cluster(
            cluster_id="MkU3OEVBNTcwNTJENDM2Qg", controller_id=1, brokers=brokers,
            coordinator=CoordinatorReport(
                group="kdiag-laptop", node_id=2, host="kafka-2.example.com", port=9092,
                tcp=TcpResult(status="ok", address="10.0.0.2", port=9092),
            ),
        ),
        vantage=VANTAGE,
        generated_at=WHEN,
    )


def failing_report() -> Report:
    broker = BrokerReport(
        node_id=1, host=EC2_INTERNAL, port=9092, rack=None,
        dns=DnsResult(host=EC2_INTERNAL, status="nxdomain"),
    )
    finding = Finding(
        id="ADVERTISED_UNRESOLVABLE",
        severity="error",
        title="Broker 1 advertises a name this machine cannot resolve",
        explanation=(
            f"The bootstrap connection to {EC2_PUBLIC}:9092 works, but the broker answers with the"
            f" address clients must use next: {EC2_INTERNAL}:9092. That name only resolves inside"
            " the VPC, so every produce and fetch from here fails after the first metadata request."
        ),
        evidence={"node_id": 1, "host": EC2_INTERNAL, "port": 9092, "dns": "nxdomain",
                  "bootstrap": f"{EC2_PUBLIC}:9092", "resolvers": ["192.0.2.1", "192.0.2.2"]},
        fix=FIX,
    )
    return Report(
        bootstrap=(Endpoint(EC2_PUBLIC, 9092),),
        stages=(
            Stage("dns", "ok", 3.1, f"{EC2_PUBLIC} resolves to 54.191.84.122"),
            Stage("tcp", "ok", 0.4, "connected to 54.191.84.122:9092"),
            Stage("metadata", "ok", 6.2, "1 broker, cluster MkU3OEVBNTcwNTJENDM2Qg"),
            Stage("advertised", "fail", 12.0, "0 of 1 advertised brokers reachable", AdvertisedDetail(1, 0)),
            Stage("roundtrip", "skip", 0.0, "blocked by advertised"),
        ),
        cluster=Cluster(cluster_id="MkU3OEVBNTcwNTJENDM2Qg", controller_id=1, brokers=(broker,)),
        findings=(finding,),
        vantage=VANTAGE,
        generated_at=WHEN,
        client=CLIENT,  # as a careless producer of reports might leave it: renderers must mask it
    )
