"""Failure mode #20, MSK's port families: what kcat prints on the wrong port, and ``kdiag explain`` on it.

``msk-wrong-port`` (:mod:`kdiag.lab.scenarios.msk`) comes up once: an MSK-named broker with TLS on 9094 and
SASL/SCRAM over TLS on 9096. From the client's machine, kcat takes the TLS bootstrap string without TLS, and
with SCRAM settings; ``kdiag explain`` on its real lines must name the same finding as ``kdiag bootstrap``
from those vantages, with MSK's port family and the right port in the fix.
``KDIAG_CAPTURE_FIXTURES=1`` writes the pastes to ``tests/fixtures/client_logs/msk.*.log``. Needs root; never skips.
"""

from __future__ import annotations

import os
import shlex
from pathlib import Path

import pytest

from kdiag.explain.engine import explain_text
from kdiag.lab.scenarios.msk import BROKER, MSK_WRONG_PORT

pytestmark = [pytest.mark.netns, pytest.mark.broker]

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "client_logs"
KCAT_SECONDS = 30.0
TLS_STRING = f"{BROKER}:9094"

CAPTURES = {  # fixture name: (kcat settings, the finding, what its fix must say)
    "msk.plaintext_on_tls_port.kcat_list": ((), "TLS_EXPECTED", "Port 9094 is TLS, inside the VPC"),
    "msk.scram_on_tls_port.kcat_list": (("security.protocol=SASL_SSL", "sasl.mechanisms=SCRAM-SHA-512",
                                          "sasl.username=alice", "sasl.password=alice-secret", "ssl.ca.location=CA"),
                                         "SASL_MECHANISM_MISMATCH", "9096 SASL/SCRAM"),
}


@pytest.mark.parametrize("name", sorted(CAPTURES))
def test_kcat_on_msks_tls_port_and_explain_names_the_port_family(lab, name) -> None:
    settings, expected, fix = CAPTURES[name]
    live = lab(MSK_WRONG_PORT.name)
    ca = str(live.live.state_dir / "pki" / "ca.pem")
    argv = ["kcat", "-b", TLS_STRING, "-L", "-m", "5"]
    for setting in settings:
        argv += ["-X", setting.replace("=CA", f"={ca}")]
    done = live.live.run("client", argv, timeout=KCAT_SECONDS)
    paste = f"$ {shlex.join(argv)}\n{done.stdout}{done.stderr}"
    if os.environ.get("KDIAG_CAPTURE_FIXTURES"):
        FIXTURES.mkdir(parents=True, exist_ok=True)
        (FIXTURES / f"{name}.log").write_text(paste)
    assert done.returncode != 0, paste
    findings = explain_text(paste).findings
    assert findings and findings[0].id == expected, (paste, findings)
    assert "Assumed Amazon MSK" in findings[0].fix and fix in findings[0].fix, findings[0].fix
    assert "alice-secret" not in "".join((findings[0].title, findings[0].explanation, findings[0].fix))
