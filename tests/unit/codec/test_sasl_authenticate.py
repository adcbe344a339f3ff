"""SaslAuthenticate (key 36), v0-v2, flexible from v2: request bytes and response decoding.

Schema: ``SaslAuthenticateRequest.json`` / ``SaslAuthenticateResponse.json``. v1 adds
``session_lifetime_ms`` to the response (KIP-368); v2 is the flexible version (compact bytes and
strings, tagged fields, response header v1).
"""

from __future__ import annotations

import pytest

from probes.codec import (
    SaslAuthenticateRequest,
    SaslAuthenticateResponse,
    decode_response,
    encode_request,
    encode_response,
)
from probes.codec.errors import kafka_error
from tests.unit.codec.golden import bodies_by_version, golden, request_frame, sized

API_KEY = 36

PLAIN_TOKEN = b"\0alice\0alice-secret"  # PLAIN: authzid "", authcid "alice", password "alice-secret"

PLAIN_REQUEST_BODIES = bodies_by_version({
    range(0, 2): golden(
        "00 00 00 13",                                         # auth_bytes: int32 length 19
        "00 61 6c 69 63 65 00 61 6c 69 63 65 2d 73 65 63 72 65 74",  # \0alice\0alice-secret
    ),
    range(2, 3): golden(
        "14",                                                  # auth_bytes: compact length 19 + 1
        "00 61 6c 69 63 65 00 61 6c 69 63 65 2d 73 65 63 72 65 74",  # \0alice\0alice-secret
        "00",                                                  # tagged fields: none
    ),
})


@pytest.mark.parametrize("version", range(0, 3))
def test_sasl_authenticate_request_encodes_the_token_as_bytes(version):
    expected = request_frame(API_KEY, version, PLAIN_REQUEST_BODIES[version], flexible=version >= 2)
    assert encode_request(SaslAuthenticateRequest(PLAIN_TOKEN, version=version), correlation_id=7) == expected


def test_sasl_authenticate_request_keeps_the_token_out_of_its_repr():
    assert "alice-secret" not in repr(SaslAuthenticateRequest(PLAIN_TOKEN))


# --- responses ----------------------------------------------------------------------------------

FAILED = "Authentication failed: Invalid username or password (PLAIN mechanism)"
FAILED_HEX = FAILED.encode().hex(" ")  # 69 bytes of UTF-8

SASL_AUTHENTICATE_V0_AUTH_FAILED = golden(
    "00 00 00 07",                 # correlation_id 7
    "00 3a",                       # error_code 58 SASL_AUTHENTICATION_FAILED
    "00 45",                       # error_message: int16 length 69
    FAILED_HEX,                    #   "Authentication failed: ..."
    "00 00 00 00",                 # auth_bytes: empty
)

SASL_AUTHENTICATE_V1_OK = golden(
    "00 00 00 07",                 # correlation_id 7
    "00 00",                       # error_code NONE
    "ff ff",                       # error_message null
    "00 00 00 04 76 3d 61 62",     # auth_bytes "v=ab" (a SCRAM server-final message)
    "00 00 00 00 00 36 ee 80",     # session_lifetime_ms 3600000 (v1+)
)

SASL_AUTHENTICATE_V2_OK = golden(
    "00 00 00 07",                 # correlation_id 7
    "00",                          # response header tagged fields: none (flexible)
    "00 00",                       # error_code NONE
    "00",                          # error_message null (compact)
    "05 76 3d 61 62",              # auth_bytes "v=ab": compact length 4 + 1
    "00 00 00 00 00 00 00 00",     # session_lifetime_ms 0 (no re-authentication)
    "00",                          # tagged fields: none
)

SASL_AUTHENTICATE_V2_AUTH_FAILED = golden(
    "00 00 00 07",                 # correlation_id 7
    "00",                          # response header tagged fields: none
    "00 3a",                       # error_code 58 SASL_AUTHENTICATION_FAILED
    "46",                          # error_message: compact length 69 + 1
    FAILED_HEX,                    #   "Authentication failed: ..."
    "01",                          # auth_bytes: empty (compact length 0 + 1)
    "00 00 00 00 00 00 00 00",     # session_lifetime_ms 0
    "00",                          # tagged fields: none
)


def test_sasl_authenticate_v0_failure_carries_the_brokers_message():
    assert decode_response(SASL_AUTHENTICATE_V0_AUTH_FAILED, api_key=API_KEY, api_version=0) == (
        7, SaslAuthenticateResponse(0, kafka_error(58), FAILED, b"", 0))


def test_sasl_authenticate_v1_adds_the_session_lifetime():
    assert decode_response(SASL_AUTHENTICATE_V1_OK, api_key=API_KEY, api_version=1) == (
        7, SaslAuthenticateResponse(1, kafka_error(0), None, b"v=ab", 3_600_000))


def test_sasl_authenticate_v2_is_flexible_with_a_tagged_response_header():
    assert decode_response(SASL_AUTHENTICATE_V2_OK, api_key=API_KEY, api_version=2) == (
        7, SaslAuthenticateResponse(2, kafka_error(0), None, b"v=ab", 0))


def test_sasl_authenticate_v2_failure_carries_the_brokers_message():
    _, response = decode_response(SASL_AUTHENTICATE_V2_AUTH_FAILED, api_key=API_KEY, api_version=2)
    assert (response.error.name, response.error_message, response.auth_bytes) == (
        "SASL_AUTHENTICATION_FAILED", FAILED, b"")


@pytest.mark.parametrize(("frame", "response"), [
    (SASL_AUTHENTICATE_V0_AUTH_FAILED, SaslAuthenticateResponse(0, kafka_error(58), FAILED, b"", 0)),
    (SASL_AUTHENTICATE_V1_OK, SaslAuthenticateResponse(1, kafka_error(0), None, b"v=ab", 3_600_000)),
    (SASL_AUTHENTICATE_V2_OK, SaslAuthenticateResponse(2, kafka_error(0), None, b"v=ab", 0)),
    (SASL_AUTHENTICATE_V2_AUTH_FAILED, SaslAuthenticateResponse(2, kafka_error(58), FAILED, b"", 0)),
], ids=["v0_failed", "v1_ok", "v2_ok", "v2_failed"])
def test_sasl_authenticate_response_encodes_to_the_golden_frame(frame, response):
    assert encode_response(response, correlation_id=7) == sized(frame)
