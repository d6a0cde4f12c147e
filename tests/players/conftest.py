from tests.live.conftest import playing_table, practice_table  # noqa: F401  (the live table's fixtures)
