"""Property tests of every decoder and parser that reads outside input: any bytes in, a value or the
decoder's one documented error out (``bench/fuzz/targets.py`` says which), never another exception.

The short version of the fuzz job: a few hundred inputs per decoder, derandomized (the same inputs on
every run, so a failure reproduces), random bytes and mutations of a valid input (a real frame, a
capture, a log, a report, a client.properties). ``bench/fuzz/run.py`` runs the same targets a million
times under atheris; BENCHMARKS.md has its counts.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bench.fuzz.targets import TARGETS

EXAMPLES = {"codec": 400, "pcap": 300, "flows": 300, "explain": 300, "report": 200, "report_loader": 300, "client_settings": 300}


def mutated(seeds: list[bytes]) -> st.SearchStrategy[bytes]:
    """A seed with a few bytes overwritten, cut short, or spliced with random bytes."""

    @st.composite
    def build(draw) -> bytes:
        data = bytearray(draw(st.sampled_from(seeds)))
        for _ in range(draw(st.integers(1, 6))):
            if not data:
                break
            at = draw(st.integers(0, len(data) - 1))
            action = draw(st.sampled_from(("set", "cut", "insert", "int32")))
            if action == "set":
                data[at] = draw(st.integers(0, 255))
            elif action == "cut":
                del data[at:]
            elif action == "insert":
                data[at:at] = draw(st.binary(min_size=1, max_size=16))
            else:  # a length or count field at its extremes
                data[at:at + 4] = draw(st.sampled_from((b"\xff\xff\xff\xff", b"\x7f\xff\xff\xff", b"\x80\x00\x00\x00",
                                                       b"\x00\x00\x00\x00", b"\xff\xff\xff\xfb")))
        return bytes(data)

    return build()


@pytest.mark.parametrize("name", sorted(TARGETS))
def test_decoder_returns_a_value_or_its_one_error_on_any_bytes(name):
    target, seeds = TARGETS[name]
    seed_list = seeds()
    for seed in seed_list:
        target(seed)  # the valid inputs decode

    @settings(max_examples=EXAMPLES[name], derandomize=True, deadline=None, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(st.one_of(st.binary(max_size=2048), mutated(seed_list)))
    def property_holds(data: bytes) -> None:
        target(data)

    property_holds()
