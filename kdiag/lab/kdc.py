"""A real MIT Kerberos KDC for lab scenarios, and the Kerberos settings of the lab hosts that use it.

Debian's ``krb5-kdc`` (``krb5kdc``, ``kdb5_util``) and ``kadmin.local`` (``krb5-admin-server``; kadmind
itself never runs): the realm's database, its principals and their keytabs live in a directory of the
run's state directory, nothing under ``/etc/krb5kdc``. Lab use only: random keys, a stash file, no ACLs.

From the command line (a scenario's helper process and setup steps)::

    python -m kdiag.lab.kdc serve DIR --realm EXAMPLE.TEST --principal broker=kafka/kafka.example.test \\
        --principal alice=alice
    python -m kdiag.lab.kdc host DIR --realm EXAMPLE.TEST --kdc 203.0.113.88 [--rdns false] \\
        [--dns-canonicalize-hostname false] [--kinit alice]

``serve`` creates the realm (once), each principal with a random key and its keytab ``DIR/NAME.keytab``,
then runs ``krb5kdc`` in the foreground on port 88 (UDP and TCP). ``host`` runs inside a lab host: it
writes that namespace's ``/etc/krb5.conf`` (``/etc/netns/<ns>/krb5.conf``, which ``ip netns exec``
mounts for every later command there: the broker's JVM, kdiag, kcat), with the credentials cache in
``DIR/krb5cc_<ns>``, and with ``--kinit NAME`` gets NAME's ticket-granting ticket from its keytab, as a
user's ``kinit`` would.
"""

from __future__ import annotations

import argparse
import os
import secrets
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

from kdiag.lab.steptool import failed

KDC_PORT = 88
COMMAND_TIMEOUT = 30.0
NETNS_ETC = Path("/etc/netns")


def kdc_conf(directory: Path, realm: str) -> str:
    """The KDC's own profile (``KRB5_KDC_PROFILE``): its database, stash and log in ``directory``."""
    return f"""\
[kdcdefaults]
    kdc_ports = {KDC_PORT}
    kdc_tcp_ports = {KDC_PORT}

[realms]
    {realm} = {{
        database_name = {directory}/principal
        key_stash_file = {directory}/stash
        acl_file = {directory}/kadm5.acl
        max_life = 1d
        supported_enctypes = aes256-cts-hmac-sha1-96:normal aes128-cts-hmac-sha1-96:normal
    }}

[logging]
    kdc = STDERR
"""


def krb5_conf(realm: str, kdc: str, *, ccache: Path | None = None, rdns: str | None = None,
              canonicalize: str | None = None) -> str:
    """A client's ``/etc/krb5.conf``: ``rdns`` and ``dns_canonicalize_hostname`` left out take MIT's
    defaults (both true: the host name is canonicalised forward, then by reverse DNS)."""
    libdefaults = [f"default_realm = {realm}", "dns_lookup_kdc = false", "dns_lookup_realm = false",
                   "udp_preference_limit = 1"]
    if ccache is not None:
        libdefaults.append(f"default_ccache_name = FILE:{ccache}")
    if rdns is not None:
        libdefaults.append(f"rdns = {rdns}")
    if canonicalize is not None:
        libdefaults.append(f"dns_canonicalize_hostname = {canonicalize}")
    domain = realm.lower()
    return ("[libdefaults]\n" + "".join(f"    {line}\n" for line in libdefaults)
            + f"\n[realms]\n    {realm} = {{\n        kdc = {kdc}\n    }}\n"
            + f"\n[domain_realm]\n    .{domain} = {realm}\n    {domain} = {realm}\n")


def _run(argv: Sequence[str], env: dict[str, str]) -> None:
    subprocess.run(list(argv), check=True, capture_output=True, timeout=COMMAND_TIMEOUT, env={**os.environ, **env},
                   stdin=subprocess.DEVNULL)


def create_realm(directory: Path, realm: str, principals: dict[str, str]) -> dict[str, str]:
    """The realm's database in ``directory`` (made once), each principal and its keytab ``NAME.keytab``;
    returns the environment that points the KDC tools at it."""
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "kdc.conf").write_text(kdc_conf(directory, realm))
    (directory / "krb5.conf").write_text(krb5_conf(realm, f"127.0.0.1:{KDC_PORT}"))
    (directory / "kadm5.acl").write_text("")
    env = {"KRB5_KDC_PROFILE": str(directory / "kdc.conf"), "KRB5_CONFIG": str(directory / "krb5.conf")}
    if not (directory / "principal").exists():
        # The master key only protects the lab's database; it is stashed and never shown.
        _run(["kdb5_util", "create", "-s", "-r", realm, "-P", secrets.token_urlsafe(24)], env)
    for name, principal in principals.items():
        full = f"{principal}@{realm}"
        keytab = directory / f"{name}.keytab"
        if not keytab.exists():
            _run(["kadmin.local", "-r", realm, "-q", f"addprinc -randkey {full}"], env)
            _run(["kadmin.local", "-r", realm, "-q", f"ktadd -k {keytab} {full}"], env)
    return env


def serve(directory: Path, realm: str, principals: dict[str, str]) -> int:
    env = create_realm(directory, realm, principals)
    os.execvpe("krb5kdc", ["krb5kdc", "-n", "-r", realm], {**os.environ, **env})
    return 1  # not reached


def namespace_name() -> str:
    """The named network namespace this process runs in (``ip netns identify``)."""
    done = subprocess.run(["ip", "netns", "identify"], capture_output=True, text=True, timeout=COMMAND_TIMEOUT,
                          check=True)
    name = done.stdout.strip().split()[0] if done.stdout.strip() else ""
    if not name:
        raise OSError("not inside a named network namespace (run it with ip netns exec)")
    return name


def configure_host(directory: Path, realm: str, kdc: str, *, rdns: str | None, canonicalize: str | None,
                   kinit: str | None) -> Path:
    """This namespace's ``/etc/krb5.conf`` and, with ``kinit``, that principal's ticket in its cache."""
    ns = namespace_name()
    ccache = directory / f"krb5cc_{ns}"
    conf = NETNS_ETC / ns / "krb5.conf"
    conf.parent.mkdir(parents=True, exist_ok=True)
    conf.write_text(krb5_conf(realm, kdc, ccache=ccache, rdns=rdns, canonicalize=canonicalize))
    if kinit:
        # This process was started before the file existed, so ip netns exec did not mount it: name it.
        _run(["kinit", "-k", "-t", str(directory / f"{kinit}.keytab"), f"{kinit}@{realm}"],
             {"KRB5_CONFIG": str(conf), "KRB5CCNAME": f"FILE:{ccache}"})
    return conf


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m kdiag.lab.kdc", description="A lab MIT Kerberos KDC.")
    commands = parser.add_subparsers(dest="command", required=True)
    serve_parser = commands.add_parser("serve", help="create the realm and its principals, then run krb5kdc")
    serve_parser.add_argument("directory", type=Path)
    serve_parser.add_argument("--realm", required=True)
    serve_parser.add_argument("--principal", action="append", default=[], metavar="NAME=PRINCIPAL",
                              help="a principal (without @REALM) and the keytab NAME.keytab that holds its key")
    host_parser = commands.add_parser("host", help="this lab host's /etc/krb5.conf, and a ticket with --kinit")
    host_parser.add_argument("directory", type=Path)
    host_parser.add_argument("--realm", required=True)
    host_parser.add_argument("--kdc", required=True, help="the KDC's address")
    host_parser.add_argument("--rdns", choices=("true", "false"))
    host_parser.add_argument("--dns-canonicalize-hostname", choices=("true", "false", "fallback"))
    host_parser.add_argument("--kinit", metavar="NAME", help="get NAME's ticket from DIR/NAME.keytab")
    arguments = parser.parse_args(argv)
    try:
        if arguments.command == "serve":
            principals = dict(entry.partition("=")[::2] for entry in arguments.principal)
            if any(not name or not principal for name, principal in principals.items()):
                parser.error("each --principal is NAME=PRINCIPAL, e.g. broker=kafka/kafka.example.test")
            return serve(arguments.directory, arguments.realm, principals)
        configure_host(arguments.directory, arguments.realm, arguments.kdc, rdns=arguments.rdns,
                       canonicalize=arguments.dns_canonicalize_hostname, kinit=arguments.kinit)
        return 0
    except (OSError, subprocess.SubprocessError) as error:
        return failed(error)


if __name__ == "__main__":
    sys.exit(main())
