"""Objective (e) by Monte-Carlo: seed 004's heuristic against the STORED optimal policy, and
its solitaire turn, played with dice from a random generator and the policies read from the
database only (never from the solver).  The fixture database holds the game to 1,000.

- the optimal player rolls exactly at the states stored in ten_thousand_duel (every other
  state banks) and keeps the keep with the best stored lookahead value (a continuation state
  that is not stored is worth its bank value: 1 - the opponent's turn start, or 1 - the
  opponent's chance to exceed); in the last turn it keeps the keep with the best stored
  ten_thousand_exceed chance and banks once ahead;
- seed 004's heuristic (seed file 004_ebfe5ef33ddae374.txt: "If EV > Opportunity cost, then
  roll", "keep rolling until you have more points than your opponent") rolls below the stored
  ten_thousand_seed004_rule.bank_from of its (dice, triple), keeps the keep marked max_dice,
  and in the last turn rolls until strictly ahead.
"""

from __future__ import annotations

import numpy as np
import pytest

import dicebase

Z999 = 3.2905  # two-sided 99.9 % normal quantile
BASE = 7 ** np.arange(6)  # a roll's code: counts per face in base 7


@pytest.fixture(scope="module")
def policy(built_db):
    with dicebase.open(built_db(("ten_thousand",), kind="sqlite")) as db:
        return load_policy(db)


def load_policy(db, rules="ten-thousand"):
    u = 50
    goal = db.ten_thousand.goal(rules)
    G = goal // u
    classes = [(int(n), int(t)) for n, t in db.fetchall(
        "SELECT dice, triple FROM ten_thousand_classes WHERE rules = ? ORDER BY triple > 0, dice DESC, triple", (rules,))]
    sidx = {c: x for x, c in enumerate(classes)}
    S = len(classes)
    dice_of = np.array([n for n, _ in classes])
    # every roll of every class, with its keeps ordered like the solver's ties: points, then class
    lut = -np.ones((7, 7**6), dtype=np.int64)
    for n, roll in db.fetchall("SELECT DISTINCT dice, roll FROM ten_thousand_rolls WHERE rules = ?", (rules,)):
        lut[n, int(sum(BASE[int(f) - 1] for f in roll))] = lut.max() + 1
    R = int(lut.max()) + 1
    keeps: dict[tuple[int, int], list] = {}
    for n, t, roll, pts, na, ta, md in db.fetchall(
            "SELECT dice, triple, roll, points, dice_after, triple_after, max_dice FROM ten_thousand_keeps "
            "WHERE rules = ?", (rules,)):
        rid = int(lut[n, int(sum(BASE[int(f) - 1] for f in roll))])
        keeps.setdefault((sidx[(n, t)], rid), []).append((pts // u, sidx[(na, ta)], bool(md)))
    Q = max(len(v) for v in keeps.values())
    OP = np.zeros((S, R, Q), dtype=np.int64)
    ON = np.zeros((S, R, Q), dtype=np.int64)
    OV = np.zeros((S, R, Q), dtype=bool)
    HP = np.zeros((S, R), dtype=np.int64)
    HN = np.zeros((S, R), dtype=np.int64)
    for (s, r), opts in keeps.items():
        opts.sort(key=lambda o: (o[0], o[1]))
        for q, (p, nx, md) in enumerate(opts):
            OP[s, r, q], ON[s, r, q], OV[s, r, q] = p, nx, True
            if md:
                HP[s, r], HN[s, r] = p, nx
    maxp = int(OP.max())
    # the last turn: E[m, s] = chance to gain >= m units (m <= 0: 1; past the stored needs: 0)
    rows = db.fetchall("SELECT need, dice, triple, p_exceed FROM ten_thousand_exceed WHERE rules = ? AND "
                       "policy = 'optimal'", (rules,))
    M = max(r[0] for r in rows) // u
    E = np.zeros((maxp + M + 2, S))  # row x + maxp holds need x
    E[: maxp + 1] = 1.0
    for need, n, t, p in rows:
        E[maxp + need // u, sidx[(n, t)]] = p
    # the optimal player's values: stored roll states, every other state its bank value
    duel = db.fetchall("SELECT score, opponent, turn_total, dice, triple, p_win FROM ten_thousand_duel "
                       "WHERE rules = ? AND goal = ?", (rules, goal))
    I, J, K, N, T, P = (np.array(c) for c in zip(*duel))
    I, J, K = I // u, J // u, K // u
    code = np.full((7, 7), -1)
    for (n, t), x in sidx.items():
        code[n, t] = x
    Sx = code[N, T]
    KC = int(K.max()) + maxp
    W = np.full((G, G), np.nan)
    start = K == 0
    W[I[start], J[start]] = P[start]
    ii, jj, kk = np.meshgrid(np.arange(G), np.arange(G), np.arange(KC + 1), indexing="ij")
    need = np.clip(ii + kk - jj + 1, None, M + 1)
    bank = np.where(ii + kk < G, 1 - W[jj, np.minimum(ii + kk, G - 1)], 1 - E[maxp + need, 0])
    V = np.repeat(bank[..., None], S, axis=3)
    V[I, J, K, Sx] = P
    RL = np.zeros(V.shape, dtype=bool)
    RL[I, J, K, Sx] = True
    hb = np.zeros(S, dtype=np.int64)
    for n, t, b in db.fetchall("SELECT dice, triple, bank_from FROM ten_thousand_seed004_rule WHERE rules = ?", (rules,)):
        hb[sidx[(n, t)]] = b // u
    stored = {(p, s): v for p, s, v in db.fetchall(
        "SELECT policy, seat, p_win FROM ten_thousand_policy_duel WHERE rules = ?", (rules,))}
    turn = dict(db.fetchall("SELECT policy, expected_points FROM ten_thousand_policy_turn WHERE rules = ?", (rules,)))
    return dict(G=G, S=S, dice_of=dice_of, lut=lut, OP=OP, ON=ON, OV=OV, HP=HP, HN=HN, maxp=maxp, M=M, E=E,
                V=V, RL=RL, KC=KC, hb=hb, stored=stored, turn=turn, W=W)


def roll_ids(pol, n, rng):
    faces = rng.integers(1, 7, size=(n.size, 6))
    code = np.where(np.arange(6)[None, :] < n[:, None], BASE[faces - 1], 0).sum(axis=1)
    rid = pol["lut"][n, code]
    assert (rid >= 0).all()
    return rid


def play(pol, players, games, rng):
    """Play `games` games; players[0] moves first; 'H' = seed 004, 'O' = stored optimal.
    Returns the winner's index per game."""
    G, KC, maxp, M = pol["G"], pol["KC"], pol["maxp"], pol["M"]
    isH = np.array([p == "H" for p in players])
    mover = np.zeros(games, dtype=np.int64)
    sc = np.zeros((games, 2), dtype=np.int64)
    k = np.zeros(games, dtype=np.int64)
    s = np.zeros(games, dtype=np.int64)
    last = np.zeros(games, dtype=bool)  # the mover is in the last turn, must end above `target`
    target = np.zeros(games, dtype=np.int64)
    winner = np.full(games, -1)
    live = np.arange(games)
    while live.size:
        mv = mover[live]
        own, oth, kk, ss, la = sc[live, mv], sc[live, 1 - mv], k[live], s[live], last[live]
        h = isH[mv]
        roll = np.where(la, own + kk <= target[live],
                        np.where(h, (kk == 0) | (kk < pol["hb"][ss]),
                                 pol["RL"][np.minimum(own, G - 1), np.minimum(oth, G - 1), np.minimum(kk, KC), ss]
                                 & (kk <= KC)))
        # bank
        b = live[~roll]
        done = b[last[b]]
        winner[done] = mover[done]  # only ever banks once ahead
        b = b[~last[b]]
        m = mover[b]
        sc[b, m] += k[b]
        reach = sc[b, m] >= G
        last[b[reach]] = True
        target[b[reach]] = sc[b[reach], m[reach]]
        mover[b] = 1 - m
        k[b] = 0
        s[b] = 0
        # roll
        r = live[roll]
        rid = roll_ids(pol, pol["dice_of"][s[r]], rng)
        sr = s[r]
        farkle = ~pol["OV"][sr, rid, 0]
        f = r[farkle]
        winner[f[last[f]]] = 1 - mover[f[last[f]]]  # a farkle in the last turn loses
        f = f[~last[f]]
        mover[f] = 1 - mover[f]
        k[f] = 0
        s[f] = 0
        g, rg, sg = r[~farkle], rid[~farkle], sr[~farkle]
        pts, nxt = pol["HP"][sg, rg], pol["HN"][sg, rg]
        o = ~isH[mover[g]]
        if o.any():
            go, ro, so = g[o], rg[o], sg[o]
            op, on, ov = pol["OP"][so, ro], pol["ON"][so, ro], pol["OV"][so, ro]
            mo = mover[go]
            own, oth, kg = sc[go, mo], sc[go, 1 - mo], k[go]
            kn = kg[:, None] + op
            vals = np.empty(op.shape)
            la = last[go]
            nl = ~la
            vals[nl] = pol["V"][own[nl, None], oth[nl, None], np.minimum(kn[nl], KC), on[nl]]
            need = target[go][la, None] + 1 - own[la, None] - kn[la]
            vals[la] = pol["E"][maxp + np.clip(need, -maxp, M + 1), on[la]]
            vals[~ov] = -1.0
            q = vals.argmax(axis=1)  # the first best keep: fewest points, then class order
            pts[o] = op[np.arange(q.size), q]
            nxt[o] = on[np.arange(q.size), q]
        k[g] += pts
        s[g] = nxt
        live = live[winner[live] < 0]
    return winner


GAMES = 200_000


@pytest.mark.parametrize("seat", [1, 2])
def test_seed004_against_the_stored_optimal_policy(policy, seat):
    """Stored win rates of seed 004's heuristic in both seats (ten_thousand_policy_duel) against
    Monte-Carlo games versus the stored optimal policy, within the 99.9 % interval."""
    players = ["H", "O"] if seat == 1 else ["O", "H"]
    won = play(policy, players, GAMES, np.random.default_rng(seat)) == seat - 1
    p = policy["stored"][("seed004", seat)]
    half = Z999 * np.sqrt(p * (1 - p) / GAMES)
    assert abs(won.mean() - p) <= half, (won.mean(), p, half)
    # and the optimal player wins clearly more against it than in the mirror match
    assert p < policy["stored"][("optimal", seat)] - 0.05


def test_stored_optimal_policy_self_play(policy):
    """The stored first-player win probability of optimal against optimal, by Monte-Carlo."""
    won = play(policy, ["O", "O"], GAMES, np.random.default_rng(7)) == 0
    p = policy["stored"][("optimal", 1)]
    assert p == pytest.approx(policy["W"][0, 0], abs=1e-15)
    assert abs(won.mean() - p) <= Z999 * np.sqrt(p * (1 - p) / GAMES), (won.mean(), p)


def test_seed004_turn_by_monte_carlo(policy):
    """Seed 004's expected turn score (ten_thousand_policy_turn) against Monte-Carlo turns."""
    rng = np.random.default_rng(4)
    turns = 400_000
    k = np.zeros(turns, dtype=np.int64)
    s = np.zeros(turns, dtype=np.int64)
    banked = np.full(turns, -1, dtype=np.int64)
    live = np.arange(turns)
    while live.size:
        kk, ss = k[live], s[live]
        bank = (kk > 0) & (kk >= policy["hb"][ss])
        banked[live[bank]] = kk[bank]
        live = live[~bank]
        rid = roll_ids(policy, policy["dice_of"][s[live]], rng)
        farkle = ~policy["OV"][s[live], rid, 0]
        banked[live[farkle]] = 0
        keep = live[~farkle]
        rid, sk = rid[~farkle], s[keep]
        k[keep] += policy["HP"][sk, rid]
        s[keep] = policy["HN"][sk, rid]
        live = keep
    points = banked * 50
    stored = policy["turn"]["seed004"]
    half = Z999 * points.std(ddof=1) / np.sqrt(turns)
    assert abs(points.mean() - stored) <= half, (points.mean(), stored, half)
    assert stored < policy["turn"]["optimal"]
