"""A club's season (docs/host.md, "A club's season"): the register of the
club's players (register.py), seasons of evenings and their standings
(season.py), and the results the club publishes as a static site (site.py).
Everything is kept in the archive beside the evenings (database.ARCHIVE,
migration 4); the evenings are read through evenings.py."""
