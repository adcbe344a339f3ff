"""report.html rendered in headless Chromium (Debian's ``chromium``): the charts draw, offline."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.kdiag_cli import KdiagRun

pytestmark = pytest.mark.timeout(1800)  # the session's Spark run happens in the first test that asks for it

CHROMIUM_TIMEOUT = 180


def _dom(page: Path) -> str:
    chromium = shutil.which("chromium")
    assert chromium, "Debian's chromium is not installed (scripts/setup installs it)"
    done = subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                           "--dump-dom", "--virtual-time-budget=30000", page.as_uri()],
                          capture_output=True, text=True, timeout=CHROMIUM_TIMEOUT)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def test_the_html_report_draws_its_three_charts_in_headless_chromium(local_run: tuple[KdiagRun, Path]) -> None:
    _, out = local_run
    dom = _dom(out / "report.html")
    assert 'data-charts-drawn="3"' in dom, re.findall(r'data-charts-error="[^"]*"', dom)
    assert dom.count('class="main-svg"') >= 3  # plotly's SVG layers, one set per chart
    for chart in ("timeline", "heatmap", "latency"):
        assert re.search(rf'<div id="{chart}"[^>]*class="[^"]*js-plotly-plot', dom), chart


def test_the_html_report_fetches_nothing_from_the_network(local_run: tuple[KdiagRun, Path]) -> None:
    _, out = local_run
    page = (out / "report.html").read_text(encoding="utf-8")
    assert not re.search(r'<(script|link|img)[^>]+(src|href)=["\']?(https?:)?//', page)
    assert "default-src 'none'" in page  # the page's CSP forbids any fetch, so a slip would not draw
