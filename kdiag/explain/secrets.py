"""Keeping the secrets a pasted log may hold out of everything ``kdiag explain`` prints.

A customer's paste often carries a ``client.properties`` or a JAAS line: ``sasl.password=hunter2``,
``sasl.jaas.config=... password="hunter2";``, ``"password":"hunter2"`` in JSON. ``Secrets.learn``
reads every line for ``key=value`` / ``key: value`` pairs (also ``;``-joined), command-line options
(``--password VALUE``) and properties lines (``key value``) whose key ``kdiag.clientconfig.is_secret``
calls secret, and remembers the values (a bounded number of them); ``Secrets.scrub`` masks those
pairs in a line and every remembered value wherever else it appears, so no evidence line can echo one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from kdiag.clientconfig import is_secret
from kdiag.secrets import REDACTED, Scrubber

MAX_SECRETS = 4096
"""Distinct secret values remembered. A real paste holds a handful; a hostile one could hold millions,
so memory is bounded here (with MAX_SECRET_LENGTH). Pairs are masked in every line whatever the count;
past this many distinct values, a hinted line (one that may hold a secret) is withheld whole rather
than risk echoing a value kdiag could not remember."""
MAX_SECRET_LENGTH = 4096
MIN_SECRET_LENGTH = 3
WITHHELD = "(line withheld: it may hold a secret, and the log holds more than kdiag keeps track of)"

_KEY = r"[A-Za-z_][\w.-]*"
# A bare value ends at a space or a delimiter; a ';' followed by more value (not by the next key=)
# belongs to the value: ``sasl.password=pa;ss`` is one secret, ``a=b;sasl.password=c`` two settings.
_BARE = rf"""(?:[^\s,;"'\]\)}}{{\[(]|;(?=[^\s;,"'\]\)}}])(?!{_KEY}\s*[=:]))(?:[^\s,;"'\]\)}}]|;(?=[^\s;,"'\]\)}}])(?!{_KEY}\s*[=:]))*"""
_VALUE = rf"""\[hidden\]|"[^"]*"|'[^']*'|{_BARE}"""
# A key, then = or :, then a quoted or bare value. The key may be quoted (JSON, YAML).
_PAIR = re.compile(rf"""(?P<q>["']?)(?P<key>{_KEY})(?P=q)(?P<sep>\s*[=:]\s*)(?P<value>{_VALUE})""")
# A command-line option and its value as the next word: ``--password hunter2``, ``-password hunter2``.
_OPTION = re.compile(rf"""(?<![\w-])(?P<q>)(?P<key>--?[A-Za-z][\w.-]*)(?P<sep>[ \t]+)(?P<value>{_VALUE})""")
# A properties-file line ``key value`` (java.util.Properties allows a space as the separator): only a
# whole line of exactly that shape, so prose (``ssl.key.password was wrong``) is not taken for one.
_SPACED = re.compile(rf"""^(?P<indent>\s*)(?P<q>)(?P<key>{_KEY})(?P<sep>[ \t]+)(?P<value>{_VALUE})\s*$""")
_FORMS = (_PAIR, _OPTION, _SPACED)
SECRET_HINTS = ("password", "passwd", "secret", "token", "credential", "private", "auth.user.info")
"""Lower-case words one of which every line holding a secret contains (checked before the regex)."""
_NOT_SECRET = frozenset({"[hidden]", "null", "***", "none", '""', "''"})


@dataclass
class Secrets:
    values: set[str] = field(default_factory=set)
    saturated: bool = False  # a secret was met after MAX_SECRETS were remembered
    _scrubber: Scrubber | None = field(default=None, repr=False)

    def learn(self, line: str) -> None:
        if not _hinted(line):
            return
        for form in _FORMS:
            for m in form.finditer(line):
                key = m.group("key").lstrip("-")
                if not is_secret(key) or "jaas" in key.lower():
                    continue  # a JAAS line's own secrets are its password="..." pairs, learned one by one
                self._remember(m.group("value").strip("\"'"))

    def _remember(self, value: str) -> None:
        if len(value) < MIN_SECRET_LENGTH or value.lower() in _NOT_SECRET or value in self.values:
            return
        if len(self.values) >= MAX_SECRETS or len(value) > MAX_SECRET_LENGTH:
            self.saturated = True
            return
        self.values.add(value)
        self._scrubber = None

    def scrub(self, line: str) -> str:
        """A log line with its secret pairs masked and every secret seen so far replaced."""
        if _hinted(line):
            if self.saturated:
                return WITHHELD
            for form in _FORMS:
                line = form.sub(_masked, line)
        return self.replace_known(line)

    def replace_known(self, text: str) -> str:
        """``text`` with every secret value learned from the log replaced (for text kdiag wrote itself,
        whose ``sasl.password=<password>`` placeholders must stay)."""
        return self.scrubber(text)

    @property
    def scrubber(self) -> Scrubber:
        """The one scrubber (``kdiag.secrets``) for the secrets learned so far: one pass over the
        text, longest value first, however many there are; rebuilt when a new one is learned."""
        if self._scrubber is None:
            self._scrubber = Scrubber(tuple(self.values), min_length=MIN_SECRET_LENGTH)
        return self._scrubber


def _hinted(line: str) -> bool:
    lowered = line.lower()
    return any(hint in lowered for hint in SECRET_HINTS)


def _masked(m: re.Match[str]) -> str:
    if not is_secret(m.group("key").lstrip("-")) or m.group("value").lower() in _NOT_SECRET:
        return m.group(0)
    value = m.group("value")
    quote = value[0] if value[:1] in ("'", '"') else ""
    indent = m.groupdict().get("indent") or ""
    return f"{indent}{m.group('q')}{m.group('key')}{m.group('q')}{m.group('sep')}{quote}{REDACTED}{quote}"
