"""Secrets in a paste are learned as they stream by and never printed back."""

from __future__ import annotations

from kdiag.explain.engine import explanation_to_dict
from kdiag.secrets import Secrets
from tests.unit.explain.helpers import explained


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
