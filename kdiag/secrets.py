"""The one home for secrets: what is secret, and keeping it out of everything kdiag writes.

* ``is_secret(key)``: whether a client setting's value is a secret (passwords, client secrets, private
  keys, JAAS lines), on librdkafka and Java names alike. ``redact(settings)`` shows such a mapping with
  those values as ``***`` (a report's ``client`` settings; ``ClientSettings.redacted`` is the same rule).
  ``without_credentials(settings)`` keeps a mapping's transport and trust but drops the SASL login, the
  client certificate and key and every secret: the settings for a peer they were not given for
  (``kdiag watch``'s ``/probe`` outside the configured cluster).
* ``Scrubber``: the secret values a run knows (the client settings' passwords and keys,
  ``ClientSettings.scrubber``; the ones a pasted log gave away, ``Secrets.scrubber``), called on text:
  ``scrubber(text)``. ``Environment.write``/``say`` pass everything a command prints through the run's
  scrubber; the views (``kdiag.render.safe.displayable``) call it on every string of the model *before*
  escaping, wrapping or quoting it, so no Markdown ``\\|`` or line break can split a secret out of its
  reach. Each secret is also masked in the forms kdiag's output may give it: JSON's escapes, the
  sanitizer's escapes, Markdown's escaped pipes.
* ``Secrets``: the secrets a pasted log holds, for ``kdiag explain``. A customer's paste often carries a
  ``client.properties`` or a JAAS line: ``sasl.password=hunter2``, ``sasl.jaas.config=...
  password="hunter2";``, ``"password":"hunter2"`` in JSON. ``Secrets.learn`` reads every line for
  ``key=value`` / ``key: value`` pairs (also ``;``-joined), command-line options (``--password VALUE``)
  and properties lines (``key value``) whose key ``is_secret`` calls secret, and remembers the values (a
  bounded number of them); ``Secrets.scrub`` masks those pairs in a line and every remembered value
  wherever else it appears, so no evidence line can echo one.

Everything that prints imports this module; it imports nothing of kdiag but the sanitizer
(``kdiag.render.safe``, for the form a view gives a secret).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

REDACTED = "***"
MIN_SECRET_LENGTH = 4
"""Shorter values are not masked in free text: replacing every "abc" would wreck the text while
protecting next to nothing."""


# Keys whose value is a secret. Matched on the lower-cased key, so Java names are covered too.
_SECRET_WORDS = ("password", "secret", "token", "credential", "private", "jaas")
_SECRET_KEYS = frozenset({"ssl.key.pem", "ssl_key", "ssl.keystore.key", "sasl.oauthbearer.config"})


def is_secret(key: str) -> bool:
    name = key.lower()
    return name in _SECRET_KEYS or any(word in name for word in _SECRET_WORDS)


def redact(settings: Mapping[str, object]) -> dict[str, object]:
    """``settings`` with the value of every secret key replaced by ``***``."""
    return {key: (REDACTED if is_secret(key) else value) for key, value in settings.items()}


@dataclass(frozen=True)
class Scrubber:
    """``Scrubber(secrets)(text)``: ``text`` with every secret, in every form, replaced by ``***``."""

    secrets: tuple[str, ...] = ()
    min_length: int = MIN_SECRET_LENGTH
    _forms: tuple[str, ...] = field(init=False, repr=False, compare=False)
    _pattern: re.Pattern[str] | None = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        forms: dict[str, None] = {}
        for secret in self.secrets:
            if len(secret) >= self.min_length:
                forms.update(dict.fromkeys(_forms(secret)))
        # One pass over the text however many secrets there are; longest first, so a secret
        # containing another is masked whole.
        ordered = tuple(sorted(forms, key=len, reverse=True))
        object.__setattr__(self, "_forms", ordered)
        object.__setattr__(self, "_pattern", re.compile("|".join(map(re.escape, ordered))) if ordered else None)

    def __call__(self, text: str) -> str:
        return text if self._pattern is None else self._pattern.sub(REDACTED, text)

    def __bool__(self) -> bool:
        return bool(self._forms)

    def __repr__(self) -> str:
        return f"Scrubber({len(self._forms)} forms of secrets)"

    def adding(self, secrets: Iterable[str]) -> Scrubber:
        """This scrubber, masking ``secrets`` as well."""
        return Scrubber(tuple(dict.fromkeys((*self.secrets, *secrets))), self.min_length)


NO_SECRETS = Scrubber()


# What identifies the client to a cluster: its SASL login, its certificate and key (files, PEM, a keystore,
# an engine holding the key), and any other secret. ``without_credentials`` drops them.
_CREDENTIAL_PREFIXES = ("sasl.", "ssl.key.", "ssl_key", "ssl.keystore.", "ssl.certificate.", "ssl.engine.")
_WITHOUT_SASL = {"SASL_PLAINTEXT": "PLAINTEXT", "SASL_SSL": "SSL"}


def without_credentials(settings: Mapping[str, str]) -> dict[str, str]:
    """``settings`` for a peer the credentials were not given for: the same transport (TLS stays TLS,
    with its trust settings) but no SASL login, no client certificate or key, no secret value."""
    kept = {key: value for key, value in settings.items()
            if not key.lower().startswith(_CREDENTIAL_PREFIXES) and not is_secret(key)}
    protocol = kept.get("security.protocol", "PLAINTEXT").upper()
    if protocol in _WITHOUT_SASL:
        kept["security.protocol"] = _WITHOUT_SASL[protocol]
    return kept


def _forms(secret: str) -> tuple[str, ...]:
    import json

    from kdiag.render.safe import printable

    escaped = json.dumps(secret, ensure_ascii=False)[1:-1]
    return tuple(dict.fromkeys((
        secret,
        escaped,
        json.dumps(secret)[1:-1],          # ensure_ascii, as json.dumps writes by default
        printable(secret, limit=None),     # as a text or Markdown view shows it
        secret.replace("|", "\\|"),        # in a Markdown table cell
        printable(secret, limit=None).replace("|", "\\|"),
    )))


# --- the secrets a pasted log holds (kdiag explain) ---------------------------------------------------

MAX_SECRETS = 4096
"""Distinct secret values remembered. A real paste holds a handful; a hostile one could hold millions,
so memory is bounded here (with MAX_SECRET_LENGTH). Pairs are masked in every line whatever the count;
past this many distinct values, a hinted line (one that may hold a secret) is withheld whole rather
than risk echoing a value kdiag could not remember."""
MAX_SECRET_LENGTH = 4096
MIN_LOG_SECRET_LENGTH = 3
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
        if len(value) < MIN_LOG_SECRET_LENGTH or value.lower() in _NOT_SECRET or value in self.values:
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
        """The one scrubber (``Scrubber``) for the secrets learned so far: one pass over the
        text, longest value first, however many there are; rebuilt when a new one is learned."""
        if self._scrubber is None:
            self._scrubber = Scrubber(tuple(self.values), min_length=MIN_LOG_SECRET_LENGTH)
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
