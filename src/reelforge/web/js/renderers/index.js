// Which renderer draws which game.  A game plugs in by adding its module here; a game
// without one is drawn by the generic renderer (it never crashes on an unknown game).

const REGISTRY = {
  "reign-of-gnomes": () => import("./reign-of-gnomes.js"),
  "ghost-of-gambini": () => import("./ghost-of-gambini.js"),
  "los-3-pinguinos": () => import("./los-3-pinguinos.js"),
};

export function hasRenderer(gameId) {
  return Object.hasOwn(REGISTRY, gameId);
}

/** The renderer module for a game: {createRenderer(ctx), lobbyTile?(game)}. */
export async function loadRenderer(gameId) {
  const load = REGISTRY[gameId];
  if (load) return load();
  return import("./generic.js");
}
