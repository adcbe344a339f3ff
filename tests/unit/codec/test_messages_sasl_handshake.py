"""SaslHandshake (key 17), v0-v1, never flexible: request bytes and response decoding."""

from __future__ import annotations

import pytest

from probes.codec import SaslHandshakeRequest, SaslHandshakeResponse, decode_response, encode_request, encode_response
from probes.codec.errors import kafka_error
from tests.unit.codec.golden import golden, request_frame, sized

API_KEY = 17


@pytest.mark.parametrize("version", [0, 1])
def test_sasl_handshake_request_encodes_the_mechanism(version):
    expected = request_frame(API_KEY, version, golden(
        "00 05 50 4c 41 49 4e",    # mechanism "PLAIN"
    ), flexible=False)
    assert encode_request(SaslHandshakeRequest("PLAIN", version=version), correlation_id=7) == expected


SASL_HANDSHAKE_UNSUPPORTED_MECHANISM_RESPONSE = golden(
    "00 00 00 07",                 # correlation_id 7
    "00 21",                       # error_code 33 UNSUPPORTED_SASL_MECHANISM
    "00 00 00 02",                 # mechanisms: 2 (those the listener has enabled)
    "00 05 50 4c 41 49 4e",        #   "PLAIN"
    "00 0d 53 43 52 41 4d 2d 53 48 41 2d 35 31 32",  # "SCRAM-SHA-512"
)


@pytest.mark.parametrize("version", [0, 1])
def test_sasl_handshake_response_lists_the_enabled_mechanisms(version):
    assert decode_response(SASL_HANDSHAKE_UNSUPPORTED_MECHANISM_RESPONSE, api_key=API_KEY, api_version=version) == (
        7, SaslHandshakeResponse(version, kafka_error(33), ("PLAIN", "SCRAM-SHA-512")))


@pytest.mark.parametrize("version", [0, 1])
def test_sasl_handshake_response_encodes_to_the_golden_frame(version):
    response = SaslHandshakeResponse(version, kafka_error(33), ("PLAIN", "SCRAM-SHA-512"))
    assert encode_response(response, correlation_id=7) == sized(SASL_HANDSHAKE_UNSUPPORTED_MECHANISM_RESPONSE)
