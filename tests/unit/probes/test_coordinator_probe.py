"""probes.coordinator.find_coordinator: a loading coordinator is asked again, briefly; other answers stand."""

from __future__ import annotations

from probes.codec.errors import kafka_error
from probes.codec.messages import Coordinator, FindCoordinatorResponse
from probes.coordinator import CoordinatorAnswer, find_coordinator
from probes.deadline import Deadline
from probes.kafka import KafkaProbeError


class Answers:
    """A connection that answers FindCoordinator from a list, in order."""

    def __init__(self, *answers) -> None:
        self.answers = list(answers)
        self.asked = 0

    def find_coordinator(self, group: str, *, timeout: float):
        self.asked += 1
        answer = self.answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer


def _answer(code: int) -> FindCoordinatorResponse:
    return FindCoordinatorResponse(4, (Coordinator("g", 2, "b2.example.com", 9092, kafka_error(code)),))


def test_a_loading_coordinator_is_asked_again_until_it_answers() -> None:
    conn = Answers(_answer(14), _answer(15), _answer(0))
    assert find_coordinator(conn, "g", deadline=Deadline.after(5)) == CoordinatorAnswer("g", 2, "b2.example.com", 9092)
    assert conn.asked == 3


def test_another_error_is_the_answer_at_once() -> None:
    conn = Answers(_answer(30))
    answer = find_coordinator(conn, "g", deadline=Deadline.after(5))
    assert answer.error.startswith("FindCoordinator answered GROUP_AUTHORIZATION_FAILED")
    assert conn.asked == 1


def test_a_failed_request_and_an_empty_answer_are_errors() -> None:
    failed = find_coordinator(Answers(KafkaProbeError("error", "closed")), "g", deadline=Deadline.after(5))
    assert failed == CoordinatorAnswer("g", error="FindCoordinator failed: closed")
    empty = find_coordinator(Answers(FindCoordinatorResponse(4, ())), "g", deadline=Deadline.after(5))
    assert empty.error == "FindCoordinator returned no coordinator"


def test_a_coordinator_still_loading_when_the_run_ends_gives_its_error() -> None:
    answer = find_coordinator(Answers(*[_answer(14)] * 3), "g", deadline=Deadline.after(0))
    assert answer.error.startswith("FindCoordinator answered COORDINATOR_LOAD_IN_PROGRESS")
