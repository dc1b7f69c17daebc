"""Operator reports over the database: play against theory, and the ``reelforge report`` command."""
