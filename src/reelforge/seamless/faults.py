"""Fault injection for the reference wallet (tests only: enabled by ``--faults``).

A test posts rules to ``POST /_faults``; each wallet request takes the first rule that matches
its operation and still has a count left.  The actions reproduce what a real network and a
real operator do to a game server:

``timeout``     sleep ``delay_s`` (longer than the client waits), then do nothing: the client
                sees a timeout and no money moved.
``drop_reply``  apply the transaction, then stall ``delay_s`` before answering: the client sees a
                timeout although the money moved (the case that makes rollbacks necessary).
``error_500``   answer 500 without applying anything.
``slow``        sleep ``delay_s``, then apply and answer.  Longer than the client's timeout, it
                is the debit still in flight when the rollback arrives (the tombstone case).
``duplicate``   process the same delivery twice, concurrently, as a retrying load balancer
                would; the wallet must still move the money once and give both the same reply.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field
from starlette.concurrency import run_in_threadpool

from reelforge.seamless.protocol import ErrorCode, ErrorReply

FaultAction = Literal["timeout", "error_500", "slow", "drop_reply", "duplicate"]
FaultOp = Literal["authenticate", "debit", "credit", "rollback", "*"]
# (HTTP status, exact reply bytes): what the ledger's operations return.
Reply = tuple[int, bytes]

DEFAULT_DELAY_S: dict[str, float] = {"timeout": 30.0, "drop_reply": 30.0, "slow": 1.0}


class FaultRule(BaseModel):
    model_config = ConfigDict(extra="forbid")

    op: FaultOp = "*"
    action: FaultAction
    count: int = Field(1, ge=1, le=1_000_000)  # how many matching requests it applies to
    delay_s: float | None = Field(None, ge=0, le=600)  # default per action (DEFAULT_DELAY_S)

    @property
    def delay(self) -> float:
        return self.delay_s if self.delay_s is not None else DEFAULT_DELAY_S.get(self.action, 0.0)


class FaultInjector:
    """The active rules.  Used from the event loop only, so taking a rule needs no lock."""

    def __init__(self) -> None:
        self.rules: list[FaultRule] = []
        self.fired: list[tuple[str, str]] = []  # (op, action) of every fault applied, for tests

    def set(self, rules: list[FaultRule]) -> None:
        self.rules = [rule.model_copy() for rule in rules]

    def clear(self) -> None:
        self.rules = []
        self.fired = []

    def take(self, op: str) -> FaultRule | None:
        for i, rule in enumerate(self.rules):
            if rule.op in (op, "*"):
                if rule.count <= 1:
                    del self.rules[i]
                else:
                    self.rules[i] = rule.model_copy(update={"count": rule.count - 1})
                self.fired.append((op, rule.action))
                return rule
        return None

    async def run(self, op: str, process: Callable[[], Reply]) -> Reply:
        """Run ``process`` (a blocking ledger call) as the next matching rule says."""
        rule = self.take(op)
        if rule is None:
            return await run_in_threadpool(process)
        if rule.action == "error_500":
            return _fault_reply("injected error_500: nothing was applied")
        if rule.action == "timeout":
            await asyncio.sleep(rule.delay)
            return _fault_reply("injected timeout: nothing was applied")
        if rule.action == "slow":
            await asyncio.sleep(rule.delay)
            return await run_in_threadpool(process)
        if rule.action == "drop_reply":
            reply = await run_in_threadpool(process)
            await asyncio.sleep(rule.delay)  # the client has given up by now
            return reply
        # duplicate: both deliveries at once, each in its own database transaction.
        first, second = await asyncio.gather(run_in_threadpool(process), run_in_threadpool(process))
        if first != second:
            return _fault_reply(f"duplicate delivery answered differently: {first!r} / {second!r}")
        return second


def _fault_reply(message: str) -> Reply:
    return 500, ErrorReply.of(ErrorCode.INTERNAL_ERROR, message).to_json()
