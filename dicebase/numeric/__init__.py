"""Game arithmetic in numpy arrays, shared by the builder's solvers and the bots.

The rules layer (``dicebase.rules``) is the standard library only, so that a lookup never loads
numpy; what both the solvers and the bots compute over whole arrays of states lives here, once:
roll multisets with multiplicities (``dice``), the 10,000 turn's transitions and the opponent's
exceed table (``ten_thousand_turn``), and seed 002's human-playable policies for Great Rolled Ones
(``rolled_ones_policies``).  Each module takes its rules from ``dicebase.rules``.
"""
