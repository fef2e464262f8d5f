"""SB3's PPO learns Acrobot-v1 through to_gymnasium (the training guide's example, at full budget).

A random policy never swings the tip up within the 500-step limit (return
-500). Forty thousand steps of PPO, a few seconds on one core, bring the
greedy policy to between about -300 and -80 over the seeds tried (0 to 7);
the assertion asks for a clear margin over random, not for a solved task.
Everything is seeded, so a run repeats exactly on the same machine.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from stable_baselines3 import PPO
from stable_baselines3.common.env_util import make_vec_env

import sekai
from sekai.compat import to_gymnasium

ENV_ID = "Acrobot-v1"
EPISODES = 5


def make_env() -> Any:
    return to_gymnasium(sekai.make(ENV_ID))


def mean_return(policy: Callable[[Any], Any], seed: int) -> float:
    env = make_env()
    returns = []
    for episode in range(EPISODES):
        observation, _ = env.reset(seed=seed + episode)
        total, done = 0.0, False
        while not done:
            observation, reward, terminated, truncated, _ = env.step(policy(observation))
            total += float(reward)
            done = terminated or truncated
        returns.append(total)
    env.close()
    return float(np.mean(returns))


def test_ppo_beats_a_random_policy_on_acrobot() -> None:
    venv = make_vec_env(make_env, n_envs=8, seed=0)
    model = PPO("MlpPolicy", venv, n_steps=256, batch_size=256, n_epochs=4, gae_lambda=0.94, seed=0)
    model.learn(total_timesteps=40_960)
    venv.close()

    random_env = make_env()
    random_env.action_space.seed(1)

    def trained(observation: Any) -> Any:
        return model.predict(observation, deterministic=True)[0]

    def random(observation: Any) -> Any:
        return random_env.action_space.sample()

    learned, baseline = mean_return(trained, seed=1000), mean_return(random, seed=1000)
    assert baseline < -400  # the task is hard for a random policy ...
    assert learned > baseline + 100  # ... and the trained one does clearly better
