"""The collector pause around a run: counted across threads, the earlier state restored."""

from __future__ import annotations

import gc
import threading

from engine.jobs import gc_paused


def test_overlapping_pauses_in_two_threads_restore_the_collector_once_both_end() -> None:
    assert gc.isenabled()
    first_in, second_in, first_out = threading.Event(), threading.Event(), threading.Event()

    def first() -> None:
        with gc_paused():
            first_in.set()
            second_in.wait(5)
        first_out.set()

    thread = threading.Thread(target=first)
    thread.start()
    first_in.wait(5)
    with gc_paused():  # starts while the first is paused, ends after it
        second_in.set()
        first_out.wait(5)
        assert not gc.isenabled(), "the first run's end switched the collector back on"
    thread.join(5)
    assert gc.isenabled()


def test_a_collector_that_was_off_stays_off() -> None:
    gc.disable()
    try:
        with gc_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    finally:
        gc.enable()
