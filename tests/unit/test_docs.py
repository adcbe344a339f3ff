"""README is a newcomer's page that links to the rest; every page it and docs/ link to exists."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PAGES = [REPO / "README.md", REPO / "ARCHITECTURE.md", *sorted((REPO / "docs").glob("*.md"))]


@pytest.mark.parametrize("page", PAGES, ids=[str(page.relative_to(REPO)) for page in PAGES])
def test_every_relative_link_points_to_a_file(page: Path) -> None:
    targets = re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", page.read_text(encoding="utf-8"))
    assert [target for target in targets if not (page.parent / target).exists()] == []


def test_readme_stays_a_newcomers_page() -> None:
    """The two set-up commands first, then the problem, the three uses, and links: the contract's detail
    lives in docs/ (report.md, commands.md)."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert readme.index("./scripts/demo") < readme.index("## The problem kdiag solves") < readme.index("## Read on")
    assert len(readme.splitlines()) <= 120
    for moved in ("## Report schema additions", "## Finding ids added to the contract", "### Fleet tables"):
        assert moved not in readme
    for page in ("docs/commands.md", "docs/report.md", "docs/findings.md"):
        assert f"]({page})" in readme
