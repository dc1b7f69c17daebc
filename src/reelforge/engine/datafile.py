"""Loading a game's data file (TOML) into its pydantic schema, with errors that name the
file and every bad field."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Annotated, TypeVar

from pydantic import AfterValidator, BaseModel, ValidationError

from reelforge.money import check_currencies

M = TypeVar("M", bound=BaseModel)

# ``[game] currencies``: the currencies a game has tables in (every amount of its data, read in
# the minor units of the round's currency); the operator offers it in some or all of them.
Currencies = Annotated[tuple[str, ...], AfterValidator(check_currencies)]


class DataFileError(ValueError):
    """A game data file that does not load; the message names the file and field."""


def parse_model(model: type[M], raw: dict, source: str) -> M:
    """Validate a data file's content; errors name the source and every bad field."""
    try:
        return model.model_validate(raw)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or '(file)'}: {err['msg']}" for err in exc.errors()
        )
        raise DataFileError(f"{source}: {problems}") from exc


def load_model(model: type[M], path: Path) -> M:
    try:
        raw = tomllib.loads(path.read_text())
    except tomllib.TOMLDecodeError as exc:
        raise DataFileError(f"{path.name}: not valid TOML: {exc}") from exc
    return parse_model(model, raw, path.name)
