"""The circuit's API (mounted under ``api/v1/`` by ``config.urls``): series and their
standings, leaderboards and a player's ratings, seeding an event by rating, ladder
sessions."""
