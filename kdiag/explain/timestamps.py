"""When a line was written, from the timestamp its logger put at its start, in seconds (``time_of``): enough to tell
lines minutes apart from lines milliseconds apart, never a calendar. The forms Kafka clients' loggers write:

- ISO 8601 and log4j's ``2020-05-19 08:49:06,555`` / ``2026-11-26T10:00:00.000Z`` (Java, Python's logging, zap,
  kafkajs's JSON ``"timestamp"``), Go's log ``2026/11/26 10:00:00``, syslog's ``May  7 09:30:41``;
- librdkafka's ``%3|1557221441.432|FAIL|...`` (seconds since the epoch).

Lines of one paste share one form; a form that names no date (syslog's) is compared within the paste only, as every
caller does. Only the head of the line is read (``HEAD``), so a timestamp inside the message is not the line's.
"""

from __future__ import annotations

import re
from datetime import datetime

HEAD = 80
_MONTHS = {m: i for i, m in enumerate(("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov",
                                       "Dec"), start=1)}
_DATED = re.compile(r"(?P<y>\d{4})[-/](?P<mo>\d\d)[-/](?P<d>\d\d)[ T](?P<h>\d\d):(?P<mi>\d\d):(?P<s>\d\d)"
                    r"(?:[.,](?P<f>\d{1,9}))?")
_SYSLOG = re.compile(r"\b(?P<mon>Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) +(?P<d>\d{1,2}) "
                     r"(?P<h>\d\d):(?P<mi>\d\d):(?P<s>\d\d)\b")
_EPOCH = re.compile(r"%\d\|(?P<t>1\d{9}(?:\.\d{1,6})?)\|")


def time_of(line: str) -> float | None:
    """The line's own timestamp in seconds, or None when its head holds none."""
    head = line[:HEAD]
    epoch = _EPOCH.search(head)
    if epoch is not None:
        return float(epoch.group("t"))
    dated = _DATED.search(head)
    if dated is not None:
        try:
            when = datetime(int(dated.group("y")), int(dated.group("mo")), int(dated.group("d")), int(dated.group("h")),
                            int(dated.group("mi")), int(dated.group("s")))
        except ValueError:
            return None
        return when.timestamp() + float(f"0.{dated.group('f') or 0}")
    syslog = _SYSLOG.search(head)
    if syslog is not None:
        day = (_MONTHS[syslog.group("mon")] * 31 + int(syslog.group("d"))) * 86400
        return day + int(syslog.group("h")) * 3600 + int(syslog.group("mi")) * 60 + int(syslog.group("s"))
    return None
