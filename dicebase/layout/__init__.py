"""Each game's storage layout, defined once: which states are stored, how keys are encoded,
the key columns of each stored block and the SQL that reads stored values.

The builder writes tables by these definitions and the query side reads them by the same
ones.  Modules here import only the standard library and :mod:`dicebase.rules`.
"""
