"""The ``sekai`` command-line interface.

``sekai list`` prints the registry, ``sekai info ID`` the spec and spaces of one
env, ``sekai check ID`` runs the env checker (and the market-env checker on a
market env), ``sekai bench [ID]`` measures steps per second on every vector
backend.

Environments come from installed plugins (their ``sekai.envs`` entry points) and
from the modules named with ``--import MODULE`` (repeatable, before or after the
command, every command): each is imported before the id is looked up, so envs
registered by the user's own code are found. The current directory is searched
first, as ``python -m`` does.

``sekai`` without a command prints the help on standard error and exits with
status 2, as a usage error. Errors, including bad arguments, print one line
(``sekai: error: ...``, or ``sekai check: error: ...`` for a bad argument of a
subcommand) and exit with status 2, without a traceback. ``sekai check`` exits
with status 1 when it finds problems; ``sekai bench`` exits with status 1 when a
mode failed (its row in the table says why; a mode skipped because the env or
the installation does not offer it is no failure). Warnings (e.g. a plugin that
failed to load) print one line each. Long commands (``bench``, ``check``) show
progress on standard error when it is a terminal, never in a pipe or with
``--json``, and erase it when they finish.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import json
import os
import pkgutil
import re
import sys
import warnings
from collections.abc import Callable, Sequence
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, TextIO, cast

if TYPE_CHECKING:
    from sekai.core import Env, MultiAgentEnv
    from sekai.registry import EnvSpec

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


class _CommandError(Exception):
    """A failure the command reports in one line (the message says what went wrong)."""


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


def _import_modules(names: Sequence[str]) -> None:
    """Import the ``--import`` modules, with the current directory first on the path."""
    if names and "" not in sys.path and os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    for name in names:
        try:
            importlib.import_module(name)
        except Exception as error:  # the user's module may raise anything: report it
            raise _CommandError(
                f"--import {name}: importing module {name!r} raised {type(error).__name__}: {error}"
            ) from error


# -- what an env is, without or with making it -----------------------------------


def _reference_name(entry_point: str | Callable[..., Any] | None) -> str | None:
    """An entry point as ``"module:qualname"`` (strings and None pass through)."""
    if entry_point is None or isinstance(entry_point, str):
        return entry_point
    module = getattr(entry_point, "__module__", None)
    qualname = getattr(entry_point, "__qualname__", None) or repr(entry_point)
    return f"{module}:{qualname}" if module else str(qualname)


def _entry_point_kind(env_spec: EnvSpec) -> bool | None:
    """Whether the env is multi-agent, read from its entry point class (None: unknown).

    Nothing is made: a factory function (not a class) leaves it unknown. A
    ``"module:attr"`` entry point is imported (``pkgutil.resolve_name``, as the
    registry's ``"module:attr"`` format is the standard library's), and
    whatever that raises propagates.
    """
    from sekai.core import MultiAgentEnv

    entry_point = env_spec.entry_point
    if entry_point is None:
        return False  # made only by its native vector implementation: a single-agent VecEnv
    creator = pkgutil.resolve_name(entry_point) if isinstance(entry_point, str) else entry_point
    return issubclass(creator, MultiAgentEnv) if isinstance(creator, type) else None


def _creator(env_spec: EnvSpec) -> Any:
    """The class or function that makes the env (its vector one when it has no other)."""
    entry_point = env_spec.entry_point or env_spec.vector_entry_point
    return pkgutil.resolve_name(entry_point) if isinstance(entry_point, str) else entry_point


_LINK = re.compile(r"\[`?([^\]`]+)`?\]\[[^\]]*\]")  # [`Name`][target] -> Name


def _plain(text: str) -> str:
    """Docstring markup made plain: cross-reference links and double backticks removed."""
    return _LINK.sub(r"\1", text).replace("``", "").replace("`", "")


def _argument_lines(doc: str) -> dict[str, str]:
    """The first sentence of each argument's description in a docstring's ``Args:`` section."""
    described: dict[str, list[str]] = {}
    inside, indent, name = False, 0, ""
    for line in doc.splitlines():
        stripped = line.strip()
        if not inside:
            inside = stripped == "Args:"
            continue
        if not stripped:
            continue
        depth = len(line) - len(line.lstrip())
        indent = indent or depth
        if depth < indent:
            break  # the next section
        head, colon, text = stripped.partition(":")
        if depth == indent and colon and head.strip("*").replace("_", "").isalnum():
            name = head.strip("*")
            described[name] = [text.strip()]
        elif name:
            described[name].append(stripped)  # a continuation line
    return {key: _first_sentence(" ".join(parts)) for key, parts in described.items()}


_SENTENCE_END = re.compile(r"(?<!\be\.g)(?<!\bi\.e)(?<!\betc)\.(?=\s|$)")


def _first_sentence(text: str) -> str:
    """The first sentence of ``text``, made plain (an "e.g." or "i.e." does not end it)."""
    plain = _plain(" ".join(text.split()))
    end = _SENTENCE_END.search(plain)
    return plain if end is None else plain[: end.end()]


def _parameters(env_spec: EnvSpec) -> tuple[str, list[dict[str, Any]]]:
    """The env's one-line description, and its constructor's parameters.

    Each parameter: its name, its default (``None`` when required), the value
    the spec registers for it (if any), and the first line of its description.
    """
    creator = _creator(env_spec)
    # The class's own docstring: one inherited from Env would describe every env alike.
    own = creator.__doc__ if isinstance(creator.__doc__, str) else ""
    doc = inspect.cleandoc(own) if own else ""
    try:
        signature = inspect.signature(creator)
    except (TypeError, ValueError):  # a builtin or C callable: nothing to show
        return _first_sentence(doc.split("\n\n", 1)[0]), []
    described = _argument_lines(doc)
    parameters = []
    for name, parameter in signature.parameters.items():
        if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
            continue
        entry: dict[str, Any] = {
            "name": name,
            "default": None if parameter.default is parameter.empty else parameter.default,
            "required": parameter.default is parameter.empty,
            "description": described.get(name, ""),
        }
        if name in env_spec.kwargs:
            entry["registered"] = env_spec.kwargs[name]
        parameters.append(entry)
    return _first_sentence(doc.split("\n\n", 1)[0]), parameters


def _parameter_lines(parameters: list[dict[str, Any]]) -> list[str]:
    """One line per parameter: ``name=default`` (or ``name (required)``), then its description."""
    heads = []
    for parameter in parameters:
        head = (
            f"{parameter['name']} (required)"
            if parameter["required"]
            else f"{parameter['name']}={parameter['default']!r}"
        )
        if "registered" in parameter:
            head += f", registered {parameter['registered']!r}"
        heads.append(head)
    width = max((len(head) for head in heads), default=0)
    return [
        f"{head:<{width}}  {parameter['description']}".rstrip()
        for head, parameter in zip(heads, parameters, strict=True)
    ]


def _make(env_id: str) -> Env[Any, Any] | MultiAgentEnv[Any, Any, Any]:
    """Make ``env_id``; make() is annotated for single-agent envs, but an id may name either."""
    from sekai.registry import make

    env: Env[Any, Any] | MultiAgentEnv[Any, Any, Any] = cast(Any, make(env_id))
    return env


def _is_multi_agent(env_id: str) -> bool:
    """Whether ``env_id`` is multi-agent; made (and closed) only if its entry point won't say."""
    from sekai.core import MultiAgentEnv
    from sekai.registry import spec

    env_spec = spec(env_id)
    try:
        known = _entry_point_kind(env_spec)
    except Exception:  # making it below raises the registry's own error, naming the env
        known = None
    if known is not None:
        return known
    env = _make(env_id)
    env.close()
    return isinstance(env, MultiAgentEnv)


# -- list ------------------------------------------------------------------------


def _cmd_list(args: argparse.Namespace) -> int:
    from sekai.registry import all_specs, default_registry

    specs = sorted(all_specs(), key=lambda s: (s.namespace is not None, s.namespace or "", s.id))
    rows: list[dict[str, Any]] = []
    for s in specs:
        try:
            kind, error = _entry_point_kind(s), None
        except Exception as exc:  # listed, so one broken entry point does not hide the others
            kind, error = None, f"{type(exc).__name__}: {exc}".splitlines()[0]
        rows.append(
            {
                "id": s.id,
                "namespace": s.namespace,
                "multi_agent": kind,
                "native_vector": s.vector_entry_point is not None,
                "entry_point_error": error,
            }
        )
    failures = default_registry.failed_plugins
    if args.json:
        print(json.dumps({"envs": rows, "failed_to_load": failures}, indent=2))
        return 0
    agents = {True: "multi", False: "single", None: "?"}
    width = max([len("id"), *(len(row["id"]) for row in rows)])
    print(f"{'id':<{width}}  agents  native vector")
    for row in rows:
        vector = "yes" if row["native_vector"] else "no"
        agent = "error" if row["entry_point_error"] else agents[row["multi_agent"]]
        print(f"{row['id']:<{width}}  {agent:<6}  {vector}")
    if not rows:
        print("(no environments registered)")
    print("agents: single (an Env) or multi (a MultiAgentEnv, which 'sekai bench' cannot measure)")
    print("native vector: yes if make_vec has a natively batched implementation to pick")
    if any(row["multi_agent"] is None and not row["entry_point_error"] for row in rows):
        print("?: the entry point is a factory, so only making the env tells ('sekai info ID')")
    broken = [row for row in rows if row["entry_point_error"]]
    if broken:
        print("error: the entry point failed to import:")
        for row in broken:
            print(f"  {row['id']}: {row['entry_point_error']}")
    if failures:
        print("failed to load:")
        for label, error in sorted(failures.items()):
            print(f"  {label}: {error}")
    return 0


# -- info ------------------------------------------------------------------------


def _spaces(env_id: str) -> dict[str, Any]:
    """The kind, wrapper layers and spaces of ``env_id``, read from a made (then closed) env."""
    from sekai.core import MultiAgentEnv, Wrapper

    try:
        env = _make(env_id)
    except Exception as error:  # the spec is still worth showing
        return {"make_error": f"{type(error).__name__}: {error}"}
    try:
        if isinstance(env, MultiAgentEnv):
            agents = list(env.possible_agents)
            return {
                "multi_agent": True,
                "layers": [type(env).__name__],
                "agents": [str(agent) for agent in agents],
                "observation_space": {str(a): str(env.observation_space(a)) for a in agents},
                "action_space": {str(a): str(env.action_space(a)) for a in agents},
            }
        layers = list(env) if isinstance(env, Wrapper) else [env]
        return {
            "multi_agent": False,
            "layers": [type(layer).__name__ for layer in layers],
            "observation_space": str(env.observation_space),
            "action_space": str(env.action_space),
        }
    finally:
        env.close()


def _cmd_info(args: argparse.Namespace) -> int:
    from sekai.registry import spec

    env_spec = spec(args.env_id)
    description, parameters = _parameters(env_spec)
    info: dict[str, Any] = {
        "id": env_spec.id,
        "description": description,
        "parameters": parameters,
        "entry_point": _reference_name(env_spec.entry_point),
        "vector_entry_point": _reference_name(env_spec.vector_entry_point),
        "kwargs": env_spec.kwargs,
        "max_episode_steps": env_spec.max_episode_steps,
        "reward_threshold": env_spec.reward_threshold,
        "nondeterministic": env_spec.nondeterministic,
        "additional_wrappers": [w.to_dict() for w in env_spec.additional_wrappers],
        "multi_agent": None,
        "layers": None,
        "agents": None,
        "observation_space": None,
        "action_space": None,
        **_spaces(env_spec.id),
    }
    if args.json:
        print(json.dumps(info, indent=2, default=repr))  # kwargs may hold arrays, samplers
        return 0
    vector = info["vector_entry_point"]
    limit = info["max_episode_steps"]
    wrappers = ", ".join(f"{w.name}({w.kwargs})" for w in env_spec.additional_wrappers)
    lines = [
        ("id", env_spec.id),
        ("description", description or "(no docstring)"),
        ("entry_point", info["entry_point"]),
        (
            "vector_entry_point",
            f"{vector} (native vector implementation; make_vec picks it)"
            if vector
            else "None (no native vector implementation)",
        ),
        ("kwargs", repr(env_spec.kwargs)),
        *(("parameters", line) for line in _parameter_lines(parameters)),
        (
            "max_episode_steps",
            f"{limit} (the time limit make() applies)" if limit else "None (no time limit)",
        ),
        ("reward_threshold", str(info["reward_threshold"])),
        ("nondeterministic", str(info["nondeterministic"])),
        ("additional_wrappers", wrappers or "none"),
    ]
    if "make_error" in info:
        lines.append(("make_error", f"{info['make_error']} (so the spaces are unknown)"))
    elif info["multi_agent"]:
        lines.append(("agents", f"multi-agent: {', '.join(info['agents'])}"))
        for key in ("observation_space", "action_space"):
            lines.extend((key, f"{agent}: {space}") for agent, space in info[key].items())
    else:
        lines.append(("layers", " > ".join(info["layers"])))
        lines.append(("agents", "single agent"))
        lines.extend((key, info[key]) for key in ("observation_space", "action_space"))
    width = max(len(label) for label, _ in lines)
    for index, (label, value) in enumerate(lines):
        repeated = index > 0 and lines[index - 1][0] == label
        print(f"{'' if repeated else label:<{width}}  {value}")
    return 0


# -- check -----------------------------------------------------------------------


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


# Rows of the simulated history `sekai check` plays a market env on: several episodes of
# the reference envs (252 decisions each), and as many rows as steps beyond that.
_CHECK_HISTORY_ROWS = 2_000


def _market_kind(env_id: str, env: Any) -> tuple[str, dict[str, Any]] | None:
    """Whether ``sekai check`` also runs check_market_env on ``env_id``, and how.

    ``("history", info)`` for an env whose constructor takes a ``data`` argument
    (the MarketData it plays) and whose step info reports ``timestamp`` and
    ``equity``, the keys check_market_env reads; ``("simulated", info)`` for one
    without ``data`` whose info reports ``timestamp`` (it simulates its own
    market: MarketMaking-v0, ...); None for any other env, and for an env that
    raises when reset or stepped (check_env has reported that).
    """
    from sekai.registry import spec

    try:
        parameters = inspect.signature(_creator(spec(env_id))).parameters
    except (TypeError, ValueError):
        return None
    try:
        space = env.action_space
        space.seed(0)
        env.reset(seed=0)
        info = env.step(space.sample()).info
    except Exception:  # check_env's report says what went wrong
        return None
    if "data" in parameters:
        return ("history", info) if "timestamp" in info and "equity" in info else None
    return ("simulated", info) if "timestamp" in info else None


def _check_market(env_id: str, steps: int, kind: str, info: dict[str, Any]) -> list[str]:
    """check_market_env on ``env_id``: its problems, and notes that are none.

    An env on a history plays a simulated one-asset history, a path of
    geometric Brownian motion with a fixed seed, so that the look-ahead check
    has rows to perturb; an env on its own simulator plays with ``data=None``,
    and the look-ahead check it therefore skips is a note, not a problem. The
    rewards are compared with the equity when the info reports it. The native
    vector env (one sub-env) is compared with the single env when the id has one.
    """
    import numpy as np

    from sekai.finance import GBM, MarketData, check_market_env
    from sekai.registry import make, make_vec, spec

    history: MarketData | None = None
    if kind == "history":
        rows = _CHECK_HISTORY_ROWS + steps
        path = GBM(0.05, 0.2).simulate(np.random.default_rng(0), rows - 1)
        history = MarketData(path.prices)

    def single(data: MarketData | None) -> Any:
        return make(env_id) if data is None else make(env_id, data=data)

    native = None
    if spec(env_id).vector_entry_point is not None:

        def native(data: MarketData | None) -> Any:
            if data is None:
                return make_vec(env_id, 1, vectorization_mode="native")
            return make_vec(env_id, 1, vectorization_mode="native", data=data)

    problems = check_market_env(
        single,
        history,
        n_steps=steps,
        native=native,
        reward="log_equity" if "equity" in info else None,
    )
    skipped = "WARNING: look-ahead not checked: data is None"
    if kind == "simulated" and any(problem.startswith(skipped) for problem in problems):
        problems = [problem for problem in problems if not problem.startswith(skipped)]
        problems.append(
            "note: look-ahead not checked: the env simulates its own market (no data= "
            "argument), so there are no rows to perturb"
        )
    return problems


def _cmd_check(args: argparse.Namespace) -> int:
    from sekai._bench import Progress
    from sekai.core import MultiAgentEnv
    from sekai.utils import check_env

    env = _make(args.env_id)
    progress = Progress.on_terminal()
    try:
        progress.status(f"checking {args.env_id} ({args.steps} steps) ...")
        if isinstance(env, MultiAgentEnv):
            # check_env checks single-agent envs: check each agent in turn.
            problems = []
            agents = env.possible_agents
            for number, agent in enumerate(agents, start=1):
                progress.status(
                    f"checking {args.env_id}, agent {agent!r} ({number}/{len(agents)}, "
                    f"{args.steps} steps) ..."
                )
                for problem in check_env(_agent_view(env, agent), n_steps=args.steps):
                    level, _, text = problem.partition(": ")
                    problems.append(f"{level}: agent {agent!r}: {text}")
        else:
            problems = check_env(env, n_steps=args.steps)
            market = _market_kind(args.env_id, env)
            if market is not None:
                progress.status(
                    f"checking {args.env_id} as a market env ({args.steps} steps: look-ahead, "
                    "reward and equity, reproducibility, native parity) ..."
                )
                problems += _check_market(args.env_id, args.steps, *market)
    finally:
        progress.clear()
        env.close()
    for problem in problems:
        print(problem)
    problems = [problem for problem in problems if not problem.startswith("note: ")]
    if problems:
        print(f"{args.env_id}: {len(problems)} problem(s) found", file=sys.stderr)
        return 1
    print(f"{args.env_id}: no problems found in {args.steps} steps")
    return 0


# -- bench -----------------------------------------------------------------------


def _cmd_bench(args: argparse.Namespace) -> int:
    from sekai._bench import Progress, format_table, notes, run_bench, title, to_json, write_json

    if _is_multi_agent(args.env_id):  # an unknown id fails here, before anything is printed
        raise _CommandError(
            f"{args.env_id} is a multi-agent environment (a MultiAgentEnv): the vector "
            f"backends ({', '.join(args.modes)}) step single-agent envs, so it cannot be "
            "benchmarked; 'sekai check' checks it agent by agent"
        )
    num_workers = args.num_workers
    if num_workers is None and "proc" in args.modes:
        # One worker per core: more processes than cores only adds contention.
        num_workers = max(1, min(args.num_envs, os.cpu_count() or 1))
    results = run_bench(
        args.env_id,
        args.modes,
        num_envs=args.num_envs,
        seconds=args.seconds,
        num_workers=num_workers,
        progress=Progress.on_terminal(enabled=args.json is None),
    )
    if args.json == "-":
        print(to_json(results))
    else:
        print(title(results, args.seconds))
        print(format_table(results))
        print("\n".join(notes(results)))
        if args.json is not None:
            write_json(results, Path(args.json))
            print(f"wrote {args.json}", file=sys.stderr)
    failed = [result.mode for result in results if result.failed is not None]
    if failed:
        print(f"{args.env_id}: failed on {', '.join(failed)} (see the table)", file=sys.stderr)
        return 1
    return 0


# -- the parser and main ---------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    """Build the argument parser of the ``sekai`` command."""
    from sekai._bench import MODES

    parser = _Parser(
        prog="sekai",
        description=(
            "sekai: reinforcement-learning environments for large simulators and financial markets."
        ),
    )
    parser.add_argument("--version", action="version", version=f"sekai {_version()}")
    import_help = "import MODULE first, so the envs it registers are found (repeatable)"
    # Before the command too; its own dest, as a subcommand's default would
    # overwrite the value parsed here. main() merges the two lists.
    parser.add_argument(
        "--import",
        dest="imports_first",
        metavar="MODULE",
        action="append",
        default=[],
        help=import_help,
    )
    commands = parser.add_subparsers(dest="command", title="commands", metavar="<command>")
    imports = _Parser(add_help=False)
    imports.add_argument(
        "--import", dest="imports", metavar="MODULE", action="append", default=[], help=import_help
    )

    def add_command(
        name: str,
        summary: str,
        handler: Callable[[argparse.Namespace], int],
        epilog: str | None = None,
    ) -> argparse.ArgumentParser:
        command = commands.add_parser(name, help=summary, parents=[imports], epilog=epilog)
        command.set_defaults(handler=handler)
        return command

    listing = add_command(
        "list",
        "list the registered environments: agents, native vector support",
        _cmd_list,
    )
    listing.add_argument("--json", action="store_true", help="print the list as JSON")

    info = add_command("info", "show the spec and spaces of one environment", _cmd_info)
    info.add_argument("env_id", metavar="ID", help="a registered environment id")
    info.add_argument("--json", action="store_true", help="print the spec as JSON")

    check = add_command(
        "check",
        "run check_env on an environment (and check_market_env on a market env)",
        _cmd_check,
        epilog=(
            "A market env (its constructor takes data=, its info reports timestamp and "
            "equity, as Trading-v0, Portfolio-v0 and Market-v0 do) is also checked with "
            "sekai.finance.check_market_env on a simulated one-asset history: no look-ahead, "
            "rewards equal to the log growth of the equity, finite numbers, reproducible runs "
            "and, when it has one, a native vector env that plays the same game. A market "
            "env on its own simulator (no data=, its info reports timestamp, as "
            "MarketMaking-v0 does) gets the same checks without data: the look-ahead check "
            "it skips is printed as a note, which is no problem. "
            "Exit status: 0 if no problems are found, 1 if some are, 2 on an error."
        ),
    )
    check.add_argument("env_id", metavar="ID", help="a registered environment id")
    check.add_argument(
        "--steps", type=_positive_int, default=100, help="steps to run (default: 100)"
    )

    bench = add_command(
        "bench",
        "measure steps per second on each backend",
        _cmd_bench,
        epilog=(
            "Exit status: 0 if every mode ran or was skipped (a backend that is not installed, "
            "an env without a native vector implementation); 1 if a mode failed (its row says "
            "why; the other modes still run); 2 on an error."
        ),
    )
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
        default=list(MODES),
        help=f"comma-separated vectorisation modes (default: {','.join(MODES)})",
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
    bench.add_argument(
        "--json",
        metavar="PATH",
        default=None,
        help="also write the results as JSON to PATH ('-': print only the JSON)",
    )
    return parser


def _closed_pipe() -> int:
    """Stop quietly when the reader of standard output has gone (``sekai list | head``).

    Standard output is pointed at the null device, so that flushing it at exit
    raises nothing more, and the status is the one a process killed by SIGPIPE
    has in a shell (128 + 13), as Unix tools end.
    """
    null = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(null, sys.stdout.fileno())
    finally:
        os.close(null)
    return 141


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``sekai`` command and return its exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    # Each subcommand's parser sets ``handler`` (a function of the parsed args).
    handler = getattr(args, "handler", None)
    if handler is None:
        parser.print_help(sys.stderr)
        return 2  # a usage error, as for any other missing argument
    from sekai.error import EnvNotFound, SekaiError

    imports = [*args.imports_first, *args.imports]
    try:
        with warnings.catch_warnings():
            warnings.showwarning = _show_warning
            _import_modules(imports)
            status = int(handler(args))
            sys.stdout.flush()  # a closed pipe shows here, not at exit
            return status
    except BrokenPipeError:
        return _closed_pipe()
    except (_CommandError, SekaiError, ValueError, TypeError, ImportError, OSError) as error:
        # Bad ids, bad kwargs, missing optional distributions: one clear line.
        message = str(error).splitlines()[0] if str(error) else type(error).__name__
        if isinstance(error, EnvNotFound) and not imports:
            message += " (for an env your own code registers, add --import MODULE)"
        print(f"sekai: error: {message}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("sekai: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
