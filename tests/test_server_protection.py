"""Player protection in every profile, through the HTTP API on SQLite and PostgreSQL: the
session clock and net position, the reality check (interval per profile, shortened by the
operator at session open, due by server time from the session's start, acknowledged once
per lapse) and the operator's limits page."""

from __future__ import annotations

import pytest

from reelforge.server.storage import schema as t

PROFILE_INTERVALS = {"default": 3600, "gb": 3600, "es": 1800}


def age_session(server, seconds: float) -> None:
    """Move every session's start ``seconds`` into the past (time played, without waiting)."""
    with server.engine.begin() as conn:
        conn.execute(t.sessions.update().values(created_at=t.sessions.c.created_at - seconds))


@pytest.mark.parametrize("profile", sorted(PROFILE_INTERVALS))
def test_every_profile_shows_the_clock_the_net_position_and_a_reality_check(api, profile) -> None:
    api.operator("PUT", "/profile", json={"profile": profile}, expect=200)
    limits = {"time_limit_seconds": 7200, "spend_limit": 5000} if profile == "es" else {}
    token = api.new_player(f"prot-{profile}", **limits)
    api.finish(token, api.start(token))
    info = api.call("GET", "/session", token=token, expect=200)
    assert info["profile"] == profile
    assert info["elapsed_seconds"] >= 0 and info["staked"] == 40
    assert info["net_position"] == info["won"] - info["staked"]
    interval = PROFILE_INTERVALS[profile]
    assert info["reality_check"] == {"interval_seconds": interval, "next_at_seconds": interval, "due": False}
    assert info["limits_url"] is None
    # Retired: every profile shows the clock and the net position now.
    assert "shows_net_position" not in info["rules"]


def test_the_operator_may_shorten_the_interval_but_never_lengthen_it(api) -> None:
    api.operator("POST", "/players", json={"external_id": "rc-len"}, idem=None, expect=201)
    opened = api.operator("POST", "/players/rc-len/sessions", json={"reality_check_seconds": 900}, expect=201)
    assert opened["reality_check_seconds"] == 900
    info = api.call("GET", "/session", token=opened["token"], expect=200)
    assert info["reality_check"]["interval_seconds"] == 900
    err = api.operator("POST", "/players/rc-len/sessions", json={"reality_check_seconds": 3601}, expect=400)
    assert err["error"]["code"] == "invalid_reality_check" and "3600" in err["error"]["message"]
    api.operator("PUT", "/profile", json={"profile": "es"}, expect=200)
    body = {"time_limit_seconds": 7200, "spend_limit": 5000, "reality_check_seconds": 2400}
    err = api.operator("POST", "/players/rc-len/sessions", json=body, expect=400)
    assert err["error"]["code"] == "invalid_reality_check"
    for bad in (0, -5, 1.5, 24 * 3600 + 1):
        api.operator("POST", "/players/rc-len/sessions", json={"reality_check_seconds": bad}, expect=422)


def test_a_reality_check_falls_due_by_server_time_and_is_acknowledged_once_per_lapse(api, server) -> None:
    token = api.new_player("rc-due", reality_check_seconds=60)
    api.finish(token, api.start(token))
    err = api.call("POST", "/session/reality-check", token=token, expect=409)
    assert err["error"]["code"] == "reality_check_not_due"

    age_session(server, 61)
    for _ in range(2):  # a reload asks again and sees the same: the clock is the server's
        info = api.call("GET", "/session", token=token, expect=200)
        assert info["reality_check"] == {"interval_seconds": 60, "next_at_seconds": 60, "due": True}
        assert 61 <= info["elapsed_seconds"] < 70
    ack = api.call("POST", "/session/reality-check", token=token, idem="continue-1", expect=200)
    assert ack["reality_check"] == {"interval_seconds": 60, "next_at_seconds": 120, "due": False}
    assert ack["net_position"] == info["net_position"] and ack["elapsed_seconds"] >= 61
    again = api.call("POST", "/session/reality-check", token=token, idem="continue-1", expect=200)
    assert again == ack  # a retried Continue changes nothing
    api.call("POST", "/session/reality-check", token=token, expect=409)
    assert api.call("GET", "/session", token=token)["reality_check"]["due"] is False

    # Away for three more intervals: one check stands for them all.
    age_session(server, 200)
    info = api.call("GET", "/session", token=token, expect=200)
    assert info["reality_check"]["due"] is True and info["reality_check"]["next_at_seconds"] == 120
    ack = api.call("POST", "/session/reality-check", token=token, expect=200)
    assert ack["reality_check"] == {"interval_seconds": 60, "next_at_seconds": 300, "due": False}
    row = server.run(lambda conn: conn.execute(t.sessions.select()).first())
    assert row.reality_checks_acknowledged == 4 and row.reality_check_seconds == 60

    # Leave: the player ends the session with the existing call.
    age_session(server, 60)
    assert api.call("GET", "/session", token=token)["reality_check"]["due"] is True
    api.call("POST", "/session/close", token=token, expect=200)
    err = api.call("GET", "/session", token=token, expect=403)
    assert err["error"]["code"] == "session_closed"


def test_a_session_opened_before_the_migration_uses_its_profiles_interval(api, server) -> None:
    token = api.new_player("rc-old")
    with server.engine.begin() as conn:  # what migration 0004 leaves in older rows
        conn.execute(
            t.sessions.update().values(
                reality_check_seconds=None, reality_checks_acknowledged=None, limits_url=None
            )
        )
    age_session(server, 3600)
    info = api.call("GET", "/session", token=token, expect=200)
    assert info["reality_check"] == {"interval_seconds": 3600, "next_at_seconds": 3600, "due": True}
    ack = api.call("POST", "/session/reality-check", token=token, expect=200)
    assert ack["reality_check"]["next_at_seconds"] == 7200


def test_the_limits_page_is_an_http_link_given_at_session_open(api) -> None:
    url = "https://casino.example/account/limits?from=game#top"
    token = api.new_player("lim-1", limits_url=url)
    assert api.call("GET", "/session", token=token, expect=200)["limits_url"] == url
    plain = "http://127.0.0.1:8080/limits"
    opened = api.operator("POST", "/players/lim-1/sessions", json={"limits_url": plain}, expect=201)
    assert opened["limits_url"] == plain
    for bad in (
        "javascript:alert(1)",
        "data:text/html,<b>x</b>",
        "ftp://casino.example/limits",
        "/account/limits",
        "https://",
        "https://user:pw@casino.example/limits",
        "https://casino.example/my limits",
        "https://casino.example/\u0007",
        "https://[::1/limits",
    ):
        err = api.operator("POST", "/players/lim-1/sessions", json={"limits_url": bad}, expect=400)
        assert err["error"]["code"] == "invalid_limits_url", bad
    long = "https://casino.example/" + "a" * 2048
    api.operator("POST", "/players/lim-1/sessions", json={"limits_url": long}, expect=422)
    api.operator("POST", "/players/lim-1/sessions", json={"limits_url": ""}, expect=422)
