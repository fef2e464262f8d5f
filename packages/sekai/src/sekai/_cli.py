"""The ``sekai`` command-line interface.

``sekai list`` prints the registry, ``sekai check ID`` runs the env checker,
``sekai bench [ID]`` measures steps per second on every vector backend.
Errors, including bad arguments, print one line (``sekai: error: ...``, or
``sekai check: error: ...`` for a bad argument of a subcommand) and exit with
status 2, without a traceback; warnings (e.g. a plugin that failed to load) print
one line each too.
"""

from __future__ import annotations

import argparse
import os
import sys
import warnings
from collections.abc import Sequence
from importlib import metadata
from pathlib import Path
from typing import Any, NoReturn, TextIO, cast

__all__ = ["build_parser", "main"]

DEFAULT_BENCH_ENV = "Portfolio-v0"


def _version() -> str:
    try:
        return metadata.version("sekai")
    except metadata.PackageNotFoundError:  # running from a source tree
        from sekai import __version__

        return __version__


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors take one line (usage is under ``--help``)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


def _show_warning(
    message: Warning | str,
    category: type[Warning],
    filename: str,
    lineno: int,
    file: TextIO | None = None,
    line: str | None = None,
) -> None:
    print(f"sekai: warning: {message}", file=sys.stderr if file is None else file)


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return value


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text!r}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text!r}")
    return value


def _modes(text: str) -> list[str]:
    from sekai._bench import MODES

    modes = [mode.strip() for mode in text.split(",") if mode.strip()]
    unknown = [mode for mode in modes if mode not in MODES]
    if unknown or not modes:
        raise argparse.ArgumentTypeError(
            f"expected a comma-separated list of {', '.join(MODES)}; got {text!r}"
        )
    return modes


def _cmd_list(args: argparse.Namespace) -> int:
    from sekai.registry import pprint_registry

    pprint_registry()
    return 0


def _agent_view(env: Any, agent: Any) -> Any:
    """One agent of a multi-agent env as a single-agent Env, for check_env.

    The other agents act with random samples of their action spaces, seeded from
    the view's own stream at each reset (so a seeded reset replays the same
    partner actions).
    """
    from sekai.core import Env, ResetResult, StepResult

    class AgentView(Env[Any, Any]):
        def __init__(self) -> None:
            self.observation_space = env.observation_space(agent)
            self.action_space = env.action_space(agent)
            self._partners = {a: env.action_space(a) for a in env.possible_agents if a != agent}

        def reset(
            self, *, seed: Any = None, options: dict[str, Any] | None = None
        ) -> ResetResult[Any]:
            self._set_rng(seed)
            for space in self._partners.values():
                space.seed(int(self.rng.integers(2**32)))
            result = env.reset(seed=seed, options=options)
            return ResetResult(result.observations[agent], result.info[agent])

        def step(self, action: Any) -> StepResult[Any]:
            actions = {a: action if a == agent else self._partners[a].sample() for a in env.agents}
            result = env.step(actions)
            return StepResult(
                result.observations[agent],
                result.rewards[agent],
                result.terminated[agent],
                result.truncated[agent],
                result.info[agent],
            )

    return AgentView()


def _cmd_check(args: argparse.Namespace) -> int:
    from sekai.core import Env, MultiAgentEnv
    from sekai.registry import make
    from sekai.utils import check_env

    # make() is annotated for the usual single-agent env, but an id may name a
    # MultiAgentEnv as well: widen the type so both branches are checked.
    env: Env[Any, Any] | MultiAgentEnv[Any, Any, Any] = cast(Any, make(args.env_id))
    try:
        if isinstance(env, MultiAgentEnv):
            # check_env checks single-agent envs: check each agent in turn.
            problems = []
            for agent in env.possible_agents:
                for problem in check_env(_agent_view(env, agent), n_steps=args.steps):
                    level, _, text = problem.partition(": ")
                    problems.append(f"{level}: agent {agent!r}: {text}")
        else:
            problems = check_env(env, n_steps=args.steps)
    finally:
        env.close()
    for problem in problems:
        print(problem)
    if problems:
        print(f"{args.env_id}: {len(problems)} problem(s) found", file=sys.stderr)
        return 1
    print(f"{args.env_id}: no problems found in {args.steps} steps")
    return 0


def _cmd_bench(args: argparse.Namespace) -> int:
    from sekai._bench import format_table, run_bench, write_json
    from sekai.registry import spec

    spec(args.env_id)  # an unknown id fails here, before anything is printed
    num_workers = args.num_workers
    if num_workers is None and "proc" in args.modes:
        # One worker per core: more processes than cores only adds contention.
        num_workers = max(1, min(args.num_envs, os.cpu_count() or 1))
    print(
        f"Benchmarking {args.env_id} with {args.num_envs} envs, "
        f"{args.seconds:g} s per mode: {', '.join(args.modes)}",
        file=sys.stderr,
    )
    results = run_bench(
        args.env_id,
        args.modes,
        num_envs=args.num_envs,
        seconds=args.seconds,
        num_workers=num_workers,
    )
    print(format_table(results))
    if args.json is not None:
        write_json(results, args.json)
        print(f"wrote {args.json}", file=sys.stderr)
    return 0


def build_parser() -> argparse.ArgumentParser:
    """Build the argument parser of the ``sekai`` command."""
    parser = _Parser(
        prog="sekai",
        description=(
            "sekai: reinforcement-learning environments for large simulators and financial markets."
        ),
    )
    parser.add_argument("--version", action="version", version=f"sekai {_version()}")
    commands = parser.add_subparsers(dest="command", title="commands", metavar="<command>")

    listing = commands.add_parser(
        "list", help="list the registered environments, grouped by namespace"
    )
    listing.set_defaults(handler=_cmd_list)

    check = commands.add_parser("check", help="run check_env on an environment")
    check.add_argument("env_id", metavar="ID", help="a registered environment id")
    check.add_argument(
        "--steps", type=_positive_int, default=100, help="steps to run (default: 100)"
    )
    check.set_defaults(handler=_cmd_check)

    bench = commands.add_parser("bench", help="measure steps per second on each backend")
    bench.add_argument(
        "env_id",
        metavar="ID",
        nargs="?",
        default=DEFAULT_BENCH_ENV,
        help=f"a registered environment id (default: {DEFAULT_BENCH_ENV})",
    )
    bench.add_argument(
        "--num-envs", type=_positive_int, default=8, help="sub-environments (default: 8)"
    )
    bench.add_argument(
        "--modes",
        type=_modes,
        default=["sync", "async", "proc", "native"],
        help="comma-separated vectorisation modes (default: sync,async,proc,native)",
    )
    bench.add_argument(
        "--num-workers",
        type=_positive_int,
        default=None,
        help="worker processes for proc (default: one per CPU core, at most num-envs)",
    )
    bench.add_argument(
        "--seconds", type=_positive_float, default=2.0, help="seconds per mode (default: 2)"
    )
    bench.add_argument("--json", type=Path, default=None, help="also write the results here")
    bench.set_defaults(handler=_cmd_bench)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``sekai`` command and return its exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    # Each subcommand's parser sets ``handler`` (a function of the parsed args).
    handler = getattr(args, "handler", None)
    if handler is None:
        parser.print_help()
        return 0
    from sekai.error import SekaiError

    try:
        with warnings.catch_warnings():
            warnings.showwarning = _show_warning
            return int(handler(args))
    except (SekaiError, ValueError, TypeError, ImportError, OSError) as error:
        # Bad ids, bad kwargs, missing optional distributions: one clear line.
        message = str(error).splitlines()[0] if str(error) else type(error).__name__
        print(f"sekai: error: {message}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("sekai: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
