"""Domain errors keep their class across the daemon hop (semlith/remote.py)."""

from __future__ import annotations

import inspect

import pytest

from semlith import errors
from semlith.remote import _error

DOMAIN = [cls for _, cls in inspect.getmembers(errors, inspect.isclass)
          if issubclass(cls, Exception) and cls.__module__ == errors.__name__]


@pytest.mark.parametrize("cls", DOMAIN, ids=lambda c: c.__name__)
def test_every_domain_error_is_raised_again_as_itself(cls: type[Exception]) -> None:
    rebuilt = _error(cls.__name__, "why")
    assert type(rebuilt) is cls and str(rebuilt) == "why"


def test_a_kind_semlith_does_not_know_is_a_daemon_error() -> None:
    assert type(_error("KeyError", "odd")) is errors.DaemonError
    assert type(_error("__class__", "odd")) is errors.DaemonError
    assert type(_error("ValueError", "bad k")) is ValueError
