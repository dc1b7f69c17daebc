// The lobby: a tile per game the server offers (test-only games apart), with its RTP,
// bets and max win.

import { formatMoney } from "./money.js";
import { loadRenderer } from "./renderers/index.js";
import { h } from "./ui.js";

export async function renderLobby(app, view) {
  const games = app.games;
  const tiles = await Promise.all(games.map(async (g) => {
    const mod = await loadRenderer(g.id);
    const art = mod.lobbyTile ? mod.lobbyTile(g) : h("div.tile-art");
    const levels = g.bet_levels;
    const fmt = (v) => formatMoney(v, g.currency);
    const facts = [
      `RTP ${(g.rtp * 100).toFixed(2)}%`,
      `Bet ${fmt(levels[0].stake)} – ${fmt(levels[levels.length - 1].stake)}`,
      g.max_win ? `Max win ${g.max_win.toLocaleString("en-GB")}×` : null,
    ].filter(Boolean);
    return {
      game: g,
      el: h("a.tile", { href: `#/game/${encodeURIComponent(g.id)}`, "data-testid": "game-tile", "data-game": g.id, "aria-label": `Play ${g.name}` },
        art,
        h("div.tile__body",
          h("h2.tile__name", g.name),
          h("ul.tile__facts", facts.map((f) => h("li", f))),
          h("span.btn.btn--gold.tile__play", "Play"))),
    };
  }));
  const real = tiles.filter((t) => !t.game.test_only);
  const test = tiles.filter((t) => t.game.test_only);
  const section = (title, list, cls) => list.length
    ? h(`section.lobby__section${cls ? "." + cls : ""}`, h("h2.lobby__heading", title), h("div.lobby__grid", list.map((t) => t.el)))
    : null;
  view.replaceChildren(h("div.lobby", { "data-testid": "lobby" },
    h("div.lobby__hero",
      h("h1.lobby__title", "Choose your game"),
      h("p.lobby__sub", app.demo ? "Demo play: play money only." : "Good luck, and play responsibly.")),
    section("Slots", real),
    section("Test games (test deployments only)", test, "lobby__section--test"),
    h("p.lobby__foot", "Space spins · arrows change the bet · H shows your history · M turns sound on")));
}
