"""Schema pieces both of the machine's data models use (the lower game's and the upper game's)."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, model_validator


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def _split(value: object) -> object:
    if isinstance(value, list):
        return [tuple(v.split()) if isinstance(v, str) else v for v in value]
    return value


Strips = Annotated[tuple[tuple[str, ...], ...], BeforeValidator(_split)]
Weight = Annotated[int, Field(ge=0)]


class Chance(Strict):
    """A designed yes/no chance, drawn as the weight table ``[no, yes]``."""

    yes: Weight
    no: Weight

    @model_validator(mode="after")
    def _total(self) -> Chance:
        if self.yes + self.no <= 0:
            raise ValueError("yes + no must be positive")
        return self

    @property
    def weights(self) -> list[int]:
        return [self.no, self.yes]  # index 1 = yes
