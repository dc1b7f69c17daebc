// Which renderer draws which game, read from the game's info (its entry in GET /games):
// * a game with art of its own names its module, `client` (`js/games/<id>/index.js`: the
//   server serves the game folder's web/index.js there, in this tree, so it imports the shared
//   modules as ../../ui.js and its import-map entry versions it like any other module);
// * a game of one of the engine's kinds (its info's `renderer`, e.g. "lines" for a payline
//   game written only as data) is drawn by that kind's renderer;
// * any other game by the generic renderer (it never crashes on an unknown game).

const KINDS = {
  lines: () => import("./lines.js"),
};

const ROOT = new URL("../../", import.meta.url); // the client's root: this is js/renderers/index.js

/** The URL of the game's own renderer module, or null (none, or not one of this client's). */
function ownModule(game) {
  if (typeof game?.client !== "string") return null;
  const url = new URL(game.client, ROOT);
  return url.origin === ROOT.origin && url.pathname.startsWith(ROOT.pathname) ? url.href : null;
}

/** The renderer module for a game's info: {createRenderer(ctx), lobbyTile?(game)}. */
export async function loadRenderer(game) {
  const own = ownModule(game);
  if (own) return import(own);
  const kind = game?.renderer;
  if (kind && Object.hasOwn(KINDS, kind)) return KINDS[kind]();
  return import("./generic.js");
}
