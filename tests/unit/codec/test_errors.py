"""The broker error-code table: known codes by name, unknown codes never lose their number."""

from __future__ import annotations

import pytest

from probes.codec import decode_response, kafka_error
from tests.unit.codec.golden import golden

# The table of the lab notes (section 1.6), from Errors.java.
DOCUMENTED = {
    -1: "UNKNOWN_SERVER_ERROR", 0: "NONE", 3: "UNKNOWN_TOPIC_OR_PARTITION", 5: "LEADER_NOT_AVAILABLE",
    6: "NOT_LEADER_OR_FOLLOWER", 7: "REQUEST_TIMED_OUT", 8: "BROKER_NOT_AVAILABLE", 9: "REPLICA_NOT_AVAILABLE",
    13: "NETWORK_EXCEPTION", 17: "INVALID_TOPIC_EXCEPTION", 29: "TOPIC_AUTHORIZATION_FAILED",
    31: "CLUSTER_AUTHORIZATION_FAILED", 33: "UNSUPPORTED_SASL_MECHANISM", 34: "ILLEGAL_SASL_STATE",
    35: "UNSUPPORTED_VERSION", 42: "INVALID_REQUEST", 58: "SASL_AUTHENTICATION_FAILED", 72: "LISTENER_NOT_FOUND",
    74: "FENCED_LEADER_EPOCH", 75: "UNKNOWN_LEADER_EPOCH", 100: "UNKNOWN_TOPIC_ID", 129: "REBOOTSTRAP_REQUIRED",
}


@pytest.mark.parametrize(("code", "name"), sorted(DOCUMENTED.items()))
def test_known_error_code_has_its_upstream_name(code, name):
    error = kafka_error(code)
    assert (error.code, error.name) == (code, name)
    assert str(error) == f"{name} ({code})"


def test_only_error_code_zero_is_ok():
    assert kafka_error(0).ok
    assert not kafka_error(-1).ok
    assert not kafka_error(35).ok


@pytest.mark.parametrize("code", [130, 9999, 32767, -2, -32768])
def test_unknown_error_code_keeps_its_number(code):
    error = kafka_error(code)
    assert error.code == code
    assert error.name == f"UNKNOWN_ERROR_CODE_{code}"
    assert str(code) in str(error)
    assert not error.ok


def test_unknown_error_code_in_a_response_keeps_its_number():
    frame = golden(
        "00 00 00 07",             # correlation_id 7
        "27 0f",                   # error_code 9999: from a broker newer than kdiag
        "00 00 00 00",             # mechanisms: 0
    )
    _, response = decode_response(frame, api_key=17, api_version=1)
    assert response.error.code == 9999
    assert response.error.name == "UNKNOWN_ERROR_CODE_9999"
