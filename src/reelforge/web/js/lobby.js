// The lobby: a tile per game the server offers (test-only games apart), with its RTP,
// bets and max win.

import { t } from "./i18n.js";
import { formatMoney, formatNumber, formatPercent } from "./money.js";
import { loadRenderer } from "./renderers/index.js";
import { h } from "./ui.js";

export async function renderLobby(app, view) {
  const games = app.games;
  const tiles = await Promise.all(games.map(async (g) => {
    const mod = await loadRenderer(g);
    const art = mod.lobbyTile ? mod.lobbyTile(g) : h("div.tile-art");
    const levels = g.bet_levels;
    const fmt = (v) => formatMoney(v, app.currency); // the player's wallet currency, every game alike
    const facts = [
      t("RTP {rtp}", { rtp: formatPercent(g.rtp, 2) }),
      t("Bet {min} – {max}", { min: fmt(levels[0].stake), max: fmt(levels[levels.length - 1].stake) }),
      g.max_win ? t("Max win {times}×", { times: formatNumber(g.max_win) }) : null,
    ].filter(Boolean);
    return {
      game: g,
      el: h("a.tile", { href: `#/game/${encodeURIComponent(g.id)}`, "data-testid": "game-tile", "data-game": g.id, "aria-label": t("Play {game}", { game: g.name }) },
        art,
        h("div.tile__body",
          h("h2.tile__name", g.name),
          h("ul.tile__facts", facts.map((f) => h("li", f))),
          h("span.btn.btn--gold.tile__play", t("Play")))),
    };
  }));
  const real = tiles.filter((tile) => !tile.game.test_only);
  const test = tiles.filter((tile) => tile.game.test_only);
  const section = (title, list, cls) => list.length
    ? h(`section.lobby__section${cls ? "." + cls : ""}`, h("h2.lobby__heading", title), h("div.lobby__grid", list.map((tile) => tile.el)))
    : null;
  view.replaceChildren(h("div.lobby", { "data-testid": "lobby" },
    h("div.lobby__hero",
      h("h1.lobby__title", t("Choose your game")),
      h("p.lobby__sub", app.demo ? t("Demo play: play money only.") : t("Good luck, and play responsibly."))),
    section(t("Slots"), real),
    section(t("Test games (test deployments only)"), test, "lobby__section--test"),
    h("p.lobby__foot", t("Space spins · arrows change the bet · H shows your history · M turns sound on"))));
}
