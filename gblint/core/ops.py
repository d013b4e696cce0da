"""What a :class:`gblint.core.model.Expr` is: its ``op``.

Each member is its word (a ``str`` enum: ``Op.CALLV == "callv"``, with the same hash, printed as
``callv``), so the JSON summary cache stores it as that word (:mod:`gblint.project.cache`) and
:mod:`gblint.core.hashing` hashes an ``Expr`` as before. :func:`gblint.abstract.values.evaluate` (with
:func:`gblint.abstract.values.decide` for tests) handles every member but those in :data:`gblint.abstract.values.REJECTED`;
:class:`gblint.abstract.interp.Interpreter` follows the objects and hands the rest to it (``tests/test_ops.py``).
"""
from __future__ import annotations

import enum


class Op(str, enum.Enum):
    """The op of an :class:`gblint.core.model.Expr`; ``value`` and ``parts`` are the Expr's fields."""

    __str__ = str.__str__  # printed as its word
    __format__ = str.__format__
    __hash__ = str.__hash__  # hashed as its word, as an Expr's hash was before (gblint.core.hashing)

    # values and tests (gblint.abstract.values decides tests on them)
    CONST = "const"  # ``value`` is None, a bool, int, float or str
    PARAM = "param"  # the function's parameter ``value``, not rebound before this point
    NOTNONE = "notnone"  # a value that is certainly not None: a tensor, a container, a lambda
    UNKNOWN = "unknown"  # not known (``value`` "other": one of several values, not known)
    NOT = "not"  # ``not parts[0]``
    AND = "and"  # ``parts[0] and parts[1] ...``: Python's value, the operand that decides
    OR = "or"  # ``parts[0] or parts[1] ...``
    XOR = "xor"  # exactly one of ``parts`` holds
    IS = "is"  # ``parts[0] is parts[1]``
    ISNOT = "isnot"  # ``parts[0] is not parts[1]``
    EQ = "eq"  # ``parts[0] == parts[1]``
    NE = "ne"  # ``parts[0] != parts[1]``
    LT = "lt"  # ``parts[0] < parts[1]``
    LE = "le"  # ``parts[0] <= parts[1]``
    GT = "gt"  # ``parts[0] > parts[1]``
    GE = "ge"  # ``parts[0] >= parts[1]``
    IN = "in"  # ``parts[0] in parts[1]``
    NOTIN = "notin"  # ``parts[0] not in parts[1]``
    LEN = "len"  # ``len(parts[0])``
    SEQ = "seq"  # a tuple or list of ``parts``, or what ``*args`` collect; ``value`` may name the container
    # (``modulelist``, ``sequential``) or say it is open (gblint.abstract.values.OPEN)
    DICT = "dict"  # ``parts`` are ``kv`` pairs of key and value; what ``**kwargs`` collect
    KV = "kv"  # a key and its value (``parts``), in a ``dict``
    ITEMS = "items"  # ``parts[0].items()``, ``.keys()``, ``.values()`` (``value`` the method)
    GET = "get"  # ``parts[0].get(key, default)``
    FILTERED = "filtered"  # a comprehension over ``parts[0]``, its elements ``parts[1]`` when known
    TRAINING = "training"  # ``self.training``
    UNION = "union"  # one of ``parts``
    IFELSE = "ifelse"  # ``parts[1] if parts[0] else parts[2]``
    ARITH = "arith"  # arithmetic of ``parts``: a tensor when an operand is one
    FOLD = "fold"  # ``any``/``all`` (``value``) of ``parts[0]``
    DTYPE = "dtype"  # the dtype ``value``
    LAYOUT = "layout"  # the torch.layout ``value`` (``strided``, ``sparse_coo``...); also a ``tensor``'s part: its layout
    DEVICE = "device"  # the torch.device ``value`` (``cpu``, ``cuda:1``); also a ``tensor``'s part (gblint.abstract.devices)

    # objects, for following calls (gblint.abstract.interp evaluates them; tests treat them as not known unless the
    # interpreter says what they are)
    LOCAL = "local"  # a name of the function bound other than as its unrebound parameter (FunctionInfo.locals)
    FREE = "free"  # a name of an enclosing function
    GLOBAL = "global"  # ``value`` a dotted name: this module's global, an import's target, a builtin
    ATTR = "attr"  # attribute ``value`` of ``parts[0]``
    STORED = "stored"  # ``self.X`` read right after ``self.X = v``: parts (that read as ``attr``, v); self_stores
    SUB = "sub"  # ``parts[0][parts[1]]``
    SLICE = "slice"  # a slice key of ``sub``
    CALLV = "callv"  # calling ``parts[0]`` with ``parts[1:]``: positional values, ``kw``, ``star``, ``starstar``
    KW = "kw"  # keyword argument ``value`` of a ``callv``
    STAR = "star"  # ``*parts[0]`` in a ``callv``
    STARSTAR = "starstar"  # ``**parts[0]`` in a ``callv``
    ITER = "iter"  # an element of iterating ``parts[0]``
    PROTOCOL = "protocol"  # what protocol method ``value`` of ``parts[0]`` returns
    UNPACK = "unpack"  # item ``value`` of unpacking ``parts[0]``
    DEF = "def"  # the function of this file whose qualified name is ``value``
    SUPER = "super"  # ``super()`` in a method of class ``value``, ``parts[0]`` the method's first parameter
    ENTER = "enter"  # what ``with parts[0] as x`` binds
    INPLACE = "inplace"  # what a local holds after a call it was handed may have changed it in place (gblint.abstract.values)
    OBJ = "obj"  # an object the interpreter made (gblint.abstract.objects.Obj): not None

    # added by the catalogue rules
    TENSOR = "tensor"  # a value made by a torch op, its size as ``const`` parts when a factory shows it, and a
    # ``grad`` part when it is known whether it requires grad
    GRAD = "grad"  # a ``tensor``'s part, never a value alone: ``value`` True when the tensor requires grad (a layer
    # with parameters made it, or a factory's ``requires_grad=True``), False when not
    OP_FAILS = "op_fails"  # whether the op ``value`` (``matmul``, ``broadcast``) of ``parts[0]`` and ``parts[1]`` raises
    SET = "set"  # a set display of ``parts``
    CONCAT = "concat"  # an f-string of ``parts``
    COMP = "comp"  # a comprehension (gblint.syntax.value_syntax.comp_expr)
    HOLDS_TENSOR = "holds_tensor"  # a test: ``parts[0]`` is or contains a tensor
    TENSOR_SEQ = "tensor_seq"  # a test: ``parts[0]`` is a tuple or list with a tensor in it
    TENSOR_SET = "tensor_set"  # a test: ``parts[0]`` is a set holding a tensor
    FUNCTION_APPLY = "function_apply"  # a test: ``parts[0]`` is the ``apply`` of a torch.autograd.Function subclass
    GRAD_OFF = "grad_off"  # a test: no tensor of ``parts`` requires grad (gblint.abstract.grads.requires_grad), or grad is off

    # a test of a function's summary (gblint.core.model.FunctionInfo.mutated_when; gblint.abstract.handing decides it)
    CHANGES = "changes"  # a test: calling ``parts[0]`` may change what it gets at ``value`` (a position or a keyword)
