"""Keeping the secrets a pasted log may hold out of everything ``kdiag explain`` prints.

A customer's paste often carries a ``client.properties`` or a JAAS line: ``sasl.password=hunter2``,
``sasl.jaas.config=... password="hunter2";``, ``"password":"hunter2"`` in JSON. ``Secrets.learn``
reads every line for ``key=value`` pairs whose key ``kdiag.clientconfig.is_secret`` calls secret and
remembers the values (a bounded number of them); ``Secrets.scrub`` masks those pairs in a line and
every remembered value wherever else it appears, so no evidence line can echo one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from kdiag.clientconfig import REDACTED, is_secret

MAX_SECRETS = 64
MIN_SECRET_LENGTH = 3

# A key, then = or :, then a quoted or bare value. The key may be quoted (JSON, YAML).
_PAIR = re.compile(r"""(?P<q>["']?)(?P<key>[A-Za-z_][\w.-]*)(?P=q)(?P<sep>\s*[=:]\s*)"""
                   r"""(?P<value>\[hidden\]|"[^"]*"|'[^']*'|[^\s,;"'\]\)}]+)""")
SECRET_HINTS = ("password", "passwd", "secret", "token", "credential", "private", "auth.user.info")
"""Lower-case words one of which every line holding a secret contains (checked before the regex)."""
_NOT_SECRET = frozenset({"[hidden]", "null", "***", "none", '""', "''"})


@dataclass
class Secrets:
    values: set[str] = field(default_factory=set)

    def learn(self, line: str) -> None:
        if not _hinted(line):
            return
        for m in _PAIR.finditer(line):
            if not is_secret(m.group("key")) or "jaas" in m.group("key").lower():
                continue  # a JAAS line's own secrets are its password="..." pairs, learned one by one
            value = m.group("value").strip("\"'")
            if len(value) >= MIN_SECRET_LENGTH and value.lower() not in _NOT_SECRET and len(self.values) < MAX_SECRETS:
                self.values.add(value)

    def scrub(self, line: str) -> str:
        """A log line with its secret pairs masked and every secret seen so far replaced."""
        if _hinted(line):
            line = _PAIR.sub(_masked, line)
        return self.replace_known(line)

    def replace_known(self, text: str) -> str:
        """``text`` with every secret value learned from the log replaced (for text kdiag wrote itself,
        whose ``sasl.password=<password>`` placeholders must stay)."""
        for value in sorted(self.values, key=len, reverse=True):
            if value in text:
                text = text.replace(value, REDACTED)
        return text


def _hinted(line: str) -> bool:
    lowered = line.lower()
    return any(hint in lowered for hint in SECRET_HINTS)


def _masked(m: re.Match[str]) -> str:
    if not is_secret(m.group("key")) or m.group("value").lower() in _NOT_SECRET:
        return m.group(0)
    value = m.group("value")
    quote = value[0] if value[:1] in ("'", '"') else ""
    return f"{m.group('q')}{m.group('key')}{m.group('q')}{m.group('sep')}{quote}{REDACTED}{quote}"
