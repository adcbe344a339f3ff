"""FrameBuffer: a byte stream split into Kafka frames however it arrives, a bounded frame size, and
the first bytes of other protocols recognised for what they are."""

from __future__ import annotations

import random

import pytest

from probes.codec import FrameBuffer, FrameTooLarge, NotKafka, foreign_or_garbage, identify_foreign
from tests.unit.codec.golden import golden

FRAME_A = golden(
    "00 00 00 11",                 # size 17
    "00 00 00 02",                 # correlation_id 2
    "00 00",                       # error_code NONE
    "00 00 00 01",                 # mechanisms: 1
    "00 05 50 4c 41 49 4e",        #   "PLAIN"
)
FRAME_B = golden(
    "00 00 00 04",                 # size 4
    "00 00 00 03",                 # correlation_id 3 (an empty body)
)
STREAM = FRAME_A + FRAME_B
FRAMES = [FRAME_A[4:], FRAME_B[4:]]


def feed_in_chunks(chunks: list[bytes]) -> tuple[list[bytes], FrameBuffer]:
    buffer = FrameBuffer()
    frames: list[bytes] = []
    for chunk in chunks:
        frames += buffer.feed(chunk)
    return frames, buffer


def test_frames_fed_one_byte_at_a_time_come_out_whole_and_only_when_complete():
    buffer = FrameBuffer()
    completed_at = []
    for i in range(len(STREAM)):
        if buffer.feed(STREAM[i : i + 1]):
            completed_at.append(i + 1)
    assert completed_at == [len(FRAME_A), len(STREAM)]
    assert buffer.pending == 0


def test_frames_fed_one_byte_at_a_time_are_the_frames_sent():
    frames, buffer = feed_in_chunks([STREAM[i : i + 1] for i in range(len(STREAM))])
    assert frames == FRAMES
    assert buffer.pending == 0


@pytest.mark.parametrize("cut", range(1, len(STREAM)))
def test_frames_split_at_any_byte_are_the_frames_sent(cut):
    assert feed_in_chunks([STREAM[:cut], STREAM[cut:]])[0] == FRAMES


def test_frames_in_random_chunkings_are_the_frames_sent():
    rng = random.Random(2024)
    for _ in range(200):
        cuts = sorted(rng.sample(range(1, len(STREAM)), rng.randint(1, 8)))
        chunks = [STREAM[a:b] for a, b in zip([0, *cuts], [*cuts, len(STREAM)])]
        assert feed_in_chunks(chunks)[0] == FRAMES


def test_incomplete_frame_stays_pending():
    buffer = FrameBuffer()
    assert buffer.feed(FRAME_A[:-1]) == []
    assert buffer.pending == len(FRAME_A) - 1


# --- the maximum frame size -----------------------------------------------------------------------


@pytest.mark.parametrize(("size_field", "declared"), [("7f ff ff ff", 2**31 - 1), ("80 00 00 00", 2**31)],
                         ids=["int32_max", "two_gib_as_negative_int32"])
def test_two_gigabyte_frame_raises_frame_too_large_on_its_size_alone_and_buffers_nothing(size_field, declared):
    buffer = FrameBuffer()
    with pytest.raises(FrameTooLarge) as raised:
        buffer.feed(bytes.fromhex(size_field))
    assert raised.value.size == declared
    assert buffer.pending == 0


def test_frame_too_large_followed_by_data_buffers_none_of_it():
    buffer = FrameBuffer()
    with pytest.raises(FrameTooLarge):
        buffer.feed(bytes.fromhex("7f ff ff ff") + b"\x00" * 1_000_000)
    assert buffer.pending == 0


def test_frame_of_exactly_the_maximum_is_accepted_and_one_byte_more_is_not():
    assert FrameBuffer(max_frame_size=16).feed(golden("00 00 00 10") + bytes(16)) == [bytes(16)]
    with pytest.raises(FrameTooLarge, match="frame of 17 bytes declared, above the 16-byte maximum"):
        FrameBuffer(max_frame_size=16).feed(golden("00 00 00 11"))


# --- a bad frame after good ones -------------------------------------------------------------------


@pytest.mark.parametrize(("bad", "error"), [(bytes.fromhex("7f ff ff ff") + bytes(8), FrameTooLarge),
                                            (bytes.fromhex("15 03 03 00 02 02 28"), NotKafka)],
                         ids=["too_large", "tls_alert"])
def test_frames_before_a_bad_one_in_the_same_read_are_returned_and_the_next_feed_raises(bad, error):
    buffer = FrameBuffer()
    assert buffer.feed(STREAM + bad) == FRAMES
    assert isinstance(buffer.error, error)
    assert buffer.pending == 0
    with pytest.raises(error):
        buffer.feed(FRAME_A)
    assert buffer.error is None


def test_feeding_nothing_raises_the_error_kept_from_the_last_read():
    buffer = FrameBuffer()
    assert buffer.feed(FRAME_A + bytes.fromhex("80 00 00 00")) == [FRAME_A[4:]]
    with pytest.raises(FrameTooLarge):
        buffer.feed(b"")


def test_after_the_kept_error_is_raised_the_buffer_frames_again():
    buffer = FrameBuffer()
    buffer.feed(FRAME_A + bytes.fromhex("80 00 00 00"))
    with pytest.raises(FrameTooLarge):
        buffer.feed(b"")
    assert buffer.feed(FRAME_B) == [FRAME_B[4:]]


# --- other protocols ------------------------------------------------------------------------------

TLS_ALERT = golden(
    "15",                          # content type 21: alert
    "03 03",                       # TLS 1.2 record version
    "00 02",                       # length 2
    "02",                          # level fatal
    "28",                          # description 40: handshake_failure
)
TLS_HANDSHAKE = golden(
    "16",                          # content type 22: handshake
    "03 01",                       # record version 3.1
    "00 2f",                       # length
    "02 00 00 2b 03 03",           # ServerHello, length 43, version 3.3
) + bytes(26)
HTTP_400 = b"HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain\r\n\r\n"
SSH_BANNER = b"SSH-2.0-OpenSSH_9.2p1\r\n"
ZOOKEEPER_CONNECT_RESPONSE = golden(
    "00 00 00 24",                 # length 36
    "00 00 00 00",                 # protocolVersion 0
    "00 00 75 30",                 # timeOut 30000 ms
    "01 23 45 67 89 ab cd ef",     # sessionId
    "00 00 00 10",                 # passwd: 16 bytes
    "00 11 22 33 44 55 66 77 88 99 aa bb cc dd ee ff",
)


@pytest.mark.parametrize(("data", "kind", "said"), [
    (TLS_ALERT, "tls_alert", "handshake_failure"),
    (TLS_HANDSHAKE, "tls_handshake", "TLS handshake"),
    (HTTP_400, "http", "'HTTP/1.1 400 Bad Request'"),
    (SSH_BANNER, "ssh", "'SSH-2.0-OpenSSH_9.2p1'"),
], ids=["tls_alert", "tls_handshake", "http", "ssh"])
def test_first_bytes_of_another_protocol_raise_not_kafka_naming_it(data, kind, said):
    buffer = FrameBuffer()
    with pytest.raises(NotKafka) as raised:
        buffer.feed(data)
    assert raised.value.foreign.kind == kind
    assert said in raised.value.foreign.description
    assert buffer.pending == 0


def test_tls_alert_is_recognised_from_its_first_four_bytes():
    with pytest.raises(NotKafka) as raised:
        FrameBuffer().feed(TLS_ALERT[:4])
    assert raised.value.foreign.kind == "tls_alert"
    assert raised.value.foreign.is_tls


def test_zookeeper_connect_response_is_recognised():
    foreign = identify_foreign(ZOOKEEPER_CONNECT_RESPONSE)
    assert foreign is not None and foreign.kind == "zookeeper"
    assert identify_foreign(ZOOKEEPER_CONNECT_RESPONSE + b"\x00").kind == "zookeeper"  # with readOnly


def test_zookeeper_connect_response_frames_like_kafka_so_the_buffer_passes_it_on():
    # Its int32 length prefix is Kafka-shaped; the client protocol recognises it by correlation id.
    assert FrameBuffer().feed(ZOOKEEPER_CONNECT_RESPONSE) == [ZOOKEEPER_CONNECT_RESPONSE[4:]]


def test_a_kafka_frame_is_not_taken_for_another_protocol():
    assert identify_foreign(FRAME_A) is None
    assert identify_foreign(FRAME_B) is None


@pytest.mark.parametrize(("data", "kind"), [(bytes.fromhex("de ad be ef 00 01 02 03"), "binary"),
                                            (b"hello, who is this?\n", "text")])
def test_garbage_is_frame_too_large_and_classed_as_text_or_binary(data, kind):
    buffer = FrameBuffer()
    with pytest.raises(FrameTooLarge):
        buffer.feed(data)
    assert buffer.pending == 0
    assert identify_foreign(data) is None
    assert foreign_or_garbage(data).kind == kind


def test_the_probe_and_the_capture_share_one_frame_cap_above_kafkas_largest_request() -> None:
    """128 MiB: above socket.request.max.bytes (100 MiB), below what a TLS record or HTTP reads as."""
    from kdiag.capture import flows, kafka_streams
    from probes.codec import MAX_FRAME_SIZE

    assert MAX_FRAME_SIZE == 128 * 1024 * 1024
    assert 100 * 1024 * 1024 < MAX_FRAME_SIZE < int.from_bytes(b"\x15\x03\x03\x00", "big")
    assert kafka_streams.MAX_FRAME_SIZE is MAX_FRAME_SIZE
    assert flows.CaptureAnalyzer.__init__.__kwdefaults__["frame_max"] == MAX_FRAME_SIZE
    assert not hasattr(kafka_streams, "FRAME_MAX")
