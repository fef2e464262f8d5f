"""sekai.error: one base class, builtin families, picklable."""

from __future__ import annotations

import pickle

import pytest

from sekai import error

FAMILIES = {
    error.EnvNotFound: LookupError,
    error.EnvAlreadyRegistered: ValueError,
    error.InvalidAction: ValueError,
    error.InvalidObservation: ValueError,
    error.ResetRequired: RuntimeError,
    error.AsyncCallPending: RuntimeError,
    error.SpaceMismatch: ValueError,
    error.DeprecatedAPI: DeprecationWarning,
    error.VecEnvWorkerError: RuntimeError,
    error.VecEnvClosed: RuntimeError,
    error.LookAheadError: RuntimeError,
    error.SyncCallInEventLoop: RuntimeError,
    error.NothingInFlight: RuntimeError,
    error.InvalidData: ValueError,
    error.MissingColumns: KeyError,
    error.OrderNotFound: KeyError,
    error.ResultNotIterable: TypeError,
    error.NotAnEnv: TypeError,
    error.UntrustedEntryPoint: ValueError,
    error.InvalidArgument: ValueError,
    error.InvalidArgumentType: TypeError,
    error.InvalidDataType: TypeError,
    error.EmptyTable: KeyError,
}


def test_all_lists_every_error() -> None:
    assert set(error.__all__) == {cls.__name__ for cls in FAMILIES} | {"SekaiError"}


@pytest.mark.parametrize(("cls", "builtin"), FAMILIES.items(), ids=lambda x: x.__name__)
def test_errors_subclass_the_base_and_their_builtin(cls: type, builtin: type) -> None:
    assert issubclass(cls, error.SekaiError)
    assert issubclass(cls, builtin)
    assert cls.__doc__


@pytest.mark.parametrize("cls", list(FAMILIES), ids=lambda x: x.__name__)
def test_errors_pickle(cls: type[Exception]) -> None:
    original = cls("something went wrong: 42")
    restored = pickle.loads(pickle.dumps(original))
    assert type(restored) is cls
    assert str(restored) == str(original)


def test_worker_error_keeps_index_and_traceback_across_pickle() -> None:
    original = error.VecEnvWorkerError("sub-env 3 failed", index=3, worker_traceback="Trace...")
    restored = pickle.loads(pickle.dumps(original))
    assert restored.index == 3
    assert restored.worker_traceback == "Trace..."
    assert "sub-env 3 failed" in str(restored)
    assert "Trace..." in str(restored)


@pytest.mark.parametrize("cls", [error.MissingColumns, error.OrderNotFound])
def test_key_errors_show_their_message_as_it_is(cls: type[Exception]) -> None:
    # KeyError's own str() is the repr of its argument, quotes and all.
    raised = cls("no resting order has id 7", order_id=7)
    assert str(raised) == "no resting order has id 7"
    restored = pickle.loads(pickle.dumps(raised))
    assert str(restored) == str(raised) and restored.order_id == 7  # type: ignore[attr-defined]
    assert isinstance(raised, KeyError)


def test_missing_columns_is_also_a_value_error() -> None:
    assert issubclass(error.MissingColumns, error.InvalidData)
    assert issubclass(error.MissingColumns, ValueError)


@pytest.mark.parametrize("cls", [error.InvalidDataType, error.EmptyTable])
def test_data_errors_keep_the_builtin_raised_before(cls: type[Exception]) -> None:
    # InvalidData is a ValueError; these two are also what was raised earlier.
    assert issubclass(cls, error.InvalidData) and issubclass(cls, ValueError)
    raised = cls("MarketData.from_long: the table has no rows")
    assert str(raised) == "MarketData.from_long: the table has no rows"
