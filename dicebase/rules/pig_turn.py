"""Pig's turn, defined once (issue 31; issue 30 item 3): the solver compiles these functions with
``numba.njit`` (:mod:`dicebase.builder.pig.kernels`) and the lookups call them as plain Python
(:mod:`dicebase.query.pig`).  So they use only what both run the same way: loops, ``if``, float and
integer arithmetic and indexing of the arrays the caller passes (numpy arrays in the solver, lists in the
lookups); they import nothing and allocate nothing.

Seat ``m`` (0-based) of ``N`` starts its turn at a score tuple with ``room = goal - s_m`` points to go.  At
turn total ``k`` (``0 <= k < room``; ``k >= room`` has won: the seat holds at once) it may roll or, for
``k >= 1``, hold.  A roll shows each face with chance ``p_face``: a face of score ``g`` moves to ``k + g``,
the bust face (chance ``p_bust``) ends the turn with nothing.  The value of every state is affine in what a
bust leaves (``T_next``, the next seat's turn start at the same tuple)::

    V(k)  = A[k] + c[k] T_next                          (win vectors, one entry per seat)
    roll  = sum_g p_face (e_m if k + g >= room else A[k + g])  +  (p_bust + sum_g p_face c[k + g]) T_next
    hold  = H[k]                                         (the next seat's turn start at s + k e_m)

and the seat rolls where ``roll[m] + rc beta > H[k][m] + tol`` (``beta = T_next[m]``: its own entry), holds
otherwise (hold before roll), always rolls at ``k = 0``.  ``mix[k] >= 0`` fixes the probability of rolling
at ``k`` instead (a fixed policy, or a seat randomising in a mixed equilibrium); ``-1`` is the best
response.  :func:`turn` also returns the interval of ``beta`` that keeps the best-response decisions, which
the shared equilibrium engine (:mod:`dicebase.builder.equilibrium`) iterates on.
"""

INF = float("inf")

#: The simple policies of :func:`policy_rolls`: hold at a fixed turn total; "four turns".
HOLD_AT = 0
TURNS = 1


def turn(m, N, room, stop, beta, tol, p_face, p_bust, gains, H, mix, rv, A, c, dec, ivl):
    """Seat ``m``'s turn from turn total ``room - 1`` down to ``stop`` (module docstring).

    Writes ``A[k][e]``, ``c[k]`` (the value ``A + c T_next`` under the decisions), ``dec[k]`` (the
    probability of rolling: 1.0, 0.0 or ``mix[k]``) for ``stop <= k < room`` and ``ivl[0], ivl[1]``, the
    interval ``(lo, hi]`` of ``beta`` that keeps every best-response decision.  ``H[k][e]``: the win
    vector after holding at ``k`` (``1 <= k < room``); ``gains``: the scores of the faces that do not bust;
    ``rv``: scratch of ``N`` entries, left holding the roll's ``A`` at ``stop``.  Returns the roll's bust
    coefficient at ``stop`` (the roll's value there is ``rv + that * T_next``)."""
    lo = -INF
    hi = INF
    rc = 0.0
    for k in range(room - 1, stop - 1, -1):
        for e in range(N):
            rv[e] = 0.0
        rc = p_bust
        for g in gains:
            kk = k + g
            if kk >= room:
                rv[m] += p_face
            else:
                for e in range(N):
                    rv[e] += p_face * A[kk][e]
                rc += p_face * c[kk]
        if k == 0:
            q = 1.0
        elif mix[k] >= 0.0:
            q = mix[k]
        else:
            h = H[k][m]
            q = 1.0 if rv[m] + rc * beta > h + tol else 0.0
            if rc > 0.0:
                x = (h + tol - rv[m]) / rc
                if q == 1.0:
                    if x > lo:
                        lo = x
                elif x < hi:
                    hi = x
        dec[k] = q
        if q == 1.0:
            for e in range(N):
                A[k][e] = rv[e]
            c[k] = rc
        elif q == 0.0:
            for e in range(N):
                A[k][e] = H[k][e]
            c[k] = 0.0
        else:
            for e in range(N):
                A[k][e] = q * rv[e] + (1.0 - q) * H[k][e]
            c[k] = q * rc
    ivl[0] = lo
    ivl[1] = hi
    return rc


def policy_rolls(kind, param, goal, score, k):
    """Whether a simple policy rolls at turn total ``k`` (``k >= 1``) with banked ``score``.

    ``HOLD_AT``: roll while ``k < param`` ("hold at 20", "hold at 25").  ``TURNS`` ("four turns" with
    ``param = 4``; stateless): plan to reach the goal in ``t = ceil(param (goal - score) / goal)`` more
    turns (the turns left if each banked ``goal / param``, at least 1) and roll while
    ``k < ceil((goal - score) / t)``: at score 0 of 100 hold at 25, at 30 (3 turns left) at 24, from 75
    on (1 turn left) roll to the goal.  Either way a turn that reaches the goal has won (not asked)."""
    if kind == HOLD_AT:
        return k < param
    left = goal - score
    t = (param * left + goal - 1) // goal
    if t < 1:
        t = 1
    return k < (left + t - 1) // t
