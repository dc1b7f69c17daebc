"""The round state machine every game shares.

A game's ``start`` opens a :class:`Round`; while the round is ``pending`` it lists the
actions the player may take, and the game's ``act`` moves it on by one step.  A round is
a plain pydantic model: it serialises to JSON at every step and a round rebuilt from that
JSON continues identically (the server stores it after each step).
"""

from __future__ import annotations

import copy
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field


class InvalidAction(ValueError):
    """An action the round does not allow now, or malformed arguments."""


class ActionSpec(BaseModel):
    """One action the player may take now.  ``choices`` lists allowed ``choice`` values."""

    model_config = ConfigDict(extra="forbid")

    name: str
    choices: list[int] | None = None
    default: int | None = None  # the choice the default play makes
    needs_player: bool = False  # autoplay stops here: a human must decide


class Action(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, max_length=32)
    choice: int | None = None


class Round(BaseModel):
    """A round in flight or finished.  Money fields are integer minor units."""

    model_config = ConfigDict(extra="forbid")

    game: str
    game_version: str
    variant: str
    mode: str
    coin: int  # minor units per credit
    stake: int  # minor units debited for the round
    status: Literal["pending", "complete"] = "pending"
    step: int = 0  # steps taken so far (start is step 1)
    win: int = 0  # minor units won so far (after the max-win cap)
    events: list[dict[str, Any]] = Field(default_factory=list)
    actions: list[ActionSpec] = Field(default_factory=list)
    state: dict[str, Any] = Field(default_factory=dict)  # game internals, some hidden
    # The player's persistent state for this game (meters, piggy banks, Bonuses) as this
    # step leaves it; None when the game keeps none.  The server stores it with the step.
    player_state: dict[str, Any] | None = None

    @property
    def complete(self) -> bool:
        return self.status == "complete"

    def allowed(self, action: Action) -> ActionSpec:
        """The spec ``action`` satisfies, or :class:`InvalidAction` saying why not."""
        if self.complete:
            raise InvalidAction("the round is complete: no action is allowed")
        for spec in self.actions:
            if spec.name == action.name:
                if spec.choices is not None and action.choice not in spec.choices:
                    raise InvalidAction(
                        f"action {action.name!r} needs a choice from {spec.choices}, got {action.choice!r}"
                    )
                if spec.choices is None and action.choice is not None:
                    raise InvalidAction(f"action {action.name!r} takes no choice")
                return spec
        names = [spec.name for spec in self.actions]
        raise InvalidAction(f"action {action.name!r} is not allowed now; allowed: {names}")

    def copied(self) -> Round:
        """A deep copy for ``act`` to change, equal to ``model_copy(deep=True)``'s: the round's
        JSON trees (events, state, player state) copied node by node, about ten times quicker
        than ``copy.deepcopy`` (which a long round's events made the cost of a step).  Shared
        references inside a round are not kept shared, as a round rebuilt from its JSON has none."""
        return self.model_copy(
            update={
                "events": _tree(self.events),
                "actions": [a.model_copy() for a in self.actions],
                "state": _tree(self.state),
                "player_state": _tree(self.player_state),
            }
        )

    def default_action(self) -> Action:
        """The default play: what the server does for a player who is gone."""
        if self.complete:
            raise InvalidAction("the round is complete")
        spec = self.actions[0]
        return Action(name=spec.name, choice=spec.default)

    def public_view(self) -> dict[str, Any]:
        """What the player may see: everything but hidden state (e.g. an unpicked layout)."""
        data = self.model_dump(exclude={"state"})
        data["state"] = {k: v for k, v in self.state.items() if not k.startswith("_")}
        return data


_ATOMS = (str, int, float, bool, type(None))


def _tree(x: Any) -> Any:
    """A copy of a JSON-like tree: dicts, lists and tuples rebuilt, atoms shared, anything
    else deep-copied."""
    t = type(x)
    if t is dict:
        return {k: _tree(v) for k, v in x.items()}
    if t is list:
        return [_tree(v) for v in x]
    if t in _ATOMS:
        return x
    if t is tuple:
        return tuple(_tree(v) for v in x)
    return copy.deepcopy(x)
