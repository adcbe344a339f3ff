"""What the lab's set-up tools (``python -m kdiag.lab.certs``, ``python -m kdiag.lab.kdc``) share: a failed
command said in one line on stderr, with what the command itself wrote there, and exit status 1."""

from __future__ import annotations

import subprocess
import sys


def failed(error: OSError | subprocess.SubprocessError) -> int:
    """Print ``error: ...`` (and the failed command's stderr, if it wrote any) on stderr; return 1."""
    stderr = getattr(error, "stderr", None)
    detail = stderr.decode(errors="replace").strip() if isinstance(stderr, bytes) else ""
    print(f"error: {error}" + (f": {detail}" if detail else ""), file=sys.stderr)
    return 1
