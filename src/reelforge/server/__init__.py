"""The game server: HTTP API, wallet ledger, sessions, rounds, recall and profiles.

One subpackage per concern, and imports point one way, down this list (a layer may skip those
below it): ``http`` > ``runtime`` > ``backoffice`` > ``reports`` > ``play`` > ``wallets`` >
``storage`` > ``core``.  ``tests/test_server_layers.py`` holds the server to it.
"""
