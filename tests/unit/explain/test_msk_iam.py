"""An MSK IAM login denied: the words are IAM's (``[request id]: Access denied``, aws-msk-iam-auth's answer through the
Java client's SaslAuthenticationException or Selector's ``Failed authentication with``), there is no password to
check: the finding names the IAM identity and its policy, and the confirm command the IAM listener (9098, SASL_SSL)."""

from __future__ import annotations

import pytest

from tests.unit.explain.helpers import explained, only

HOST = "b-2.orders.a1b2c3.c4.kafka.eu-west-1.amazonaws.com"


@pytest.mark.parametrize("paste", [
    f"INFO [Consumer clientId=c-1, groupId=g] Failed authentication with {HOST}/10.12.4.77 "
    "([5f0c2d9e-1b7a-4c3e-9d21-7e6a0b4f8c11]: Access denied) (org.apache.kafka.common.network.Selector)",
    f"ERROR [Producer clientId=p-1] Connection to node -1 ({HOST}/10.12.4.77:9098) failed authentication due to: "
    "[5f0c2d9e-1b7a-4c3e-9d21-7e6a0b4f8c11]: Access denied (org.apache.kafka.clients.NetworkClient)",
])
def test_an_msk_iam_login_denied_names_the_identity_and_its_policy(paste):
    found = only(explained(paste + "\n"), "SASL_AUTH_FAILED")
    assert found.title.endswith("MSK denied the client's IAM login")
    assert "kafka-cluster:Connect" in found.fix and "aws sts get-caller-identity" in found.fix
    assert "password" not in found.fix and "sasl.username" not in found.evidence["confirm"]
    assert found.evidence["confirm"].startswith(f"kdiag bootstrap {HOST}:9098")
    assert "SASL_SSL" in found.evidence["confirm"]


def test_a_scram_login_refused_at_an_msk_broker_is_still_about_the_credentials():
    paste = (f"ERROR [Producer clientId=p-1] Connection to node -1 ({HOST}/10.12.4.77:9096) failed authentication "
             "due to: Authentication failed during authentication due to invalid credentials with SASL mechanism "
             "SCRAM-SHA-512 (org.apache.kafka.clients.NetworkClient)\n")
    found = only(explained(paste), "SASL_AUTH_FAILED")
    assert "IAM" not in found.title and "user name or password" in found.explanation
