"""The reply bodies of the HTTP API, as pydantic models: what ``/openapi.json`` documents for
every route and status.

They describe; they do not run.  Routes build their replies as plain dicts and send them with
``json_response`` (no ``response_model`` validation on the hot path); these models are attached
with ``responses=`` (see :mod:`reelforge.server.http.api_docs`), and ``tests/test_openapi.py`` holds
every reply of a run through the API to the schema generated from them.

Money is integer minor units everywhere.  A field typed ``X | None`` is always present and
may be null; a field declared with :func:`sometimes` is present only in some replies (and
never null).  A round's ``state`` and ``events`` are the game's own: the models name what
every game has and allow the rest (``additionalProperties``).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, RootModel

from reelforge.engine.autoplay import AutoplayLimits, StopReason
from reelforge.engine.round import ActionSpec


def _no_default(schema: dict[str, Any]) -> None:
    schema.pop("default", None)


def sometimes(description: str) -> Any:
    """A key some replies carry and others leave out (it is never null)."""
    return Field(default=None, description=description, json_schema_extra=_no_default)


class Reply(BaseModel):
    """A reply body whose keys are all known: any other key is a documentation bug."""

    model_config = ConfigDict(extra="forbid")


class Open(BaseModel):
    """A reply body (or part of one) that is partly the game's own: other keys are allowed."""

    model_config = ConfigDict(extra="allow")


Timestamp = datetime  # ISO 8601 in UTC, milliseconds: "2026-05-01T12:00:00.123+00:00"
RoundStatus = Literal["pending", "complete", "voided"]


# -- errors --------------------------------------------------------------------------------


class ErrorBody(Reply):
    code: str = Field(description="stable, machine-readable: e.g. invalid_bet, round_pending")
    message: str = Field(description="for people; may change")


class ErrorReply(Reply):
    """Every error reply: ``{"error": {"code", "message"}}``."""

    error: ErrorBody


# -- rounds ----------------------------------------------------------------------------------


class RoundState(Open):
    """The game's round internals (hidden ones, whose names start with ``_``, are left out of
    the player's view; the operator's recall shows them all).  Every game of the registry says
    ``phase`` and ``credits``; the engine does not require them."""

    phase: str = sometimes("where the round is, in the game's own words")
    credits: int = sometimes("credits won so far")


class Event(Open):
    """One thing that happened in a round (a spin, a feature start, a pick, a void...): its
    ``type`` and the game's own fields."""

    type: str


class RoundView(Reply):
    """A round as the player sees it (hidden state left out)."""

    id: int
    game: str
    game_version: str
    variant: str
    mode: str
    coin: int = Field(description="minor units per credit")
    stake: int = Field(description="minor units debited for the round")
    status: Literal["pending", "complete"]
    step: int = Field(description="steps taken so far; the start is step 1")
    win: int = Field(description="minor units won so far")
    events: list[Event]
    actions: list[ActionSpec] = Field(description="what the player may do now; [] once complete")
    state: RoundState
    player_state: dict[str, Any] | None = Field(
        description="the player's persistent state for the game as this step leaves it; null: none"
    )


class AutoplayView(Reply):
    """An autoplay run: its limits and where it stands."""

    id: int
    game: str
    limits: AutoplayLimits
    stake: int = Field(description="the bet level each round is opened at")
    mode: str
    cost: int | None = Field(description="minor units debited per round when not the stake")
    spins_left: int
    staked: int
    won: int
    running: bool
    stop_reason: StopReason | None


class RoundStarted(Reply):
    """The round started: its first step and the balance after it."""

    round: RoundView
    balance: int
    autoplay: AutoplayView = sometimes("the running autoplay of the game this start stopped")
    session_closed: str = sometimes("the round reached the session's spend limit: the reason")


class RoundActed(Reply):
    """The round's next step and the balance after it."""

    round: RoundView
    balance: int
    session_closed: str = sometimes("the round reached the session's spend limit: the reason")


class PendingRounds(Reply):
    """The player's rounds in play, oldest first."""

    rounds: list[RoundView]


class SideBeforeAfter(Reply):
    before: int
    after: int


class SideMove(Reply):
    amount: int
    balance_after: int


class StartAction(Reply):
    """A round's first step: the bet it was opened at and the player state it started from."""

    name: Literal["start"]
    stake: int = Field(description="the bet level (a bought feature costs a multiple of it)")
    mode: str
    player_state: dict[str, Any] | None


class PlayerAction(Reply):
    """An action taken on a round in play."""

    name: str
    choice: int | None


class RoundSummary(Reply):
    """One round in history."""

    id: int
    game: str
    game_version: str
    variant: str
    mode: str
    stake: int
    win: int
    status: RoundStatus
    steps: int
    balance_before: int
    balance_after: int | None = Field(description="null while the round is in play")
    started_at: Timestamp
    completed_at: Timestamp | None
    completed_by: str | None = Field(description="player, autoplay, server (the sweeper) or void")
    autoplay_id: int | None
    side: dict[str, SideBeforeAfter] = sometimes(
        "games with side balances: {currency: {before, after}} of the round"
    )


class History(Reply):
    """A page of the player's rounds, newest first."""

    rounds: list[RoundSummary]
    next_before: int | None = Field(description="pass as ?before= for the next page; null: no more")


class RecallStep(Reply):
    step: int
    at: Timestamp
    actor: str = Field(description="player, autoplay, server or operator (a void)")
    action: StartAction | PlayerAction | None = Field(description="null for a void")
    events: list[Event]
    win_after: int
    draws: list[tuple[int, int]] = sometimes(
        "the (range, value) draws of the step, once the round is over (always for the operator)"
    )
    side: dict[str, SideMove] = sometimes("games with side balances: what the step moved of each")
    request_id: str = sometimes(
        "the X-Request-Id of the request that made the step (absent for the server's own steps)"
    )


class Recall(Reply):
    """The whole round, step by step."""

    id: int
    game: str
    game_version: str
    variant: str
    mode: str
    stake: int
    win: int
    status: RoundStatus
    steps: list[RecallStep]
    balance_before: int
    balance_after: int | None
    started_at: Timestamp
    completed_at: Timestamp | None
    completed_by: str | None
    autoplay_id: int | None
    side: dict[str, SideBeforeAfter] = sometimes("games with side balances: {currency: {before, after}}")
    round: RoundView


class OperatorRecall(Recall):
    """The whole round, step by step, its hidden state and draws included."""

    player: str = Field(description="the player's external id")
    state: RoundState = Field(description="the round's whole state, hidden parts included")


class ReplayStep(Reply):
    step: int
    action: StartAction | PlayerAction | None
    events: list[Event]


class Replay(Reply):
    """A finished round dealt again from its stored draws and actions."""

    replay: Literal[True]
    round_id: int
    game: str
    game_version: str
    variant: str
    stake: int
    win: int = Field(description="the replay's win")
    recorded_win: int
    matches_record: bool
    steps: list[ReplayStep]


# -- the lobby, the session, settings ------------------------------------------------------


class BetLevel(Reply):
    coin: int
    credits: int
    stake: int
    variant: str = sometimes("the RTP variant this bet is dealt at, where it has one of its own")
    rtp: float = sometimes("that variant's exact RTP")


class ModeBetLevel(Open):
    """A bet of a mode's own table, with what the game says of it (cash part, Bonuses...)."""

    coin: int
    credits: int
    stake: int


class GameInfo(Open):
    """A game on offer under the session's profile; the game's own description (paytable,
    symbols...) comes with it."""

    id: str
    name: str
    version: str
    currency: str = Field(
        description="the player's wallet currency: a round is in it, every amount of the game (bets,"
        " prizes) in its minor units; only games offered in it are listed"
    )
    variants: list[str] = sometimes("the game's RTP variants")
    default_variant: str = sometimes("the variant dealt unless the operator sets another")
    variant: str = Field(description="the RTP variant in force")
    rtp: float = Field(description="the exact RTP of that variant")
    modes: list[str] = Field(description="the modes the profile allows")
    buy_rtp: dict[str, float] = Field(
        description="each feature-buy mode the profile allows (`buy`, `buy-…`) with its exact RTP"
        " in that variant, for the Buy menu to show beside the price; {} where none is on sale"
    )
    bet_levels: list[BetLevel] = Field(description="the base bets switched on")
    bets_disabled: list[int]
    bet_levels_by_mode: dict[str, list[ModeBetLevel]]
    bets_disabled_by_mode: dict[str, list[int]]
    side_balances: list[str]
    play_settings: dict[str, bool] = Field(description="the switches the game offers and their defaults")
    autoplay_max_spins: int | None = Field(description="the cap in force; null: no autoplay")
    client: str = sometimes(
        "the game's own browser renderer, a module URL from the web client's root"
        " (`js/games/<id>/index.js`, served from the game's folder); absent: the client draws"
        " the game with the renderer of its kind (`renderer`) or its generic one"
    )


class Games(Reply):
    """The games on offer and the profile in force."""

    games: list[GameInfo]
    profile: str


class Balance(Reply):
    """The cash balance and every side balance."""

    balance: int
    currency: str
    side: dict[str, dict[str, int]] = Field(description="{game: {currency: balance}}")


class ProfileRules(Reply):
    autoplay_max_spins: int | None
    bonus_buy: bool
    min_cycle_seconds: float


class RealityCheck(Reply):
    interval_seconds: int
    next_at_seconds: int = Field(description="session time of the next check")
    due: bool


class SessionInfo(Reply):
    """The session: its profile, limits, play so far and reality check."""

    profile: str
    player: str
    opened_at: Timestamp
    expires_at: Timestamp
    elapsed_seconds: float
    staked: int
    won: int
    net_position: int = Field(description="won minus staked")
    time_limit_seconds: int | None
    spend_limit: int | None
    rules: ProfileRules
    reality_check: RealityCheck
    limits_url: str | None
    play_settings: dict[str, dict[str, bool]] = Field(description="{game: {name: value}} in force")


class SessionClosedReply(Reply):
    """The session is closed."""

    closed: Literal[True]


class RealityCheckSeen(Reply):
    """The reality check is acknowledged; the next falls due after the next interval."""

    elapsed_seconds: float
    net_position: int
    reality_check: RealityCheck


class PlaySettings(Reply):
    """A game's play settings for this session, and their defaults."""

    game: str
    settings: dict[str, bool]
    defaults: dict[str, bool]


class PlaySettingsSet(Reply):
    """The game's play settings for this session, as set."""

    game: str
    settings: dict[str, bool]


class StoredState(Reply):
    game: str
    state_key: str
    state: dict[str, Any]
    updated_at: float = Field(description="seconds since the epoch")


class PlayerStates(Reply):
    """The player's persistent game state (meters, piggy banks, Bonuses), per game and key."""

    states: list[StoredState]


# -- autoplay ----------------------------------------------------------------------------


class AutoplayStatus(Reply):
    """The player's latest autoplay run; null: none yet."""

    autoplay: AutoplayView | None


class AutoplayReply(Reply):
    """The autoplay run."""

    autoplay: AutoplayView


class AutoplayNext(Reply):
    """The round autoplay played (null: none, the run stopped) and the run after it."""

    autoplay: AutoplayView
    round: RoundView | None
    balance: int
    session_closed: str = sometimes("the round reached the session's spend limit: the reason")


# -- the operator ------------------------------------------------------------------------


class Player(Reply):
    """The player and their cash balance."""

    id: int
    external_id: str
    currency: str
    balance: int


class WalletMove(Reply):
    """The cash-in or cash-out and the balance after it."""

    player: str
    balance: int
    amount: int = Field(description="signed: negative for a withdrawal")
    kind: Literal["deposit", "withdrawal"]
    entry: LedgerEntry = sometimes("the ledger row it wrote (replies stored before this lack it)")


class DemoTerms(Reply):
    """Demo mode: what a new demo session holds, and the limits its profile needs set first."""

    profile: str
    currency: str = Field(description="the play money's currency (the profile's)")
    balance: int = Field(description="the play money, in minor units")
    requires_session_limits: bool = Field(
        description="the profile needs `time_limit_seconds` and `spend_limit` chosen by the player"
        " before the session opens (`es`)"
    )
    time_limit_seconds: int = Field(description="a time limit to offer first")
    spend_limit: int = Field(description="a spend limit to offer first: the play money")


class SessionOpened(Reply):
    """A session is open: its token and limits."""

    token: str
    player: str
    profile: str
    expires_at: Timestamp
    time_limit_seconds: int | None
    spend_limit: int | None
    # Replies stored before these existed lack them when a key is repeated.
    reality_check_seconds: int = sometimes("the reality-check interval")
    limits_url: str | None = sometimes("the operator's limits page")
    session_id: int = sometimes("the session's id (operator lists and revokes by it)")
    replaced: list[int] = sometimes("the player's sessions this one closed (reason replaced)")


class LedgerEntry(Reply):
    id: int
    amount: int = Field(description="signed minor units")
    balance_after: int
    kind: str = Field(
        description="deposit, withdrawal, stake, win, refund, or operator (seamless wallet: the"
        " operator's own moves found when its balance was reconciled with ours)"
    )
    round_id: int | None
    reference: str
    at: Timestamp


class Ledger(Reply):
    """The player's balance and ledger entries, newest first."""

    player: str
    currency: str
    balance: int
    entries: list[LedgerEntry]
    next_before: int | None = Field(description="pass as ?before= for the next page; null: no more")


class Voided(Reply):
    """The round is voided: its stake refunded."""

    round_id: int
    status: Literal["voided"]
    refund: int
    balance: int
    side: dict[str, int] = sometimes("what the void took back of each side balance")


class GameCurrencies(Reply):
    """The currencies a game has tables in, and those the operator offers it in."""

    game: str
    currencies: list[str] = Field(description="the currencies the game has tables in")
    offered: list[str] = Field(description="those it is offered in: players in another do not see it")


class ProfileReply(Reply):
    """The jurisdiction profile in force."""

    profile: str


class Bets(Reply):
    """A bet table of a game: its stakes, those switched on and off."""

    game: str
    variant: str
    mode: str = sometimes("the mode whose own table this is (absent: the base table)")
    currency: str = sometimes(
        "the currency whose rounds these switches are for (absent: every currency without its own)"
    )
    stakes: list[int]
    enabled: list[int]
    disabled: list[int]
    bet_variants: list[BetVariant] = sometimes("the stakes dealt at a variant of their own")


class BetVariant(Reply):
    stake: int
    variant: str


class DealtAt(Reply):
    stake: int
    variant: str = Field(description="the RTP variant a round at this stake is dealt at")
    own: bool = Field(description="true: set for this bet; false: the game's variant")


class VariantReply(Reply):
    """The RTP variant dealt for the game, and for each of its bets."""

    game: str
    variant: str = Field(description="the game's: dealt at every bet without one of its own")
    default_variant: str
    variants: list[str]
    bets: dict[str, list[DealtAt]] = Field(description="each bet table's stakes: base, and own-bet modes")


class Health(Reply):
    """The server is up."""

    ok: Literal[True]


class FiguresLoaded(Reply):
    loaded: int = Field(description="(game, variant) exact reports loaded")
    total: int


class ReadyState(Reply):
    """This process can serve (a process that cannot answers 503 `not_ready`)."""

    ready: Literal[True]
    database: Literal["ready"]
    figures: FiguresLoaded
    waiting_for: list[str] = Field(max_length=0, description="nothing, once ready")


# -- the back office's lists and sessions (operator) -----------------------------------------


class SessionView(Open):
    """One session as the operator sees it (``session_store.view``)."""

    id: int
    state: Literal["open", "closed", "expired"]
    open: bool
    profile: str
    created_at: Timestamp
    expires_at: Timestamp
    closed_at: Timestamp | None
    close_reason: str | None
    staked: int
    won: int
    net_position: int


class Sessions(Reply):
    """A page of the player's sessions, newest first."""

    player: str
    sessions: list[SessionView]
    next_before: int | None = Field(description="pass as ?before= for the next page; null: no more")


class SessionRevoked(Reply):
    """The session is closed: its token is refused from now on."""

    player: str
    session: SessionView


class SessionsRevoked(Reply):
    """Every live session of the player is closed (none is fine)."""

    player: str
    revoked: list[SessionView]


class PendingLine(Open):
    """A round in play: its history line, the player and how long it has waited."""

    id: int
    player: str
    session_id: int | None
    updated_at: Timestamp
    waiting_seconds: float


class PendingAcross(Reply):
    """Rounds in play across players, newest first."""

    rounds: list[PendingLine]
    next_before: int | None = Field(description="pass as ?before= for the next page; null: no more")


class OperatorGames(Open):
    """Every game with its variants, modes and bet tables as the operator sees them."""

    games: list[Open]


class Report(Open):
    """The operator report (``reelforge.server.reports.reports.operator_report``): per game, variant
    and mode, totals per currency, and per player on request."""


class SeamlessSession(SessionOpened):
    """A seamless launch: the session, and the player's balance and currency from the
    operator's wallet."""

    balance: int
    currency: str


class GameListing(RootModel[Games | OperatorGames]):
    """``GET /games``: the player's listing (a session token), or the operator's (the key)."""
