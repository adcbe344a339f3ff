"""Secrets that reached the output (issue 11, item 3, detection): each test is named after the leak."""

from __future__ import annotations

import io

import pytest

from kdiag.cli import Environment, main
from kdiag.explain.engine import explain_text
from kdiag.secrets import MAX_SECRETS, Secrets

SECRET = "hunter2-s3cr3t"


def run(*args: str) -> tuple[int, str, str]:
    env = Environment(stdout=io.StringIO(), stderr=io.StringIO())
    status = main(list(args), env=env)
    return status, env.stdout.getvalue(), env.stderr.getvalue()


def everything(explanation) -> str:
    from kdiag.explain.engine import explanation_to_dict

    return repr(explanation_to_dict(explanation))


# a line every test log carries so that there is evidence to leak through
FAILURE = f"%3|1700000000.000|FAIL|rdkafka#producer-1| [thrd:sasl_ssl://b:9093/1]: b:9093/1: SASL authentication error: " \
          f"Authentication failed: Invalid username or password {SECRET} (after 12ms in state AUTH_REQ)"


@pytest.mark.parametrize("paste", [
    f"sasl.password {SECRET}",  # a client.properties line with a space separator
    f"  ssl.key.password\t{SECRET}  ",
    f"kafka-console-producer --bootstrap-server b:9093 --password {SECRET}",
    f"./client -password {SECRET} -user bob",
    f"security.protocol=SASL_SSL;sasl.username=bob;sasl.password={SECRET}",
    f"props: {{sasl.password: {SECRET}}}",
])
def test_explain_learns_secret_forms_it_used_to_miss(paste):
    explanation = explain_text(f"{paste}\n{FAILURE}\n")
    assert explanation.findings, "the failure line is evidence"
    assert SECRET not in everything(explanation)


def test_explain_semicolon_inside_a_value_stays_one_secret():
    secrets = Secrets()
    secrets.learn("sasl.password=abc;def-ghi")
    assert secrets.values == {"abc;def-ghi"}
    assert secrets.scrub("pw abc;def-ghi here") == "pw *** here"


def test_explain_remembers_secrets_after_the_64th():
    pastes = "\n".join(f"sasl.password=secret-number-{i:05d}" for i in range(200))
    explanation = explain_text(f"{pastes}\n{FAILURE.replace(SECRET, 'secret-number-00150')}\n")
    assert "secret-number-00150" not in everything(explanation)


def test_explain_more_secrets_than_it_tracks_withholds_hinted_lines():
    secrets = Secrets()
    for i in range(MAX_SECRETS + 5):
        secrets.learn(f"sasl.password=value-{i:06d}")
    assert secrets.saturated
    assert "value-" not in secrets.scrub(f"password failure value-{MAX_SECRETS + 3:06d}")


def test_explain_ordinary_prose_about_passwords_is_not_taken_for_a_secret():
    secrets = Secrets()
    secrets.learn("ssl.key.password was wrong: password authentication failed for user bob")
    assert secrets.values == set()


def test_x_usage_error_does_not_echo_a_value_given_without_key():
    status, stdout, stderr = run("bootstrap", "127.0.0.1:1", "-X", SECRET)
    assert status == 2 and SECRET not in stdout + stderr
    assert "not shown" in stderr


def test_x_usage_error_does_not_echo_a_secret_given_as_the_next_word():
    status, stdout, stderr = run("bootstrap", "127.0.0.1:1", "-X", "sasl.password", SECRET)
    assert status == 2 and SECRET not in stdout + stderr, stderr


def test_x_usage_error_names_a_setting_given_without_its_value():
    status, _stdout, stderr = run("bootstrap", "127.0.0.1:1", "-X", "sasl.password")
    assert status == 2 and "'sasl.password' with no '=VALUE'" in stderr
