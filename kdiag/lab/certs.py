"""TLS certificates and SASL logins for lab brokers, and the listener settings that use them.

A private CA made with ``openssl``, server certificates it signs (each with its key and chain in one PEM
keystore, which Kafka reads with ``ssl.keystore.type=PEM``), and the ``listener.name.<listener>.*``
overrides of a :class:`~kdiag.lab.kafka.BrokerSpec` for an SSL listener and for a SASL one. Lab use
only: unencrypted keys, two-day certificates, passwords in the JAAS lines.

From the command line (a scenario's ``before-brokers`` setup step)::

    python -m kdiag.lab.certs DIR [--ca-name NAME] NAME=SAN [NAME=SAN ...]

writes ``DIR/ca.pem`` (what clients trust: ``ssl.ca.location``) and ``DIR/NAME-keystore.pem`` for each
server certificate, e.g. ``broker=DNS:kafka.example.test,IP:192.0.2.20``.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

from kdiag.lab.steptool import failed

CA_NAME = "kdiag lab CA"
OPENSSL_TIMEOUT = 60.0
PLAIN_USERS = {"admin": "admin-secret", "alice": "alice-secret"}
"""The users a :func:`sasl_listener` accepts with PLAIN (``admin`` is also the broker's own login)."""


# --- certificates --------------------------------------------------------------------------------


def openssl(*args: str, cwd: Path, env: dict[str, str] | None = None) -> None:
    """Run ``openssl``; ``env`` adds variables (a password given as ``env:NAME``, never on the command line)."""
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True, timeout=OPENSSL_TIMEOUT,
                   env={**os.environ, **env} if env else None)


def make_ca(directory: Path, name: str = CA_NAME) -> Path:
    """A self-signed CA in ``directory`` (``ca.pem``, ``ca.key``); returns the certificate clients trust."""
    directory.mkdir(parents=True, exist_ok=True)
    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.pem", "-days", "2",
            "-subj", f"/CN={name}", "-addext", "basicConstraints=critical,CA:TRUE",
            "-addext", "keyUsage=critical,keyCertSign,cRLSign", cwd=directory)
    return directory / "ca.pem"


def issue(directory: Path, name: str, *, san: str | None = None, usage: str = "serverAuth") -> Path:
    """A key and a certificate for ``san`` signed by the CA in ``directory``, as one PEM keystore file
    (``NAME.key`` and ``NAME.pem`` beside it). ``usage`` is the extended key usage: ``serverAuth`` for a
    broker, ``clientAuth`` for a client certificate (a Java broker refuses a client certificate without it)."""
    openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", f"{name}.key", "-out", f"{name}.csr",
            "-subj", f"/CN={name}", cwd=directory)
    extensions = f"subjectAltName={san}\n" if san else ""
    (directory / f"{name}.ext").write_text(f"{extensions}extendedKeyUsage={usage}\nbasicConstraints=CA:FALSE\n")
    openssl("x509", "-req", "-in", f"{name}.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
            "-out", f"{name}.pem", "-days", "2", "-extfile", f"{name}.ext", cwd=directory)
    keystore = directory / f"{name}-keystore.pem"
    keystore.write_text((directory / f"{name}.key").read_text() + (directory / f"{name}.pem").read_text()
                        + (directory / "ca.pem").read_text())
    return keystore


def pkcs12_keystore(directory: Path, name: str, password: str) -> Path:
    """``NAME.p12``: the key and certificate :func:`issue` made for ``name``, with the CA as its chain, as
    a PKCS#12 keystore (``ssl.keystore.location``) protected by ``password``."""
    openssl("pkcs12", "-export", "-in", f"{name}.pem", "-inkey", f"{name}.key", "-certfile", "ca.pem",
            "-name", name, "-out", f"{name}.p12", "-passout", "env:KDIAG_STORE_PASSWORD", cwd=directory,
            env={"KDIAG_STORE_PASSWORD": password})
    return directory / f"{name}.p12"


def pkcs12_truststore(directory: Path, password: str, name: str = "truststore") -> Path:
    """``NAME.p12``: the CA certificate of ``directory`` alone, as a PKCS#12 truststore
    (``ssl.truststore.location``) protected by ``password``."""
    openssl("pkcs12", "-export", "-nokeys", "-in", "ca.pem", "-name", "ca", "-out", f"{name}.p12",
            "-passout", "env:KDIAG_STORE_PASSWORD", cwd=directory, env={"KDIAG_STORE_PASSWORD": password})
    return directory / f"{name}.p12"


# --- listener settings ---------------------------------------------------------------------------


def pem_keystore(listener: str, path: Path | str) -> dict[str, str]:
    """The overrides that give SSL listener ``listener`` the PEM keystore at ``path``."""
    prefix = f"listener.name.{listener.lower()}"
    return {f"{prefix}.ssl.keystore.type": "PEM", f"{prefix}.ssl.keystore.location": str(path)}


def client_auth_listener(listener: str, ca: Path | str, *, client_auth: str = "required",
                         protocols: str | None = None) -> dict[str, str]:
    """The overrides that make SSL listener ``listener`` ask for client certificates (``ssl.client.auth``:
    ``required`` or ``requested``) and trust the ones the CA at ``ca`` signed; ``protocols`` (e.g.
    ``TLSv1.2``) limits the TLS versions it speaks."""
    prefix = f"listener.name.{listener.lower()}"
    settings = {f"{prefix}.ssl.client.auth": client_auth, f"{prefix}.ssl.truststore.type": "PEM",
                f"{prefix}.ssl.truststore.location": str(ca)}
    if protocols:
        settings[f"{prefix}.ssl.enabled.protocols"] = protocols
        settings[f"{prefix}.ssl.protocol"] = protocols.split(",")[-1]
    return settings


def jaas(module: str, options: str = "") -> str:
    return f"org.apache.kafka.common.security.{module} required{options};"


def sasl_listener(listener: str, *, oauthbearer: bool = False,
                  scram: Sequence[str] = ("SCRAM-SHA-512",)) -> dict[str, str]:
    """The overrides that enable PLAIN (:data:`PLAIN_USERS`) and the ``scram`` mechanisms (SCRAM-SHA-512 unless
    told; users made with the Admin API) on SASL listener ``listener``, and OAUTHBEARER with unsecured JWTs if
    asked (a lab setting, never production)."""
    prefix = f"listener.name.{listener.lower()}"
    users = "".join(f' user_{user}="{password}"' for user, password in PLAIN_USERS.items())
    settings = {
        f"{prefix}.sasl.enabled.mechanisms": ",".join(("PLAIN", *scram, *(("OAUTHBEARER",) if oauthbearer else ()))),
        f"{prefix}.plain.sasl.jaas.config": jaas("plain.PlainLoginModule",
                                                 f' username="admin" password="{PLAIN_USERS["admin"]}"{users}'),
        **{f"{prefix}.{mechanism.lower()}.sasl.jaas.config": jaas("scram.ScramLoginModule") for mechanism in scram},
    }
    if oauthbearer:
        settings[f"{prefix}.oauthbearer.sasl.jaas.config"] = jaas("oauthbearer.OAuthBearerLoginModule")
    return settings


# --- command line --------------------------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m kdiag.lab.certs",
                                     description="Make a lab CA and server certificates it signs.")
    parser.add_argument("directory", type=Path, help="where ca.pem and NAME-keystore.pem go")
    parser.add_argument("--ca-name", default=CA_NAME, help=f"the CA's common name (default: {CA_NAME})")
    parser.add_argument("servers", nargs="*", metavar="NAME=SAN",
                        help="a certificate NAME-keystore.pem for subjectAltName SAN, e.g. "
                             "broker=DNS:kafka.example.test")
    arguments = parser.parse_args(argv)
    servers = [server.partition("=") for server in arguments.servers]
    if any(not name or not san for name, _, san in servers):
        parser.error("each server is NAME=SAN, e.g. broker=DNS:kafka.example.test")
    try:
        make_ca(arguments.directory, arguments.ca_name)
        for name, _, san in servers:
            issue(arguments.directory, name, san=san)
    except (OSError, subprocess.SubprocessError) as error:
        return failed(error)
    return 0


if __name__ == "__main__":
    sys.exit(main())
