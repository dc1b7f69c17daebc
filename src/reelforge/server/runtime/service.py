"""The server's operations, independent of HTTP: :class:`GameServer`, the one object the API
(``api.py``), the app and the CLI hold.

It is a facade: each concern lives in its own module and service object, all sharing one
:class:`~reelforge.server.play.context.ServerContext` (settings, database, games, RNG, wallet):

- ``sessions.py``: sessions, their token, player protection, play settings
- ``rounds.py``: starting a round, acting in it, finishing rounds left waiting
- ``autoplay_service.py``: autoplay runs (``autoplay_store.py``: their rows)
- ``wallet.py``: the :class:`~reelforge.server.wallets.wallet.Wallet` every stake, win and refund
  goes through, and its first implementation, the server's own ledger
- ``lobby.py``: the games on offer, the balance, the stored player state
- ``history.py``: history, recall and replay
- ``back_office.py``: players, cash-in/out, ledger, voids, profile, bets, reports
- ``bet_variants.py``: the RTP variant a game, or one of its bets, is dealt at
- ``operator_sessions.py``: a player's sessions for the operator: list, revoke
- ``webhooks.py``: the events the operator hears of, enqueued with them, sent from the outbox
- ``audit.py``: the books' self-check

Every state-changing operation runs in one database transaction (see ``context.py``);
nothing of an outcome leaves before the commit, and server processes keep no state of their
own, so any number of them can serve the same database.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from sqlalchemy import Connection, Engine

from reelforge.engine.game import Game
from reelforge.rng import RandomSource, SystemRandom
from reelforge.server.backoffice.audit import Audit
from reelforge.server.backoffice.back_office import BackOffice
from reelforge.server.backoffice.operator_sessions import OperatorSessions
from reelforge.server.backoffice.studio import Studio
from reelforge.server.core.config import Settings
from reelforge.server.operators.accounts import DEFAULT_OPERATOR_ID, Operator
from reelforge.server.operators.directory import Directory
from reelforge.server.play.autoplay_service import Autoplays, autoplay_limit
from reelforge.server.play.bet_variants import BetVariants
from reelforge.server.play.context import OPERATOR_SCOPE, ServerContext, fingerprint
from reelforge.server.play.history import RoundHistory
from reelforge.server.play.lobby import Lobby
from reelforge.server.play.rounds import Rounds
from reelforge.server.play.seamless_launch import launch
from reelforge.server.play.sessions import (
    PlayerContext,
    PlayerRow,
    SessionClosed,
    SessionRow,
    Sessions,
    check_limits_url,
    effective_settings,
    stored_play_settings,
)
from reelforge.server.storage.db import migrate
from reelforge.server.storage.store import check_key
from reelforge.server.wallets.wallet import LedgerWallet, Wallet

# Names that lived here before the split, kept importable from here.
__all__ = [
    "OPERATOR_SCOPE",
    "GameServer",
    "PlayerContext",
    "PlayerRow",
    "SessionClosed",
    "SessionRow",
    "autoplay_limit",
    "check_key",
    "check_limits_url",
    "effective_settings",
    "fingerprint",
    "stored_play_settings",
    "wait_seconds",
]


class GameServer:
    def __init__(
        self,
        settings: Settings,
        engine: Engine | None = None,
        rng_factory: Callable[[], RandomSource] = SystemRandom,
        wallet: Wallet | None = None,
    ) -> None:
        self.context = ServerContext(settings, engine, rng_factory, wallet)
        self.sessions = Sessions(self.context)
        self.rounds = Rounds(self.context, self.sessions)
        self.autoplays = Autoplays(self.context, self.sessions, self.rounds)
        self.lobby = Lobby(self.context, self.sessions)
        self.round_history = RoundHistory(self.context, self.sessions)
        self.back_office = BackOffice(self.context, self.sessions)
        self.bet_variants = BetVariants(self.context)
        self.operator_sessions = OperatorSessions(self.context)
        self.studio = Studio(self.context, self.rounds)  # the operator accounts (admin API, CLI)
        self._audit = Audit(self.context)

    # -- what the context holds (``rng_factory`` is swapped by tests after construction) ------

    @property
    def settings(self) -> Settings:
        return self.context.settings

    @property
    def engine(self) -> Engine:
        return self.context.engine

    @property
    def games(self) -> dict[str, Game]:
        return self.context.games

    @property
    def rng_factory(self) -> Callable[[], RandomSource]:
        return self.context.rng_factory

    @rng_factory.setter
    def rng_factory(self, factory: Callable[[], RandomSource]) -> None:
        self.context.rng_factory = factory

    @property
    def wallet(self) -> Wallet:
        return self.context.wallet

    @property
    def ledger_wallet(self) -> LedgerWallet:
        return self.context.ledger

    @property
    def operator_key(self) -> str:
        return self.context.operator_key

    @property
    def token_secret(self) -> str:
        return self.context.token_secret

    def migrate(self) -> None:
        migrate(self.context.engine)

    def run(self, work: Callable[[Connection], Any]) -> Any:
        return self.context.run(work)

    def game(self, game_id: str) -> Game:
        return self.context.game(game_id)

    # -- sessions ------------------------------------------------------------------------------

    def open_session(
        self,
        op: Operator,
        key: str | None,
        external_id: str,
        time_limit_seconds: int | None,
        spend_limit: int | None,
        reality_check_seconds: int | None = None,
        limits_url: str | None = None,
        keep_other_sessions: bool = False,
    ) -> tuple[int, dict]:
        return self.sessions.open_session(
            op,
            key,
            external_id,
            time_limit_seconds,
            spend_limit,
            reality_check_seconds,
            limits_url,
            keep_other_sessions,
        )

    def seamless_launch(self, key: str | None, token: str, **limits: Any) -> tuple[int, dict]:
        """``POST /seamless/session``: a session for the player the operator's launch token names
        (``limits``: those of :meth:`open_session`)."""
        return launch(self.context, self.sessions, key, token, **limits)

    def close_session(self, token: str | None, key: str | None) -> tuple[int, dict]:
        return self.sessions.close_session(token, key)

    def session_info(self, token: str | None) -> dict:
        return self.sessions.session_info(token)

    def acknowledge_reality_check(self, token: str | None, key: str | None) -> tuple[int, dict]:
        return self.sessions.acknowledge_reality_check(token, key)

    def get_play_settings(self, token: str | None, game_id: str) -> dict:
        return self.sessions.get_play_settings(token, game_id)

    def set_play_settings(
        self, token: str | None, key: str | None, game_id: str, body: dict[str, Any]
    ) -> tuple[int, dict]:
        return self.sessions.set_play_settings(token, key, game_id, body)

    # -- rounds --------------------------------------------------------------------------------

    def start_round(
        self,
        token: str | None,
        key: str | None,
        game_id: str,
        stake: int,
        mode: str,
        script: list[int] | None,
    ) -> tuple[int, dict]:
        return self.rounds.start_round(token, key, game_id, stake, mode, script)

    def act(
        self,
        token: str | None,
        key: str | None,
        round_id: int,
        name: str,
        choice: int | None,
        expected_step: int | None,
        script: list[int] | None = None,
    ) -> tuple[int, dict]:
        return self.rounds.act(token, key, round_id, name, choice, expected_step, script)

    def pending(self, token: str | None, game_id: str | None) -> dict:
        return self.rounds.pending(token, game_id)

    def complete_stale_rounds(self, older_than: float | None = None, operator_id: int | None = None) -> int:
        return self.rounds.complete_stale_rounds(older_than, operator_id)

    # -- autoplay ------------------------------------------------------------------------------

    def autoplay_start(self, token: str | None, key: str | None, body: dict[str, Any]) -> tuple[int, dict]:
        return self.autoplays.autoplay_start(token, key, body)

    def autoplay_next(self, token: str | None, key: str | None) -> tuple[int, dict]:
        return self.autoplays.autoplay_next(token, key)

    def autoplay_stop(self, token: str | None, key: str | None) -> tuple[int, dict]:
        return self.autoplays.autoplay_stop(token, key)

    def autoplay_status(self, token: str | None) -> dict:
        return self.autoplays.autoplay_status(token)

    # -- the player's reads --------------------------------------------------------------------

    def list_games(self, token: str | None) -> dict:
        return self.lobby.list_games(token)

    def balance(self, token: str | None) -> dict:
        return self.lobby.balance(token)

    def player_state(self, token: str | None, game_id: str | None) -> dict:
        return self.lobby.player_state(token, game_id)

    def player_history(self, token: str | None, limit: int, before: int | None) -> dict:
        return self.round_history.player_history(token, limit, before)

    def player_recall(self, token: str | None, round_id: int) -> dict:
        return self.round_history.player_recall(token, round_id)

    def player_replay(self, token: str | None, round_id: int) -> dict:
        return self.round_history.player_replay(token, round_id)

    # -- operator ------------------------------------------------------------------------------

    def check_operator(self, key: str | None) -> Operator:
        """The operator of a live API key (401 otherwise; 403 for a suspended one's)."""
        return self.back_office.check_operator(key)

    @property
    def operators(self) -> Directory:
        return self.context.operators

    def create_player(self, op: Operator, external_id: str, currency: str) -> tuple[int, dict]:
        return self.back_office.create_player(op, external_id, currency)

    def get_player(self, op: Operator, external_id: str) -> dict:
        return self.back_office.get_player(op, external_id)

    def wallet_move(
        self, op: Operator, key: str | None, external_id: str, amount: int, kind: str
    ) -> tuple[int, dict]:
        return self.back_office.wallet_move(op, key, external_id, amount, kind)

    def ledger(self, op: Operator, external_id: str, limit: int, before: int | None) -> dict:
        return self.back_office.ledger(op, external_id, limit, before)

    def demo_session(
        self, key: str | None, time_limit_seconds: int | None = None, spend_limit: int | None = None
    ) -> tuple[int, dict]:
        return self.back_office.demo_session(key, time_limit_seconds, spend_limit)

    def demo_terms(self) -> dict:
        return self.back_office.demo_terms()

    def operator_history(self, op: Operator, external_id: str, limit: int, before: int | None) -> dict:
        return self.round_history.operator_history(op, external_id, limit, before)

    def operator_recall(self, op: Operator, round_id: int) -> dict:
        return self.round_history.operator_recall(op, round_id)

    def operator_replay(self, op: Operator, round_id: int) -> dict:
        return self.round_history.operator_replay(op, round_id)

    def void_round(self, op: Operator, key: str | None, round_id: int, reason: str) -> tuple[int, dict]:
        return self.back_office.void_round(op, key, round_id, reason)

    def operator_pending(self, op: Operator, game_id: str | None, limit: int, before: int | None) -> dict:
        return self.round_history.operator_pending(op, game_id, limit, before)

    def operator_games(self, op: Operator) -> dict:
        return self.lobby.operator_games(op)

    def list_sessions(
        self, op: Operator, external_id: str, open_: bool | None, limit: int, before: int | None
    ) -> dict:
        return self.operator_sessions.list_sessions(op, external_id, open_, limit, before)

    def revoke_session(
        self, op: Operator, key: str | None, external_id: str, session_id: int, reason: str
    ) -> tuple[int, dict]:
        return self.operator_sessions.revoke(op, key, external_id, session_id, reason)

    def revoke_sessions(
        self, op: Operator, key: str | None, external_id: str, reason: str
    ) -> tuple[int, dict]:
        return self.operator_sessions.revoke_all(op, key, external_id, reason)

    def report(
        self,
        op: Operator | None,
        start: str | None,
        end: str | None,
        game: str | None,
        players: bool,
        theory: bool = True,
    ) -> dict:
        """One operator's report (``op``), or every operator's (None)."""
        return self.back_office.report(op, start, end, game, players, theory)

    def get_bets(
        self, op: Operator, game_id: str, mode: str | None = None, currency: str | None = None
    ) -> dict:
        return self.back_office.get_bets(op, game_id, mode, currency)

    def set_bets(
        self,
        op: Operator,
        key: str | None,
        game_id: str,
        disabled: list[int],
        mode: str | None = None,
        currency: str | None = None,
    ) -> tuple[int, dict]:
        return self.back_office.set_bets(op, key, game_id, disabled, mode, currency)

    def get_currencies(self, op: Operator, game_id: str) -> dict:
        return self.back_office.get_currencies(op, game_id)

    def set_currencies(
        self, op: Operator, key: str | None, game_id: str, wanted: list[str]
    ) -> tuple[int, dict]:
        return self.back_office.set_currencies(op, key, game_id, wanted)

    def get_profile(self, op: Operator) -> dict:
        return self.back_office.get_profile(op)

    def set_profile(self, op: Operator, name: str) -> dict:
        return self.back_office.set_profile(op, name)

    def get_variants(self, op: Operator, game_id: str) -> dict:
        return self.bet_variants.get(op, game_id)

    def set_variant(
        self,
        op: Operator,
        key: str | None,
        game_id: str,
        variant: str | None,
        mode: str | None = None,
        stake: int | None = None,
    ) -> tuple[int, dict]:
        """The game's RTP variant, or (``stake``) one bet's: see bet_variants.py."""
        return self.bet_variants.put(op, key, game_id, variant, mode, stake)

    def studio_report(self, start: str | None, end: str | None) -> dict:
        """The studio's report across operators (backoffice/studio.py)."""
        return self.studio.report(start, end, self.back_office.reports_db())

    def default_operator(self) -> Operator:
        """The deployment's own operator (its demo players, the configured key's)."""
        return self.run(lambda conn: self.context.operator(conn, DEFAULT_OPERATOR_ID))

    # -- checks used by tests and the load bench -----------------------------------------------

    def audit(self) -> dict[str, Any]:
        """Every balance equals its ledger's sum, and the ledger agrees with the rounds."""
        return self._audit.check()


def wait_seconds(seconds: float) -> None:  # pragma: no cover - tiny indirection for tests
    time.sleep(seconds)
