// Which renderer draws which game.  A game with art of its own plugs in by its id; a game of
// one of the engine's kinds (its info's `renderer`, e.g. "lines" for a payline game written
// only as data) is drawn by that kind's renderer; any other game by the generic renderer (it
// never crashes on an unknown game).

const REGISTRY = {
  "reign-of-gnomes": () => import("./reign-of-gnomes.js"),
  "ghost-of-gambini": () => import("./ghost-of-gambini.js"),
  "los-3-pinguinos": () => import("./los-3-pinguinos.js"),
};

const KINDS = {
  lines: () => import("./lines.js"),
};

export function hasRenderer(gameId) {
  return Object.hasOwn(REGISTRY, gameId);
}

/** The renderer module for a game (its info, or just its id): {createRenderer(ctx), lobbyTile?(game)}. */
export async function loadRenderer(game) {
  const id = typeof game === "string" ? game : game?.id;
  const kind = typeof game === "string" ? null : game?.renderer;
  const load = REGISTRY[id] || (kind && Object.hasOwn(KINDS, kind) ? KINDS[kind] : null);
  if (load) return load();
  return import("./generic.js");
}
