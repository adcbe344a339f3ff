"""``kdiag watch`` run in process, as the command line builds it, for tests of its endpoints.

``Sidecar(["127.0.0.1:9", "--probe-allow", "..."], environ={...})`` parses the arguments and the
``KDIAG_*`` environment exactly as ``kdiag watch`` does (``configure``), then runs ``start`` on a thread
until the ``with`` block ends; ``get`` asks its endpoints (over TLS with ``context=``).
"""

from __future__ import annotations

import base64
import io
import ssl
import threading
import time
import urllib.error
import urllib.request

import typer.main

from kdiag.commands.watch import WatchArguments, configure, start, watch
from kdiag.environment import Environment
from kdiag.lab.kafka import free_ports


def arguments(argv: list[str], environ: dict[str, str]) -> WatchArguments:
    """``argv`` and ``environ`` as typer gives them to ``watch`` (options from KDIAG_* variables too)."""
    command = typer.main.get_command(_app())
    context = command.make_context("watch", list(argv), default_map=None)
    return WatchArguments(**{k: v for k, v in context.params.items() if k not in ("debug",)})


def _app() -> typer.Typer:
    app = typer.Typer()
    app.command()(watch)
    return app


class Sidecar:
    def __init__(self, argv: list[str], *, environ: dict[str, str] | None = None,
                 ready_context: ssl.SSLContext | None = None) -> None:
        self.ready_context = ready_context or _UNVERIFIED
        self.port = free_ports(1)[0]
        self.environ = dict(environ or {})  # KDIAG_CLIENT_* and KDIAG_CRED_*; options come from argv
        self.argv = [*argv, "--listen", f"127.0.0.1:{self.port}", "--interval", "1h"]
        self.env = Environment(stdout=io.StringIO(), stderr=io.StringIO())
        self.stop = threading.Event()
        self.config = configure(arguments(self.argv, self.environ), env=self.env, environ=self.environ)
        self.scheme = "https" if self.config.web.tls is not None else "http"
        self._thread = threading.Thread(target=start, args=(self.config,),
                                        kwargs={"env": self.env, "stop": self.stop, "exit_on_signal": False},
                                        daemon=True)

    def __enter__(self) -> Sidecar:
        self._thread.start()
        deadline = time.monotonic() + 10
        while self._status("/livez") != 200:
            assert self._thread.is_alive(), self.env.stderr.getvalue()
            assert time.monotonic() < deadline, "kdiag watch did not answer /livez within 10 s"
            time.sleep(0.02)
        return self

    def __exit__(self, *_exc: object) -> None:
        self.stop.set()
        self._thread.join(timeout=10)

    def _status(self, path: str) -> int | None:
        try:
            return self.get(path, context=self.ready_context)[0]
        except OSError:
            return None

    def get(self, path: str, *, context: ssl.SSLContext | None = None, user: str | None = None,
            password: str = "", timeout: float = 20) -> tuple[int, str]:
        request = urllib.request.Request(f"{self.scheme}://127.0.0.1:{self.port}{path}")
        if user is not None:
            request.add_header("Authorization", "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode())
        try:
            with urllib.request.urlopen(request, timeout=timeout, context=context) as answer:
                return answer.status, answer.read().decode()
        except urllib.error.HTTPError as exc:
            return exc.code, exc.read().decode()


_UNVERIFIED = ssl._create_unverified_context()  # noqa: S323 - only to see that the server is up

