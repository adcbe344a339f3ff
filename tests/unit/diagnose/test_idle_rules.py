"""IDLE_CONNECTION_DROPPED: the bootstrap connection held idle (--idle-check), then asked again."""

from __future__ import annotations

from dataclasses import replace

from kdiag.diagnose import run_rule
from probes.results import IdleCheck

from .builders import healthy


def test_no_answer_after_the_idle_time_is_a_silent_drop_that_says_how_long_it_lasted():
    report = replace(healthy(), idle=IdleCheck("timeout", 240.0, 3000.0, "no answer to Metadata within 3s"))
    (found,) = run_rule(report, "IDLE_CONNECTION_DROPPED")
    assert found.title == "A connection to kafka.example.com:9092 left idle for 240 s was silently dropped"
    assert "1 request(s) timed out: disconnect (after 240000ms in state UP)" in found.explanation
    assert "connections.max.idle.ms=180000" in found.fix and "--idle-check 240 --timeout 250" in found.fix
    # The path's own limit, in the form each usual device takes it.
    assert "service.beta.kubernetes.io/azure-load-balancer-tcp-idle-timeout" in found.fix
    assert "Key=tcp.idle_timeout.seconds" in found.fix and "nf_conntrack_tcp_timeout_established" in found.fix


def test_a_closed_connection_is_named_as_closed():
    report = replace(healthy(), idle=IdleCheck("closed", 8.0, 1.0, "connection failed: Connection reset by peer"))
    (found,) = run_rule(report, "IDLE_CONNECTION_DROPPED")
    assert "was closed" in found.title and "connections.max.idle.ms=4000" in found.fix


def test_an_answer_after_the_idle_time_or_no_check_is_silent():
    assert run_rule(replace(healthy(), idle=IdleCheck("ok", 8.0, 2.0)), "IDLE_CONNECTION_DROPPED") == ()
    assert run_rule(healthy(), "IDLE_CONNECTION_DROPPED") == ()
