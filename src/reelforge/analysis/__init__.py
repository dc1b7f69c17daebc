"""Simulation drivers and statistics."""
