"""The ACP runner: jobs on the main thread, and an interrupt that lands in the owner's running job
like Ctrl-C (a late one, for a job that ended, does nothing)."""

from __future__ import annotations

import threading
from typing import Any

from axon_cli.app.acp.runner import MainRunner

DEADLINE_S = 30.0
TURN_DEADLINE_S = 10.0
ROUNDS = 300      # a lost signal hit ~2-6% of rounds on a loaded machine: 300 rounds catch it


def test_interrupt_stops_a_blocked_job_and_a_late_one_is_harmless() -> None:
    """Every interrupt lands while the job is blocked, however the signal races the main thread
    going to sleep (one that came just before it blocked used to wait out the job's whole wait)."""
    runner = MainRunner()
    results: dict[str, Any] = {"turns": []}

    def blocked_turn(owner: object) -> Any:
        started = threading.Event()

        def blocked() -> str:
            started.set()
            threading.Event().wait(DEADLINE_S)      # a model request that never answers
            return "finished"

        turn = runner.submit(blocked, owner=owner, on_interrupt=lambda: "interrupted")
        assert started.wait(DEADLINE_S)
        return turn

    def client() -> None:
        try:
            owner = object()
            turn = blocked_turn(owner)
            results["other owner"] = runner.interrupt(object())
            results["sent"] = runner.interrupt(owner)
            results["turn"] = turn.result(TURN_DEADLINE_S)
            results["late"] = runner.interrupt(owner)
            results["next"] = runner.submit(lambda: "next job runs").result(DEADLINE_S)
            for _ in range(ROUNDS):
                owner = object()
                turn = blocked_turn(owner)
                runner.interrupt(owner)
                results["turns"].append(turn.result(TURN_DEADLINE_S))
        finally:
            runner.stop()

    thread = threading.Thread(target=client)
    thread.start()
    runner.serve()
    thread.join(DEADLINE_S)
    assert results == {"other owner": False, "sent": True, "turn": "interrupted", "late": False,
                       "next": "next job runs", "turns": ["interrupted"] * ROUNDS}


def test_a_failing_job_hands_its_error_to_the_waiting_request() -> None:
    runner = MainRunner()

    def boom() -> None:
        raise ValueError("bad cwd")

    future = runner.submit(boom)
    runner.stop()
    runner.serve()
    assert isinstance(future.exception(DEADLINE_S), ValueError)
