"""The shared N-player equilibrium search (dicebase.builder.equilibrium.resolve_cycle; issue 31, found by Pig).

The lookups and bots replay a stored equilibrium: each seat's greedy turn at the stored values, the stored
roll probabilities at the decisions where a randomising seat's two policies differ.  So a stored equilibrium
must be one the greedy turn plays.  A toy game of two seats, each choosing between two whole turns (a lower
and a higher bust chance), whose best responses cycle like matching pennies, with seat 1's switch moved so
that the first pure profile the search tries is short of seat 1's best response by 5e-13 (within the
1e-12 tolerance): the search used to store that profile, which a replay plays differently (10,000 with
4 players at goal 300 had such a tuple: replayed, 1.4e-6 off; docs/n_players.md).  Milliseconds."""

from __future__ import annotations

import numpy as np

from dicebase.builder import equilibrium as eq

N = 2
#: per seat: (win vector A, bust chance c) of its turn holding early ("L") and rolling on ("H")
BASE = [
    [(np.array([0.18269298120158317, 0.21581595444077797]), 0.18755141654048926),
     (np.array([0.03896446374063352, 0.34350386008608985]), 0.486769438018699)],
    [(np.array([0.43879492672932685, 0.37587667244324896]), 0.15232707917146895),
     (np.array([0.11031676047071547, 0.36558591262930673]), 0.17140661415765338)],
]


def _values(profile):
    SA = np.array([A for A, _ in profile])
    Sc = np.array([c for _, c in profile])
    T = eq.cycle_values(N, SA, Sc)
    return T, [T[(m + 1) % N, m] for m in range(N)]


def _game():
    """The toy's turns, seat 1's "H" moved so that at the profile (L, L) it beats "L" by 5e-13."""
    pol = [list(p) for p in BASE]
    (AL, cL), (AH, cH) = pol[0]
    _, beta = _values([pol[0][0], pol[1][0]])
    AH = AH.copy()
    AH[0] = AL[0] + (cL - cH) * beta[0] + 5e-13
    pol[0][1] = (AH, cH)

    def turn(m, beta):
        """Seat m's greedy turn when a bust leaves it ``beta`` (strictly better rolls on, as the games')."""
        (AL, cL), (AH, cH) = pol[m]
        x = (AH[m] - AL[m]) / (cL - cH)
        if AH[m] + cH * beta > AL[m] + cL * beta:
            return AH, cH, "H", np.array([x, np.inf])
        return AL, cL, "L", np.array([-np.inf, x])

    return pol, turn


def test_the_stored_equilibrium_is_the_one_the_greedy_turns_replay():
    pol, turn = _game()
    # no pure profile is an exact equilibrium: the best responses cycle through all four
    for a in (0, 1):
        for b in (0, 1):
            _, beta = _values([pol[0][a], pol[1][b]])
            assert [turn(m, beta[m])[2] for m in range(N)] != [("L", "H")[a], ("L", "H")[b]]
    record, T = eq.resolve_cycle(turn, np.zeros((1, N, N)), 0, 1, eq.tuple_strides(1, N), max_iterations=64,
                                 selection="mixed", describe_mixing=lambda m, d0, d1, q: (m, d0, d1, q))
    assert record["cycle_length"] == 4 and record["residual"] <= eq.EQUILIBRIUM_TOLERANCE
    # before the fix: kind "pure", (L, L) with residual 5e-13, seat 1's greedy turn there "H"
    assert record["kind"] == "mixed"
    mixing = {m: q for m, _d0, _d1, q in record["randomising"]}
    played = []
    for m in range(N):
        beta = T[(m + 1) % N, m]
        (AL, cL), (AH, cH) = pol[m]
        if m in mixing:  # a randomising seat is indifferent (to the tolerance) and plays its mixture
            assert abs((AH[m] + cH * beta) - (AL[m] + cL * beta)) <= eq.EQUILIBRIUM_TOLERANCE
            q = mixing[m]
            played.append(((1 - q) * AL + q * AH, (1 - q) * cL + q * cH))
        else:  # any other seat plays its greedy turn at the stored values
            A, c, _, _ = turn(m, beta)
            played.append((A, c))
    # replaying the stored strategies gives the stored values back
    replay, _ = _values(played)
    assert np.max(np.abs(replay - T)) <= 1e-12
