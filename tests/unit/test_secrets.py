"""What is secret (``is_secret``, ``redact``), and the secrets in a paste, learned as they stream by and
never printed back (``Secrets``). The scrubber's tests are beside the sanitizer's (``render/test_safe.py``)."""

from __future__ import annotations

import pytest

from kdiag.explain.engine import explanation_to_dict
from kdiag.secrets import Secrets, is_secret, redact
from tests.unit.explain.helpers import explained


# --- what is secret -----------------------------------------------------------------------------------


@pytest.mark.parametrize("key", ["sasl.password", "ssl.key.password", "ssl.keystore.password", "ssl.key.pem",
                                 "sasl.oauthbearer.client.secret", "sasl.jaas.config", "sasl.oauthbearer.config",
                                 "ssl.keystore.key", "ssl.truststore.password"])
def test_secret_keys(key: str) -> None:
    assert is_secret(key)


@pytest.mark.parametrize("key", ["sasl.username", "security.protocol", "ssl.key.location", "ssl.ca.location",
                                 "ssl.certificate.pem", "sasl.mechanisms"])
def test_not_secret_keys(key: str) -> None:
    assert not is_secret(key)


def test_redact_masks_the_value_of_every_secret_key_and_keeps_the_others() -> None:
    assert redact({"sasl.username": "alice", "sasl.password": "pw", "ssl.key.pem": "PEM", "retries": 3}) == {
        "sasl.username": "alice", "sasl.password": "***", "ssl.key.pem": "***", "retries": 3}


# --- secrets in a paste -------------------------------------------------------------------------------


def test_secret_pairs_are_masked_and_other_pairs_kept():
    secrets = Secrets()
    for line in ("sasl.password=hunter2", '{"password":"jsonpw","user":"bob"}', "ssl.keystore.password = changeit",
                 'sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="alice" '
                 'password="s3cr3t!";', "\tsasl.jaas.config = [hidden]"):
        secrets.learn(line)
    assert secrets.values == {"hunter2", "jsonpw", "changeit", "s3cr3t!"}
    assert secrets.scrub("-X sasl.password=hunter2 -X sasl.username=alice") == "-X sasl.password=*** -X sasl.username=alice"
    assert secrets.scrub('username="alice" password="s3cr3t!";') == 'username="alice" password="***";'
    assert secrets.scrub("later the value hunter2 alone") == "later the value *** alone"
    assert secrets.replace_known("sasl.password=<password>") == "sasl.password=<password>"


def test_a_secret_learned_after_the_line_that_quotes_it_is_still_removed():
    text = ("kcat -b k:9096 -X sasl.password=t0psecret -L\n"
            "sasl_ssl://k:9096/bootstrap: SASL authentication error: Authentication failed for t0psecret\n"
            "sasl.password=t0psecret\n")
    explanation = explained(text)
    assert explanation.findings and "t0psecret" not in str(explanation_to_dict(explanation))


def test_a_jaas_line_in_a_paste_is_never_echoed():
    text = ('sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="svc" '
            'password="Pa55w0rd-xyz";\n'
            "[x] ERROR [Producer clientId=p] Connection to node -1 (b/10.0.0.1:9096) failed authentication due to: "
            "Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-512 "
            "(org.apache.kafka.clients.NetworkClient)\n")
    explanation = explained(text)
    assert [f.id for f in explanation.findings] == ["SASL_AUTH_FAILED"]
    assert "Pa55w0rd-xyz" not in str(explanation_to_dict(explanation))
