"""Shared fixtures: the registered games, and scripts that force features through the rules."""

from __future__ import annotations

import pytest

from reelforge.games import get_game
from reelforge.games.reign_of_gnomes import ReignOfGnomes
from reelforge.games.reign_of_gnomes.data_model import GnomesData

# Files that run longest go first: ``--dist loadfile`` hands whole files to the workers in
# collection order, so when the long browser, conformance and soak files come last (as the
# alphabet has them) one worker runs them alone at the end while the other idles.
LONG_FIRST = ("test_web_", "test_conformance_", "test_seamless_soak", "test_soak", "test_server_restore")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    items.sort(key=lambda item: not item.path.name.startswith(LONG_FIRST))  # stable: order kept within


@pytest.fixture(scope="session")
def gnomes() -> ReignOfGnomes:
    game = get_game("reign-of-gnomes")
    assert isinstance(game, ReignOfGnomes)
    return game


@pytest.fixture(scope="session")
def gnomes_data(gnomes: ReignOfGnomes) -> GnomesData:
    return gnomes.data()


# -- the game server on SQLite and on the real PostgreSQL ------------------------------------

import os  # noqa: E402
import uuid  # noqa: E402
from collections.abc import Iterator  # noqa: E402

from sqlalchemy import create_engine, text  # noqa: E402

PG_ADMIN = os.environ.get("REELFORGE_TEST_PG", "postgresql+psycopg://postgres@127.0.0.1:5432/test")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    """In CI (``CI`` set, as ``.ci/run`` does) a skip is a failure: whatever a test needs
    (PostgreSQL, Chromium, a test package) must be there, so no check silently drops out."""
    outcome = yield
    report = outcome.get_result()  # type: ignore[attr-defined]
    if os.environ.get("CI") and report.skipped and not hasattr(report, "wasxfail"):
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else report.longrepr
        report.outcome = "failed"
        report.longrepr = f"skipped in CI, which must run every test: {reason}"


def _pg_available() -> bool:
    try:
        engine = create_engine(PG_ADMIN, isolation_level="AUTOCOMMIT")
        with engine.connect() as conn:
            conn.execute(text("SELECT 1"))
        engine.dispose()
        return True
    except Exception:
        return False


@pytest.fixture(scope="session")
def pg_template() -> Iterator[str]:
    """A migrated template database; each test gets a fresh copy of it."""
    if not _pg_available():
        if os.environ.get("CI"):
            pytest.fail(f"PostgreSQL is not reachable at {PG_ADMIN}: CI must test against it")
        pytest.skip(f"PostgreSQL not reachable at {PG_ADMIN} (a skip outside CI only)")
    from reelforge.server.storage.db import make_engine, migrate

    name = f"rf_tmpl_{os.getpid()}_{uuid.uuid4().hex[:6]}"
    admin = create_engine(PG_ADMIN, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    url = PG_ADMIN.rsplit("/", 1)[0] + "/" + name
    engine = make_engine(url)
    migrate(engine)
    engine.dispose()
    yield name
    with admin.connect() as conn:
        conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    admin.dispose()


def fresh_pg_database(template: str) -> tuple[str, str]:
    name = f"rf_test_{uuid.uuid4().hex[:10]}"
    admin = create_engine(PG_ADMIN, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}" TEMPLATE "{template}"'))
    admin.dispose()
    return name, PG_ADMIN.rsplit("/", 1)[0] + "/" + name


def drop_pg_database(name: str) -> None:
    admin = create_engine(PG_ADMIN, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    admin.dispose()


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest, tmp_path) -> Iterator[str]:
    """A fresh, migrated database: SQLite in a temporary folder, or a PostgreSQL copy."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'reelforge.db'}"
        return
    template = request.getfixturevalue("pg_template")
    name, url = fresh_pg_database(template)
    try:
        yield url
    finally:
        drop_pg_database(name)


@pytest.fixture
def server(db_url, tmp_path):
    """An in-process game server on a fresh database (seeded draws, test games)."""
    from server_support import make_server

    srv = make_server(db_url, tmp_path)
    yield srv
    srv.engine.dispose()


@pytest.fixture
def api(server):
    """The app over ``server`` with its lifespan run: on PostgreSQL the spin's requests run
    on the client's event loop (play/context.py's ``call_on_loop``), as under uvicorn."""
    from server_support import Api, client_for

    with client_for(server) as client:
        yield Api(client)
