"""The operator a request acts for: ``Op``, the parameter every operator route takes.

Its key (``X-Operator-Key``) names one operator account; the route then reads and changes that
operator's players, rounds, sessions and settings only (everything of another answers 404, as
what does not exist does).  The app holds its server in ``app.state.server``.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Header, Request

from reelforge.server.operators.accounts import Operator


def operator_of_request(request: Request, x_operator_key: Annotated[str | None, Header()] = None) -> Operator:
    """401 without a live key, 403 ``operator_suspended`` for a suspended operator's."""
    return request.app.state.server.check_operator(x_operator_key)


Op = Annotated[Operator, Depends(operator_of_request)]
