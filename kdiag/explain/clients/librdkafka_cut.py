"""librdkafka's lines as a paste cuts them: a mailer or a comment box wraps a long line between words, a paste ends
mid-word. librdkafka prints one line per event, ``%3|<time>|FAIL|rdkafka#producer-1| [thrd:<name>]: <name>: <message>``
(rdkafka.c's log format; ``<name>`` is the broker's ``[proto://]host:port/(bootstrap|node id)``), so a line that ends
with the broker's name and the first word or two of a message was cut there, and its message goes on in the next line.

- ``<name>: Failed`` then ``to resolve 'host:port': <why>``: the resolve failure (rdkafka_broker.c ``Failed to resolve
  '%s': %s``) about the connection the line above named, its role included; ``<name>: Connect`` then ``to
  ipv4#a:p failed: <why>`` (``Connect to %s failed: %s``), and ``<name>:`` then a whole ``Connect to ...`` or
  ``Failed to resolve ...``, the same; the line's prefix, if a logger gave it one, is no matter;
- ``<name>: Failed to resol`` at the end of the paste (or of the line): the resolve failure, its reason cut off.

The recognisers of whole lines (``librdkafka``) read the rest; a continuation no cut line precedes names no role.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from kdiag.explain.clients.librdkafka_names import RdBroker, connect_failed, resolve_failed
from kdiag.explain.sightings import HOST, LIBRDKAFKA, REDACTED, RESOLVE, Item, Pattern, ScanState, registrar

PATTERNS: list[Pattern] = []
pattern = registrar(PATTERNS)

_NAME = r"(?:[a-z_]+://)?[^\s/\]]+:\d{1,5}/(?:bootstrap|-?\d+)"


def _cut_after_name(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    scan.rd_cut = (scan.line, RdBroker.find(m.string))
    return iter(())


# The line ends with the broker's name, and perhaps the first words of the message: "Failed (to)", "Connect (to)".
for _index, (_needle, _example) in enumerate((("/bootstrap:", "[thrd:kafka-1:9092/bootstrap]: kafka-1:9092/bootstrap:"),
                          (": Failed", "[thrd:kafka-1:9092/bootstrap]: kafka-1:9092/bootstrap: Failed"),
                          (": Connect", "[thrd:kafka-1:9092/1]: kafka-1:9092/1: Connect to"))):
    pattern(f"librdkafka.cut_after_name.{_index}", LIBRDKAFKA, _needle,
            rf"{_NAME}:(?: Failed(?: to)?| Connect(?: to)?)?\s*$", _example)(_cut_after_name)


@pattern("librdkafka.resolve_continued", LIBRDKAFKA, "resolve '",
         r"(?<!Failed )(?<!Failed to )\b(?:to )?resolve '(?P<hp>[^']+)'(?::\s*(?P<why>.*))?",
         "to resolve 'kafka-1:9092': Name or service not known (after 2317ms in state CONNECT)")
def _resolve_continued(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield from resolve_failed(m, scan)


_CONNECT_CONTINUED = (rf"(?<!Connect )(?<!Connect to )(?<![\w#])(?:to )?ipv[46]#(?P<addr>{HOST}|{REDACTED}):(?P<port>\d{{1,5}}) "
                      r"failed: (?P<why>[^(]*)")


def _connect_continued(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield from connect_failed(m, scan)


for _family in ("ipv4#", "ipv6#"):
    pattern(f"librdkafka.connect_continued.{_family[:4]}", LIBRDKAFKA, _family, _CONNECT_CONTINUED,
            f"to {_family}10.0.0.5:9092 failed: Connection refused (after 0ms in state CONNECT)")(_connect_continued)


@pattern("librdkafka.resolve_cut_short", LIBRDKAFKA, "Failed to reso", rf"{_NAME}: Failed to reso(?:l(?:ve?)?)?\s*$",
         "%3|1677578524.581|FAIL|rdkafka#producer-1| [thrd:kafka-broker:9092/0]: kafka-broker:9092/0: Failed to resolv")
def _resolve_cut_short(m: re.Match[str], scan: ScanState) -> Iterator[Item]:
    yield RdBroker.find(m.string).sighting(RESOLVE, status="error",
                                           detail="Failed to resolve (the paste ends there: its reason is cut off)")
