"""sekai: a reinforcement-learning environment framework.

This module is the top-level API. Every public name of the sekai distributions
is available here (``sekai.Env``, ``sekai.Box``, ``sekai.make``, ...), and so are
the subpackages (``sekai.spaces``, ``sekai.vector``, ...).

Names are loaded on first use, so ``import sekai`` stays cheap and a plugin that
only needs ``sekai.core`` never pays for the vector or wrapper stacks.

The subpackages themselves live in separate distributions (``sekai-core``,
``sekai-wrappers``, ``sekai-vector``, ``sekai-envs``) that share the ``sekai``
namespace. This file belongs to the ``sekai`` meta-package alone.
"""

from __future__ import annotations

import sys
from os import path as _os_path

# ``typing`` and ``pkgutil`` are not imported: they would multiply the cost of
# ``import sekai``. Type checkers treat any ``TYPE_CHECKING`` name as true.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def _extend_path(package_path: list[str]) -> list[str]:
    """Add every other ``sekai`` directory on ``sys.path`` to ``package_path``.

    The other distributions install their portions of the ``sekai`` namespace
    in other directories (editable installs put each package's ``src/`` on
    ``sys.path``). This regular package would hide them; listing them in
    ``__path__`` lets ``import sekai.core`` find them (what
    ``pkgutil.extend_path`` does, without importing pkgutil).
    """
    extended = list(package_path)
    for entry in sys.path:
        candidate = _os_path.join(entry or ".", __name__)
        if _os_path.isdir(candidate) and candidate not in extended:
            extended.append(candidate)
    return extended


__path__ = _extend_path(__path__)

__version__ = "0.3.0.dev0"

# Public name -> module that defines it, and the matching imports for type
# checkers. Generated from the modules' __all__; a test checks it is current.
# BEGIN GENERATED EXPORTS (tools/sync_exports.py)
_EXPORTS: dict[str, str] = {
    "Env": "sekai.core",
    "MultiAgentEnv": "sekai.core",
    "ActionWrapper": "sekai.core",
    "ObservationWrapper": "sekai.core",
    "RewardWrapper": "sekai.core",
    "TimeLimit": "sekai.core",
    "Wrapper": "sekai.core",
    "MAResetResult": "sekai.core",
    "MAStepResult": "sekai.core",
    "ResetResult": "sekai.core",
    "StepResult": "sekai.core",
    "FINAL_INFO": "sekai.core",
    "FINAL_OBSERVATION": "sekai.core",
    "RESET_INFO": "sekai.core",
    "SeedType": "sekai.core",
    "SeededRNG": "sekai.core",
    "AsyncCallPending": "sekai.error",
    "DeprecatedAPI": "sekai.error",
    "EmptyTable": "sekai.error",
    "EnvAlreadyRegistered": "sekai.error",
    "EnvNotFound": "sekai.error",
    "InvalidAction": "sekai.error",
    "InvalidArgument": "sekai.error",
    "InvalidArgumentType": "sekai.error",
    "InvalidData": "sekai.error",
    "InvalidDataType": "sekai.error",
    "InvalidObservation": "sekai.error",
    "LookAheadError": "sekai.error",
    "MissingColumns": "sekai.error",
    "NotAnEnv": "sekai.error",
    "NothingInFlight": "sekai.error",
    "OrderNotFound": "sekai.error",
    "ResetRequired": "sekai.error",
    "ResultNotIterable": "sekai.error",
    "SekaiError": "sekai.error",
    "SpaceMismatch": "sekai.error",
    "SyncCallInEventLoop": "sekai.error",
    "UntrustedEntryPoint": "sekai.error",
    "VecEnvClosed": "sekai.error",
    "VecEnvWorkerError": "sekai.error",
    "Space": "sekai.spaces",
    "Box": "sekai.spaces",
    "Discrete": "sekai.spaces",
    "MultiBinary": "sekai.spaces",
    "MultiDiscrete": "sekai.spaces",
    "Dict": "sekai.spaces",
    "MaskedBox": "sekai.spaces",
    "Sequence": "sekai.spaces",
    "Tuple": "sekai.spaces",
    "flatdim": "sekai.spaces",
    "flatten": "sekai.spaces",
    "flatten_space": "sekai.spaces",
    "unflatten": "sekai.spaces",
    "batch_space": "sekai.spaces",
    "concatenate": "sekai.spaces",
    "iterate": "sekai.spaces",
    "register_space_type": "sekai.spaces",
    "space_from_jsonable": "sekai.spaces",
    "zero_sample": "sekai.spaces",
    "ENTRY_POINT_GROUP": "sekai.registry",
    "EnvRegistry": "sekai.registry",
    "EnvSpec": "sekai.registry",
    "VectorizationMode": "sekai.registry",
    "WrapperSpec": "sekai.registry",
    "all_specs": "sekai.registry",
    "default_registry": "sekai.registry",
    "deregister": "sekai.registry",
    "make": "sekai.registry",
    "make_vec": "sekai.registry",
    "pprint_registry": "sekai.registry",
    "register": "sekai.registry",
    "register_namespace": "sekai.registry",
    "spec": "sekai.registry",
    "EpisodeStats": "sekai.stats",
    "InMemoryTracker": "sekai.stats",
    "LoggingTracker": "sekai.stats",
    "StatsTracker": "sekai.stats",
    "make_seed_sequence": "sekai.utils",
    "np_random": "sekai.utils",
    "RunningMeanStd": "sekai.utils",
    "ExponentialMovingStats": "sekai.utils",
    "supports_action_mask": "sekai.utils",
    "get_action_mask": "sekai.utils",
    "action_mask_space": "sekai.utils",
    "flatten_action_mask": "sekai.utils",
    "check_env": "sekai.utils",
    "AutoReset": "sekai.wrappers",
    "OrderEnforcing": "sekai.wrappers",
    "RecordEpisodeStatistics": "sekai.wrappers",
    "ActionMaskObservation": "sekai.wrappers",
    "DelayObservation": "sekai.wrappers",
    "DtypeObservation": "sekai.wrappers",
    "FilterObservation": "sekai.wrappers",
    "FlattenObservation": "sekai.wrappers",
    "FrameStackObservation": "sekai.wrappers",
    "NormalizeObservation": "sekai.wrappers",
    "PadSequenceObservation": "sekai.wrappers",
    "RescaleObservation": "sekai.wrappers",
    "TimeAwareObservation": "sekai.wrappers",
    "TransformObservation": "sekai.wrappers",
    "ActionRepeat": "sekai.wrappers",
    "ClipAction": "sekai.wrappers",
    "DelayAction": "sekai.wrappers",
    "RescaleAction": "sekai.wrappers",
    "StickyAction": "sekai.wrappers",
    "ClipReward": "sekai.wrappers",
    "NormalizeReward": "sekai.wrappers",
    "TransformReward": "sekai.wrappers",
    "Renderer": "sekai.rendering",
    "BaseRenderer": "sekai.rendering",
    "RenderFrame": "sekai.rendering",
    "RGBArray": "sekai.rendering",
    "ANSIString": "sekai.rendering",
    "Dashboard": "sekai.rendering",
    "Panel": "sekai.rendering",
    "View": "sekai.rendering",
    "Row": "sekai.rendering",
    "Column": "sekai.rendering",
    "Series": "sekai.rendering",
    "Stat": "sekai.rendering",
    "LineChart": "sekai.rendering",
    "BarChart": "sekai.rendering",
    "StackedArea": "sekai.rendering",
    "Theme": "sekai.rendering",
    "LIGHT": "sekai.rendering",
    "DARK": "sekai.rendering",
    "get_theme": "sekai.rendering",
    "Canvas": "sekai.rendering",
    "rotate": "sekai.rendering",
    "text_width": "sekai.rendering",
    "RecordFrames": "sekai.rendering",
    "save_gif": "sekai.rendering",
    "save_video": "sekai.rendering",
    "VecEnv": "sekai.vector",
    "SyncVecEnv": "sekai.vector",
    "AsyncVecEnv": "sekai.vector",
    "ProcVecEnv": "sekai.vector",
    "NativeVecEnv": "sekai.vector",
    "InfoArrays": "sekai.vector",
    "VecResetResult": "sekai.vector",
    "VecStepResult": "sekai.vector",
    "stack_infos": "sekai.vector",
    "VecWrapper": "sekai.vector",
    "VecObservationWrapper": "sekai.vector",
    "VecRewardWrapper": "sekai.vector",
    "VecActionWrapper": "sekai.vector",
    "VecRecordEpisodeStatistics": "sekai.vector",
    "VecNormalizeObservation": "sekai.vector",
    "VecNormalizeReward": "sekai.vector",
    "VecTransformObservation": "sekai.vector",
    "VecTransformReward": "sekai.vector",
    "AcrobotEnv": "sekai.envs",
    "AcrobotVecEnv": "sekai.envs",
    "CartPoleEnv": "sekai.envs",
    "CartPoleVecEnv": "sekai.envs",
    "ContinuousMountainCarEnv": "sekai.envs",
    "ContinuousMountainCarVecEnv": "sekai.envs",
    "Episode": "sekai.envs",
    "EpisodeSampler": "sekai.envs",
    "HistoricalSampler": "sekai.envs",
    "LimitOrderBookEnv": "sekai.envs",
    "LimitOrderBookMarket": "sekai.envs",
    "MarketEnv": "sekai.envs",
    "MarketMakingEnv": "sekai.envs",
    "MarketMakingOptimum": "sekai.envs",
    "MarketMakingVecEnv": "sekai.envs",
    "MarketMicrostructureEnv": "sekai.envs",
    "MarketVecEnv": "sekai.envs",
    "MountainCarEnv": "sekai.envs",
    "MountainCarVecEnv": "sekai.envs",
    "OptimalExecutionEnv": "sekai.envs",
    "OptimalExecutionVecEnv": "sekai.envs",
    "PendulumEnv": "sekai.envs",
    "PendulumVecEnv": "sekai.envs",
    "PortfolioEnv": "sekai.envs",
    "PortfolioVecEnv": "sekai.envs",
    "RegimeSwitchingSampler": "sekai.envs",
    "TradingEnv": "sekai.envs",
    "TradingVecEnv": "sekai.envs",
    "buy_and_hold": "sekai.envs",
    "equal_weight": "sekai.envs",
    "market_making_optimum": "sekai.envs",
    "register_envs": "sekai.envs",
    "GymnasiumRenderer": "sekai.compat",
    "GymnasiumToSekai": "sekai.compat",
    "SekaiToGymnasium": "sekai.compat",
    "from_gymnasium": "sekai.compat",
    "to_gymnasium": "sekai.compat",
    "to_gymnasium_vector": "sekai.compat",
    "PettingZooToSekai": "sekai.compat",
    "SekaiToPettingZoo": "sekai.compat",
    "from_pettingzoo": "sekai.compat",
    "to_pettingzoo": "sekai.compat",
    "from_gymnasium_space": "sekai.compat",
    "space_from_gymnasium": "sekai.compat",
    "space_to_gymnasium": "sekai.compat",
    "to_gymnasium_space": "sekai.compat",
}

if TYPE_CHECKING:
    from sekai.compat import (
        GymnasiumRenderer as GymnasiumRenderer,
        GymnasiumToSekai as GymnasiumToSekai,
        PettingZooToSekai as PettingZooToSekai,
        SekaiToGymnasium as SekaiToGymnasium,
        SekaiToPettingZoo as SekaiToPettingZoo,
        from_gymnasium as from_gymnasium,
        from_gymnasium_space as from_gymnasium_space,
        from_pettingzoo as from_pettingzoo,
        space_from_gymnasium as space_from_gymnasium,
        space_to_gymnasium as space_to_gymnasium,
        to_gymnasium as to_gymnasium,
        to_gymnasium_space as to_gymnasium_space,
        to_gymnasium_vector as to_gymnasium_vector,
        to_pettingzoo as to_pettingzoo,
    )
    from sekai.core import (
        FINAL_INFO as FINAL_INFO,
        FINAL_OBSERVATION as FINAL_OBSERVATION,
        RESET_INFO as RESET_INFO,
        ActionWrapper as ActionWrapper,
        Env as Env,
        MAResetResult as MAResetResult,
        MAStepResult as MAStepResult,
        MultiAgentEnv as MultiAgentEnv,
        ObservationWrapper as ObservationWrapper,
        ResetResult as ResetResult,
        RewardWrapper as RewardWrapper,
        SeededRNG as SeededRNG,
        SeedType as SeedType,
        StepResult as StepResult,
        TimeLimit as TimeLimit,
        Wrapper as Wrapper,
    )
    from sekai.envs import (
        AcrobotEnv as AcrobotEnv,
        AcrobotVecEnv as AcrobotVecEnv,
        CartPoleEnv as CartPoleEnv,
        CartPoleVecEnv as CartPoleVecEnv,
        ContinuousMountainCarEnv as ContinuousMountainCarEnv,
        ContinuousMountainCarVecEnv as ContinuousMountainCarVecEnv,
        Episode as Episode,
        EpisodeSampler as EpisodeSampler,
        HistoricalSampler as HistoricalSampler,
        LimitOrderBookEnv as LimitOrderBookEnv,
        LimitOrderBookMarket as LimitOrderBookMarket,
        MarketEnv as MarketEnv,
        MarketMakingEnv as MarketMakingEnv,
        MarketMakingOptimum as MarketMakingOptimum,
        MarketMakingVecEnv as MarketMakingVecEnv,
        MarketMicrostructureEnv as MarketMicrostructureEnv,
        MarketVecEnv as MarketVecEnv,
        MountainCarEnv as MountainCarEnv,
        MountainCarVecEnv as MountainCarVecEnv,
        OptimalExecutionEnv as OptimalExecutionEnv,
        OptimalExecutionVecEnv as OptimalExecutionVecEnv,
        PendulumEnv as PendulumEnv,
        PendulumVecEnv as PendulumVecEnv,
        PortfolioEnv as PortfolioEnv,
        PortfolioVecEnv as PortfolioVecEnv,
        RegimeSwitchingSampler as RegimeSwitchingSampler,
        TradingEnv as TradingEnv,
        TradingVecEnv as TradingVecEnv,
        buy_and_hold as buy_and_hold,
        equal_weight as equal_weight,
        market_making_optimum as market_making_optimum,
        register_envs as register_envs,
    )
    from sekai.error import (
        AsyncCallPending as AsyncCallPending,
        DeprecatedAPI as DeprecatedAPI,
        EmptyTable as EmptyTable,
        EnvAlreadyRegistered as EnvAlreadyRegistered,
        EnvNotFound as EnvNotFound,
        InvalidAction as InvalidAction,
        InvalidArgument as InvalidArgument,
        InvalidArgumentType as InvalidArgumentType,
        InvalidData as InvalidData,
        InvalidDataType as InvalidDataType,
        InvalidObservation as InvalidObservation,
        LookAheadError as LookAheadError,
        MissingColumns as MissingColumns,
        NotAnEnv as NotAnEnv,
        NothingInFlight as NothingInFlight,
        OrderNotFound as OrderNotFound,
        ResetRequired as ResetRequired,
        ResultNotIterable as ResultNotIterable,
        SekaiError as SekaiError,
        SpaceMismatch as SpaceMismatch,
        SyncCallInEventLoop as SyncCallInEventLoop,
        UntrustedEntryPoint as UntrustedEntryPoint,
        VecEnvClosed as VecEnvClosed,
        VecEnvWorkerError as VecEnvWorkerError,
    )
    from sekai.registry import (
        ENTRY_POINT_GROUP as ENTRY_POINT_GROUP,
        EnvRegistry as EnvRegistry,
        EnvSpec as EnvSpec,
        VectorizationMode as VectorizationMode,
        WrapperSpec as WrapperSpec,
        all_specs as all_specs,
        default_registry as default_registry,
        deregister as deregister,
        make as make,
        make_vec as make_vec,
        pprint_registry as pprint_registry,
        register as register,
        register_namespace as register_namespace,
        spec as spec,
    )
    from sekai.rendering import (
        DARK as DARK,
        LIGHT as LIGHT,
        ANSIString as ANSIString,
        BarChart as BarChart,
        BaseRenderer as BaseRenderer,
        Canvas as Canvas,
        Column as Column,
        Dashboard as Dashboard,
        LineChart as LineChart,
        Panel as Panel,
        RecordFrames as RecordFrames,
        Renderer as Renderer,
        RenderFrame as RenderFrame,
        RGBArray as RGBArray,
        Row as Row,
        Series as Series,
        StackedArea as StackedArea,
        Stat as Stat,
        Theme as Theme,
        View as View,
        get_theme as get_theme,
        rotate as rotate,
        save_gif as save_gif,
        save_video as save_video,
        text_width as text_width,
    )
    from sekai.spaces import (
        Box as Box,
        Dict as Dict,
        Discrete as Discrete,
        MaskedBox as MaskedBox,
        MultiBinary as MultiBinary,
        MultiDiscrete as MultiDiscrete,
        Sequence as Sequence,
        Space as Space,
        Tuple as Tuple,
        batch_space as batch_space,
        concatenate as concatenate,
        flatdim as flatdim,
        flatten as flatten,
        flatten_space as flatten_space,
        iterate as iterate,
        register_space_type as register_space_type,
        space_from_jsonable as space_from_jsonable,
        unflatten as unflatten,
        zero_sample as zero_sample,
    )
    from sekai.stats import (
        EpisodeStats as EpisodeStats,
        InMemoryTracker as InMemoryTracker,
        LoggingTracker as LoggingTracker,
        StatsTracker as StatsTracker,
    )
    from sekai.utils import (
        ExponentialMovingStats as ExponentialMovingStats,
        RunningMeanStd as RunningMeanStd,
        action_mask_space as action_mask_space,
        check_env as check_env,
        flatten_action_mask as flatten_action_mask,
        get_action_mask as get_action_mask,
        make_seed_sequence as make_seed_sequence,
        np_random as np_random,
        supports_action_mask as supports_action_mask,
    )
    from sekai.vector import (
        AsyncVecEnv as AsyncVecEnv,
        InfoArrays as InfoArrays,
        NativeVecEnv as NativeVecEnv,
        ProcVecEnv as ProcVecEnv,
        SyncVecEnv as SyncVecEnv,
        VecActionWrapper as VecActionWrapper,
        VecEnv as VecEnv,
        VecNormalizeObservation as VecNormalizeObservation,
        VecNormalizeReward as VecNormalizeReward,
        VecObservationWrapper as VecObservationWrapper,
        VecRecordEpisodeStatistics as VecRecordEpisodeStatistics,
        VecResetResult as VecResetResult,
        VecRewardWrapper as VecRewardWrapper,
        VecStepResult as VecStepResult,
        VecTransformObservation as VecTransformObservation,
        VecTransformReward as VecTransformReward,
        VecWrapper as VecWrapper,
        stack_infos as stack_infos,
    )
    from sekai.wrappers import (
        ActionMaskObservation as ActionMaskObservation,
        ActionRepeat as ActionRepeat,
        AutoReset as AutoReset,
        ClipAction as ClipAction,
        ClipReward as ClipReward,
        DelayAction as DelayAction,
        DelayObservation as DelayObservation,
        DtypeObservation as DtypeObservation,
        FilterObservation as FilterObservation,
        FlattenObservation as FlattenObservation,
        FrameStackObservation as FrameStackObservation,
        NormalizeObservation as NormalizeObservation,
        NormalizeReward as NormalizeReward,
        OrderEnforcing as OrderEnforcing,
        PadSequenceObservation as PadSequenceObservation,
        RecordEpisodeStatistics as RecordEpisodeStatistics,
        RescaleAction as RescaleAction,
        RescaleObservation as RescaleObservation,
        StickyAction as StickyAction,
        TimeAwareObservation as TimeAwareObservation,
        TransformObservation as TransformObservation,
        TransformReward as TransformReward,
    )
# END GENERATED EXPORTS

# Subpackages reachable as attributes (``sekai.vector`` after ``import sekai``).
_SUBMODULES: tuple[str, ...] = (
    "compat",
    "core",
    "envs",
    "error",
    "finance",
    "registry",
    "rendering",
    "spaces",
    "stats",
    "utils",
    "vector",
    "wrappers",
)

__all__ = ["__version__", *_EXPORTS, *_SUBMODULES]

if TYPE_CHECKING:
    from sekai import (
        compat as compat,
        core as core,
        envs as envs,
        error as error,
        registry as registry,
        rendering as rendering,
        spaces as spaces,
        stats as stats,
        utils as utils,
        vector as vector,
        wrappers as wrappers,
    )

if not TYPE_CHECKING:

    def _import(module_name: str) -> Any:
        from importlib import import_module

        return import_module(module_name)

    def __getattr__(name: str) -> Any:
        module_name = _EXPORTS.get(name)
        if module_name is not None:
            value = getattr(_import(module_name), name)
        elif name in _SUBMODULES:
            value = _import(f"{__name__}.{name}")
        else:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        globals()[name] = value  # later lookups skip __getattr__
        return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
