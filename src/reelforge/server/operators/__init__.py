"""Operator accounts: the casinos one server carries, their API keys and their settings."""
