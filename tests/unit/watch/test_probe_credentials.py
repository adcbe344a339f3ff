"""``/probe?target=`` cannot be used to collect the sidecar's credentials or to scan ports.

The reproduction of issue 15: a sidecar configured with the application's SASL PLAIN, SCRAM or mTLS
settings is asked to probe a peer that plays Kafka far enough to be sent a login (``CapturePeer``).
That peer receives no secret; the same peer standing at the watched cluster's own address does
receive the login, which shows the capture would see one. A target outside the watched cluster and
the allow-list is refused (403) before any connection; a named credential set goes only to the
targets it is bound to; the listener scan runs from /probe only when allowed.
"""

from __future__ import annotations

import socket
import ssl
from pathlib import Path

import pytest

from kdiag.lab.kafka import free_ports
from probes.listeners import candidate_ports
from tests.unit.watch.capture_peer import CapturePeer
from tests.unit.watch.sidecar import Sidecar

USER, PASSWORD = "probe-principal", "Pa55-w0rd-of-the-app"


def sasl(mechanism: str) -> dict[str, str]:
    return {"KDIAG_CLIENT_SECURITY_PROTOCOL": "SASL_PLAINTEXT", "KDIAG_CLIENT_SASL_MECHANISMS": mechanism,
            "KDIAG_CLIENT_SASL_USERNAME": USER, "KDIAG_CLIENT_SASL_PASSWORD": PASSWORD}


def metric(body: str, name: str) -> float:
    line = next(line for line in body.splitlines() if line.startswith(name + " "))
    return float(line.split()[1])


@pytest.mark.parametrize("mechanism", ["PLAIN", "SCRAM-SHA-512"])
def test_a_probed_stranger_receives_no_sasl_secret_while_the_watched_cluster_does(mechanism: str) -> None:
    with CapturePeer() as cluster, CapturePeer() as stranger:
        with Sidecar([cluster.endpoint], environ=sasl(mechanism)) as sidecar:
            status, body = sidecar.get(f"/probe?target={stranger.endpoint}")
            assert status == 200 and metric(body, "kdiag_probe_success") == 0
            assert stranger.connections >= 1  # it was probed: same host as the cluster, so allowed
            assert sidecar.get(f"/probe?target={cluster.endpoint}")[0] == 200
        captured = stranger.captured()
        assert USER.encode() not in captured and PASSWORD.encode() not in captured
        assert b"\x00\x11" not in captured[4:6]  # no SaslHandshake was even asked for
        assert USER.encode() in cluster.captured()  # the login goes where it belongs, and the capture sees it
        if mechanism == "PLAIN":
            assert PASSWORD.encode() in cluster.captured()


def tls_peer(pki: Path) -> CapturePeer:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(pki / "server.pem", pki / "server.key")
    context.load_verify_locations(pki / "ca.pem")
    context.verify_mode = ssl.CERT_OPTIONAL  # asks for a client certificate, takes one signed by the CA
    return CapturePeer(tls=context)


def test_a_probed_stranger_is_shown_no_client_certificate_or_key(pki: Path) -> None:
    environ = {"KDIAG_CLIENT_SECURITY_PROTOCOL": "SSL", "KDIAG_CLIENT_SSL_CA_LOCATION": str(pki / "ca.pem"),
               "KDIAG_CLIENT_SSL_CERTIFICATE_LOCATION": str(pki / "client.pem"),
               "KDIAG_CLIENT_SSL_KEY_LOCATION": str(pki / "client.key")}
    key = (pki / "client.key").read_text().splitlines()[1].encode()  # a line of the key's base64
    with tls_peer(pki) as cluster, tls_peer(pki) as stranger:
        with Sidecar([cluster.endpoint], environ=environ) as sidecar:
            assert sidecar.get(f"/probe?target={stranger.endpoint}")[0] == 200
            assert sidecar.get(f"/probe?target={cluster.endpoint}")[0] == 200
        assert stranger.connections >= 1 and stranger.client_certificates == []
        assert key not in stranger.captured()
        assert cluster.client_certificates  # the watched cluster is shown the certificate, and the peer sees it


def test_a_target_outside_the_allow_list_is_403_and_no_connection_is_started() -> None:
    with CapturePeer() as cluster, CapturePeer("127.0.0.2") as elsewhere:
        with Sidecar([cluster.endpoint], environ=sasl("PLAIN")) as sidecar:
            status, body = sidecar.get(f"/probe?target={elsewhere.endpoint}")
            assert status == 403 and "--probe-allow" in body
            assert sidecar.get("/probe?target=kafka.attacker.example:9092")[0] == 403
            assert sidecar.get(f"/probe?target={cluster.endpoint},{elsewhere.endpoint}")[0] == 403
            assert sidecar.get("/probe?target=no-port:x")[0] == 400
            scraped = sidecar.get("/metrics")[1]  # an attempt to use the sidecar as a prober shows on a graph
            assert metric(scraped, 'kdiag_probe_requests_total{answer="forbidden"}') == 3
            assert metric(scraped, 'kdiag_probe_requests_total{answer="bad_request"}') == 1
            assert metric(scraped, 'kdiag_probe_requests_total{answer="probed"}') == 0
        assert elsewhere.connections == 0  # answered before any connection: nothing was ever accepted
        with Sidecar([cluster.endpoint, "--probe-allow", "127.0.0.2/32"], environ=sasl("PLAIN")) as sidecar:
            assert sidecar.get(f"/probe?target={elsewhere.endpoint}")[0] == 200
        assert elsewhere.connections >= 1 and PASSWORD.encode() not in elsewhere.captured()


def test_a_named_credential_set_goes_only_to_the_targets_it_is_bound_to() -> None:
    other = {"KDIAG_CRED_STAGING_SECURITY_PROTOCOL": "SASL_PLAINTEXT", "KDIAG_CRED_STAGING_SASL_MECHANISMS": "PLAIN",
             "KDIAG_CRED_STAGING_SASL_USERNAME": "staging-user", "KDIAG_CRED_STAGING_SASL_PASSWORD": "staging-Secret"}
    with CapturePeer() as cluster, CapturePeer("127.0.0.2") as staging, CapturePeer("127.0.0.3") as third:
        argv = [cluster.endpoint, "--probe-credentials", f"staging={staging.endpoint}", "--probe-allow", "127.0.0.3"]
        with Sidecar(argv, environ={**sasl("PLAIN"), **other}) as sidecar:
            for peer in (staging, third, cluster):
                assert sidecar.get(f"/probe?target={peer.endpoint}")[0] == 200
            assert "staging-Secret" not in sidecar.env.stderr.getvalue()
    assert b"staging-Secret" in staging.captured() and PASSWORD.encode() not in staging.captured()
    assert b"staging-Secret" not in third.captured() and PASSWORD.encode() not in third.captured()
    assert b"staging-Secret" not in cluster.captured() and PASSWORD.encode() in cluster.captured()


def test_the_listener_scan_runs_from_probe_only_when_allowed() -> None:
    [refused] = free_ports(1, host="127.0.0.4")
    with socket.socket() as closed:
        closed.bind(("127.0.0.4", refused))  # bound, not listening: the target refuses
        neighbour = next(p for p in candidate_ports(refused) if _bindable("127.0.0.4", p))
        with CapturePeer() as cluster, CapturePeer("127.0.0.4", neighbour) as scanned:
            with Sidecar([cluster.endpoint, "--probe-allow", "127.0.0.4"]) as sidecar:
                assert sidecar.get(f"/probe?target=127.0.0.4:{refused}")[0] == 200
            assert scanned.connections == 0
            with Sidecar([cluster.endpoint, "--probe-allow", "127.0.0.4", "--probe-listener-scan"]) as sidecar:
                assert sidecar.get(f"/probe?target=127.0.0.4:{refused}")[0] == 200
            assert scanned.connections >= 1


def _bindable(host: str, port: int) -> bool:
    with socket.socket() as sock:
        try:
            sock.bind((host, port))
        except OSError:
            return False
        return True
