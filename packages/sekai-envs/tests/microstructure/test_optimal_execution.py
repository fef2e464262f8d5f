"""OptimalExecution-v0 (Almgren & Chriss 2000): the model, its closed forms, the identities."""

from __future__ import annotations

import math

import numpy as np
import pytest

from sekai.envs.finance.optimal_execution import OptimalExecutionEnv
from sekai.envs.finance.optimal_execution_vector import OptimalExecutionVecEnv
from sekai.error import InvalidAction, ResetRequired
from sekai.spaces import Box
from sekai.utils import check_env


def _run(env: OptimalExecutionEnv, actions: np.ndarray, seed: int = 0) -> dict[str, float]:
    """Follow ``actions`` for one episode: trades, shortfall and the sum of rewards."""
    env.reset(seed=seed)
    trades, total = [], 0.0
    for action in actions:
        result = env.step(action)
        trades.append(result.info["shares_sold"])
        total += result.reward
        if result.terminated:
            break
    trades += [0.0] * (env.n_steps - len(trades))
    return {
        "trades": np.array(trades),
        "shortfall": result.info["implementation_shortfall"],
        "reward": total,
    }


def _fractions(trades: np.ndarray, x0: float) -> np.ndarray:
    """The actions that sell ``trades`` (shares per period) out of ``x0``."""
    held = x0 - np.concatenate(([0.0], np.cumsum(trades)[:-1]))
    with np.errstate(divide="ignore", invalid="ignore"):
        fractions = np.where(held > 0, trades / held, 1.0)
    return np.clip(fractions, 0, 1).astype(np.float32)[:, None]


def test_defaults_are_the_papers_example() -> None:
    env = OptimalExecutionEnv()
    assert (env.X0, env.s0, env.sigma, env.total_time) == (1e6, 50.0, 0.95, 5.0)
    assert (env.gamma, env.eta, env.epsilon, env.risk_aversion) == (2.5e-7, 2.5e-6, 0.0625, 1e-6)
    assert env.n_steps == 25 and env.tau == 0.2
    assert isinstance(env.observation_space, Box) and env.observation_space.shape == (3,)
    assert isinstance(env.action_space, Box) and env.action_space.shape == (1,)
    result = env.reset(seed=0)
    np.testing.assert_array_equal(result.observation, np.array([1.0, 1.0, 0.0], np.float32))
    assert math.isnan(result.info["execution_price"]) and result.info["shares_sold"] == 0.0


def test_check_env_is_clean() -> None:
    assert check_env(OptimalExecutionEnv(), n_steps=200, check_determinism=True) == []


def test_a_period_executes_with_temporary_and_permanent_impact() -> None:
    env = OptimalExecutionEnv(sigma=0.0, n_steps=4)
    env.reset(seed=0)
    result = env.step(np.array([0.25], np.float32))
    info = result.info
    assert info["shares_sold"] == 250_000.0 and info["inventory"] == 750_000.0
    price = 50.0 - 0.0625 - 2.5e-6 * 250_000 / env.tau
    assert info["execution_price"] == pytest.approx(price)
    assert info["mid_price"] == pytest.approx(50.0 - 2.5e-7 * 250_000)
    assert info["implementation_shortfall"] == pytest.approx(250_000 * (50.0 - price))
    assert info["shortfall_bps"] == pytest.approx(info["implementation_shortfall"] / 5e7 * 1e4)
    assert result.reward == pytest.approx(-info["shortfall_bps"])  # sigma = 0: no penalty
    np.testing.assert_allclose(result.observation, [0.75, 0.75, -0.0625], rtol=1e-6)
    info = env.step(np.array([0.0], np.float32)).info  # nothing sold: no fixed cost
    assert info["shares_sold"] == 0.0 and info["execution_price"] == info["mid_price"]


def test_the_last_period_sells_what_is_left_and_a_full_sale_ends_early() -> None:
    env = OptimalExecutionEnv(n_steps=3)
    env.reset(seed=0)
    assert not env.step(np.array([0.0], np.float32)).terminated
    assert not env.step(np.array([0.5], np.float32)).terminated
    last = env.step(np.array([0.0], np.float32))
    assert last.terminated and last.info["shares_sold"] == 500_000.0 and env.inventory == 0.0
    with pytest.raises(ResetRequired):
        env.step(np.array([0.5], np.float32))
    env.reset(seed=0)
    result = env.step(np.array([1.0], np.float32))
    assert result.terminated and result.info["inventory"] == 0.0 and env.elapsed_steps == 1


@pytest.mark.parametrize("n_steps", [5, 25])
def test_the_trajectory_is_the_papers(n_steps: int) -> None:
    env = OptimalExecutionEnv(n_steps=n_steps)
    holdings = env.almgren_chriss_trajectory()
    assert holdings.shape == (n_steps + 1,) and holdings[0] == 1e6 and holdings[-1] == 0.0
    assert bool(np.all(np.diff(holdings) < 0))
    tau = env.tau
    eta_tilde = env.eta - 0.5 * env.gamma * tau
    kappa_tilde_sq = env.risk_aversion * env.sigma**2 / eta_tilde
    kappa = math.acosh(1 + 0.5 * kappa_tilde_sq * tau**2) / tau
    assert 2 * (math.cosh(kappa * tau) - 1) / tau**2 == pytest.approx(kappa_tilde_sq)
    times = np.arange(n_steps + 1) * tau
    expected = 1e6 * np.sinh(kappa * (5.0 - times)) / np.sinh(kappa * 5.0)
    np.testing.assert_allclose(holdings, expected, rtol=1e-12, atol=1e-6)
    # risk neutral: a straight line (TWAP)
    twap = OptimalExecutionEnv(n_steps=n_steps, risk_aversion=0.0).almgren_chriss_trajectory()
    np.testing.assert_allclose(twap, np.linspace(1e6, 0.0, n_steps + 1), rtol=1e-12)
    # far more risk averse: sells faster
    urgent = OptimalExecutionEnv(n_steps=n_steps, risk_aversion=1e-4).almgren_chriss_trajectory()
    assert bool(np.all(urgent[1:-1] < holdings[1:-1]))


def test_the_actions_follow_the_trajectory() -> None:
    env = OptimalExecutionEnv()
    actions = env.almgren_chriss_actions()
    assert actions.shape == (25, 1) and actions.dtype == np.float32
    assert all(action in env.action_space for action in actions)
    run = _run(env, actions)
    expected = -np.diff(env.almgren_chriss_trajectory())
    np.testing.assert_allclose(run["trades"], expected, rtol=1e-6)
    env.reset(seed=0)
    twap = []
    for _ in range(env.n_steps):
        twap.append(env.step(env.twap_action()).info["shares_sold"])
    np.testing.assert_allclose(twap, 40_000.0, rtol=1e-6)


def _schedules(env: OptimalExecutionEnv) -> dict[str, np.ndarray]:
    n = env.n_steps
    rng = np.random.default_rng(0)
    return {
        "almgren-chriss": -np.diff(env.almgren_chriss_trajectory()),
        "twap": np.full(n, env.X0 / n),
        "random": rng.dirichlet(np.ones(n)) * env.X0,
        "all at once": np.concatenate(([env.X0], np.zeros(n - 1))),
        "all at the end": np.concatenate((np.zeros(n - 1), [env.X0])),
    }


@pytest.mark.parametrize("n_steps", [5, 25])
def test_without_volatility_the_shortfall_is_the_closed_form_expectation(n_steps: int) -> None:
    env = OptimalExecutionEnv(n_steps=n_steps, sigma=0.0)
    for name, schedule in _schedules(env).items():
        run = _run(env, _fractions(schedule, env.X0))
        # E of the trades actually executed (the float32 actions round the schedule)
        np.testing.assert_allclose(run["trades"], schedule, rtol=1e-6, atol=1e-6, err_msg=name)
        mean, variance = env.expected_shortfall(run["trades"])
        assert variance == 0.0
        assert run["shortfall"] == pytest.approx(mean, rel=1e-12, abs=1e-6), name
        assert run["reward"] == pytest.approx(-1e4 * mean / 5e7, rel=1e-10), name


def test_expected_shortfall_formulas() -> None:
    env = OptimalExecutionEnv(n_steps=5)
    trades = np.array([4e5, 3e5, 2e5, 1e5, 0.0])
    mean, variance = env.expected_shortfall(trades)
    eta_tilde = 2.5e-6 - 0.5 * 2.5e-7 * 1.0
    assert mean == pytest.approx(
        0.5 * 2.5e-7 * 1e12 + 0.0625 * 1e6 + eta_tilde * float(np.sum(trades**2))
    )
    holdings = np.array([6e5, 3e5, 1e5, 0.0, 0.0])
    assert variance == pytest.approx(0.95**2 * float(np.sum(holdings**2)))
    with pytest.raises(ValueError, match="add up to the initial inventory"):
        env.expected_shortfall(np.full(5, 1e5))
    with pytest.raises(ValueError, match="5 finite numbers"):
        env.expected_shortfall(np.full(4, 2.5e5))


@pytest.mark.parametrize("schedule_name", ["almgren-chriss", "twap"])
def test_with_volatility_the_shortfall_has_mean_e_and_variance_v(schedule_name: str) -> None:
    # Static schedules make the shortfall Gaussian with the paper's E and V: the
    # sample mean is within 4 standard errors, the sample variance within 4
    # standard deviations of a chi-square estimate.
    episodes = 20_000
    vec = OptimalExecutionVecEnv(episodes, autoreset=False)
    single = OptimalExecutionEnv()
    schedule = _schedules(single)[schedule_name]
    actions = _fractions(schedule, single.X0)
    vec.reset(seed=2000)
    returns = np.zeros(episodes)
    executed = []
    for action in actions:
        result = vec.step(np.repeat(action[None], episodes, axis=0))
        returns += result.rewards
        executed.append(result.infos[0]["shares_sold"])  # the same in every sub-env
    assert bool(result.terminated.all())
    shortfall = vec.shortfall
    mean, variance = single.expected_shortfall(np.array(executed))
    assert mean == pytest.approx(single.expected_shortfall(schedule)[0], rel=1e-7)
    assert shortfall.mean() == pytest.approx(mean, abs=4 * math.sqrt(variance / episodes))
    assert shortfall.var(ddof=1) == pytest.approx(variance, rel=4 * math.sqrt(2 / (episodes - 1)))
    # the rewards add up to the mean-variance objective, in basis points
    objective = -1e4 * (shortfall + single.risk_aversion * variance) / 5e7
    np.testing.assert_allclose(returns, objective, rtol=1e-9, atol=1e-9)


def test_the_optimal_schedule_beats_twap_on_the_papers_objective() -> None:
    env = OptimalExecutionEnv()
    objective = {}
    for name, trades in _schedules(env).items():
        mean, variance = env.expected_shortfall(trades)
        objective[name] = mean + env.risk_aversion * variance
    assert objective["almgren-chriss"] == min(objective.values())
    assert objective["almgren-chriss"] < objective["twap"]


def test_seeding_replays_an_episode() -> None:
    env = OptimalExecutionEnv()
    actions = env.almgren_chriss_actions()
    assert _run(env, actions, seed=3)["shortfall"] == _run(env, actions, seed=3)["shortfall"]
    assert _run(env, actions, seed=3)["shortfall"] != _run(env, actions, seed=4)["shortfall"]


def test_errors() -> None:
    env = OptimalExecutionEnv()
    with pytest.raises(ResetRequired):
        env.step(np.array([0.5], np.float32))
    env.reset(seed=0)
    for bad in ([1.5], [-0.1], [0.1, 0.2], [math.nan], [[0.5]], "a"):
        with pytest.raises(InvalidAction, match=r"one number in \[0, 1\]"):
            env.step(bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="initial_inventory"):
        OptimalExecutionEnv(initial_inventory=0.0)
    with pytest.raises(ValueError, match="n_steps"):
        OptimalExecutionEnv(n_steps=0)
    with pytest.raises(ValueError, match="eta_tilde"):
        OptimalExecutionEnv(temporary_impact=1e-8).almgren_chriss_trajectory()
