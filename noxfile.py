"""Every check of the sekai monorepo.

Run ``uv run --locked nox`` for all default sessions, ``uv run --locked nox -l``
to list them, ``uv run --locked nox -s bench`` for the benchmarks.

Every session installs from ``uv.lock`` with ``uv sync --locked`` into its own
virtual environment, so versions match the lock file exactly and workspace
distributions always come from this repository, never from the registry. The
training session adds what the lock leaves out on purpose: PyTorch, from a CPU
wheel on disk, and the training libraries pinned in tools/.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import nox

nox.needs_version = ">=2024.10.9"
nox.options.default_venv_backend = "uv"
nox.options.error_on_external_run = True
nox.options.reuse_existing_virtualenvs = False

ROOT = Path(__file__).parent
DISTRIBUTIONS = (
    "sekai-core",
    "sekai-wrappers",
    "sekai-vector",
    "sekai-finance",
    "sekai-envs",
    "sekai-compat",
    "sekai",
)
EXAMPLE_PLUGIN = ROOT / "examples" / "sekai-example-plugin"
# Ray starts a cluster (seconds) and an actor per worker: its tests run in their
# own session, once, rather than in every session that installs the extras.
RAY_TESTS = "packages/sekai-vector/tests/ray"
# The training session's PyTorch: a CPU build on disk (see `training`);
# SEKAI_TORCH_WHEEL names another wheel file.
TORCH_WHEEL = Path(
    os.environ.get(
        "SEKAI_TORCH_WHEEL", "/opt/wheels/torch-2.13.0+cpu-cp311-cp311-manylinux_2_28_x86_64.whl"
    )
)
TRAINING_REQUIREMENTS = ROOT / "tools" / "training-requirements.txt"


def _sync(session: nox.Session, *args: str) -> None:
    """Install locked dependencies into the session's virtualenv with ``uv sync``."""
    session.run_install(
        "uv",
        "sync",
        "--locked",
        "--no-default-groups",
        *args,
        env={"UV_PROJECT_ENVIRONMENT": session.virtualenv.location},
        external=True,
    )


def _pytest(session: nox.Session, *paths: str) -> None:
    # A fixed Hypothesis seed keeps CI reproducible: a property failure shows up
    # on every run, not once in a while. Run pytest directly to explore anew.
    session.run("python", "-m", "pytest", "--hypothesis-seed=0", *paths, *session.posargs)


def _make_isolated_tests(distribution: str) -> None:
    @nox.session(name=f"tests-{distribution}")
    def isolated_tests(session: nox.Session) -> None:
        # The distribution, what it depends on (extras included: they are
        # what its adapters and backends are tested against), and the test
        # tools: nothing else.
        _sync(session, "--package", distribution, "--all-extras", "--group", "test")
        session.env["SEKAI_TEST_ISOLATED"] = distribution
        _pytest(session, f"packages/{distribution}/tests", f"--ignore={RAY_TESTS}")

    isolated_tests.__doc__ = f"Test {distribution} with only its own dependencies installed."


for _distribution in DISTRIBUTIONS:
    _make_isolated_tests(_distribution)


@nox.session
def tests(session: nox.Session) -> None:
    """Run every package's tests together in one environment."""
    _sync(session, "--all-packages", "--all-extras", "--group", "test")
    # The REST market example runs a real HTTP server on 127.0.0.1 (aiohttp,
    # from the test group): a partial-batch AsyncVecEnv over a live service.
    _pytest(session, "packages", "examples/rest_market/tests", f"--ignore={RAY_TESTS}")


@nox.session(name="tests-ray")
def tests_ray(session: nox.Session) -> None:
    """RayVecEnv on a local Ray cluster (2 CPUs) that the tests start and stop."""
    _sync(session, "--package", "sekai-vector", "--extra", "ray", "--group", "test")
    _pytest(session, RAY_TESTS)


@nox.session
def training(session: nox.Session) -> None:
    """Train with PyTorch, SB3 and sb3-contrib: tests/training, the training guide's examples.

    PyTorch stays out of uv.lock (uv would lock PyPI's torch, a ~3 GB CUDA
    build): the CPU wheel that lies on every machine of this project, CI's
    included, is installed by path, so it never comes from the registry. The
    training libraries are pinned in tools/training-requirements.txt, and every
    package the lock has keeps the lock's version.
    """
    if not TORCH_WHEEL.is_file():
        # Skipped, not failed: a machine without the wheel can still run every
        # other session of `nox`.
        session.skip(
            f"PyTorch's wheel {TORCH_WHEEL} is missing: this session installs PyTorch from a "
            "wheel file only (the registry's torch is a ~3 GB CUDA build); set "
            "SEKAI_TORCH_WHEEL to the path of a CPU wheel for this Python"
        )
    _sync(session, "--all-packages", "--all-extras", "--group", "test")
    locked = Path(session.create_tmp()) / "locked.txt"
    session.run_install(
        "uv", "export", "--locked", "--quiet", "--all-packages", "--all-extras",
        "--no-default-groups", "--group", "test", "--no-emit-workspace", "--no-hashes",
        "-o", str(locked),
        external=True,
    )  # fmt: skip
    session.run_install(
        "uv", "pip", "install", "--python", str(session.virtualenv.location),
        str(TORCH_WHEEL), "-r", str(TRAINING_REQUIREMENTS), "--constraint", str(locked),
        external=True,
    )  # fmt: skip
    _pytest(session, "tests/training")


@nox.session
def lint(session: nox.Session) -> None:
    """Check style and formatting with ruff."""
    _sync(session, "--only-group", "lint")
    session.run("ruff", "check", ".")
    session.run("ruff", "format", "--check", ".")


@nox.session
def typecheck(session: nox.Session) -> None:
    """Run mypy --strict over every package, and check sekai's generated exports."""
    _sync(session, "--all-packages", "--all-extras", "--group", "typecheck")
    sources = [str(path.relative_to(ROOT)) for path in sorted(ROOT.glob("packages/*/src"))]
    sources.append(str((EXAMPLE_PLUGIN / "src").relative_to(ROOT)))
    sources.append("examples/rest_market")
    session.run("mypy", *sources, "tools", "noxfile.py")
    # The top-level package's lazy exports are generated; a new public name
    # anywhere must reach them.
    session.run("python", "tools/sync_exports.py", "--check")


@nox.session
def docs(session: nox.Session) -> None:
    """Build the documentation site in strict mode, then check and run its pages.

    The site is built without the meta-package: its regular ``sekai/__init__.py``
    would hide the other namespace portions from griffe, which documents them
    from source. The docs tests (every public name on its API page, every
    Python example of the pages and the README executed, the built pages free
    of raw Sphinx roles and private paths) need everything, extras included,
    so they run in a second environment.
    """
    _sync(session, "--all-packages", "--no-install-package", "sekai", "--group", "docs")
    # Absolute: mkdocs reads a relative -d from the config file's directory.
    tmp = Path(session.create_tmp()).resolve()
    session.run("mkdocs", "build", "--strict", "-f", "docs/mkdocs.yml", "-d", str(tmp / "site"))

    examples = tmp / "examples-venv"
    session.run_install(
        "uv", "sync", "--locked", "--no-default-groups", "--all-packages", "--all-extras",
        "--group", "test",
        env={"UV_PROJECT_ENVIRONMENT": str(examples)},
        external=True,
    )  # fmt: skip
    # test_site_html.py reads the site built above.
    session.run(
        str(examples / "bin" / "python"), "-m", "pytest", "docs/tests", *session.posargs,
        env={"SEKAI_DOCS_SITE": str(tmp / "site")},
        external=True,
    )  # fmt: skip


@nox.session
def build(session: nox.Session) -> None:
    """Build every wheel and sdist, check their contents and install them."""
    _sync(session, "--only-group", "test")
    tmp = Path(session.create_tmp())
    dist = tmp / "dist"
    shutil.rmtree(dist, ignore_errors=True)
    session.run("uv", "build", "--all-packages", "--out-dir", str(dist), external=True)
    session.run("uv", "build", str(EXAMPLE_PLUGIN), "--out-dir", str(dist), external=True)
    session.run("python", "tools/check_wheels.py", str(dist))

    # sekai-core alone (plus the example plugin, which depends on it alone).
    core_only = tmp / "core-only"
    _wheel_env(session, core_only, dist, "sekai-core", ["sekai-core", "sekai-example-plugin"])
    session.run(str(core_only / "bin" / "python"), "tools/smoke_core_only.py", external=True)

    # Every distribution from its wheel in one site-packages.
    full = tmp / "full"
    _wheel_env(session, full, dist, None, ["sekai"])
    session.run(str(full / "bin" / "python"), "tools/smoke_wheels.py", external=True)
    session.run(str(full / "bin" / "sekai"), "--version", external=True)
    # The namespace must survive removing the meta-package.
    session.run("uv", "pip", "uninstall", "--python", str(full), "sekai", external=True)
    session.run(str(full / "bin" / "python"), "tools/smoke_wheels.py", "--no-meta", external=True)

    # Every install line of the README, each in a fresh venv, sekai only from these wheels.
    session.run("python", "tools/readme_installs.py", str(dist), str(tmp / "readme"))


def _wheel_env(
    session: nox.Session,
    venv: Path,
    dist: Path,
    package: str | None,
    requirements: list[str],
) -> None:
    """Create ``venv`` holding ``requirements`` installed from the local wheels.

    Third-party dependencies are pinned from the lock file; sekai distributions
    come from ``dist`` only (``--no-index``), never from the registry.
    """
    shutil.rmtree(venv, ignore_errors=True)
    python = Path(session.virtualenv.location) / "bin" / "python"
    session.run("uv", "venv", "--quiet", "--python", str(python), str(venv), external=True)
    pins = venv / "third-party.txt"
    selection = ["--package", package] if package else ["--all-packages"]
    session.run(
        "uv", "export", "--locked", "--quiet", *selection, "--no-default-groups",
        "--no-emit-workspace", "--no-hashes", "--all-extras", "-o", str(pins),
        external=True,
    )  # fmt: skip
    if pins.read_text().strip():
        session.run("uv", "pip", "install", "--quiet", "--python", str(venv), "-r", str(pins),
                    external=True)  # fmt: skip
    session.run(
        # --no-cache: every build has the same version number, and a cached
        # wheel from an earlier build must never stand in for the new one.
        "uv", "pip", "install", "--quiet", "--python", str(venv), "--no-index", "--no-cache",
        "--find-links", str(dist), *requirements,
        external=True,
    )  # fmt: skip


@nox.session(default=False)
def bench(session: nox.Session) -> None:
    """Benchmarks, side by side with their peers; writes benchmarks/results/."""
    _sync(session, "--all-packages", "--all-extras", "--group", "bench")
    os.makedirs(ROOT / "benchmarks" / "results", exist_ok=True)
    session.run("python", "benchmarks/run.py", *session.posargs)


@nox.session(default=False)
def soak(session: nox.Session) -> None:
    """ProcVecEnv soak test: 10**6 sub-env steps; memory and file descriptors stay flat."""
    _sync(session, "--package", "sekai-vector", "--all-extras")
    session.run("python", "benchmarks/soak_proc.py", *session.posargs)


@nox.session(default=False)
def screenshots(session: nox.Session) -> None:
    """Screenshots of the built site in headless Chromium; writes build/screenshots/.

    Drives Debian's Chromium (package ``chromium``) through Playwright,
    installing the package first when it is missing (that needs root). The
    script also checks each page: it loads, raises no script error, and is no
    wider than the window at desktop and phone width.
    """
    browser = Path("/usr/bin/chromium")
    if not browser.exists():
        if os.geteuid() != 0:
            session.error("needs Debian's chromium: run `sudo apt-get install chromium` first")
        session.run("apt-get", "update", "-q", external=True)
        session.run("apt-get", "install", "-y", "-q", "chromium", external=True)
    _sync(session, "--all-packages", "--no-install-package", "sekai", "--group", "screenshots")
    site = Path(session.create_tmp()).resolve() / "site"  # mkdocs reads -d from docs/
    session.run("mkdocs", "build", "--strict", "-f", "docs/mkdocs.yml", "-d", str(site))
    out = ROOT / "build" / "screenshots"
    session.run("python", "tools/screenshots.py", str(site), str(out), "--browser", str(browser))
