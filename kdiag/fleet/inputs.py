"""What ``kdiag fleet analyze`` reads: paths, globs and directories of report files, or a Kafka topic.

A directory stands for the ``*.jsonl``, ``*.jsonl.gz`` and ``*.json`` files below it (recursively;
as in Spark, names starting with ``_`` or ``.`` are skipped: ``_truth.json``, ``_spark_metadata``); a
glob is taken as given. ``*.json`` files hold one (pretty-printed) report each, as attached to tickets;
the others one report a line. ``kafka://BOOTSTRAP/TOPIC`` is a batch read of a report topic.
Local inputs are checked here (missing or unreadable: a one-line ``InputError``); ``hdfs://``,
``s3a://`` and other URLs are left to Spark.
"""

from __future__ import annotations

import glob
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from urllib.parse import urlsplit

LINE_SUFFIXES = (".jsonl", ".jsonl.gz")
FILE_SUFFIXES = (".json",)


class InputError(ValueError):
    """An input that cannot be read (one line)."""


@dataclass(frozen=True)
class KafkaLogin:
    """A named credential set's client settings (librdkafka names) for the ``kafka://`` sources bound
    to it (``--kafka-credentials NAME``); ``kdiag.fleet.kafka_security`` gives them to the clients.
    ``secrets``: its secret values, for the run's scrubber."""

    name: str
    settings: Mapping[str, str] = field(repr=False)
    secrets: tuple[str, ...] = field(default=(), repr=False)

    @property
    def variables(self) -> str:
        return f"KDIAG_CRED_{self.name}_*"


@dataclass(frozen=True)
class KafkaInput:
    """A report topic; ``login``: the credential set bound to its bootstrap (None: the source is read
    without credentials). Its text (``kafka://BOOTSTRAP/TOPIC``, the table's source) never shows it."""

    bootstrap: str
    topic: str
    login: KafkaLogin | None = field(default=None, compare=False, repr=False)

    def __str__(self) -> str:
        return f"kafka://{self.bootstrap}/{self.topic}"


@dataclass(frozen=True)
class FileInputs:
    """Spark paths (globs allowed) of line files, and of whole-file reports."""

    lines: tuple[str, ...] = ()
    whole: tuple[str, ...] = ()


def parse_kafka(text: str) -> KafkaInput:
    parts = urlsplit(text)
    topic = parts.path.strip("/")
    if "@" in parts.netloc:  # the URL is the table's source, stored and shown: never echo what precedes the @
        raise InputError(f"kafka://…@{parts.netloc.rpartition('@')[2]}/{topic}: a user or password in a kafka:// "
                         f"URL is not read (the URL is stored as the table's source); give them as a credential "
                         f"set: --kafka-credentials NAME with KDIAG_CRED_<NAME>_*")
    if not parts.netloc or not topic or "/" in topic:
        raise InputError(f"{text}: a Kafka input is kafka://BOOTSTRAP/TOPIC (host:port[,host:port...])")
    return KafkaInput(parts.netloc, topic)


def with_logins(topics: tuple[KafkaInput, ...], logins: Mapping[str, KafkaLogin]) -> tuple[KafkaInput, ...]:
    """``topics``, each with the login bound to it (``logins``: by the source's ``kafka://`` text);
    a topic no set is bound to has none."""
    return tuple(replace(topic, login=logins.get(str(topic))) for topic in topics)


KAFKA_CREDENTIALS_HELP = (
    "Read the kafka:// sources on the cluster matching PATTERN (host globs, addresses, CIDRs, each maybe "
    ":PORT; without it: the one cluster the kafka:// sources name) with the client settings "
    "KDIAG_CRED_<NAME>_<SETTING> (as kdiag watch's: SECURITY_PROTOCOL, SASL_MECHANISMS, SASL_USERNAME, "
    "SASL_PASSWORD[_FILE], SSL_CA_LOCATION, ...). Repeatable. A source no set is bound to is read without "
    "credentials.")
"""``--kafka-credentials NAME[=PATTERN,...]``'s help, in ``kdiag fleet`` and in the spark-submit entry points."""


def bind_kafka_logins(bindings: Sequence[str], sources: Sequence[str],
                      environ: Mapping[str, str]) -> tuple[tuple[str, KafkaLogin], ...]:
    """Each ``kafka://`` source's credential set, by the source's text, from ``--kafka-credentials``:
    ``NAME=PATTERN[,...]`` binds the set to the sources whose every bootstrap endpoint a pattern matches
    (``kdiag watch --probe-credentials``' patterns); a bare ``NAME`` to the one cluster the sources
    name. The sets are read from ``environ`` as ``kdiag watch`` reads them (``KDIAG_CRED_<NAME>_*``);
    each login carries its secrets, for the caller's scrubber. A source no set binds gets none; a set
    that binds none, or two sets on one source, is a usage error (``UsageError``, one line)."""
    from kdiag.credentials import CredentialSet, credential_set_settings, parse_credential_binding, parse_set_name
    from kdiag.exitstatus import UsageError
    from kdiag.target import parse_bootstrap

    if not bindings:
        return ()
    topics = [parse_kafka(source) for source in sources if source.startswith("kafka://")]
    if not topics:
        raise UsageError("--kafka-credentials goes with a kafka://BOOTSTRAP/TOPIC source")
    endpoints = {str(topic): parse_bootstrap(topic.bootstrap) for topic in topics}
    clusters = {frozenset((e.host.lower(), e.port) for e in found) for found in endpoints.values()}
    logins: dict[str, KafkaLogin] = {}
    names: set[str] = set()
    for binding in bindings:
        if "=" in binding:
            name, patterns = parse_credential_binding(binding, option="--kafka-credentials")
            bound = [t for t in topics if CredentialSet(name, patterns, {}).bound_to(endpoints[str(t)])]
        else:
            name, bound = parse_set_name("--kafka-credentials", binding), topics
            if len(clusters) > 1:
                raise UsageError(f"--kafka-credentials {binding}: the kafka:// sources name several clusters; bind "
                                 f"the set to its own: --kafka-credentials {binding}=HOST:PORT[,...]")
        if name in names:
            raise UsageError(f"--kafka-credentials names the set {name} twice")
        names.add(name)
        if not bound:
            raise UsageError(f"--kafka-credentials {binding}: no kafka:// source's bootstrap matches it")
        settings = credential_set_settings(name, environ, option="--kafka-credentials")
        login = KafkaLogin(name, dict(settings.settings), settings.secrets)
        for topic in bound:
            if str(topic) in logins:
                raise UsageError(f"{topic}: both credential sets {logins[str(topic)].name} and {name} are bound to it")
            logins[str(topic)] = login
    return tuple(logins.items())


def is_remote(path: str) -> bool:
    scheme = urlsplit(path).scheme
    return len(scheme) > 1 and scheme != "file"


def _local(path: str) -> str:
    return path[len("file://"):] if path.startswith("file://") else path


def classify(paths: list[str] | tuple[str, ...]) -> tuple[FileInputs, tuple[KafkaInput, ...]]:
    """Splits the inputs into file paths for Spark and Kafka topics; checks local paths exist."""
    lines: list[str] = []
    whole: list[str] = []
    topics: list[KafkaInput] = []
    for path in paths:
        if path.startswith("kafka://"):
            topics.append(parse_kafka(path))
            continue
        if is_remote(path):
            (whole if path.endswith(FILE_SUFFIXES) else lines).append(path)
            continue
        for local in local_files(path):
            (whole if local.endswith(FILE_SUFFIXES) else lines).append(os.path.abspath(local))
    return FileInputs(tuple(lines), tuple(whole)), tuple(topics)


def hidden(name: str) -> bool:
    """Spark's rule for names its file sources skip: metadata and temporary files."""
    return name.startswith(("_", "."))


def below(directory: str) -> list[str]:
    """The report files in ``directory`` and its subdirectories, hidden names skipped, sorted."""
    found = []
    for root, dirs, names in os.walk(directory):
        dirs[:] = [name for name in dirs if not hidden(name)]
        found.extend(os.path.join(root, name) for name in names
                     if name.endswith(LINE_SUFFIXES + FILE_SUFFIXES) and not hidden(name)
                     and os.path.isfile(os.path.join(root, name)))
    return sorted(found)


def local_files(path: str) -> list[str]:
    """The report files a local path, glob or directory stands for; InputError when there are none."""
    local = _local(path)
    if os.path.isdir(local):
        if not os.access(local, os.R_OK | os.X_OK):
            raise InputError(f"{path}: cannot read this directory")
        found = below(local)
        if not found:
            raise InputError(f"{path}: no *.jsonl, *.jsonl.gz or *.json files in this directory or below it")
    elif glob.has_magic(local):
        found = sorted(p for p in glob.glob(local) if os.path.isfile(p))
        if not found:
            raise InputError(f"{path}: no file matches")
    elif os.path.isfile(local):
        found = [local]
    else:
        raise InputError(f"{path}: no such file or directory")
    for file in found:
        if not os.access(file, os.R_OK):
            raise InputError(f"{file}: cannot read it (permission denied)")
    return found
