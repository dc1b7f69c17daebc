"""What a game tells its PAR sheet and reachability report about itself: tables, number
formats, prize odds and max-win plans (the analysis layer prints them)."""
