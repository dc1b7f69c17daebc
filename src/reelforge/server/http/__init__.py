"""The HTTP layer: the ASGI app, routes, reply models and docs, middlewares, the browser client's files."""
