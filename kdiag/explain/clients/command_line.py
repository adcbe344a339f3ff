"""The bootstrap list as a command line or a configuration dump shows it: ``--bootstrap-server``,
``--broker-list``, ``kcat -b``, and the Java client's ``bootstrap.servers = [...]``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from kdiag.explain.sightings import ANY, Fact, Item, Pattern, ScanState, bootstrap_facts, registrar
from probes.hostport import hostport
PATTERNS: list[Pattern] = []
pattern = registrar(PATTERNS)


@pattern("config.bootstrap_servers", ANY, "bootstrap.servers",
         r"\bbootstrap[._]servers['\"]?\s*[=:]\s*['\"]?\[?['\"]?(?P<list>[^\]\s'\",]+(?:,\s*[^\]\s'\",]+)*)",
         "\tbootstrap.servers = [ec2-54-191-84-122.us-west-2.compute.amazonaws.com:9092]")
def _config_bootstrap(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    """The client's configuration: a Java ``ProducerConfig values:`` dump, a properties file, a Python dict."""
    yield from bootstrap_facts(m.group("list"))


@pattern("config.bootstrap_servers_python", ANY, "bootstrap_servers", r"\bbootstrap_servers['\"]?\s*[=:]\s*\[?['\"]?"
         r"(?P<list>[^\]\s'\",]+(?:['\"]?,\s*['\"]?[^\]\s'\",]+)*)",
         "producer = KafkaProducer(bootstrap_servers=['127.0.0.1:9092'])")
def _config_bootstrap_python(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    """The Python clients' keyword (kafka-python, aiokafka), as a call or a dict shows it."""
    yield from bootstrap_facts(m.group("list").replace("'", "").replace('"', ""))


# kafka-python's own account of its bootstrap: "Bootstrapping cluster metadata from [('localhost', 2181, 0)]" (2.x),
# "Attempting to bootstrap via node at localhost:2181" (1.x and before).
@pattern("kafka_python.bootstrapping", ANY, "ootstrap", r"(?:Bootstrapping cluster metadata from \[(?P<tuples>.*?)\]|"
         r"Attempting to bootstrap via node at (?P<hp>\S+?:\d{1,5})\b)",
         "INFO:kafka.client:Bootstrapping cluster metadata from [('localhost', 2181, 0)]")
def _kafka_python_bootstrapping(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    if m.group("hp"):
        yield from bootstrap_facts(m.group("hp"))
        return
    for host, port in re.findall(r"\('([^']+)', (\d{1,5})", m.group("tuples")):
        yield from bootstrap_facts(hostport(host, port))


@pattern("cli.broker_list", ANY, "--broker-list", r"--broker-list[ =](?P<list>\S+)",
         "echo \"test\"|kafka-console-producer --broker-list ec2-54-191-84-122.us-west-2.compute.amazonaws.com:9092 "
         "--topic test")
def _cli_broker_list(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield from _command_line(m)


@pattern("cli.bootstrap_server", ANY, "--bootstrap-server", r"--bootstrap-servers?[ =](?P<list>\S+)",
         "kafka-console-consumer --bootstrap-server ec2-54-191-84-122.us-west-2.compute.amazonaws.com:9092 "
         "--topic test --from-beginning")
def _cli_bootstrap_server(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield from _command_line(m)


@pattern("cli.kcat", ANY, "kcat ", r"\bkcat\b.*?\s-b\s*(?P<list>\S+)",
         "kcat -b ec2-54-191-84-122.us-west-2.compute.amazonaws.com:9092 -C -t test")
def _cli_kcat(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield from _command_line(m)


@pattern("cli.kafkacat", ANY, "kafkacat ", r"\bkafkacat\b.*?\s-b\s*(?P<list>\S+)",
         "kafkacat -b ec2-54-191-84-122.us-west-2.compute.amazonaws.com:9092 -L")
def _cli_kafkacat(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield from _command_line(m)


def _command_line(m: re.Match[str]) -> Iterator[Fact]:
    yield from bootstrap_facts(m.group("list").strip("'\""))
    topic = re.search(r"(?:--topic|\s-t)[ =]?\s*([A-Za-z0-9._-]+)", m.string)
    if topic is not None:
        yield Fact("topic", name=topic.group(1))
    if re.search(r"sasl\.mechanisms?=['\"]?GSSAPI\b", m.string, re.IGNORECASE):
        yield Fact("kerberos")


# The client's security settings as its command line or configuration shows them. Message family: a client's
# own configuration in the paste (librdkafka/kcat ``-X security.protocol=ssl``, a Java properties dump
# ``security.protocol = SASL_SSL``, kafka-python/aiokafka ``security_protocol="SSL"``, a CLI's ``--ssl``/``-tls``
# flag, kafkajs ``ssl: true``, Sarama ``Net.TLS.Enable = true``). What it says steers the readings of a
# connection closed with no reason: TLS on and closed is most often a TLS client at a plaintext listener.
@pattern("config.security_protocol", ANY, "ecurity", r"\bsecurity[._]protocol['\"]?\s*[=:]\s*['\"]?(?P<proto>"
         r"SASL_SSL|SASL_PLAINTEXT|SSL|PLAINTEXT)\b", "\tsecurity.protocol = SASL_SSL", flags=re.IGNORECASE)
def _config_security_protocol(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield Fact("security", name=m.group("proto").upper())


@pattern("config.tls_flag", ANY, "-", r"(?:^|\s)(?:--?(?!-|no[.-])(?:[\w.-]*[.-])?(?:ssl|tls)(?:[.-]?enabled?)?|--?(?:use|enable)-?(?:tls|ssl))"
         r"(?:=(?:true|1))?(?=\s|$)", "$ ./produce -lib segmentio -brokers 127.0.0.1:9092 -topic t -tls")
def _config_tls_flag(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    """A command line's TLS switch (a tool's ``--ssl``, ``-tls``): the client speaks TLS."""
    yield Fact("tls")


@pattern("config.tls_enabled", ANY, "true", r"\b(?:Net\.TLS\.Enable|tls\.enabled?|ssl\.enabled?|\"?ssl\"?|\"?tls\"?)\s*[=:]\s*"
         r"['\"]?(?:true|True)\b", "config.Net.TLS.Enable = true")
def _config_tls_enabled(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    """A configuration's TLS switch (Sarama's ``Net.TLS.Enable``, kafkajs ``ssl: true``)."""
    yield Fact("tls")


@pattern("config.sasl_settings", ANY, "asl", r"\bsasl[._](?:mechanisms?|username|jaas\.config|plain_username)"
         r"['\"]?\s*[=:]\s*(?!null\b)['\"]?\w|\bNet\.SASL\.Enable\s*[=:]\s*true\b|\bsasl\s*:\s*\{",
         "sasl.mechanism=PLAIN", flags=re.IGNORECASE)
def _config_sasl_settings(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    """SASL settings: the client authenticates, unless a security.protocol the paste shows says otherwise (a Java
    config dump lists ``sasl.mechanism = GSSAPI`` whatever the protocol)."""
    yield Fact("sasl_setting")


# A tool's own words for the login it is set up with ("authType=SASL/SCRAM", "using SASL/PLAIN").
pattern("config.sasl_named", ANY, "SASL/", r"\bSASL/(?:SCRAM|PLAIN|GSSAPI|OAUTHBEARER|AWS_MSK_IAM)\b",
        "failed to create Kafka client: authType=SASL/SCRAM")(_config_sasl_settings)
