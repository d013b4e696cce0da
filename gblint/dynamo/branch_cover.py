"""Whether every way through the branches of a frame meets a break (``docs/semantics.md`` §0, rule 6).

Dynamo traces only the branch the run's values take, so a break under a test gblint cannot decide is
conditional ("when `batched`"). Where each arm of an ``if`` holds a break that skips the frame (the body and
its ``else``, every arm of an ``elif`` chain that ends in an ``else``, both values of a conditional expression,
the body of an ``if`` that returns and the rest of the block after it), one of them happens whichever arm runs:
the frame is skipped for sure, though each break keeps its own condition.

A way to an event is described by its *choices*: for each undecided test on the way (in the event's frame and,
for a break reached through calls, in each frame on the way), where the statement is and the arm taken
(:data:`Choice`). A way that is not described by its choices alone has none (``None``): a kind not proven, a
call target that may be another, an error path, or a ``return``, ``continue`` or ``break`` read in an arm
before the event (the arm may leave before the break).
"""
from __future__ import annotations

from typing import Dict, Iterable, List, Optional, Sequence, Tuple

from ..abstract import values
from ..core.model import Block, BlockKind, Event, Expr
from ..core.ops import Op

# (where the statement is: the ids of the call events leading to its frame, the file, line and column), the arm
Choice = Tuple[tuple, Block]
Way = Tuple[Choice, ...]

# the blocks whose test chooses an arm (a while condition's body has no other arm, an operand none either:
# they are choices that are never covered)
_CHOICES = (BlockKind.BRANCH, BlockKind.AFTER_RETURN, BlockKind.OPERAND)

#: :func:`covering` for ways that need no choice: an event met whenever the frame runs
EVERY_WAY = ()


def way_to(ev: Event, env: Optional[values.Env], path: str) -> Optional[Way]:
    """The undecided choices on the way to ``ev`` (an event of a function of the file ``path`` whose
    parameters hold ``env``), outermost first; None where the way is not described by them (an error path, an
    exit read in an arm before ``ev``)."""
    env = env or values.Env()
    out: List[Choice] = []
    for b in ev.blocks:
        if b.kind == BlockKind.ERROR_PATH:
            return None
        if b.kind in _CHOICES and (b.test is None or values.decide(b.test, env) is not True):
            if b.test is None or ev.exits != b.exits_at_entry:
                return None
            out.append((((), path, b.line, b.column), b))
    return tuple(out)


def below(call: Event, at_call: Optional[Way], inner: Optional[Way]) -> Optional[Way]:
    """The way to an event reached through ``call``: the choices on the way to the call (``at_call``), then
    those in the callee (``inner``), keyed below the call (by the call and what it passes: :func:`_inputs`)."""
    if at_call is None or inner is None:
        return None
    here = (id(call), _inputs(call))
    return at_call + tuple((((here,) + key[0],) + key[1:], arm) for key, arm in inner)


def _inputs(call: Event) -> Optional[str]:
    """What ``call`` passes, as text, where it passes only the caller's own parameters (not rebound) and constants:
    two calls that pass the same then run the callee on the same values, whichever arm makes them; None otherwise."""
    args = call.args
    if args is None:
        return None
    passed = args.positional + tuple(v for _, v in args.keywords) + args.rest + args.rest_kw
    if not all(isinstance(v, Expr) and v.op in (Op.PARAM, Op.CONST) for v in passed):
        return None
    return repr((args.positional, args.keywords, args.star, args.starstar, args.rest, args.rest_kw))


def covering(ways: Iterable[Optional[Way]]) -> Optional[tuple]:
    """Whether every way through the frame meets one of ``ways`` (each the choices on the way to a break, None
    for one not described by them): the key of the outermost statement whose every arm meets one, or
    :data:`EVERY_WAY` when one needs no choice; None when some way meets none."""
    return _covering([w for w in ways if w is not None], 0)


def _covering(ways: Sequence[Way], depth: int) -> Optional[tuple]:
    groups: Dict[tuple, Dict[object, Tuple[Block, List[Way]]]] = {}
    for way in ways:
        if len(way) == depth:
            return EVERY_WAY
        key, arm = way[depth]
        groups.setdefault(key, {}).setdefault(_arm_key(arm), (arm, []))[1].append(way)
    for key, arms in groups.items():
        if len(arms) != 2:
            continue
        (a, a_ways), (b, b_ways) = arms.values()
        if _negates(a.test, b.test) and _covering(a_ways, depth + 1) is not None \
                and _covering(b_ways, depth + 1) is not None:
            return key
    return None


def merged(a: Way, b: Way) -> Optional[Way]:
    """The way two ways to one event make together where they part at one statement, each taking another arm of
    it, and make the same choices after it (the same statements, with their arms, reached through calls that pass
    the same parameters and constants: :func:`_same_calls`): the event is then met whichever arm that statement
    takes, given the choices before it and after it. Returns that way without the statement's choice; None where the two ways are not such a pair."""
    if len(a) != len(b) or not a:
        return None
    i = next((n for n, (x, y) in enumerate(zip(a, b)) if x[0] != y[0] or _arm_key(x[1]) != _arm_key(y[1])), None)
    if i is None or a[i][0] != b[i][0] or not _negates(a[i][1].test, b[i][1].test):
        return None
    if any(x[0][1:] != y[0][1:] or _arm_key(x[1]) != _arm_key(y[1]) or not _same_calls(x[0][0], y[0][0])
           for x, y in zip(a[i + 1:], b[i + 1:])):
        return None
    return a[:i] + a[i + 1:]


def _same_calls(x: tuple, y: tuple) -> bool:
    """Whether two chains of calls (``(id, inputs)`` pairs, outermost first) run their callees on the same values: each
    the same call, or calls passing the same parameters and constants (:func:`_inputs`)."""
    return len(x) == len(y) and all(p == q or (p[1] is not None and p[1] == q[1]) for p, q in zip(x, y))


def _arm_key(arm: Block) -> object:
    try:
        hash(arm.test)
        return arm.kind == BlockKind.OPERAND, arm.test
    except TypeError:  # a test holding a list: the arm's block itself
        return id(arm)


def _negates(x: Optional[Expr], y: Optional[Expr]) -> bool:
    """Whether one test is ``not`` the other: the two arms of one ``if``."""
    if x is None or y is None:
        return False
    return Expr(Op.NOT, parts=(x,)) == y or Expr(Op.NOT, parts=(y,)) == x
