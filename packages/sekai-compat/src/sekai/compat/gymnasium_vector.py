"""Sekai vector environments served to Gymnasium's vector API."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sekai.compat._imports import require_gymnasium

if TYPE_CHECKING:
    from sekai.vector import VecEnv

__all__ = ["to_gymnasium_vector"]


def to_gymnasium_vector(vec_env: VecEnv[Any, Any]) -> Any:
    """Serve a sekai VecEnv as a ``gymnasium.vector.VectorEnv``.

    Any backend works (``SyncVecEnv``, ``AsyncVecEnv``, ``ProcVecEnv``, a
    ``NativeVecEnv`` from ``make_vec``), so Gymnasium's vector wrappers and
    training loops written for Gymnasium run on sekai's fast backends.

    The result follows Gymnasium's same-step autoreset mode, which is sekai's
    own: ``metadata["autoreset_mode"]`` is
    ``gymnasium.vector.AutoresetMode.SAME_STEP``. Observations, rewards
    (float64) and flags (bool) are the sekai batches; infos are converted to
    Gymnasium's dict of arrays, each key ``k`` with its boolean mask ``"_k"``
    (built by Gymnasium's own ``VectorEnv._add_info``). For a sub-env that
    finished and was reset within the step, ``infos["final_obs"]`` (an object
    array) and ``infos["final_info"]`` (a nested dict of arrays), masked by
    ``"_final_obs"`` and ``"_final_info"``, hold the terminal observation and
    info, and the other keys hold the reset's info (plus anything a sekai
    vector wrapper added, such as episode statistics).

    ``reset(seed=...)`` passes the seed to the sekai VecEnv: an int derives
    one independent seed per sub-env with ``SeedSequence`` (sekai's rule,
    identical on every backend; Gymnasium's own vector envs use ``seed + i``);
    a list gives one seed per sub-env. ``call``, ``get_attr`` and
    ``set_attr`` reach the sub-envs through the sekai VecEnv; ``close()``
    closes it.

    Args:
        vec_env: The sekai vector env, built with ``autoreset=True`` (the
            default).

    Returns:
        A ``gymnasium.vector.VectorEnv``; the sekai env is its
        ``sekai_vec_env`` attribute.

    Raises:
        ImportError: Gymnasium is not installed (it comes with the
            ``sekai-compat[gymnasium]`` distribution).
        TypeError: ``vec_env`` is not a sekai ``VecEnv``, or a space has no
            Gymnasium equivalent.
        ValueError: ``vec_env`` was built with ``autoreset=False``.

    Examples:
        >>> import sekai
        >>> envs = to_gymnasium_vector(sekai.make_vec("CartPole-v1", num_envs=2))
        >>> observations, infos = envs.reset(seed=0)
        >>> observations.shape, envs.metadata["autoreset_mode"].name
        ((2, 4), 'SAME_STEP')
        >>> envs.close()
    """
    require_gymnasium()
    from sekai.compat._to_gymnasium_vector import SekaiGymnasiumVectorEnv
    from sekai.vector import VecEnv

    if not isinstance(vec_env, VecEnv):
        raise TypeError(f"to_gymnasium_vector: expected a sekai VecEnv, got {vec_env!r}")

    return SekaiGymnasiumVectorEnv(vec_env)
