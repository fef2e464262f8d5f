"""Window samplers: regime-switching synthetic episodes and windows of a table.

Moved here from sekai-envs with the samplers; sekai.envs.samplers re-exports them.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from sekai.finance.sampling import (
    Episode,
    EpisodeSampler,
    HistoricalSampler,
    RegimeSwitchingSampler,
    WindowSampler,
)


def test_regime_chain_follows_the_transition_matrix() -> None:
    transition = [[0.9, 0.1, 0.0], [0.0, 0.8, 0.2], [0.5, 0.0, 0.5]]
    sampler = RegimeSwitchingSampler(
        2, drifts=[0.0, 0.0, 0.0], volatilities=[1, 2, 3], transition=transition
    )
    rng = np.random.default_rng(0)
    path = np.concatenate([sampler.sample_regimes(rng, 500) for _ in range(40)])
    counts = np.zeros((3, 3))
    for a, b in itertools.pairwise(path):
        counts[a, b] += 1
    estimated = counts / counts.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(estimated, transition, atol=0.02)
    # stationary distribution solves pi P = pi
    np.testing.assert_allclose(sampler.stationary @ np.array(transition), sampler.stationary)
    np.testing.assert_allclose(
        np.bincount(path, minlength=3) / len(path), sampler.stationary, atol=0.03
    )


def test_returns_have_the_regime_moments_and_correlation() -> None:
    sampler = RegimeSwitchingSampler(
        3,
        drifts=[0.01],
        volatilities=[0.02],
        transition=[[1.0]],
        correlation=0.5,
        halt_probability=0.0,
    )
    episode = sampler.sample(np.random.default_rng(1), 20000)
    r = episode.log_returns
    assert r.shape == (20000, 3) and not episode.halted.any()
    np.testing.assert_allclose(r.mean(axis=0), 0.01, atol=0.001)
    np.testing.assert_allclose(r.std(axis=0), 0.02, rtol=0.03)
    np.testing.assert_allclose(np.corrcoef(r.T)[np.triu_indices(3, 1)], 0.5, atol=0.03)


def test_volatility_switches_with_the_regime() -> None:
    sampler = RegimeSwitchingSampler(
        1, drifts=[0.0, 0.0], volatilities=[0.01, 0.05], halt_probability=0.0
    )
    regimes = sampler.sample_regimes(np.random.default_rng(3), 5000)
    episode = sampler.sample(np.random.default_rng(3), 5000)  # same stream: same regimes
    r = episode.log_returns[:, 0]
    assert r[regimes == 0].std() == pytest.approx(0.01, rel=0.1)
    assert r[regimes == 1].std() == pytest.approx(0.05, rel=0.1)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_reopen_takes_the_move_the_halt_held_back(seed: int) -> None:
    # A drift of 1% a period and almost no noise: the value gains 1% every period, halted or not.
    sampler = RegimeSwitchingSampler(
        3,
        drifts=[0.01],
        volatilities=[1e-12],
        transition=[[1.0]],
        halt_probability=0.1,
        resume_probability=0.3,
    )
    episode = sampler.sample(np.random.default_rng(seed), 500)
    frozen = np.zeros_like(episode.halted)
    frozen[1:] = episode.halted[:-1]
    assert frozen.sum() > 50
    log_price = np.cumsum(episode.log_returns, axis=0)
    periods = np.arange(1, 501)[:, None] * np.ones((1, 3))
    # Wherever the price trades, it is the value: no move is lost to a halt.
    np.testing.assert_allclose(log_price[~frozen], 0.01 * periods[~frozen], atol=1e-9)
    reopens = ~frozen[1:] & frozen[:-1]
    assert (episode.log_returns[1:][reopens] > 0.015).all()  # a gap: more than one period's move


def test_halts_freeze_prices() -> None:
    sampler = RegimeSwitchingSampler(4, halt_probability=0.05, resume_probability=0.3)
    episode = sampler.sample(np.random.default_rng(4), 3000)
    halted = episode.halted
    assert not halted[0].any()
    assert 0.05 < halted.mean() < 0.25  # stationary share 0.05 / 0.35 ~ 0.14
    assert np.all(episode.log_returns[1:][halted[:-1]] == 0.0)
    assert np.all(episode.log_returns[1:][~halted[:-1]] != 0.0)


def test_spawn_gives_independent_equal_samplers() -> None:
    sampler = RegimeSwitchingSampler(2)
    child = sampler.spawn()
    assert child is not sampler and child.n_assets == 2
    a = sampler.sample(np.random.default_rng(5), 50)
    b = child.sample(np.random.default_rng(5), 50)
    np.testing.assert_array_equal(a.log_returns, b.log_returns)
    table = HistoricalSampler(np.zeros((10, 2)))
    assert table.spawn() is not table and table.spawn().n_rows == 10


def test_validation() -> None:
    with pytest.raises(ValueError, match="row-stochastic"):
        RegimeSwitchingSampler(transition=[[0.5, 0.4], [0.5, 0.5]])
    with pytest.raises(ValueError, match="square"):
        RegimeSwitchingSampler(transition=[[1.0, 0.0]])
    with pytest.raises(ValueError, match=r"volatilities must have one value per regime \(2,\)"):
        RegimeSwitchingSampler(volatilities=[0.1, 0.2, 0.3])
    with pytest.raises(ValueError, match="volatilities must be > 0"):
        RegimeSwitchingSampler(volatilities=[0.1, 0.0])
    with pytest.raises(ValueError, match=r"correlation=-0\.9"):
        RegimeSwitchingSampler(3, correlation=-0.9)
    with pytest.raises(ValueError, match="halt_probability"):
        RegimeSwitchingSampler(halt_probability=1.5)
    with pytest.raises(ValueError, match="n_assets"):
        RegimeSwitchingSampler(0)
    with pytest.raises(ValueError, match="halted must be a bool array"):
        Episode(np.zeros((3, 2)), np.zeros((3, 2)))
    with pytest.raises(ValueError, match="finite"):
        Episode(np.full((3, 2), np.nan), np.zeros((3, 2), bool))
    with pytest.raises(ValueError, match="start"):
        HistoricalSampler(np.zeros((3, 2)), start=-1)
    with pytest.raises(ValueError, match="episodes need 5 rows, the table has 3"):
        HistoricalSampler(np.zeros((3, 2))).sample(np.random.default_rng(0), 5)


def test_historical_windows_are_read_only_views_of_the_table() -> None:
    table = np.arange(40.0).reshape(20, 2) / 100
    sampler = HistoricalSampler(table, start=5)
    episode = sampler.sample(np.random.default_rng(0), 4)
    np.testing.assert_array_equal(episode.log_returns, table[5:9])
    assert not episode.log_returns.flags.writeable
    table[5, 0] = 9.0  # the sampler copied the table
    assert sampler.sample(np.random.default_rng(0), 4).log_returns[0, 0] == 0.1
    assert "start=5" in repr(sampler) and sampler.n_assets == 2
    random = HistoricalSampler(table)
    firsts = {random.sample(np.random.default_rng(s), 17).log_returns[0, 1] for s in range(200)}
    assert firsts == {table[i, 1] for i in range(4)}  # every window that fits, none other
    assert sampler.sample(np.random.default_rng(0), 15).n_periods == 15  # rows 5..19: fits
    with pytest.raises(ValueError, match="start=5 needs 21 rows, the table has 20"):
        sampler.sample(np.random.default_rng(0), 16)


def test_the_window_base_is_not_the_start_sampler() -> None:
    assert issubclass(RegimeSwitchingSampler, WindowSampler)
    assert issubclass(HistoricalSampler, WindowSampler)
    assert not issubclass(HistoricalSampler, EpisodeSampler)
    assert "n_regimes=2" in repr(RegimeSwitchingSampler())


def test_the_old_import_path_still_works() -> None:
    old = pytest.importorskip("sekai.envs.samplers")
    assert old.EpisodeSampler is WindowSampler
    assert old.HistoricalSampler is HistoricalSampler and old.Episode is Episode
    assert old.RegimeSwitchingSampler is RegimeSwitchingSampler
