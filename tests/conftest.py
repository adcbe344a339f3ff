"""Suite-wide rules.

Integration tests run inside the sandbox network namespace (``python -m kdiag.lab.sandbox --``,
which ``scripts/test`` uses): there, every name that is not in a hosts file gets NXDOMAIN from a
private resolver, so no test ever sends a query or a packet beyond this machine.
"""

from __future__ import annotations

import pytest

from kdiag.lab.sandbox import in_sandbox


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    integration = [item for item in items if "/tests/integration/" in str(item.path)]
    if integration and not in_sandbox():
        raise pytest.UsageError(
            "integration tests run inside the sandbox namespace, so that no DNS query or packet leaves this "
            "machine: run scripts/test, or: python -m kdiag.lab.sandbox -- python -m pytest tests/integration"
        )
