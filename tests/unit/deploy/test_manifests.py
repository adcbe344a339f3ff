"""deploy/kubernetes and deploy/compose, checked offline: the files parse, and the fields that make
kdiag a restricted-pod sidecar are there and agree with the image (Dockerfile) and kdiag watch's
options (every KDIAG_* variable set is one kdiag watch reads)."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from kdiag.commands.watch import ENVIRONMENT
from kdiag.credentials import CLIENT_PREFIX

REPO = Path(__file__).resolve().parents[3]
POD = REPO / "deploy" / "kubernetes" / "pod.yaml"
COMPOSE = REPO / "deploy" / "compose" / "compose.yaml"
DOCKERFILE = REPO / "Dockerfile"
UID = 10001


def documents() -> dict[str, dict]:
    return {doc["kind"]: doc for doc in yaml.safe_load_all(POD.read_text())}


def sidecar() -> dict:
    return next(c for c in documents()["Pod"]["spec"]["containers"] if c["name"] == "kdiag")


def dockerfile_instruction(name: str) -> str:
    return re.search(rf"^{name} (.+)$", DOCKERFILE.read_text(), re.M).group(1).strip()


def test_the_image_runs_kdiag_watch_as_the_non_root_user_the_manifests_name():
    assert dockerfile_instruction("USER") == f"{UID}:{UID}"
    assert dockerfile_instruction("ENTRYPOINT") == '["kdiag"]'
    assert dockerfile_instruction("CMD") == '["watch"]'
    assert "9108" in dockerfile_instruction("EXPOSE")


def test_the_namespace_enforces_the_restricted_pod_security_standard():
    labels = documents()["Namespace"]["metadata"]["labels"]
    assert labels["pod-security.kubernetes.io/enforce"] == "restricted"


def test_every_container_meets_the_restricted_standard():
    pod = documents()["Pod"]["spec"]
    assert pod["securityContext"]["runAsNonRoot"] is True
    assert pod["securityContext"]["seccompProfile"]["type"] == "RuntimeDefault"
    for container in pod["containers"]:
        context = container["securityContext"]
        assert context["allowPrivilegeEscalation"] is False, container["name"]
        assert context["readOnlyRootFilesystem"] is True, container["name"]
        assert context["capabilities"] == {"drop": ["ALL"]}, container["name"]
    assert "hostNetwork" not in pod and "hostPID" not in pod
    assert all(set(volume) & {"emptyDir", "secret"} for volume in pod["volumes"])  # no hostPath


def test_the_sidecar_runs_as_the_images_user_with_its_state_on_an_emptydir():
    container = sidecar()
    context = container["securityContext"]
    assert context["runAsNonRoot"] is True and context["runAsUser"] == UID and context["runAsGroup"] == UID
    volumes = {v["name"]: v for v in documents()["Pod"]["spec"]["volumes"]}
    mounts = {m["mountPath"]: volumes[m["name"]] for m in container["volumeMounts"]}
    assert "emptyDir" in mounts["/var/lib/kdiag"] and "emptyDir" in mounts["/tmp"]
    env = {e["name"]: e.get("value") for e in container["env"]}
    for variable in ("KDIAG_REPORT_DIR", "KDIAG_SPOOL_DIR"):
        assert env[variable].startswith("/var/lib/kdiag/"), variable  # the only writable place


def test_the_sidecar_is_probed_on_livez_and_readyz_at_its_metrics_port():
    container = sidecar()
    [port] = container["ports"]
    assert port["containerPort"] == 9108 and port["name"] == "kdiag-metrics"
    assert container["livenessProbe"]["httpGet"] == {"path": "/livez", "port": "kdiag-metrics"}
    assert container["readinessProbe"]["httpGet"] == {"path": "/readyz", "port": "kdiag-metrics"}
    env = {e["name"]: e.get("value") for e in container["env"]}
    assert env["KDIAG_LISTEN"].endswith(":9108")
    assert env["KDIAG_READY_WHEN"] == "probed"  # a Kafka hiccup must not pull the app from its Service


def test_the_sidecar_listens_on_the_pod_ip_not_every_address():
    names = [e["name"] for e in sidecar()["env"]]
    env = {e["name"]: e for e in sidecar()["env"]}
    assert env["KDIAG_LISTEN"]["value"] == "$(POD_IP):9108"
    assert env["POD_IP"]["valueFrom"] == {"fieldRef": {"fieldPath": "status.podIP"}}
    assert names.index("POD_IP") < names.index("KDIAG_LISTEN")  # Kubernetes expands only earlier variables


def test_the_network_policy_admits_the_metrics_port_from_the_monitoring_namespace_only():
    policy = documents()["NetworkPolicy"]
    pod = documents()["Pod"]
    assert policy["metadata"]["namespace"] == pod["metadata"]["namespace"]
    assert policy["spec"]["podSelector"]["matchLabels"].items() <= pod["metadata"]["labels"].items()
    assert "Ingress" in policy["spec"]["policyTypes"]
    named = {p["name"]: p["containerPort"] for c in pod["spec"]["containers"] for p in c.get("ports", ())}

    def admits_metrics(rule: dict) -> bool:  # a rule without ports admits every port
        ports = [named.get(p["port"], p["port"]) for p in rule.get("ports", [{"port": 9108}])]
        return 9108 in ports

    rules = [rule for rule in policy["spec"]["ingress"] if admits_metrics(rule)]
    assert len(rules) == 1 and rules[0]["from"] == [
        {"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "monitoring"}}}]
    assert all(rule.get("ports") for rule in policy["spec"]["ingress"])  # no rule admits every port


def test_the_sidecar_is_configured_by_variables_kdiag_watch_reads_and_no_secret_is_inline():
    container = sidecar()
    assert container.get("args", ["watch"]) == ["watch"]
    known = set(ENVIRONMENT.values())
    for variable in container["env"]:
        name = variable["name"]
        if name.startswith("KDIAG_"):
            assert name in known or name.startswith(CLIENT_PREFIX), name
        assert "PASSWORD" not in name or name.endswith("_FILE"), name
    secret_files = [e["value"] for e in container["env"] if e["name"].endswith("_FILE")]
    mounts = [m["mountPath"] for m in container["volumeMounts"] if m.get("readOnly")]
    assert secret_files and all(any(f.startswith(m + "/") for m in mounts) for f in secret_files)


def test_the_emptydir_holds_what_kdiag_may_write_there():
    env = {e["name"]: e.get("value") for e in sidecar()["env"]}
    volumes = {v["name"]: v for v in documents()["Pod"]["spec"]["volumes"]}
    limit = mebibytes(volumes["kdiag-state"]["emptyDir"]["sizeLimit"])
    written = (mebibytes(env["KDIAG_REPORT_DIR_MAX_BYTES"]) * int(env["KDIAG_REPORT_DIR_MAX_FILES"])
               + mebibytes(env["KDIAG_SPOOL_MAX_BYTES"]))
    assert written < limit


def mebibytes(text: str) -> int:
    return int(re.fullmatch(r"(\d+)MiB?", text).group(1))


def test_the_compose_file_is_the_seeds_kafka0_with_a_restricted_kdiag_beside_it():
    services = yaml.safe_load(COMPOSE.read_text())["services"]
    kafka0 = services["kafka0"]["environment"]
    assert kafka0["KAFKA_ADVERTISED_LISTENERS"] == "LISTENER_BOB://kafka0:29092,LISTENER_FRED://localhost:9092"
    assert kafka0["KAFKA_LISTENER_SECURITY_PROTOCOL_MAP"] == "LISTENER_BOB:PLAINTEXT,LISTENER_FRED:PLAINTEXT"
    known = set(ENVIRONMENT.values())
    for name in ("kdiag", "kdiag-fred"):
        kdiag = services[name]
        assert kdiag["image"] == "localhost/kdiag:latest" and kdiag["command"] == ["watch"]
        assert kdiag["user"] == f"{UID}:{UID}" and kdiag["read_only"] is True and kdiag["cap_drop"] == ["ALL"]
        assert "kafka0" in kdiag["depends_on"]
        assert set(kdiag["environment"]) <= known
    assert services["kdiag"]["environment"]["KDIAG_BOOTSTRAP"] == "kafka0:29092"  # BOB: works from containers
    assert services["kdiag-fred"]["environment"]["KDIAG_BOOTSTRAP"] == "kafka0:9092"  # FRED: ADVERTISED_LOOPBACK
    assert "/readyz" in " ".join(services["kdiag"]["healthcheck"]["test"])
    assert services["kdiag"]["build"]["context"] == "../.."
    assert (COMPOSE.parent / services["kdiag"]["build"]["context"] / "Dockerfile").resolve() == DOCKERFILE
