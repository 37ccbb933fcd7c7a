"""The garbage collector pause restores the collector as it found it."""

from __future__ import annotations

import gc

import pytest

from toolcall_cli.model.gcpause import no_gc


def test_paused_inside_and_enabled_after() -> None:
    assert gc.isenabled()
    with no_gc():
        assert not gc.isenabled()
    assert gc.isenabled()


def test_restored_after_an_error() -> None:
    with pytest.raises(ValueError), no_gc():
        raise ValueError("boom")
    assert gc.isenabled()


def test_a_disabled_collector_stays_disabled() -> None:
    gc.disable()
    try:
        with no_gc():
            assert not gc.isenabled()
        assert not gc.isenabled()
    finally:
        gc.enable()
