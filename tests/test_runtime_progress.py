"""Counted progress (``_runtime/progress.py``): a no-op without a reporter, nested blocks,
throttling that still delivers the last count, counts that never go backwards, parts."""

from __future__ import annotations

import threading

from incrowd._runtime import progress_part, report_progress, reporting


def _collect(**keywords):
    seen: list[tuple[int, int]] = []
    return seen, reporting(lambda done, total: seen.append((done, total)), **keywords)


def test_without_a_reporter_nothing_happens():
    report_progress(1, 2)  # no error, nothing to call
    with progress_part(0, 1, 2):
        report_progress(1, 1)
    with reporting(None):
        report_progress(1, 2)


def test_an_inner_reporter_replaces_the_outer_one_until_it_ends():
    outer, outer_block = _collect(interval=0)
    inner, inner_block = _collect(interval=0)
    with outer_block:
        report_progress(1, 3)
        with inner_block:
            report_progress(1, 5)
        report_progress(2, 3)
    report_progress(4, 4)
    assert outer == [(1, 3), (2, 3)]
    assert inner == [(1, 5)]


def test_none_masks_the_outer_reporter_until_it_ends():
    # an inner run given no callback (anonymize_with(on_progress=None)) inside a watched one
    outer, outer_block = _collect(interval=0)
    with outer_block:
        report_progress(1, 3)
        with reporting(None):
            report_progress(2, 3)
            with progress_part(0, 1, 2):
                report_progress(1, 1)
        report_progress(3, 3)
    assert outer == [(1, 3), (3, 3)]


def test_throttling_calls_back_rarely_but_always_with_the_total():
    seen, block = _collect(interval=3600.0)
    with block:
        for i in range(1, 100_001):
            report_progress(i, 100_000)
    assert 2 <= len(seen) <= 101  # a call per 1 % at most, the time never elapsing
    assert seen[-1] == (100_000, 100_000)


def test_the_interval_lets_small_steps_through():
    seen, block = _collect(interval=0)
    with block:
        for i in range(1, 1001):
            report_progress(i, 1000)
    assert [done for done, _ in seen] == list(range(1, 1001))


def test_counts_never_go_backwards_under_one_total():
    seen, block = _collect(interval=0)
    with block:
        for done in (2, 5, 3, 5, 7, 1, 10):
            report_progress(done, 10)
        report_progress(1, 4)  # a new total: a new count
    assert seen == [(2, 10), (5, 10), (7, 10), (10, 10), (1, 4)]


def test_a_part_maps_its_counts_onto_its_range():
    seen, block = _collect(interval=0)
    with block:
        report_progress(1, 10)
        with progress_part(2, 8, 10):
            for i in range(1, 4):
                report_progress(i, 3)
            with progress_part(1, 2, 3):  # a part of the part: 4..6 of the whole
                report_progress(1, 2)
        report_progress(9, 10)
    assert seen == [(1, 10), (2, 10), (4, 10), (6, 10), (8, 10), (9, 10)]
    assert all(a[0] <= b[0] for a, b in zip(seen, seen[1:], strict=False))


def test_a_part_maps_nested_counts_in_order():
    seen, block = _collect(interval=0)
    with block, progress_part(0, 100, 100):
        with progress_part(0, 2, 4):  # 0..50 of 100
            for i in range(11):
                report_progress(i, 10)
        with progress_part(2, 4, 4):  # 50..100
            report_progress(1, 2)
    assert [done for done, _ in seen] == [0, 5, 10, 15, 20, 25, 30, 35, 40, 45, 50, 75, 100]
    assert {total for _, total in seen} == {100}


def test_other_threads_report_nothing():
    seen, block = _collect(interval=0)
    with block:
        worker = threading.Thread(target=report_progress, args=(1, 2))
        worker.start()
        worker.join()
        report_progress(2, 2)
    assert seen == [(2, 2)]
