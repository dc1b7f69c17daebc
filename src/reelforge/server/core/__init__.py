"""Settings, the data directory and the API error type: what every layer of the server shares."""
