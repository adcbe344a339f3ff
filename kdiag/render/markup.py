"""Markdown's own syntax, escaped where text is put into it (GitHub / GitLab flavoured).

The text has been scrubbed of secrets and made printable (``kdiag.render.safe``) before it gets
here, so escaping cannot hide a secret from the scrubber, and there is no line break left in it.
"""

from __future__ import annotations

import re

_PROPERTIES_LINE = re.compile(r"^\s*[A-Za-z0-9_.-]+\s*=")
_YAML_LINE = re.compile(r"^\s*(?:- \S|[A-Za-z0-9_.-]+:(?:\s|$))")


def inline_code(text: str) -> str:
    """Inline code, with a backtick fence longer than any run of backticks inside."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    ticks = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{ticks}{pad}{one_line(text)}{pad}{ticks}"


def table_cell(text: str) -> str:
    """One line, with the pipes that would end a table cell escaped."""
    return one_line(text).replace("|", "\\|")


def one_line(text: str) -> str:
    return " ".join(text.split("\n"))


def fence(body: str, language: str = "") -> str:
    """A fenced block whose fence is longer than any run of backticks in ``body``."""
    longest = max((len(run) for run in re.findall(r"`+", body)), default=0)
    ticks = "`" * max(3, longest + 1)
    return f"{ticks}{language}\n{body}\n{ticks}"


def fences(text: str) -> str:
    """Config text as fenced blocks: each run of blank-line-separated chunks in one language (the
    server.properties lines, the Docker environment lines) in its own block, to copy separately."""
    groups: list[tuple[str, list[str]]] = []
    for chunk in re.split(r"\n\s*\n", text.strip("\n")):
        language = _language(chunk)
        if groups and groups[-1][0] == language:
            groups[-1][1].append(chunk)
        else:
            groups.append((language, [chunk]))
    return "\n\n".join(fence("\n\n".join(chunks), language) for language, chunks in groups)


def _language(chunk: str) -> str:
    lines = [line for line in chunk.split("\n") if line.strip() and not line.lstrip().startswith("#")]
    if lines and all(_PROPERTIES_LINE.match(line) for line in lines):
        return "properties"
    if lines and all(_YAML_LINE.match(line) for line in lines):
        return "yaml"
    return ""
