"""The shared-memory block of a [`ProcVecEnv`][sekai.vector.ProcVecEnv].

When the observation space has fixed shapes (Box, Discrete, MultiDiscrete,
MultiBinary, and Dict / Tuple / MaskedBox of them), one shared block holds,
for every sub-env, a row of each observation leaf plus its reward and its
``terminated`` / ``truncated`` flags. Workers write their sub-envs' rows in
place; the parent copies the rows out after every reply, so nothing returned to
the user is a view of the block.

The layout is computed once, in the parent, and sent to the workers as plain
data (`BlockLayout` pickles as offsets, shapes and dtype strings).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from sekai.spaces import Space
from sekai.spaces._layout import ArrayLeaf, DictNode, Layout, TupleNode, layout_of

__all__ = ["BlockLayout", "BlockViews", "block_layout"]

_ALIGN = 64  # one cache line: rows of different leaves never share a line

# A tree mirroring the observation space: a leaf index, a dict or a tuple of trees.
_Tree = Any


@dataclass(frozen=True)
class _Leaf:
    offset: int
    shape: tuple[int, ...]  # with the leading num_envs axis
    dtype: str


@dataclass(frozen=True)
class BlockLayout:
    """Where every array of the block lives.

    Attributes:
        num_envs: Rows of every array.
        leaves: The observation leaves (offset, batched shape, dtype).
        tree: How the leaves nest: an int (leaf index), a dict or a tuple.
        rewards_offset: Offset of the float64 rewards.
        terminated_offset: Offset of the bool ``terminated`` flags.
        truncated_offset: Offset of the bool ``truncated`` flags.
        actions: The batch of actions (the parent writes it, workers read
            their rows), when the action space is one array space; else None.
        size: Bytes the block needs.
    """

    num_envs: int
    leaves: tuple[_Leaf, ...]
    tree: _Tree
    rewards_offset: int
    terminated_offset: int
    truncated_offset: int
    actions: _Leaf | None
    size: int


def _align(offset: int) -> int:
    return -(-offset // _ALIGN) * _ALIGN


def _tree(layout: Layout, num_envs: int, leaves: list[_Leaf], offset: list[int]) -> _Tree:
    """Append the leaves of ``layout`` to ``leaves``; ``None`` if a part is not an array."""
    if isinstance(layout, ArrayLeaf):
        shape = (num_envs, *layout.shape)
        dtype = layout.dtype
        start = _align(offset[0])
        leaves.append(_Leaf(start, shape, dtype.str))
        offset[0] = start + int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
        return len(leaves) - 1
    if isinstance(layout, DictNode):
        children: dict[str, _Tree] = {}
        for key, child in layout.items:
            sub = _tree(child, num_envs, leaves, offset)
            if sub is None:
                return None
            children[key] = sub
        return children
    if isinstance(layout, TupleNode):
        parts: list[_Tree] = []
        for child in layout.parts:
            sub = _tree(child, num_envs, leaves, offset)
            if sub is None:
                return None
            parts.append(sub)
        return tuple(parts)
    return None  # no fixed shape, or a registered type: its batch is not known to be arrays


def block_layout(
    space: Space[Any], num_envs: int, action_space: Space[Any] | None = None
) -> BlockLayout | None:
    """The block layout for ``num_envs`` observations of ``space``.

    With an ``action_space`` that is a single array space (Box, Discrete,
    MultiDiscrete, MultiBinary), the block has room for a batch of actions too.

    Returns ``None`` when a part of the space is not a fixed-shape array
    (Sequence, or a type registered with
    [`register_space_type`][sekai.spaces.register_space_type], whose batches may be any
    object), so observations must be pickled.
    """
    leaves: list[_Leaf] = []
    offset = [0]
    tree = _tree(layout_of(space), num_envs, leaves, offset)
    if tree is None:
        return None
    rewards = _align(offset[0])
    terminated = _align(rewards + 8 * num_envs)
    truncated = _align(terminated + num_envs)
    end = truncated + num_envs
    actions = None
    action_layout = None if action_space is None else layout_of(action_space)
    if isinstance(action_layout, ArrayLeaf):
        action_leaves: list[_Leaf] = []
        offset[0] = end
        _tree(action_layout, num_envs, action_leaves, offset)
        actions, end = action_leaves[0], offset[0]
    return BlockLayout(
        num_envs=num_envs,
        leaves=tuple(leaves),
        tree=tree,
        rewards_offset=rewards,
        terminated_offset=terminated,
        truncated_offset=truncated,
        actions=actions,
        size=_align(end),
    )


def _build(tree: _Tree, arrays: list[NDArray[Any]]) -> Any:
    if isinstance(tree, int):
        return arrays[tree]
    if isinstance(tree, dict):
        return {key: _build(sub, arrays) for key, sub in tree.items()}
    return tuple(_build(sub, arrays) for sub in tree)


def _copier(tree: _Tree, arrays: list[NDArray[Any]]) -> Callable[[], Any]:
    """A function returning a fresh copy of the observation batch (chosen once)."""
    if isinstance(tree, int):
        return arrays[tree].copy
    if isinstance(tree, dict):
        items = tuple((key, _copier(sub, arrays)) for key, sub in tree.items())
        return lambda: {key: copy() for key, copy in items}
    parts = tuple(_copier(sub, arrays) for sub in tree)
    return lambda: tuple(copy() for copy in parts)


class BlockViews:
    """numpy views of a block's arrays over a buffer (a shared-memory mapping).

    Attributes:
        observations: The batch of observations, nested like the space (views).
        rewards: float64 view of shape ``(num_envs,)``.
        terminated: bool view of shape ``(num_envs,)``.
        truncated: bool view of shape ``(num_envs,)``.
        copy_observations: Returns a fresh copy of the observation batch.
        actions: The batch of actions, or None.
    """

    __slots__ = (
        "actions",
        "copy_observations",
        "observations",
        "rewards",
        "terminated",
        "truncated",
    )

    def __init__(self, layout: BlockLayout, buffer: Any) -> None:
        n = layout.num_envs
        arrays: list[NDArray[Any]] = [
            np.ndarray(leaf.shape, dtype=np.dtype(leaf.dtype), buffer=buffer, offset=leaf.offset)
            for leaf in layout.leaves
        ]
        self.observations = _build(layout.tree, arrays)
        self.copy_observations = _copier(layout.tree, arrays)
        self.rewards: NDArray[np.float64] = np.ndarray(
            (n,), dtype=np.float64, buffer=buffer, offset=layout.rewards_offset
        )
        self.terminated: NDArray[np.bool_] = np.ndarray(
            (n,), dtype=np.bool_, buffer=buffer, offset=layout.terminated_offset
        )
        self.truncated: NDArray[np.bool_] = np.ndarray(
            (n,), dtype=np.bool_, buffer=buffer, offset=layout.truncated_offset
        )
        leaf = layout.actions
        self.actions: NDArray[Any] | None = (
            None
            if leaf is None
            else np.ndarray(
                leaf.shape, dtype=np.dtype(leaf.dtype), buffer=buffer, offset=leaf.offset
            )
        )

    def release(self) -> None:
        """Drop every view, so the mapping under them can be closed."""
        self.observations = None
        self.copy_observations = _released
        self.rewards = self.terminated = self.truncated = _EMPTY
        self.actions = None


_EMPTY: NDArray[Any] = np.empty(0)


def _released() -> Any:
    raise RuntimeError("the shared-memory block was released")
