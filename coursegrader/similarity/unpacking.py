"""A tuple of values unpacked into names, read as one assignment a name.

``x, *_r = (e,)`` binds ``x`` to ``e`` and ``_r`` to an empty list, and ``a, b
= (e1, e2)`` binds ``a`` and ``b`` in turn: a copy can carry each statement of
the original that way (``X, *_r1 = (np.array(X),)``), so that every line reads
differently. :func:`unpacked` reads such an assignment as the assignments it
makes, in order, when a target is starred or a name nothing reads (what
carries the statement) or there is only one (``(x,) = (e,)``), and making them in order does what the unpacking
does: no value reads a name that a target before it binds (``a, b = b, a``
stays). An honest ``a, b = f(x), g(y)`` stays too, as a copy that names
each value first (``t1 = f(x)`` ... ``a, b = t1, t2``) reads it.
"""

import ast

__all__ = ["unpacked"]


def _names(node, ctx):
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ctx)}


def unpacked(target, value, read):
    """``target = value`` as a list of single assignments, or None where it is not
    a tuple or list of values (none starred) unpacked into as many targets (one
    of them may be starred, taking a list of the rest), one of them starred or
    a name not in ``read``, or just one (``(x,) = (e,)``)."""
    if not (isinstance(target, (ast.Tuple, ast.List)) and isinstance(value, (ast.Tuple, ast.List))
            and not any(isinstance(v, ast.Starred) for v in value.elts)
            and (len(target.elts) == 1 or any(
                isinstance(t, ast.Starred) or (isinstance(t, ast.Name) and t.id not in read)
                for t in target.elts))):
        return None
    targets, values = target.elts, value.elts
    stars = [i for i, t in enumerate(targets) if isinstance(t, ast.Starred)]
    if len(stars) > 1 or (not stars and len(values) != len(targets)) \
            or (stars and len(values) < len(targets) - 1):
        return None
    if stars:
        s = stars[0]
        rest = len(values) - (len(targets) - 1)
        values = values[:s] + [ast.List(values[s:s + rest], ast.Load())] + values[s + rest:]
        targets = targets[:s] + [targets[s].value] + targets[s + 1:]
    bound = set()
    for t, v in zip(targets, values):
        if bound & _names(v, ast.Load):
            return None                    # ``a, b = b, a``: the values are read first
        bound |= _names(t, ast.Store)
    return [ast.Assign(targets=[t], value=v, lineno=0) for t, v in zip(targets, values)]
