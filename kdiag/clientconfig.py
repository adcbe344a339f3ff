"""Client settings the way users already write them, as librdkafka property names.

Two sources, in this order (later wins, as with kcat):

* ``--command-config FILE``: a Java ``client.properties`` as the Kafka CLI tools take it
  (``java.util.Properties`` syntax). Java names are mapped to librdkafka's (``sasl.mechanism`` →
  ``sasl.mechanisms``, ``sasl.jaas.config`` → ``sasl.username``/``sasl.password``, a PEM
  truststore → ``ssl.ca.location``, a PKCS#12 truststore → its certificates as ``ssl.ca.pem``, a
  PKCS#12 keystore → ``ssl.keystore.location``/``ssl.keystore.password``, which librdkafka reads
  itself, …); Java-only keys with no librdkafka equivalent (``key.serializer``, …) are set aside in
  ``ignored`` and reported as a warning. A JKS truststore, or one that does not open, is a
  ``UsageError`` (with the ``keytool`` command that converts it).
* ``-X key=value``: librdkafka names, as kcat takes them; an unknown name is a ``UsageError``.

Secrets (passwords, client secrets, private keys) never leave this module in the clear except as
``ClientSettings.settings``, which goes to the client library and nowhere else: ``repr()``,
``redacted()`` and ``scrub()`` are what everything that prints uses.
"""

from __future__ import annotations

import difflib
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from kdiag.exitstatus import UsageError
from kdiag.secrets import REDACTED, Scrubber, is_secret
from probes.keystore import KeystoreError, pem_origin, truststore_pem


# librdkafka's global and topic properties that take a string value (CONFIGURATION.md, v2.x);
# the callback and pointer properties (dr_cb, opaque, …) cannot be given as text and are left out.
LIBRDKAFKA_PROPERTIES: frozenset[str] = frozenset({
    # general
    "builtin.features", "client.id", "metadata.broker.list", "bootstrap.servers",
    "message.max.bytes", "message.copy.max.bytes", "receive.message.max.bytes",
    "max.in.flight.requests.per.connection", "max.in.flight", "metadata.recovery.strategy",
    "metadata.recovery.rebootstrap.trigger.ms",
    "topic.metadata.refresh.interval.ms", "metadata.max.age.ms",
    "topic.metadata.refresh.fast.interval.ms", "topic.metadata.refresh.fast.cnt",
    "topic.metadata.refresh.sparse", "topic.metadata.propagation.max.ms", "topic.blacklist",
    "debug", "log_level", "log.queue", "log.thread.name", "log.connection.close",
    "enable.random.seed", "statistics.interval.ms", "enabled_events",
    "internal.termination.signal", "plugin.library.paths", "client.rack", "client.dns.lookup",
    "enable.metrics.push", "retry.backoff.ms", "retry.backoff.max.ms",
    # sockets and connections
    "socket.timeout.ms", "socket.blocking.max.ms", "socket.send.buffer.bytes",
    "socket.receive.buffer.bytes", "socket.keepalive.enable", "socket.nagle.disable",
    "socket.max.fails", "socket.connection.setup.timeout.ms", "broker.address.ttl",
    "broker.address.family", "connections.max.idle.ms", "reconnect.backoff.jitter.ms",
    "reconnect.backoff.ms", "reconnect.backoff.max.ms",
    # protocol versions
    "api.version.request", "api.version.request.timeout.ms", "api.version.fallback.ms",
    "broker.version.fallback", "allow.auto.create.topics",
    # security
    "security.protocol",
    "ssl.cipher.suites", "ssl.curves.list", "ssl.sigalgs.list", "ssl.key.location",
    "ssl.key.password", "ssl.key.pem", "ssl.certificate.location", "ssl.certificate.pem",
    "ssl.ca.location", "https.ca.location", "https.ca.pem", "ssl.ca.pem",
    "ssl.ca.certificate.stores", "ssl.crl.location", "ssl.keystore.location",
    "ssl.keystore.password", "ssl.providers", "ssl.engine.location", "ssl.engine.id",
    "enable.ssl.certificate.verification", "ssl.endpoint.identification.algorithm",
    "sasl.mechanisms", "sasl.mechanism", "sasl.kerberos.service.name",
    "sasl.kerberos.principal", "sasl.kerberos.kinit.cmd", "sasl.kerberos.keytab",
    "sasl.kerberos.min.time.before.relogin", "sasl.username", "sasl.password",
    "sasl.oauthbearer.config", "enable.sasl.oauthbearer.unsecure.jwt",
    "sasl.oauthbearer.method", "sasl.oauthbearer.client.id", "sasl.oauthbearer.client.secret",
    "sasl.oauthbearer.scope", "sasl.oauthbearer.extensions",
    "sasl.oauthbearer.token.endpoint.url",
    # consumer
    "group.id", "group.instance.id", "partition.assignment.strategy", "session.timeout.ms",
    "heartbeat.interval.ms", "group.protocol.type", "group.protocol", "group.remote.assignor",
    "coordinator.query.interval.ms", "max.poll.interval.ms", "enable.auto.commit",
    "auto.commit.interval.ms", "enable.auto.offset.store", "queued.min.messages",
    "queued.max.messages.kbytes", "fetch.wait.max.ms", "fetch.queue.backoff.ms",
    "fetch.message.max.bytes", "max.partition.fetch.bytes", "fetch.max.bytes",
    "fetch.min.bytes", "fetch.error.backoff.ms", "isolation.level", "enable.partition.eof",
    "check.crcs",
    # producer
    "transactional.id", "transaction.timeout.ms", "enable.idempotence",
    "enable.gapless.guarantee", "queue.buffering.max.messages", "queue.buffering.max.kbytes",
    "queue.buffering.max.ms", "linger.ms", "message.send.max.retries", "retries",
    "queue.buffering.backpressure.threshold", "compression.codec", "compression.type",
    "batch.num.messages", "batch.size", "delivery.report.only.error",
    "sticky.partitioning.linger.ms",
    # topic
    "request.required.acks", "acks", "request.timeout.ms", "message.timeout.ms",
    "delivery.timeout.ms", "partitioner", "compression.level", "auto.offset.reset",
    "consume.callback.max.messages",
})

# Settings with a short list of values, in their canonical spelling: librdkafka compares
# sasl.mechanisms case-sensitively, so "plain" is written as "PLAIN" rather than failing later.
_CHOICES: dict[str, tuple[str, ...]] = {
    "security.protocol": ("PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL"),
    "sasl.mechanisms": ("GSSAPI", "PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512", "OAUTHBEARER"),
}

@dataclass(frozen=True, repr=False)
class ClientSettings:
    """Client settings under librdkafka names. ``settings`` holds the secrets: pass it to the
    client library only; print ``redacted()``."""

    settings: dict[str, str] = field(default_factory=dict)
    ignored: tuple[str, ...] = ()  # Java keys from --command-config with no librdkafka equivalent
    # Secrets kdiag used but does not pass on (a PKCS#12 truststore's password): scrubbed all the same.
    withheld: tuple[str, ...] = field(default=(), repr=False)

    @property
    def security_protocol(self) -> str:
        """``PLAINTEXT`` (librdkafka's default), ``SSL``, ``SASL_PLAINTEXT`` or ``SASL_SSL``."""
        return self.settings.get("security.protocol", "PLAINTEXT").upper()

    @property
    def sasl_mechanism(self) -> str | None:
        if not self.security_protocol.startswith("SASL"):
            return None
        return self.settings.get("sasl.mechanisms", "GSSAPI").upper()

    def redacted(self) -> dict[str, str]:
        """The settings as a report may show them: secrets as ``***``, and certificates read from a
        truststore as where they came from rather than the PEM text."""
        return {key: (REDACTED if is_secret(key) else _shown_value(key, value)) for key, value in self.settings.items()}

    @property
    def secrets(self) -> tuple[str, ...]:
        """The secret values, longest first (so a secret containing another is scrubbed whole)."""
        values = {value for key, value in self.settings.items() if is_secret(key) and value}
        values.update(secret for secret in self.withheld if secret)
        return tuple(sorted(values, key=len, reverse=True))

    @property
    def scrubber(self) -> Scrubber:
        """The scrubber for these secrets (values shorter than 4 characters are not masked in free text)."""
        return Scrubber(self.secrets)

    def scrub(self, text: str) -> str:
        """``text`` with every secret value (and its JSON-escaped form) replaced by ``***``.

        The last line of defence for output: errors from a client library, logs and reports go
        through it before they are written anywhere.
        """
        return self.scrubber(text)

    def merged(self, other: ClientSettings) -> ClientSettings:
        """These settings overridden by ``other``'s (the later source wins)."""
        ignored = self.ignored + tuple(k for k in other.ignored if k not in self.ignored)
        return ClientSettings({**self.settings, **other.settings}, ignored, self.withheld + other.withheld)

    def __repr__(self) -> str:
        return f"ClientSettings(settings={self.redacted()!r}, ignored={self.ignored!r})"

    __str__ = __repr__


def load_client_settings(x_options: Sequence[str] = (), command_config: str | os.PathLike[str] | None = None) -> ClientSettings:
    """The settings from ``--command-config FILE`` (if given), overridden by each ``-X key=value``."""
    settings = ClientSettings()
    if command_config is not None:
        settings = read_command_config(command_config)
    if x_options:
        settings = settings.merged(parse_x_options(x_options))
    return settings


# --- -X key=value ---------------------------------------------------------------------------------


def parse_x_options(options: Iterable[str]) -> ClientSettings:
    settings: dict[str, str] = {}
    for option in options:
        key, value = parse_x_option(option)
        settings[key] = value
    return ClientSettings(settings)


def secrets_in_arguments(args: Sequence[str]) -> ClientSettings:
    """The secrets a command line holds in ``-X`` options, before (and whether or not) it parses:
    ``-X sasl.password=VALUE``, ``-Xsasl.password=VALUE``, and ``-X sasl.password VALUE`` (the value
    given as the next word, which the parser then rejects as an extra argument, quoting it). A usage
    error is written through a scrubber that knows them."""
    found: dict[str, str] = {}
    for index, arg in enumerate(args):
        if arg == "-X" and index + 1 < len(args):
            option = args[index + 1]
        elif arg.startswith("-X") and arg != "-X":
            option = arg[2:]
        else:
            continue
        key, equals, value = option.partition("=")
        if not equals and index + 2 < len(args) and arg == "-X":
            value = args[index + 2]  # -X sasl.password hunter2
        if is_secret(key.strip()) and value:
            found[key.strip()] = value
    return ClientSettings(found)


def parse_x_option(text: str) -> tuple[str, str]:
    """One ``-X key=value`` as (librdkafka name, value); the name is checked, the value only where
    librdkafka has a short list of choices."""
    key, equals, value = text.partition("=")
    key = key.strip()
    if not equals or not key:
        raise UsageError(f"-X expects key=value, got {_shown_option(text)} (e.g. -X security.protocol=SASL_SSL)")
    if key not in LIBRDKAFKA_PROPERTIES:
        raise UsageError(_unknown_setting(key))
    key = _LIBRDKAFKA_ALIASES.get(key, key)
    return key, _canonical_choice(key, value, where=f"-X {key}")


_LIBRDKAFKA_ALIASES = {"sasl.mechanism": "sasl.mechanisms"}

# What a Java name is called in librdkafka, for the hint when one is given to -X.
_JAVA_NAME_HINTS = {
    "sasl.jaas.config": "sasl.username and sasl.password",
    "ssl.truststore.location": "ssl.ca.location (a PEM file; a PKCS#12 truststore only through --command-config)",
    "ssl.truststore.certificates": "ssl.ca.pem",
    "ssl.keystore.key": "ssl.key.pem",
    "ssl.keystore.certificate.chain": "ssl.certificate.pem",
    "send.buffer.bytes": "socket.send.buffer.bytes",
    "receive.buffer.bytes": "socket.receive.buffer.bytes",
    "fetch.max.wait.ms": "fetch.wait.max.ms",
    "max.request.size": "message.max.bytes",
}


def _unknown_setting(key: str) -> str:
    message = f"unknown client setting {_quote(key)} (librdkafka property names, e.g. security.protocol)"
    if key in _JAVA_NAME_HINTS:
        return (f"{message}; {_quote(key)} is the Java client's name: use -X with"
                f" {_JAVA_NAME_HINTS[key]}, or give a client.properties file to --command-config")
    close = difflib.get_close_matches(key.lower(), LIBRDKAFKA_PROPERTIES, n=1, cutoff=0.8)
    if close:
        return f"{message}; did you mean {_quote(close[0])}?"
    return message


def _canonical_choice(key: str, value: str, *, where: str) -> str:
    choices = _CHOICES.get(key)
    if not choices:
        return value
    canonical = next((choice for choice in choices if choice.lower() == value.strip().lower()), None)
    if canonical is None:
        raise UsageError(f"{where}: {_quote(value)} is not one of {', '.join(choices)}")
    return canonical


# --- --command-config FILE ------------------------------------------------------------------------


def read_command_config(path: str | os.PathLike[str]) -> ClientSettings:
    """A Java client.properties, mapped to librdkafka names."""
    from kdiag.inputfile import MAX_COMMAND_CONFIG, read_input

    raw = read_input(path, what="--command-config", limit=MAX_COMMAND_CONFIG)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        text = raw.decode("latin-1")  # java.util.Properties.load(InputStream) reads ISO 8859-1
    return from_java_properties(parse_java_properties(text))


def parse_java_properties(text: str) -> dict[str, str]:
    """``java.util.Properties.load`` syntax: ``#``/``!`` comments, ``\\`` continuations,
    ``key=value``, ``key: value`` and ``key value``, and backslash escapes. Later keys win."""
    properties: dict[str, str] = {}
    for line in _logical_lines(text):
        key, value = _split_property(line)
        if key:
            properties[key] = value
    return properties


def _logical_lines(text: str) -> Iterable[str]:
    pending: str | None = None
    for physical in re.split(r"\r\n|\r|\n", text):
        stripped = physical.lstrip(" \t\f")
        if pending is None:
            if not stripped or stripped[0] in "#!":
                continue
            line = stripped
        else:
            line = pending + stripped
        trailing = len(line) - len(line.rstrip("\\"))
        if trailing % 2 == 1:
            pending = line[:-1]
            continue
        pending = None
        yield line
    if pending is not None:
        yield pending


def _split_property(line: str) -> tuple[str, str]:
    index, length = 0, len(line)
    while index < length:
        char = line[index]
        if char == "\\":
            index += 2
            continue
        if char in "=: \t\f":
            break
        index += 1
    key = line[:index]
    rest = line[index:].lstrip(" \t\f")
    if rest[:1] in ("=", ":"):
        rest = rest[1:].lstrip(" \t\f")
    return _unescape(key), _unescape(rest)


_ESCAPE = re.compile(r"\\(u[0-9a-fA-F]{4}|.)", re.DOTALL)
_ESCAPED_CHARS = {"t": "\t", "n": "\n", "r": "\r", "f": "\f"}


def _unescape(text: str) -> str:
    def replace(match: re.Match[str]) -> str:
        code = match.group(1)
        if len(code) == 5:
            return chr(int(code[1:], 16))
        return _ESCAPED_CHARS.get(code, code)

    return _ESCAPE.sub(replace, text)


# --- Java names → librdkafka names ----------------------------------------------------------------

# Java client settings whose librdkafka property has the same name and meaning.
_JAVA_SAME_NAME = frozenset({
    "bootstrap.servers", "security.protocol", "client.id", "client.rack", "client.dns.lookup",
    "request.timeout.ms", "metadata.max.age.ms", "socket.connection.setup.timeout.ms",
    "connections.max.idle.ms", "reconnect.backoff.ms", "reconnect.backoff.max.ms",
    "retry.backoff.ms", "retry.backoff.max.ms", "sasl.kerberos.service.name",
    "sasl.oauthbearer.token.endpoint.url", "ssl.key.password",
    "group.id", "group.instance.id", "group.protocol", "group.remote.assignor",
    "session.timeout.ms", "heartbeat.interval.ms", "max.poll.interval.ms", "enable.auto.commit",
    "auto.commit.interval.ms", "isolation.level", "fetch.min.bytes", "fetch.max.bytes",
    "max.partition.fetch.bytes", "check.crcs", "allow.auto.create.topics",
    "acks", "linger.ms", "batch.size", "compression.type", "enable.idempotence", "retries",
    "transactional.id", "transaction.timeout.ms", "delivery.timeout.ms",
    "max.in.flight.requests.per.connection",
})

_JAVA_RENAMED = {
    "sasl.mechanism": "sasl.mechanisms",
    "send.buffer.bytes": "socket.send.buffer.bytes",
    "receive.buffer.bytes": "socket.receive.buffer.bytes",
    "fetch.max.wait.ms": "fetch.wait.max.ms",
    "max.request.size": "message.max.bytes",
}

# Java keys read together with others below (the SSL stores and the JAAS line).
_JAVA_STORE_KEYS = frozenset({
    "ssl.truststore.location", "ssl.truststore.type", "ssl.truststore.password",
    "ssl.truststore.certificates", "ssl.keystore.location", "ssl.keystore.type",
    "ssl.keystore.password", "ssl.keystore.key", "ssl.keystore.certificate.chain",
})


def from_java_properties(properties: Mapping[str, str]) -> ClientSettings:
    settings: dict[str, str] = {}
    ignored: list[str] = []
    for key, value in properties.items():
        if key in _JAVA_SAME_NAME:
            settings[key] = value
        elif key in _JAVA_RENAMED:
            settings[_JAVA_RENAMED[key]] = value
        elif key == "ssl.endpoint.identification.algorithm":
            # Java disables the check with an empty value; librdkafka wants "none".
            settings[key] = value if value.strip() else "none"
        elif key == "auto.offset.reset":
            settings[key] = "error" if value.strip().lower() == "none" else value
        elif key == "sasl.jaas.config":
            jaas = _jaas_settings(value, properties)
            if jaas is None:
                ignored.append(key)
            else:
                settings.update(jaas)
        elif key not in _JAVA_STORE_KEYS:
            ignored.append(key)
    stores, store_ignored = _store_settings(properties)
    settings.update(stores)
    ignored.extend(store_ignored)
    for key in _CHOICES:
        if key in settings:
            settings[key] = _canonical_choice(key, settings[key], where=f"--command-config {key}")
    withheld = tuple(properties[k] for k in ("ssl.truststore.password",) if properties.get(k))
    return ClientSettings(settings, tuple(ignored), withheld)


# Store types whose file kdiag opens (Kafka's default is JKS; a JVM's JKS keystore reads PKCS#12 files
# too, so the file's own first bytes decide).
_FILE_STORE_TYPES = ("JKS", "PKCS12", "P12", "JCEKS")


def _store_settings(properties: Mapping[str, str]) -> tuple[dict[str, str], list[str]]:
    """Java's truststore/keystore settings as librdkafka's: PEM files and PEM text map across, a
    PKCS#12 keystore maps across (librdkafka reads it), a PKCS#12 truststore becomes ``ssl.ca.pem``
    (librdkafka has no truststore setting), a JKS store is a UsageError."""
    settings: dict[str, str] = {}
    ignored: list[str] = []
    trust_type = properties.get("ssl.truststore.type", "JKS").strip().upper()
    if trust_type == "PEM":
        if "ssl.truststore.location" in properties:
            settings["ssl.ca.location"] = properties["ssl.truststore.location"]
        if "ssl.truststore.certificates" in properties:
            settings["ssl.ca.pem"] = properties["ssl.truststore.certificates"]
    elif trust_type in _FILE_STORE_TYPES and properties.get("ssl.truststore.location", "").strip():
        try:
            settings["ssl.ca.pem"] = truststore_pem(properties["ssl.truststore.location"].strip(),
                                                    properties.get("ssl.truststore.password"))
        except KeystoreError as exc:
            raise UsageError(f"--command-config {exc}") from None
        ignored += [k for k in ("ssl.truststore.certificates",) if k in properties]
    else:
        ignored += [k for k in ("ssl.truststore.location", "ssl.truststore.password",
                                "ssl.truststore.certificates") if k in properties]
    key_type = properties.get("ssl.keystore.type", "JKS").strip().upper()
    if key_type == "PEM":
        if "ssl.keystore.location" in properties:
            # one PEM file with the private key and the certificate chain: librdkafka reads each
            # from the same file
            settings["ssl.certificate.location"] = properties["ssl.keystore.location"]
            settings["ssl.key.location"] = properties["ssl.keystore.location"]
        if "ssl.keystore.key" in properties:
            settings["ssl.key.pem"] = properties["ssl.keystore.key"]
        if "ssl.keystore.certificate.chain" in properties:
            settings["ssl.certificate.pem"] = properties["ssl.keystore.certificate.chain"]
    elif key_type in _FILE_STORE_TYPES:
        # librdkafka reads a PKCS#12 keystore itself; kdiag's TLS probe opens it too, and says so when
        # the file is a JKS one
        for key in ("ssl.keystore.location", "ssl.keystore.password"):
            if key in properties:
                settings[key] = properties[key].strip() if key == "ssl.keystore.location" else properties[key]
    else:
        ignored += [k for k in ("ssl.keystore.location", "ssl.keystore.password", "ssl.keystore.key",
                                "ssl.keystore.certificate.chain") if k in properties]
    return settings, ignored


_JAAS_TOKEN = re.compile(r'\s*(?:"((?:[^"\\]|\\.)*)"|([^\s=;"]+)|(=)|(;))', re.DOTALL)


def _jaas_settings(text: str, properties: Mapping[str, str]) -> dict[str, str] | None:
    """The librdkafka settings a one-module ``sasl.jaas.config`` stands for; None when its login
    module has no librdkafka equivalent."""
    parsed = _parse_jaas(text)
    if parsed is None:  # the value holds the password: never quote it
        raise UsageError(
            "--command-config sasl.jaas.config: cannot read it (expected"
            ' <LoginModule> required username="..." password="...";)'
        )
    module, options = parsed
    name = module.rsplit(".", 1)[-1]
    if name in ("PlainLoginModule", "ScramLoginModule"):
        mapped = {"sasl.username": options.get("username"), "sasl.password": options.get("password")}
    elif name == "Krb5LoginModule":
        mapped = {"sasl.kerberos.keytab": options.get("keyTab"),
                  "sasl.kerberos.principal": options.get("principal")}
    elif name == "OAuthBearerLoginModule":
        if "unsecuredLoginStringClaim_sub" in options:
            mapped = {"enable.sasl.oauthbearer.unsecure.jwt": "true",
                      "sasl.oauthbearer.config": f"principal={options['unsecuredLoginStringClaim_sub']}"}
        else:
            mapped = {"sasl.oauthbearer.client.id": options.get("clientId"),
                      "sasl.oauthbearer.client.secret": options.get("clientSecret"),
                      "sasl.oauthbearer.scope": options.get("scope")}
            if "sasl.oauthbearer.token.endpoint.url" in properties:
                mapped["sasl.oauthbearer.method"] = "oidc"
    else:
        return None
    return {key: value for key, value in mapped.items() if value is not None}


def _parse_jaas(text: str) -> tuple[str, dict[str, str]] | None:
    """``<LoginModule> <flag> key="value" ... ;`` as (module, options)."""
    tokens: list[tuple[str, str]] = []  # (kind, text): word | quoted | = | ;
    position, text = 0, text.strip()
    while position < len(text):
        match = _JAAS_TOKEN.match(text, position)
        if match is None or match.end() == position:
            return None
        quoted, word, equals, semicolon = match.groups()
        if quoted is not None:
            tokens.append(("quoted", re.sub(r"\\(.)", r"\1", quoted)))
        elif word is not None:
            tokens.append(("word", word))
        else:
            tokens.append((equals or semicolon, equals or semicolon))
        position = match.end()
        if text[position:].strip() == "":
            break
    if len(tokens) < 2 or tokens[0][0] != "word" or tokens[1][0] != "word":
        return None
    module, options, rest = tokens[0][1], {}, tokens[2:]
    while rest and rest[0][0] != ";":
        if len(rest) < 3 or rest[0][0] != "word" or rest[1][0] != "=" or rest[2][0] not in ("word", "quoted"):
            return None
        options[rest[0][1]] = rest[2][1]
        rest = rest[3:]
    return module, options


# --- helpers ----------------------------------------------------------------------------------------


def _shown_value(key: str, value: str) -> str:
    origin = pem_origin(value) if key == "ssl.ca.pem" else None
    return f"<the certificates of {origin}>" if origin else value


def _quote(text: str) -> str:
    shown = text if text.isprintable() else text.encode("unicode_escape").decode()
    return f"'{shown}'"


def _shown_option(text: str) -> str:
    """An -X argument without '=' is shown only when it is a setting's name (``-X sasl.password``, the
    value forgotten or given as the next word): anything else may be the secret itself, typed where the
    key=value belonged (``-X hunter2``), and is described, never echoed."""
    key = text.strip()
    if key in LIBRDKAFKA_PROPERTIES or key.lower() in _JAVA_NAME_HINTS:
        return f"{_quote(key)} with no '=VALUE'"
    return f"an argument without '=' ({len(text)} characters, not shown: it may be a secret)"
