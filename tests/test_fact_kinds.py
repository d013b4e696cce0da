"""Kinds from facts (issue 38): gblint's predictions against what PyTorch did with the programs of tests/cases/kinds.

Each program there is a variant of one kind of value that Dynamo traces as a tensor while gblint took it for
something else, or the reverse (a guard that must stay clean):

- a ``self`` attribute that is a tensor by construction: ``register_parameter``, ``register_buffer`` of a local
  computed by torch ops, ``nn.Buffer(...)`` (k01-k03), and Python bools and ``register_buffer(name, None)``
  that are not (k11);
- iterating a tensor gives tensors: ``zip`` of buffers, unpacking the rows of a 2-column buffer (k04, k05), and
  ``enumerate(x.shape)`` gives ints (k11);
- NumPy arrays made in compiled code, or kept on the module, are tensors to Dynamo whatever they are made from
  (k06, k12); a dtype test it folds, ``int(np.ceil(...))`` of a size and ``int()`` of a NumPy product kept on
  the module are no break (k07, k12);
- a torch function creating a tensor with ``requires_grad`` true breaks (GB0225): definite for a literal or a
  value the caller passes (k08, k10), conditional on ``x.requires_grad`` when that is known only at run time
  (k09, where it is false: no break);
- a layer class picked by name from a config that a factory builds from a table of presets
  (``cls(**PRESETS[name])``): followed, with definite diagnostics, when the preset's name, the table and the
  lookup are literals (a registry dict, ``globals()[name]``, ``getattr(sys.modules[__name__], name)``: k20,
  k21; k23 picks a clean block while the default's breaks); when the name comes from outside, never the
  default's class: the call is not followed (k22) or each class it may be is conditional (k24);
- a collection handed on through two or three functions to a helper that tests it (``len(unused) > 0``,
  ``if items:``): the caller's literal values decide the test, empty (k30, k31) or not (k32), since a function
  of the program that only reads what it is handed does not change it; what comes from a table read at run
  time, is handed to a helper that adds to it, or to one that returns it to be changed through another name,
  is not known: conditional (k33); a break under a proven test
  and an undecided one is conditional on the undecided one (k34);
- a ``torch._C`` function returns what its stub says, never a tensor by default: ``_get_tracing_state()`` is a
  Python value (k60, k61 stay clean where they test it), ``_nn.gelu`` a tensor (k62);
- ``slice()`` of a tensor's element converts it to an int (GB0124) where it is built: in a loop the frame is
  skipped there and a test later in the body is never reached (k63); Python int bounds are no break (k64);
- a break that skips the frame in each branch of one ``if`` skips it whichever branch runs: no break after them
  is reported, in the frame or at the call that leads to it (k66); a resumable break under an undecided test
  does not end the walk (k67: the ``.item()`` after a flag-guarded ``print`` stays definite);
- every way through the tests of a frame meeting a break that skips it (a call in each arm, k80; each arm of an
  ``elif`` chain that ends in ``else``, k81; nested tests with a call in one arm, k84; both values of a
  conditional expression, k85) skips the frame for sure: each break keeps its condition and the frame's own
  diagnostic, at its ``def``, is definite (``SURE_SKIPS``); an arm that may ``continue`` before its break (k82)
  or an ``elif`` without ``else`` (k83) leaves a way without a break: nothing definite (Dynamo broke nowhere in
  the measured runs); Python int bounds in each arm are no break (k86).
- a torch function Dynamo calls in the graph whose result its stub says is a Python int, str or bool, and that
  Dynamo neither folds nor keeps as a constant (``torch/_dynamo/trace_rules.py``, ``variables/torch.py``,
  ``builder.py``: scripts/update_torch_ops.py ``python_results``), breaks at the call (GB0208): k87
  (``torch.get_num_threads()``, ``torch._C._get_cpu_capability()``, ``torch.is_anomaly_enabled()``); those it
  folds or handles stay clean and are Python values, never tensors (k88); NumPy functions whose ``torch._numpy``
  counterpart surely returns a Python bool break the same way (k89: ``np.isscalar(k)``, ``np.isrealobj``).
- a value read out of tensor data (a tensor method's result, arithmetic or builtin ``max`` with one, a local bound
  to one) handed where torch's stub types a parameter as ints (``F.one_hot``'s ``num_classes``, ``torch.zeros``'s
  sizes, ``.repeat``, ``.topk``, ``.narrow``, ``.roll``, ``.sum(dim=)``, ``.view``...) makes Dynamo read the int
  out of it: GB0033 at the call (ka0-ka5, ka9; in a loop the frame is skipped, ka3); sizes from shapes, a tensor
  built from Python sizes and int parameters stay clean (ka6-ka8), and so does a data local used again after the
  break it caused (an input of the resumed frame, ka9).
- what the stubs say a call returns is a tensor wherever it goes: the ``torch.nn.functional`` functions
  ``functional.pyi`` re-exports from ``torch._C._nn`` and ``torch`` (``one_hot``, ``pad``, kb0), an item of a
  tensor (``ts[0]``, ``TensorBase.__getitem__``, kb1); ``isinstance(v, Tensor)`` and ``torch.is_tensor(v)`` of a
  tensor are True and a number test False (kb2); ``inspect.isfunction`` of a ``lambda`` default is True, so the
  layer the factory builds is the one followed (kb3); a tensor local handed to a helper that changes it in place
  is still a tensor after the call (kb4); a test whose kind the code does not show (a helper object's method
  result) breaks where the walk proves its value a tensor, and not where it proves a Python number (kb5);
  ``range()`` of a tensor, or of a NumPy value Dynamo traces as one (``np.prod`` of a shape), breaks (GB0059,
  GBL143), ``range()`` of a shape's int or ``math.prod`` does not (kb6); a ``torch.nn.functional`` function whose
  stub does not say ``Tensor`` (``max_pool1d(..., return_indices=True)``, ``has_torch_function``) is no tensor (kb7);
  ``inspect.isfunction`` of a decorated def is not decided (a module-level ``@staticmethod`` is no function, kb8).
- ``Function.apply`` given one tensor twice breaks where an input requires grad (GB6297, kb22); a name rebound in one
  arm of an ``if`` (unpacking a helper's result) holds its earlier value in the other arm, so a break there on the
  input's kind is definite (kb23); a parameter annotated with a union of tensor types holds what the caller
  passes, a tensor here, and one annotated with a class passed an object is none (kb24); a
  method's store under a test false for the instance (``if self.cached:``) never runs, so the attribute keeps its
  class default and the branch on it is decided (kb25); ``max()``, ``min()``, ``abs()``, ``int()`` of constants
  are constants, as Dynamo folds them (kb26); a comprehension's first iterable is evaluated in the enclosing frame,
  so a break there is that frame's (kb27); a tensor made with ``dtype=torch.bool`` (a factory's keyword,
  ``.to(torch.bool)``, ``new_ones(..., dtype=torch.bool)``) is a boolean mask (kb28); ``getattr(p, "name", d)`` of a
  parameter that may be a tensor (annotated with a class, or not at all) runs what the caller passes, a property
  there (kb29); a dict changed in place only by keys the code names (``kwargs[name] = v`` over a list of names,
  ``kwargs.pop("k")``) lacks every other key, so a test of one is decided (kb30), and ``setattr(self, key, value)``
  over it stores no other attribute (kb31); a guarded store in a method the program also calls by name
  (``self.conv.forward(x)``) never runs either (kb32); a torch function Dynamo calls in the graph that is a
  ``@contextmanager`` generator (``torch.backends.cuda.sdp_kernel``, read from torch's own files) cannot be entered
  by ``with``: the frame is skipped (kb33); an ``__init__`` that picks a submodule's class by a test of the config
  and the layer's index from ``range`` stores only the class its test picks (kb34); a loop over a list of layers of
  several classes that may ``break`` first may not call the one that breaks (kb36); a tuple display with a starred item (``return (init, *pair)``) unpacked by the
  caller holds the starred tuple's items, spliced in (kb37); an element a loop takes from a tensor is a tensor, so a
  slice bound it gives breaks (GB0124), and a tensor slice bound keeps the graph's prefix even inside a loop: no
  frame is skipped (kb38); a dict changed through another way or name (a key stored before the stores by name, a
  tuple-unpacked alias, a module registry a function fills) keeps its tests undecided (kb39); a setting stays what
  the constructor made it beside stores by a run-time name proven to name other attributes: the keys of a local
  dict built by key, and a ``__setattr__`` override's own ``super().__setattr__(name, value)``; a registry held in an
  attribute is not bounded by the keys the class stores, so a store over its keys leaves the setting undecided
  (kb40, kb43), as do a dict filled from the caller's keys, a renaming ``__setattr__``, a local dict changed
  through another local name and a registry of what a method is handed (kb41). A dict an attribute holds, changed
  in place after the module is built (by the driver, ``m.opts["debug"] = True``, or by a method), may hold other
  values than it was built with; ``dict(pairs)`` holds the pairs' keys; ``__setstate__`` called on the instance and
  a method the program calls that registers by name (``extend(name)`` -> ``self.add_state(name, ...)``) may store
  the setting (kb44).
- A call of a function of a standard-library module Dynamo skips (``BUILTIN_SKIPLIST``, read from the installed
  torch: ``importlib.import_module``, ``linecache.getline``) breaks (GB0007); those it runs on constant arguments
  (``re.match``, ``importlib.util.find_spec``) and ``copy.deepcopy``, inlined when called, do not (kb42).
- ``assert`` on a tensor is kept in the graph only in its plain form (the truth jump, then the raise with no
  message or one constant); ``assert not t``, a chained comparison and a message computed at run time (an f-string
  with a placeholder, ``.format``, ``%``, a global) branch on the tensor: GB0170 (kb45).
- A metaclass's ``__call__`` that calls ``super().__call__(...)`` (GB0006, ``type.__call__`` is a slot wrapper) or
  ``type.__call__(cls, ...)`` (GB0156) breaks there where Dynamo compiles it as a frame of its own: the class called
  from a frame it skipped with a tensor among the arguments (an int, or an object holding a tensor, leave the frame
  uncompiled); called from compiled code, the class is built without tracing it: no break (kb46). Never definite:
  a frame Dynamo declined once stays skipped for every class of the metaclass.
- A break that cannot resume (in a loop, GB7000; a ``.item()`` in a ``try``; an unsupported ``with``; a skip marker)
  after a graph break the frame resumed from skips only the resume function, not the frame: the graphs before the
  first break are kept and nothing after it is traced; after a break that may not happen (under a test of an
  argument, not taken in the measured run) the whole frame is skipped (kb47).
- Dynamo's loop test (``maybe_has_backedge``) stops at the first ``return`` after the break in bytecode order: a break
  in a loop body followed by a ``return`` laid out before the jump back (a last ``if`` that returns, an early return
  later in the body, one in a ``while`` or an inner loop) resumes; a ``return`` in the ``else`` of a last ``if``,
  after a ``continue``, in a nested ``def``, a ``break`` in its place, a last ``if`` with a chained comparison and a loop
  over ``enumerate`` (its iterator cannot be rebuilt in the resume function) leave the frame skipped (kb48, Python 3.11).
- ``torch._dynamo.skip_frame()`` in a helper Dynamo inlines skips the helper only: the caller breaks at the call and
  resumes (2 graphs); in a loop of the caller, the caller is skipped too (kb49).
- Code after a ``return``, ``raise``, ``continue`` or ``break`` in the same suite never runs (CPython drops it): no
  break there; the ``except`` clause of a ``try`` whose body returns still runs when the body raises (kb50).
- A break met through a call in each arm of a test gblint cannot decide (the same module called in both arms, two
  helpers that each call the same breaking function) is met whichever arm runs: the nested break, and the skip of a
  loop around it, are definite; met in one arm only, it stays conditional (kb51).
- After the break that skips a frame, each later break that would skip it on its own is a further reason with its
  line: where Dynamo skips the same frame once the earlier reasons are removed; a second break in the same loop is
  none (kb53).
- A parameter annotated with a type alias imported from elsewhere (``_TensorOrTensors``, torch_geometric's ``Adj``)
  is what the caller passes, as one without annotation: a tensor from the driver makes its boolean-mask indexing in
  a loop a definite skip (before: taken for no tensor, "All checks passed"); a ``Number`` gets a Python int (kb54).
- A dynamic-shape op of a tensor ``torch.tensor([])`` makes (or ``torch.cat`` of such) does not break: Dynamo knows
  its data; where an ``if`` binds the operand to one in an arm (torchdiffeq's ``step_t``), the break happens under
  the test of the other arm: none where the call leaves it empty, definite where it passes data, conditional where
  the value is not known; ``torch.zeros(0)`` and a literal with data break (kb55).
- Edges found by a helper (kb56): a break met in a loop in one arm and outside it in the other is not met with one
  effect whichever arm runs (the skip stays conditional); a list changed in place in a loop is no value kept
  through it; two breaks in one later loop are one further reason; a ``with`` after a ``try`` reason is one.
- A local bound before a ``for`` loop whose target and body never bind it holds in each step what it held before:
  a setting picked by a known argument and handed to each layer the loop builds decides the layer's test (definite);
  a local the body binds again after using it does not (conditional, kb52).
- A break inside a method of an object the compiled frame built (``Stepper(x)``, a dataclass, a class picked from a
  dict, what a helper returns; a staticmethod read from it) cannot resume: Dynamo cannot rebuild the bound method
  at the call (GB0092), so the frame is skipped there, or after a 2-op checkpoint its rest runs eagerly, or after a
  resumed break its resume function is skipped; a classmethod, ``Stepper.step(s, x)``, ``__call__``, an object
  passed in and one handed to a helper resume (kb57).
- a store by a name known only at run time drawn from a dict of state names (``add_state("total", ...)`` storing
  ``self._defaults[name]``, restored by loops over it or over a snapshot) leaves the setting beside it undecided:
  conditional, where the names are in fact other (kb58: a bounding of such keys that would prove it is not yet
  sound, tests/test_state_keys.py) and where they may name the setting (kb59).
- ``torch.equal`` / ``torch.allclose`` break wherever reached, on values drawn from ``zip`` of list arguments, in a
  list comprehension, a generator consumed by ``all`` and a loop (kc1); a break in a loop over a name followed by a
  ``return`` before the jump back resumes over a list or tuple and skips over an ``nn.ModuleList``: conditional on
  what the name holds (kc2); the items of a list or tuple of tensors passed in are tensors to Dynamo, a loop over
  them is found, an item read by index is not yet (kc3); a ``self``
  attribute tested right after its store is what was stored, not across a call or one arm of an ``if`` (kc4);
  arrays NumPy functions make are tensors to Dynamo, and ``torch.is_tensor`` of one is True under Dynamo (kc5); a
  ``return`` in a ``with`` or ``try`` after a break in a loop may come first: conditional; one under ``if __debug__:``
  does, as CPython keeps that arm without its test: the break resumes (kc6); a loop over a conditional expression
  one arm of which is empty runs only when the test picks the other: its break is conditional on the test (kc7);
  a ``self`` attribute reads back what was stored only where no ``__setattr__``, ``__getattribute__`` or descriptor
  of the class gives something else: one that hands the value on unchanged (raising for some names, or renaming
  keys alike both ways) keeps the break definite, the others leave no break to claim (kc8); ``np.ndim`` and
  ``np.size`` break at the call (GB0208) and give a Python int, a test on which is no break; ``np.shape`` gives a
  tuple of ints with no break (kc9); ``t == None`` is a Python bool, ``sys.version_info <= (3, 11)`` is False on
  3.11, an optional attribute of a ``torch.nn`` layer (``Linear(bias=False).bias``) is not known (never a method),
  a diamond's class attribute and ``super()`` follow C3's order (kd1); ``nn.Parameter(...)`` is a tensor whose
  ``requires_grad`` and ``grad`` (``Tensor | None``) are not known, ``np.random.rand()`` given no size breaks at the
  call (GB0033) and gives a Python float, a break in a ``try``'s ``else`` clause with no ``finally`` resumes (kd2);
  the body of a ``custom_op``, an ``allow_in_graph`` or an ``assume_constant_result`` function is not traced (kd3);
  a module flag derived from an optional import is either value, ``torch.compile(f, disable=FLAG)`` with a false
  flag and a ``torch.compile(model)`` whose result is thrown away compile nothing, ``int()`` of a NumPy reduction of
  Python values breaks (GB0033) and of a ufunc does not (kd4); a module-level ``def print`` is no builtin (kd5);
  ops Dynamo refuses whatever the values, read from torch's own files, break (kd6); what is compiled but never run
  compiled is not traced, a ``cached_property`` not yet computed skips the frame that reads it (kd7-kd9); a
  ``Function``'s ``backward`` is traced where an input requires grad (kd10); a NumPy function ``torch._numpy`` has
  none of breaks (kd11); a file that switches Dynamo off anywhere but at its top proves no region compiled (kd12);
  a compiled object only a container or an attribute nobody reads keeps proves no region either (kd14); top-level
  NumPy functions, ``torch.ops.aten`` spellings and Python-valued Tensor methods read from torch's files (kd15); a
  local name bound to a torch or NumPy function is that function (kd16); what a helper found never traced or
  traced as named (kd17-kd21);
  ``.nonzero()`` of a receiver of unknown kind breaks only where the walk proves it a tensor (kd13).

``observed.json`` is what torch 2.13.0 on Python 3.11 (eager backend, CPU) did with them, written by
``python3 scripts/measure_fixtures.py --folder tests/cases/kinds``. Every definite diagnostic must be a break
Dynamo made (no false definite), and every break Dynamo made must be reported, definite or conditional; a
conditional diagnostic where Dynamo did not break is listed in ``CONDITIONAL`` with its condition.
"""
import json
import os

import pytest

from .conftest import ROOT, run_cli
from .folder_programs import predictions
from .test_measured import differences

FOLDER = os.path.join(ROOT, "tests", "cases", "kinds")
with open(os.path.join(FOLDER, "observed.json"), encoding="utf-8") as _fh:
    DOC = json.load(_fh)
FILES = sorted(n for n in os.listdir(FOLDER) if n.endswith(".py"))

_SWITCHED = "when Dynamo is not switched off by the file's `set_stance` or `config.disable`"
#: program -> {line: condition} of the conditional diagnostics whose break did not happen in the measured run
CONDITIONAL = {
    # a `return` nested in an arm: the rest runs only when it did not return (the flags are set at run time)
    "kd26_return_nested_in_an_arm.py": {13: "when `not (A and B)`", 31: "when `not (not (x.is_complex()) and B)`"},
    # the order of the calls at run time decides which run compiled: every region of the file is conditional on it
    "kd12_stance_set_in_a_function.py": {11: _SWITCHED, 21: _SWITCHED},
    # a switch under a module-level test decides at run time whether anything is compiled
    "kd17_stance_under_a_module_level_test.py": {12: _SWITCHED},
    # comprehensions, a parameter's default, a class attribute nobody reads: compiled objects maybe never called
    "kd20_compiled_object_never_called_forms.py": {
        8: "when the compiled `f` in a container is called",
        19: "when the compiled `body` a parameter defaults to is called",
        24: "when the compiled `work` stored as `.spare` is called"},
    # a compiled object only a container or an attribute nobody reads keeps runs only if some code calls it
    "kd14_compiled_object_kept_in_a_container_or_attribute.py": {
        8: "when the compiled `kept_in_list` in a container is called",
        14: "when the compiled `kept_in_dict` in a container is called",
        20: "when the compiled `kept_as_attribute` stored as `.fn` is called"},
    # the driver's inputs are not facts inside main(): whether an input of `plain` requires grad is not known
    "kb22_apply_duplicate_input.py": {38: "when `mask is a tensor, an input requires grad and grad is on`"},
    # an object holding a tensor is no tensor to Dynamo's frame check, and gblint does not decide it
    "kb46_metaclass_call_alone.py": {30: "when `the arguments hold a tensor and no earlier eager call of it held none`"},
    "kb21_loops_that_may_not_reach.py": {24: "when the loop ends without `break`", 33: "when the loop does not `return`",
                                         39: "when `helper is not None`"},
    "kb8_isfunction_of_decorated_def.py": {16: "when `inspect.isfunction(scale)`"},
    # a call between the store and the test may change the attribute (it does: the flag passed is False)
    "kc4_flag_stored_then_tested.py": {36: "when `self.flag`"},
    # what a torch.nn layer's constructor arguments make of its optional attributes is not read (None here)
    "kd1_python_values_gblint_took_for_others.py": {37: "when `self.lin.bias is not None`",
                                                    39: "when `self.norm.weight is not None`",
                                                    41: "when `self.bn.running_mean is not None`"},
    "k09_requires_grad_from_input_eval.py": {8: "when `x.requires_grad`"},
    # a Parameter built with requires_grad=False, a grad no backward has filled; a test on np.random.rand()'s float
    "kd2_optional_grads_numpy_scalars_try_else.py": {21: "when `self.w.requires_grad`",
                                                     23: "when `self.v.grad is not None`", 25: "when `self.v.grad`",
                                                     32: "when `r > 2.0`"},
    # whether the optional import succeeds is not decided (here it fails)
    "kd4_compiled_or_not_and_numpy_reductions.py": {23: "when `HAS_EXTRA`", 25: "when `not NO_EXTRA`"},
    "k34_proven_outer_unknown_inner.py": {14: "when `DEBUG`"},
    "k36_mark_dirty_returned_through_alias.py": {10: "when `y is not x`"},
    "k52_conditional_breaks_only.py": {13: "when `TRACE`", 20: 'when `os.environ.get("K52_DEBUG")`',
                                       34: "when `TRACE`"},
    "k54_definite_and_conditional_in_callees.py": {12: 'when `os.environ.get("K54_CHECK_SCORES")`'},
    "k66_slice_either_branch_then_index.py": {14: "when `batched`"},
    "k67_flag_print_then_item.py": {12: "when `VERBOSE`"},
    "k80_calls_in_each_arm_loop.py": {7: "when `from_front`"},
    "k81_elif_chain_each_arm_breaks.py": {14: 'when `MODE == "sum"`', 16: 'when `MODE == "max"` (and 1 more condition)'},
    "k82_arm_continues_before_break.py": {12: "when `not (skip_all)` (and 1 more condition)", 14: "when `not (dense)`"},
    "k83_elif_without_else.py": {10: 'when `kind == "ragged"`', 12: 'when `kind == "padded"` (and 1 more condition)'},
    "k84_nested_ifs_call_and_break.py": {8: "when `clamp` (and 1 more condition)", 20: "when `not (by_width)`"},
    "k85_conditional_expression_each_value.py": {10: "when `reverse`"},
    # a list changed in place in the loop that builds the layers: the second layer's list is empty (kb56)
    "kb56_arms_loops_reasons_edges.py": {39: "when `self.rotary`"},
    # the wrapper stores the key it tests, with a value read from the environment
    "kb30_kwargs_stored_keys.py": {39: 'when `not (kwargs.get("debug_io", False))`'},
    # built with `verbose=False` among the keywords its __init__ stores by name
    "kb31_setattr_keys_the_instance_got.py": {39: "when `self.opts.verbose`"},
    # the loop may `break` before the layer that breaks
    "kb36_loop_may_stop_before_a_layer.py": {14: "when `layer is SparseAfterStop` (and 1 more condition)"},
    # a key stored before the store by name, a change through an unpacked alias (kb39)
    "kb39_changed_through_other_names.py": {48: "when `not self.cfg.debug`", 56: 'when `not kwargs.get("flag", False)`'},
    # `apply_extra` stores by name the keys of a dict the caller fills: the setting among them, maybe (kb40)
    "kb40_settings_beside_named_stores.py": {68: 'when `self.strategy != "disable"`'},
    # each store by name may name the setting: a renaming `__setattr__`, a dict changed through another local
    # name (definite before: the local's literal was taken for both names), a registry of what a method is handed
    "kb41_named_stores_that_may_name_a_setting.py": {22: 'when `self.strategy != "disable"`',
                                                      41: 'when `self.strategy != "disable"`',
                                                      61: 'when `self.strategy != "disable"`'},
    # settings changed after the module is built: from `dict(pairs)` (taken as a closed empty dict before: a false
    # definite), by `__setstate__` called on the instance, by a method the driver calls that registers by name
    # (a false definite before: only what `__init__` passed was taken)
    "kb44_settings_changed_after_construction.py": {41: 'when `self.strategy != "disable"`',
                                                    59: 'when `self.strategy != "disable"`',
                                                    78: 'when `self.strategy != "disable"`'},
}

#: program -> the frames a conditional diagnostic says are skipped where Dynamo did not skip them in the measured
#: run (k36: `AddOne.forward` is skipped only if the returned `y` is not the dirty `x`, which gblint does not follow)
CONDITIONAL_SKIPS = {
    "k36_mark_dirty_returned_through_alias.py": ["forward"],
    # a way through the frame meets no break (an arm that continues, an elif without else): not skipped in the run
    "k82_arm_continues_before_break.py": ["accumulate"],
    "k83_elif_without_else.py": ["lengths_of"],
    "kb36_loop_may_stop_before_a_layer.py": ["forward"],
    # skipped only when `n > 2` (its loop arm): the measured run took the other arm, where the break resumes
    "kb56_arms_loops_reasons_edges.py": ["loop_or_once"],
    # a `return` met before the jump back: skipped only where the loop's iterator cannot be rebuilt (kc2)
    "kc2_return_after_break_loop_over_a_name.py": ["over_list_argument", "over_local_list", "over_tuple_argument"],
    # a `return` in a layout gblint does not read (a `with`, a `try`) may come first (kc6)
    "kc6_return_inside_unread_block_after_loop_break.py": ["return_in_try", "return_in_with"],
}

#: program -> the frame skipped whichever arm runs: its diagnostic at the ``def`` line is definite, the breaks
#: in the arms conditional
SURE_SKIPS = {
    "k66_slice_either_branch_then_index.py": ("gather_rows", 6, [14, 16]),
    "k80_calls_in_each_arm_loop.py": ("pick", 14, [7, 11]),
    "k81_elif_chain_each_arm_breaks.py": ("segment", 10, [14, 16, 18]),
    "k84_nested_ifs_call_and_break.py": ("gather", 11, [8, 18, 20]),
    "k85_conditional_expression_each_value.py": ("window_sums", 6, [10, 12]),
}

#: program -> {line: condition} of the breaks Dynamo made that gblint reports as conditional: the value the test
#: reads is not known before the run (read at run time, or changed by a helper it is handed to)
UNKNOWN_VALUE = {
    "k33_kwargs_unknown_keyword.py": {16: "when `len(leftover) > 0`", 31: "when `len(meta) > 0`", 43: "when `labels`"},
    # each branch of an undecided test skips the frame: one of them runs, so the frame is skipped there and the
    # breaks after them are never met (before, the indexing and the count test after the branches were definite)
    "k66_slice_either_branch_then_index.py": {14: "when `batched`", 16: "when `not (batched)`"},
    # a class pattern is not decided before the run: the case's break is conditional on it
    "k93_match_class_pattern_breaks.py": {17: "when `match mode: case Verbose()`"},
    # the class stores its keywords by name (`setattr(self, key, value)`): its default is not what an instance holds
    "k96_setattr_kwargs_own_class.py": {25: "when `self.opts.verbose`"},
    # a store by a name drawn from a dict of state names, a restore by name over a snapshot, a `__setstate__`: kb58's
    # names are in fact other (measured: the setting decides), but gblint does not bound such a dict's keys yet
    # (tests/test_state_keys.py); kb59's may name the setting: the dict handed out, a key stored through another
    # object, a name the driver registers, a class's dict shared by every instance
    "kb58_states_registered_by_name.py": {33: 'when `self.strategy != "disable"`',
                                          66: 'when `self.strategy != "disable"`',
                                          81: 'when `self.strategy != "disable"`',
                                          105: 'when `self.strategy != "disable"`'},
    "kb59_states_that_may_name_a_setting.py": {26: 'when `self.strategy != "disable"`',
                                               43: 'when `self.strategy != "disable"`',
                                               71: 'when `self.strategy != "disable"`',
                                               93: 'when `self.strategy != "disable"`'},
    # a list grown at module level may hold more than the layers gblint saw appended
    "kb19_module_list_grown_under_a_test.py": {12: "when `self.layers[i].inverse is Shift.inverse`"},
    # the registry `reset` stores over by name is a dict attribute, which gblint never bounds by the keys the class
    # stores (it may change through what it is handed to, `getattr(self, name)`, or code outside the class)
    "kb40_settings_beside_named_stores.py": {47: 'when `self.strategy != "disable"`',
                                             68: 'when `self.strategy != "disable"`'},
    "kb43_states_made_by_a_helper_of_init.py": {30: 'when `self.strategy != "disable"`'},
    # an option dict changed in place by the driver or a method after the module was built (no diagnostic before)
    "kb44_settings_changed_after_construction.py": {16: 'when `self.k44_opts["debug"]`',
                                                    30: 'when `self.k44_flags["debug"]`',
                                                    **CONDITIONAL["kb44_settings_changed_after_construction.py"]},
}


#: program -> the calls it lists as not followed, behind which Dynamo's breaks lie
NOT_FOLLOWED = {"k99_module_list_unknown_layers.py": ["self.layers[i].inverse"]}
#: program -> the lines of the breaks Dynamo made that gblint misses: an item of a list passed in (`xs[0]`, `a, b = pair`)
#: is read only through the parameter's own kind, and a list that holds a tensor is no proof that the item the code
#: tests is one (a helper found `[t, 3]`, `[t, None]` and `[[t]]` made that a wrong definite); a loop over the items
#: is found (kc3, kc5)
ITEM_MISSES = {"kc3_items_of_a_list_passed_in.py": [11, 19], "kc5_numpy_arrays_made_by_numpy.py": [32]}
#: program -> the calls followed to only some of what they may run, listed as not followed too (their breaks found)
PARTLY_FOLLOWED = {"kb19_module_list_grown_under_a_test.py": ["self.layers[i].inverse"]}
#: program -> the condition of its breaks: a name is a tensor only when a later step of a loop comes back to it
LOOP_BACK = {"kb12_loop_comes_back.py": "when an earlier step of the loop bound `s`"}
#: program -> line -> the condition of its diagnostic (None: definite): a `self` attribute stored just before the
#: test that reads it decides the test; a call between them, or a store in one arm, does not (kc4)
FLAG_STORED = {"kc4_flag_stored_then_tested.py": {22: None, 36: "when `self.flag`", 49: "when `self.flag`"}}
#: program -> line -> the condition of its diagnostics (None: definite): a loop over `xs if t else ()` runs only where
#: `t` holds (measured: no break for float predictions, one for integer ones); a test known true leaves it definite (kc7)
LOOP_ARM = {"kc7_loop_over_conditional_expression.py": {12: "when `not preds.is_floating_point()`", 26: None}}
#: program -> the lines of its diagnostics, all definite: the classes whose `__setattr__` keeps the value (kc8); the
#: descriptor, `__setattr__ = f`, a `__setattr__` changing the value and a `__getattribute__` answering give no break
ATTR_HOOKS = {"kc8_attribute_hooks_and_descriptors.py": [91, 113]}
#: program -> the lines of its diagnostics, all definite: the NumPy calls with a Python result, not the tests on it (kc9)
NUMPY_PYTHON = {"kc9_numpy_functions_with_python_results.py": [19, 27, 36]}
UNREAD = "when no `return` comes before the loop's jump back"
#: program -> frame -> the condition of its loop skip (None: definite): a break in a loop over a name that meets a `return` before the
#: jump back resumes where the loop's iterator can be rebuilt (a list or tuple), else its frame is skipped (kc2)
ITERATOR_REBUILT = {"kc2_return_after_break_loop_over_a_name.py": {
    "over_list_argument": "when `ws` holds no list or tuple", "over_tuple_argument": "when `ws` holds no list or tuple",
    "over_local_list": "when `ws` holds no list or tuple", "Stack.forward": "when `self.layers` holds no list or tuple"},
    "kc6_return_inside_unread_block_after_loop_break.py": {
        "return_in_with": UNREAD, "return_in_try": UNREAD, "return_under_debug": None, "with_no_return": None}}
#: program -> frame -> the condition of its diagnostics (None: definite): a loop over every index calls each layer
EACH_STEP = {"kb18_each_layer_by_index.py": {"Flow.forward": None,
                                             "Picky.forward": "when `self.flows[i].inverse is B.inverse` "
                                                              "(and 1 more condition)"}}
#: program -> frame -> the condition of its diagnostics (None: definite): a break met on a way through each arm of a
#: test is met whichever arm runs (kb51); a local bound before a `for` loop that never binds it keeps its value (kb52)
EACH_ARM = {"kb51_same_break_each_arm.py": {"Block.forward": None, "Stack.forward": None, "forward_metric": None,
                                            "OneArm.forward": "when `self.rotary is not None`"},
            "kb52_value_kept_through_loop.py": {"Model.forward": None,
                                                "Rebound.forward": "when `self.rotary is not None`"},
            "kb56_arms_loops_reasons_edges.py": {"loop_or_once": "when `n > 2`",
                                                 "PopInLoop.forward": "when `self.rotary`",
                                                 "two_in_later_loop": None, "try_then_with": None},
            "kb55_dynamic_shape_op_of_an_empty_tensor.py": {
                "with_steps": None, "zeros_nonzero": None, "literal_unique": None,
                "steps_maybe": "when `step_t` holds data or `jump_t` holds data"}}


def predicted():
    """gblint's JSON diagnostics for the programs of the folder, by file name (torch 2.13.0, Python 3.11)."""
    return predictions(FOLDER)


def test_every_program_is_measured():
    assert sorted(DOC["programs"]) == FILES, "re-run scripts/measure_fixtures.py --folder tests/cases/kinds"
    assert DOC["meta"]["torch"].startswith("2.13.") and DOC["meta"]["python"].startswith("3.11.")
    assert DOC["meta"]["backend"] == "eager"
    assert [n for n, obs in DOC["programs"].items() if obs["exception"] is not None] == []
    assert set(CONDITIONAL) <= set(FILES)


@pytest.mark.parametrize("name", FILES)
def test_no_false_definite(name):
    """A definite diagnostic is a break (or skip) Dynamo made, with its GB id."""
    definite = [d for d in predicted()[name] if d.get("certainty") == "definite"]
    got = differences(name, definite, DOC["programs"][name])
    assert {k: v for k, v in got.items() if not k.startswith("missed")} == {}, got


@pytest.mark.parametrize("name", FILES)
def test_every_break_reported(name):
    """Every break Dynamo made is reported (definite, or conditional with its condition); the only other
    diagnostics are the conditional ones of CONDITIONAL, with the condition it names."""
    diags = predicted()[name]
    got = differences(name, diags, DOC["programs"][name])
    if name in NOT_FOLLOWED:  # its breaks lie behind a call gblint lists as not followed (test below)
        got = {k: v for k, v in got.items() if not k.startswith("missed")}
    if name in ITEM_MISSES:  # exactly these (test below)
        assert got.pop("missed break sites", []) == ITEM_MISSES[name]
    false = got.pop("false break sites", [])
    false_skips = got.pop("false skipped frames", [])
    assert got == {}, got
    assert sorted(false_skips) == sorted(CONDITIONAL_SKIPS.get(name, [])), false_skips
    expected = CONDITIONAL.get(name, {})
    assert sorted(false) == sorted(expected)
    for d in diags:
        if d["line"] in expected:
            assert d["certainty"] == "conditional" and d["condition"] == expected[d["line"]], d


#: program -> the condition of the diagnostics of a break Dynamo made that gblint reports as conditional: the
#: kind is a fact, but whether the driver's setup call runs before the compiled call is not followed
ORDER_CONDITIONAL = {
    "k17_module_set_by_setup.py": "when `self.monitor is Monitor` (and 1 more condition)",
}


def test_a_frame_skipped_whichever_arm_runs():
    """Where every way through a frame's tests meets a break that skips it, the frame's diagnostic (at its
    ``def``) is definite and names each break's line; each break stays conditional; nothing after them is reported.
    Where some way meets none (k82, k83), no diagnostic is definite."""
    assert set(SURE_SKIPS) <= set(FILES)
    for name, (frame, line, sites) in SURE_SKIPS.items():
        diags = predicted()[name]
        sure = [d for d in diags if d["certainty"] == "definite" and d["effect"] == "skip"]
        assert [(d["frame"], d["line"]) for d in sure] == [(frame, line)], sure
        assert all(f"line {s}:" in sure[0]["explanation"] for s in sites), sure[0]["explanation"]
        assert frame in [s["function"] for s in DOC["programs"][name]["skipped_frames"]]
        arms = sorted({d["line"] for d in diags if d["effect"] in ("break", "skip") and d["line"] != line})
        assert arms == sites and all(d["certainty"] == "conditional" for d in diags if d["line"] in sites), diags
    for name in ("k82_arm_continues_before_break.py", "k83_elif_without_else.py"):
        assert [d for d in predicted()[name] if d["certainty"] == "definite"] == []
        assert DOC["programs"][name]["skipped_frames"] == []


def test_breaks_after_a_setup_call_are_conditional_on_it():
    """A module attribute set to None in ``__init__`` and replaced by a method the program calls holds either value
    (k17): its break is reported, conditional on the replacing value."""
    for name, condition in ORDER_CONDITIONAL.items():
        diags = [d for d in predicted()[name] if d["effect"] in ("break", "skip", "error")]
        assert diags and all(d["certainty"] == "conditional" and d["condition"] == condition for d in diags), diags


#: program -> the condition of its diagnostics: the preset's name comes from the environment, so the class picked is
#: one of those the config's mapping holds (in the measured run, the field's default)
OUTSIDE_CONDITIONAL = {
    "k24_class_mapping_preset_from_env.py": "when `self.attn is WindowAttention`",
}


def test_a_class_picked_by_a_value_from_outside_is_conditional():
    """A preset named by an environment variable, splatted into a dataclass config, leaves its field unknown (not
    its default): each class of the mapping indexed by it is reported only conditionally (k24; before, the default's
    class was followed as if it were a fact, and its break was definite)."""
    for name, condition in OUTSIDE_CONDITIONAL.items():
        diags = [d for d in predicted()[name] if d["effect"] in ("break", "skip", "error")]
        assert diags and all(d["certainty"] == "conditional" and d["condition"] == condition for d in diags), diags


def test_a_class_picked_by_name_is_followed_only_when_the_name_is_a_fact():
    """A block class looked up by a preset's string (k20-k24): followed where every step is a literal (the
    coverage is complete: k23's all-clear covers the picked block, not the default's); where the name comes from
    outside and the lookup is by module attribute (k22), the call is listed as not followed, undecided."""
    import subprocess
    import sys
    names = ["k20_registry_dict_preset.py", "k21_preset_two_calls_globals.py", "k22_preset_name_from_env.py",
             "k23_preset_picks_clean_block.py", "k24_class_mapping_preset_from_env.py"]
    proc = subprocess.run([sys.executable, "-m", "gblint", "check", "--no-cache", "--format", "json"]
                          + [os.path.join(FOLDER, n) for n in names], capture_output=True, text=True, cwd=ROOT)
    coverage = json.loads(proc.stdout)["coverage"]
    unfollowed = [(os.path.basename(u["path"]), u["function"], u["call"], u["undecided"])
                  for u in coverage["unfollowed"]]
    assert unfollowed == [("k22_preset_name_from_env.py", "Net.forward", "self.block", True)]
    reached = {(os.path.basename(f["path"]), f["function"]) for f in coverage["functions"]}
    assert ("k23_preset_picks_clean_block.py", "FusedBlock.forward") in reached
    assert ("k23_preset_picks_clean_block.py", "LoggingBlock.forward") not in reached
    assert ("k22_preset_name_from_env.py", "ResidualBlock.forward") not in reached
    assert ("k21_preset_two_calls_globals.py", "BucketLayer.forward") in reached


#: program -> what the conditional diagnostics of a break Dynamo made are conditional on: whether an
#: ``autograd.Function``'s input requires grad, for a value whose requires_grad gblint does not follow (a
#: loop-carried local, ``x * 2``, ``h.clone()``); a Linear's output and a factory's tensor are facts (k25, k28)
GRAD_NOT_FOLLOWED = {
    "k27_mark_dirty_plain_input.py": "requires_grad",
    "k29_mark_dirty_helper_in_loop.py": "requires_grad",
    # grad on where the compiled code is called (no caller's `torch.no_grad()`) is not followed: GBL142 is conditional
    "k25_mark_dirty_result_of_inplace.py": "grad is on",
    # kd10: Function.backward is traced where an input requires grad (and grad is on): both are the condition
    "kd10_backward_of_a_function_traced_with_grad.py": "grad",
}


#: whether an object's state was set before the region runs is not a fact: conditional on it (kd7: a cached_property)
STATE_BEFORE = {"kd7_compiled_but_never_run.py": "was not computed before"}


def test_state_set_before_the_region_is_a_condition():
    for name, words in STATE_BEFORE.items():
        conditional = [d for d in predicted()[name] if d["certainty"] == "conditional"]
        assert conditional and all(words in d["condition"] for d in conditional), conditional


def test_requires_grad_not_followed_is_conditional_on_it():
    """Where the input's requires_grad is not a fact, the breaks it decides are reported conditional on it, and
    every break Dynamo made is still reported (test_every_break_reported)."""
    for name, word in GRAD_NOT_FOLLOWED.items():
        conditional = [d for d in predicted()[name] if d["certainty"] == "conditional"]
        assert conditional and all(word in d["condition"] for d in conditional), conditional


def test_measured_breaks_are_definite_where_the_kind_is_a_fact():
    """The tensor kinds of k01-k06, k08 and k10 rest on facts (a registered buffer or parameter, a tensor's
    elements, a NumPy array, a literal or the caller's value): their diagnostics are definite."""
    for name in FILES:
        exempt = name in CONDITIONAL or name in ORDER_CONDITIONAL or name in OUTSIDE_CONDITIONAL \
            or name in GRAD_NOT_FOLLOWED or name in UNKNOWN_VALUE or name in CHANGED_UNSEEN or name in DIRTY_IN_HELPER \
            or name in NOT_FOLLOWED or name in LOOP_BACK or name in EACH_STEP or name in EACH_ARM or name in ITERATOR_REBUILT \
            or name in FLAG_STORED or name in ITEM_MISSES or name in LOOP_ARM or name in STATE_BEFORE or name in EITHER_ARM
        if exempt or not DOC["programs"][name]["breaks"]:
            continue
        certainties = {d["certainty"] for d in predicted()[name] if d["effect"] in ("break", "skip", "error")}
        assert certainties == {"definite"}, (name, certainties)


def test_a_name_a_later_step_of_a_loop_makes_a_tensor_is_conditional():
    """``s = 0`` before a loop, ``if s:`` then ``s = x.sum()`` in it: the second step branches on a tensor (measured:
    the frame is skipped), how many steps the loop takes is no fact, so the break is conditional on it (kb12);
    a loop that binds ``s`` to a Python value reports nothing."""
    for name, condition in LOOP_BACK.items():
        diags = [d for d in predicted()[name] if d["effect"] in ("break", "skip", "error")]
        assert diags and all(d["certainty"] == "conditional" and d["condition"] == condition for d in diags), diags
        assert sorted({d["line"] for d in diags}) == sorted({b["line"] for b in DOC["programs"][name]["breaks"]})


def test_a_return_after_a_break_in_a_loop_over_a_name_is_conditional_on_its_value():
    """Measured: over a list or tuple passed in, or a local list, the frame resumes; over an ``nn.ModuleList`` it is
    skipped (GB0092). gblint does not decide what the name holds: the skip is conditional on it, never definite."""
    for name, frames in ITERATOR_REBUILT.items():
        diags = [d for d in predicted()[name] if d["effect"] in ("break", "skip", "error")]
        assert {d["frame"]: (d["condition"] or None) for d in diags} == frames
        assert all((d["certainty"] == "definite") == (frames[d["frame"]] is None) for d in diags)
    outcomes = {b["function"]: b["outcome"] for name in ITERATOR_REBUILT for b in DOC["programs"][name]["breaks"]}
    assert outcomes == {"over_list_argument": "resumed", "over_tuple_argument": "resumed",
                        "over_local_list": "resumed", "forward": "skipped", "return_in_with": "resumed",
                        "return_in_try": "resumed", "return_under_debug": "resumed", "with_no_return": "skipped"}


def test_items_of_a_list_passed_in_are_not_proven_tensors():
    """The breaks on an item of a list argument are missed, never reported as definite on the list's word: the
    parameter holds a list, and which of its items the code tests is not decided (kc3, kc5)."""
    for name, lines in ITEM_MISSES.items():
        reported = {d["line"] for d in predicted()[name] if d["effect"] in ("break", "skip", "error")}
        assert not reported & set(lines)
        assert set(lines) <= {b["line"] for b in DOC["programs"][name]["breaks"]}


def test_a_flag_stored_just_before_its_test_decides_it():
    """Measured (kc4): Dynamo breaks at the print the stored flag selects, not where a call in between cleared it;
    gblint is sure only where nothing runs between the store and the test."""
    for name, lines in FLAG_STORED.items():
        got = {d["line"]: (None if d["certainty"] == "definite" else d["condition"]) for d in predicted()[name]
               if d["effect"] in ("break", "skip", "error")}
        assert got == lines
        assert sorted(b["line"] for b in DOC["programs"][name]["breaks"]) == [22, 49]


def test_a_loop_over_a_conditional_expression_runs_only_where_its_test_picks_items():
    """Measured (kc7): Dynamo breaks at ``torch.unique`` in a loop over ``(target,) if not float else ()`` only for
    integer predictions; gblint cannot decide the test, so each of its diagnostics there is conditional on it. A loop
    whose test the caller's literal makes false (``() if skip else (t,)`` with ``skip=True``) is not reported."""
    for name, lines in LOOP_ARM.items():
        found = {(d["line"], d["certainty"], d["condition"]) for d in predicted()[name]
                 if d["effect"] in ("break", "skip", "error")}
        want = {(line, "definite" if cond is None else "conditional", cond) for line, cond in lines.items()}
        assert found == want, (name, found)


def test_an_attribute_reads_back_what_was_stored_only_through_hooks_that_keep_it():
    """Measured (kc8): Dynamo breaks on the tensor stored through a ``__setattr__`` that hands it on (torchmetrics'
    guard, transformers' renaming both ways), not where a descriptor, a ``__setattr__`` set to a function, one that
    stores ``bool(...)`` or a ``__getattribute__`` gives something else."""
    for name, lines in ATTR_HOOKS.items():
        found = sorted((d["line"], d["certainty"]) for d in predicted()[name] if d["effect"] in ("break", "skip", "error"))
        assert found == [(line, "definite") for line in lines], (name, found)


def test_numpy_functions_with_a_python_result_break_at_the_call():
    """Measured (kc9): ``np.ndim`` / ``np.size`` of a tensor or an array break at the call (GB0208) and the test on
    their int result does not; ``np.shape`` makes no break (a tuple of ints)."""
    for name, lines in NUMPY_PYTHON.items():
        found = sorted((d["line"], d["certainty"], tuple(d["gb_ids"])) for d in predicted()[name]
                       if d["effect"] in ("break", "skip", "error"))
        assert found == [(line, "definite", ("GB0208",)) for line in lines], (name, found)


#: program -> {line: (gb id, outcome)} of its definite diagnostics (kd2)
SCALARS_AND_ELSE = {"kd2_optional_grads_numpy_scalars_try_else.py": {
    30: ("GB0033", "break"), 47: ("GB0059", "break"), 57: ("GB0059", "skip"), 70: ("GB0059", "break")},
    "kd4_compiled_or_not_and_numpy_reductions.py": {42: ("GB0033", "break"), 44: ("GB0033", "break"),
                                                    49: ("GB0033", "break")},
    "kd5_builtin_shadowed_by_the_module.py": {}}


def test_numpy_random_scalars_break_at_the_call_and_a_try_else_resumes():
    """Measured (kd2): ``np.random.rand()`` breaks at the call (GB0033), ``np.random.rand(4)`` does not; a break in
    a ``try``'s ``else`` clause resumes unless a ``finally`` follows it (then the frame is skipped). (kd4) ``int()``
    of a NumPy reduction breaks (GB0033), nothing is reported in what a disabled or thrown-away compile names; (kd5)
    a module's own ``print`` makes no break."""
    for name, lines in SCALARS_AND_ELSE.items():
        found = {d["line"]: (d["gb_ids"][0], d["effect"]) for d in predicted()[name]
                 if d["certainty"] == "definite" and d["effect"] in ("break", "skip", "error")}
        assert found == lines, (name, found)


#: kd6: line -> (gb id, rule) of each definite diagnostic; ``modelled`` (data_ptr, element_size...) has none
REFUSED = {13: ("GB0036", "GBL106"), 19: ("GB0036", "GBL106"), 25: ("GB0036", "GBL106"), 29: ("GB0208", "GBL125"),
           34: ("GB0208", "GBL125"), 39: ("GB0208", "GBL125"), 44: ("GB0046", "GBL125"), 50: ("GB0033", "GBL139"),
           62: ("GB0208", "GBL125"), 63: ("GB0208", "GBL125")}


def test_ops_dynamo_refuses_are_read_from_torch():
    """Measured (kd6): ops tagged ``dynamic_output_shape`` (``bincount``, ``linalg.lstsq``, ``F.ctc_loss``), Tensor
    methods whose Python result ``TensorVariable`` does not model (``storage_offset``, ``is_neg``, ``is_same_size``, also
    spelled ``torch.is_neg(x)`` and ``torch.Tensor.storage_offset(x)``),
    ``torch.is_inference_mode_enabled()`` and ``torch._assert`` of a tensor condition each break where they are
    called, with the id Dynamo gave; what it models (``data_ptr``, ``element_size``) does not."""
    found = {d["line"]: (d["gb_ids"][0], d["code"]) for d in predicted()["kd6_ops_dynamo_refuses_read_from_torch.py"]
             if d["certainty"] == "definite" and d["effect"] == "break"}
    assert found == REFUSED, found


def test_numpy_functions_torch_numpy_lacks_break():
    """Measured (kd11): ``np.random.permutation``, ``np.random.beta`` and ``np.random.default_rng`` have no
    ``torch._numpy.random`` function of their name and break at the call (GB0294); ``np.fft.fftfreq``,
    ``np.linalg.norm``, ``svd``, ``matrix_rank``, ``multi_dot`` and ``np.random.normal`` with a size do not."""
    found = {d["line"]: (d["gb_ids"][0], d["certainty"])
             for d in predicted()["kd11_numpy_functions_torch_numpy_lacks.py"] if d["effect"] == "break"}
    assert found == {11: ("GB0294", "definite"), 16: ("GB0294", "definite"), 21: ("GB0294", "definite")}, found


def test_a_file_that_switches_dynamo_off_somewhere_proves_nothing_compiled():
    """Measured (kd12): ``set_stance`` and ``config.patch(disable=True)`` inside ``main()`` decide at run time which
    compiled calls are traced; every diagnostic of the file is conditional on it, the one that breaks (line 16) too."""
    got = [(d["line"], d["certainty"], d["condition"]) for d in predicted()["kd12_stance_set_in_a_function.py"]]
    assert got == [(11, "conditional", _SWITCHED), (16, "conditional", _SWITCHED), (21, "conditional", _SWITCHED)], got


def test_an_op_name_on_a_receiver_of_unknown_kind_is_decided_by_its_value():
    """Measured (kd13): ``BOX.nonzero()`` of a module-level object of a class of the file makes no break; the tensor
    on ``self`` and the one passed in break (GB0036), definite where the walk proves them tensors."""
    found = [(d["line"], d["certainty"], tuple(d["gb_ids"]))
             for d in predicted()["kd13_op_name_on_an_object_of_unknown_kind.py"]]
    assert found == [(26, "definite", ("GB0036", "GB0246")), (30, "definite", ("GB0036", "GB0246"))], found


def test_what_is_compiled_but_never_traced_reports_nothing():
    """Measured (kd7-kd9): a compiled function never called, or called only under ``set_stance("force_eager")``, a
    function a ``substitute_in_graph`` polyfill replaces, a ``cached_property`` computed in ``__init__``, and every
    region of a module that sets ``force_eager`` or ``config.disable`` at its top make no break; reading a
    ``cached_property`` not computed yet skips the frame (GB0142), under the condition that it was not computed."""
    got = {name: sorted((d["line"], d["code"], d["certainty"], d["effect"], tuple(d["gb_ids"]))
                        for d in predicted()[name])
           for name in ("kd7_compiled_but_never_run.py", "kd8_stance_set_at_module_level.py",
                        "kd9_dynamo_disabled_by_config.py")}
    assert got == {"kd7_compiled_but_never_run.py": [(57, "GBL204", "conditional", "skip", ("GB0142",))],
                   "kd8_stance_set_at_module_level.py": [], "kd9_dynamo_disabled_by_config.py": []}, got


def test_numpy_aten_and_python_valued_methods_read_from_torch():
    """Measured (kd15): top-level NumPy functions ``torch._numpy`` has none of (``nanmean``, ``isin``, ``interp``,
    ``lexsort``) break (GB0294), those it has do not; ``torch.ops.aten.<op>.<overload>`` of an op whose output size
    depends on data breaks (GB0036) and ``aten.add``/``aten.mul`` do not; ``x.is_inference()`` breaks (GB0045) and
    its result is a Python bool: the ``if`` on it makes no break."""
    found = {d["line"]: (d["gb_ids"][0], d["certainty"])
             for d in predicted()["kd15_numpy_and_aten_spellings_read_from_torch.py"]}
    assert found == {10: ("GB0294", "definite"), 16: ("GB0294", "definite"), 22: ("GB0294", "definite"),
                     28: ("GB0294", "definite"), 40: ("GB0036", "definite"), 45: ("GB0036", "definite"),
                     55: ("GB0045", "definite")}, found


def test_a_local_alias_of_a_torch_function_is_that_function():
    """Measured (kd16): ``u = torch.unique_consecutive`` then ``u(x)`` breaks (GB0036) as the call spelled out does,
    ``m = np.nanmean`` too (GB0294); ``s = torch.sort`` and a local bound to ``torch.nn.functional`` do not; a local
    rebound in an arm of an ``if`` is not decided (no definite diagnostic)."""
    found = {d["line"]: (d["gb_ids"][0], d["certainty"])
             for d in predicted()["kd16_local_alias_of_a_torch_function.py"]}
    assert found == {10: ("GB0036", "definite"), 16: ("GB0294", "definite")}, found


def test_what_a_helper_found_never_traced_or_traced_as_named():
    """Measured (kd17-kd21, programs a helper wrote): ``set_stance("force_eager")`` under a module-level ``if`` makes
    every diagnostic conditional; ``config.disable = 1`` switches Dynamo off; ``substitute_in_graph`` by its other
    spellings replaces the original; compiled objects a comprehension, a default or an unread class attribute keeps
    are conditional on a call; NumPy 2's aliases are traced; ``with np.errstate(...)`` breaks and skips the rest."""
    got = {name: sorted((d["line"], d["certainty"], d["effect"]) for d in predicted()[name])
           for name in ("kd17_stance_under_a_module_level_test.py", "kd18_disable_set_to_a_truthy_int.py",
                        "kd19_substitute_in_graph_spellings.py", "kd21_numpy2_aliases_and_numpy_managers.py")}
    assert got == {"kd17_stance_under_a_module_level_test.py": [(12, "conditional", "break")],
                   "kd18_disable_set_to_a_truthy_int.py": [], "kd19_substitute_in_graph_spellings.py": [],
                   "kd21_numpy2_aliases_and_numpy_managers.py": [(21, "definite", "break"),
                                                                 (21, "definite", "skip")]}, got
    found = {d["line"]: d["certainty"] for d in predicted()["kd20_compiled_object_never_called_forms.py"]}
    assert found == {8: "conditional", 13: "conditional", 19: "conditional", 24: "conditional"}, found


def test_a_compiled_object_kept_away_is_traced_only_when_called():
    """Measured (kd14): what only a list, a dict or an attribute the file never reads keeps is never traced (its
    diagnostics are conditional on a call); one called out of its container breaks (conditional too: the call is not
    followed); ``self.step = torch.compile(self.slow_step)`` compiles the method (line 63); ``net.forward =
    torch.compile(net.forward)`` runs when ``net`` is called (line 73, definite); ``substitute_in_graph(helper)(p)``
    called as a function replaces ``helper``: its ``print`` (line 40) makes no break."""
    got = {d["line"]: d["certainty"] for d in predicted()["kd14_compiled_object_kept_in_a_container_or_attribute.py"]}
    assert got == {8: "conditional", 14: "conditional", 20: "conditional", 26: "conditional", 32: "conditional",
                   63: "conditional", 73: "definite"}, got


def test_a_cached_property_is_read_as_its_getter_from_python_3_12(tmp_path):
    """Fact ``cached-property-locks``: from Python 3.12 ``cached_property.__get__`` holds no lock, so the getter is
    followed as a property's is (its ``print`` skips the reading frame)."""
    path = tmp_path / "cached.py"
    path.write_text("import functools\nimport torch\n\n\nclass Net(torch.nn.Module):\n    @functools.cached_property\n"
                    "    def scale(self):\n        print('computing')\n        return 2.0\n\n"
                    "    def forward(self, x):\n        return x * self.scale\n\n\n"
                    "torch.compile(Net())(torch.randn(2))\n")
    codes = {}
    for python in ("3.11", "3.12"):
        doc = json.loads(run_cli("check", "--isolated", "--no-cache", "--python-version", python, "--format", "json",
                                 "--exit-zero", "--conditional", "all", str(path), cwd=str(tmp_path)).stdout)
        codes[python] = sorted((d["line"], d["code"]) for d in doc["diagnostics"])
    assert codes == {"3.11": [(12, "GBL204")], "3.12": [(8, "GBL107")]}, codes


def test_a_loop_over_every_index_calls_each_layer():
    """``for i in range(len(L) - 1, -1, -1): L[i].inverse(x)`` calls every layer, one per step: the layer that
    prints skips the frame for sure (kb18); a body that may skip a step (``continue``) proves no layer is called."""
    for name, frames in EACH_STEP.items():
        diags = [d for d in predicted()[name] if d["effect"] in ("break", "skip", "error")]
        got = {d["frame"]: (None if d["certainty"] == "definite" else d["condition"]) for d in diags}
        assert got == frames, diags


def test_a_break_met_in_each_arm_and_a_value_kept_through_a_loop():
    """A break met through a call in each arm of an undecided test (the same module in both arms, two helpers that
    each reach one breaking function) is definite, and so is the loop skip around it; met in one arm only it stays
    conditional (kb51). A setting bound before a ``for`` loop that never binds it decides the test of each layer the
    loop builds; one the loop binds again after handing it on does not (kb52). Every break Dynamo made is reported."""
    for name, frames in EACH_ARM.items():
        diags = [d for d in predicted()[name] if d["effect"] in ("break", "skip", "error")]
        got = {d["frame"]: (None if d["certainty"] == "definite" else d["condition"]) for d in diags}
        assert got == frames, diags
        assert {b["line"] for b in DOC["programs"][name]["breaks"]} <= {d["line"] for d in diags}


#: program -> frame -> (the line Dynamo skips it at, the lines of the further reasons gblint gives);
#: the frames of kb53 after the first are the first with its earlier reasons removed; kb56: two breaks in one later
#: loop are one reason, and a `with` Dynamo cannot resume in is one after a `try`
EVERY_REASON = {"kb53_every_skip_reason.py": {"three_reasons": (14, [17, 21]), "without_first": (29, [33]),
                                              "only_last": (42, []), "one_reason": (50, [])},
                "kb56_arms_loops_reasons_edges.py": {"two_in_later_loop": (61, [65]), "try_then_with": (82, [86])}}


def test_every_reason_a_frame_is_skipped():
    """After the break that skips a frame, each later break that would skip it on its own is a further reason, with
    its line (kb53): the first reason is where Dynamo skips the frame, and each further one is where Dynamo skips
    the same frame with the earlier reasons removed (the same statement, measured). A second break in the loop that
    holds the first is no further reason, nor anything in a frame with one reason."""
    for name, frames in EVERY_REASON.items():
        skipped = {f["function"]: f["line"] for f in DOC["programs"][name]["skipped_frames"]}
        diags = [d for d in predicted()[name] if d["effect"] in ("break", "skip", "error")]
        with open(os.path.join(FOLDER, name), encoding="utf-8") as fh:
            text = fh.read().splitlines()
        for frame, (first, more) in frames.items():
            mine = [d for d in diags if d["frame"] == frame]
            assert skipped[frame] == first and [d["line"] for d in mine] == [first] + more, mine
            assert all(d["effect"] == "skip" and d["certainty"] == "definite" for d in mine), mine
            assert [("another reason" in d["message"]) for d in mine] == [False] + [True] * len(more), mine
        if "three_reasons" in frames:
            later = [skipped[f] for f in frames][1:3]  # the same frame without its first, then without its first two
            assert [text[line - 1].strip() for line in frames["three_reasons"][1]] == \
                [text[line - 1].strip() for line in later]


#: program -> the line of a break behind a test of a key that a dict changed in place by named keys surely lacks
KEYS_NAMED = {"kb30_kwargs_stored_keys.py": 15, "kb31_setattr_keys_the_instance_got.py": 28}


def test_a_dict_changed_by_named_keys_lacks_the_others():
    """``**kwargs`` changed in place only by keys the code names (stored from a list, popped) holds the caller's
    keys and those, no other: ``kwargs.get("debug_io", False)`` of a caller that passed none is False, so the
    break behind the test is definite (kb30); ``setattr(self, key, value)`` over such a ``**kwargs`` stores only
    its keys, so a setting the instance was not built with keeps its value (kb31). A key among those stored keeps
    its test (CONDITIONAL)."""
    for name, line in KEYS_NAMED.items():
        assert line in [b["line"] for b in DOC["programs"][name]["breaks"]]
        at = [d for d in predicted()[name] if d["line"] == line and d["effect"] in ("break", "skip")]
        assert at and all(d["certainty"] == "definite" for d in at), at


def test_torch_forward_and_function_apply_are_followed():
    """A subclass of a torch.nn class that keeps torch's ``forward`` runs torch's code (no gap), and
    ``Function.apply`` runs the Function's ``forward`` (k19: both analysed, coverage complete; before, both
    were "not followed: known only at run time"), and its ``backward`` where an input may require grad (the
    layer's output here: kd10)."""
    import subprocess
    import sys
    path = os.path.join(FOLDER, "k19_torch_subclass_and_function_clean.py")
    proc = subprocess.run([sys.executable, "-m", "gblint", "check", "--no-cache", "--format", "json", path],
                          capture_output=True, text=True, cwd=ROOT)
    coverage = json.loads(proc.stdout)["coverage"]
    assert coverage["complete"] and coverage["unfollowed"] == []
    assert {f["function"] for f in coverage["functions"]} == {"Net.forward", "Scale.forward", "Scale.backward"}


def test_breaks_under_a_test_of_an_unknown_value_are_conditional():
    """k33: the keywords come from ``json.loads`` at run time, the dict is handed to a helper that stores into it,
    or to one that returns it: the breaks Dynamo made are reported, each conditional on the test as written."""
    assert set(UNKNOWN_VALUE) <= set(FILES)
    for name, expected in UNKNOWN_VALUE.items():
        frame_line = SURE_SKIPS.get(name, (None, None))[1]  # the frame's own diagnostic (test above)
        got = {d["line"]: (d["certainty"], d["condition"]) for d in predicted()[name]
               if d["effect"] in ("break", "skip", "error") and d["line"] != frame_line}
        assert got == {line: ("conditional", condition) for line, condition in expected.items()}, got


def test_a_subclass_default_is_not_what_the_generated_init_sets():
    """A subclass that is no dataclass re-assigns a field's default in its body; the inherited generated
    ``__init__`` still sets the dataclass's own default (k35, measured: no break). gblint must not take the
    subclass's class attribute for the instance's value (before, it followed the routed block and gave a definite
    break): the block's call is listed as not followed instead."""
    import subprocess
    import sys
    name = "k35_dataclass_default_shadowed_by_subclass.py"
    proc = subprocess.run([sys.executable, "-m", "gblint", "check", "--no-cache", "--format", "json",
                           os.path.join(FOLDER, name)], capture_output=True, text=True, cwd=ROOT)
    doc = json.loads(proc.stdout)
    assert not [d for d in doc["diagnostics"] if d["certainty"] == "definite"], doc["diagnostics"]
    assert [u["call"] for u in doc["coverage"]["unfollowed"]] == ["self.block"]
    assert doc["coverage"]["complete"] is False


def test_a_method_call_on_an_undecided_receiver_is_not_followed():
    """``Base.integrate(solver, x)`` calls ``self.step``: with the solver built in the driver, its class's own
    ``step`` runs (h39 known_sub: the subclass's clean one; known_base: the base's printing one, a definite
    break); with a solver known only at run time, the call is listed as not followed (undecided), never
    answered by the ``step`` of the class the method is written in (the old resolver's guess, a false definite
    break: torch 2.13 runs the pickled subclass's ``step`` and does not break)."""
    import subprocess
    import sys
    names = ["h39_base_default_step_known_base.py", "h39_base_default_step_known_sub.py",
             "h39_base_default_step_undecided.py"]
    proc = subprocess.run([sys.executable, "-m", "gblint", "check", "--no-cache", "--format", "json"]
                          + [os.path.join(FOLDER, n) for n in names], capture_output=True, text=True, cwd=ROOT)
    coverage = json.loads(proc.stdout)["coverage"]
    unfollowed = [(os.path.basename(u["path"]), u["function"], u["call"], u["undecided"])
                  for u in coverage["unfollowed"]]
    assert unfollowed == [("h39_base_default_step_undecided.py", "Base.integrate", "self.step", True)]
    reached = {(os.path.basename(f["path"]), f["function"]) for f in coverage["functions"]}
    assert ("h39_base_default_step_known_sub.py", "Heun.step") in reached
    assert ("h39_base_default_step_known_sub.py", "Base.step") not in reached
    assert ("h39_base_default_step_known_base.py", "Base.step") in reached
    assert not any(n == "h39_base_default_step_undecided.py" and f.endswith(".step") for n, f in reached)
    assert predicted()["h39_base_default_step_undecided.py"] == []


#: program -> {line: condition} of the breaks Dynamo made under a test (or a class pick) of a value the program
#: changes in a way gblint does not follow exactly: a config's attributes stored by a name known only at run time
#: (``cfg.__dict__.update(...)``, ``setattr(opts, key, value)`` over a table, ``cfg.__dict__[key] = value``:
#: k40-k42), and ``**kwargs`` changed through another name (a local alias, a list holding it, a closure, a ``self``
#: attribute a method changes: k47, k48). Before, the default (or the empty dict) was taken as the value: k40 and
#: k42 printed "All checks passed", k47 and k48 missed every break.
CHANGED_UNSEEN = {
    "k40_config_dict_update_picks_class.py": {30: "when `self.block is MoEBlock`"},
    "k41_config_vars_setattr_branch.py": {31: "when `self.opts.debug`", 34: 'when `self.opts.norm == "rms"`'},
    "k42_frozen_config_object_setattr.py": {38: "when `self.cfg.clip`"},
    "k47_kwargs_changed_through_alias.py": {11: "when `kwargs`", 19: "when `len(opts) > 0`", 29: "when `flags`"},
    "k48_kwargs_stored_on_self.py": {20: "when `kwargs`"},
}

#: program -> {line: condition}: ``mark_dirty`` called in a helper handed the context (k44): whether ``forward``
#: returns the marked input as itself is not followed into the helper, so both breaks are conditional
DIRTY_IN_HELPER = {
    "k44_mark_dirty_through_helper.py": {
        8: "when `context.mark_dirty marks an input forward does not return as itself`",
        29: "when `_mark(...) leaves an input dirty`"},
}


@pytest.mark.parametrize("table", [CHANGED_UNSEEN, DIRTY_IN_HELPER], ids=["changed-unseen", "dirty-in-helper"])
def test_breaks_under_values_changed_unseen_are_conditional(table):
    """Each break Dynamo made in k40-k42, k44, k47 and k48 is reported, conditional on the test as written (every
    other diagnostic of the program too)."""
    assert set(table) <= set(FILES)
    for name, expected in table.items():
        got = {d["line"]: (d["certainty"], d["condition"]) for d in predicted()[name]
               if d["effect"] in ("break", "skip", "error")}
        assert got == {line: ("conditional", condition) for line, condition in expected.items()}, (name, got)


def test_mark_dirty_with_grad_off_is_definite():
    """``mark_dirty`` through a bound alias with no input requiring grad (a clone of the driver's input: k45), and
    directly with the input returned as itself under ``torch.no_grad()`` (k46): Dynamo inlines ``forward`` and
    breaks at the mark (GB2019), which gblint now reports as definite (before: missed, and conditional on
    ``not v.requires_grad``)."""
    for name, line in (("k45_mark_dirty_bound_alias_no_grad.py", 12), ("k46_mark_dirty_no_grad_returned.py", 10)):
        got = [d for d in predicted()[name] if d["code"] == "GBL141"]
        assert [(d["line"], d["certainty"]) for d in got] == [(line, "definite")], got


def test_changes_by_literal_name_or_read_only_aliases_stay_decided():
    """k43 changes a config only through literal names and keys of fields its choices do not read; k49 hands
    ``**kwargs`` to names that only read them: both are an honest all-clear (coverage complete, nothing
    conditional), as Dynamo measured (no break)."""
    import subprocess
    import sys
    names = ["k43_config_literal_field_change_clean.py", "k49_kwargs_aliases_read_only_clean.py"]
    proc = subprocess.run([sys.executable, "-m", "gblint", "check", "--no-cache", "--format", "json"]
                          + [os.path.join(FOLDER, n) for n in names], capture_output=True, text=True, cwd=ROOT)
    doc = json.loads(proc.stdout)
    assert doc["diagnostics"] == [] and doc["coverage"]["complete"] is True, doc
    assert all(not DOC["programs"][n]["breaks"] for n in names)



def test_match_cases_and_if_arms_are_branches():
    """A ``case`` body runs only when its pattern matches and no earlier case did: breaks in cases the driver's
    literal does not pick are never traced (k90), the picked one is definite (k91), a class pattern is not decided
    (k93: conditional on the case as written). A name bound differently in the arms of a ``match`` or an ``if``
    holds what the arm that ran bound (k92, k94: an int; k95: the tensor); where the arm is not known the break
    is conditional on it (the last block of ``tests/test_arm_kinds.py``). Before, ``match`` had no blocks and
    the last arm's binding was taken for every run: k90, k92 and k94 had definite false breaks."""
    for name in ("k90_match_untaken_cases_clean.py", "k92_match_binds_in_each_case.py",
                 "k94_if_arms_bind_int_or_tensor_clean.py"):
        assert predicted()[name] == [] and DOC["programs"][name]["breaks"] == [], name
    got = {n: [(d["line"], d["certainty"], d.get("condition")) for d in predicted()[n]]
           for n in ("k91_match_taken_case_breaks.py", "k93_match_class_pattern_breaks.py",
                     "k95_if_arm_rebinds_tensor_breaks.py")}
    assert got == {"k91_match_taken_case_breaks.py": [(12, "definite", None)],
                   "k93_match_class_pattern_breaks.py": [(17, "conditional", "when `match mode: case Verbose()`")],
                   "k95_if_arm_rebinds_tensor_breaks.py": [(11, "definite", None), (13, "definite", None)]}, got


def test_layers_appended_at_module_level_are_not_an_empty_list():
    """``LAYERS = []`` then ``LAYERS.append(Shift())`` in a module-level loop over ``range(2)``, handed to
    ``nn.ModuleList``: the layer is there for sure, and the loop over every index calls it, so its print skips the
    forward for sure (k98); appended under a test the module decides at run time, the layer may not be there: the
    break is conditional on it and the call listed as followed only in part (kb19); a layer picked by a name known
    at run time is a call not followed (k99). Before, k98 and k99 printed "All checks passed" (the list was taken
    for the empty one it was bound to, and the call on its item for a builtin value's method)."""
    import subprocess
    import sys
    names = ["k98_module_list_grown_in_loop.py", "k99_module_list_unknown_layers.py",
             "kb19_module_list_grown_under_a_test.py"]
    proc = subprocess.run([sys.executable, "-m", "gblint", "check", "--no-cache", "--format", "json"]
                          + [os.path.join(FOLDER, n) for n in names], capture_output=True, text=True, cwd=ROOT)
    doc = json.loads(proc.stdout)
    got = [(os.path.basename(d["path"]), d["line"], d["certainty"]) for d in doc["diagnostics"]]
    assert got == [("k98_module_list_grown_in_loop.py", 10, "definite"),
                   ("kb19_module_list_grown_under_a_test.py", 12, "conditional")], got
    unfollowed = {(os.path.basename(u["path"]), u["call"]) for u in doc["coverage"]["unfollowed"]}
    listed = dict(NOT_FOLLOWED, **PARTLY_FOLLOWED)
    assert unfollowed == {(n, c) for n, calls in listed.items() for c in calls}, unfollowed
    assert doc["coverage"]["complete"] is False
    for name in names:
        assert DOC["programs"][name]["skipped_frames"], name
        text = subprocess.run([sys.executable, "-m", "gblint", "check", "--no-cache", os.path.join(FOLDER, name)],
                              capture_output=True, text=True, cwd=ROOT).stdout
        assert "All checks passed" not in text, (name, text)


def test_data_where_an_int_is_wanted():
    """ka0-ka5 and ka9 hand a value read out of tensor data to a parameter torch's stubs type as ints: each break
    Dynamo made (GB0033) is reported, definite, by GBL139 at the call (GBL301 where it splits a caller, GBL201
    where a loop skips the frame); before, none was (not even with ``--conditional all``). The guards are clean."""
    for name in ("ka6_sizes_from_shape_clean.py", "ka7_tensor_of_sizes_clean.py", "ka8_int_parameter_clean.py"):
        assert predicted()[name] == [] and DOC["programs"][name]["breaks"] == [], name
    for name in FILES:
        if not name.startswith("ka") or not DOC["programs"][name]["breaks"]:
            continue
        measured = {b["line"] for b in DOC["programs"][name]["breaks"]}
        got = {d["line"] for d in predicted()[name] if d["code"] in ("GBL139", "GBL301", "GBL201")
               and d["certainty"] == "definite"}
        assert got == measured, (name, got, measured)


ALIASES = """\
from typing import Union

import torch


class SparseTensor:
    pass


Adj = Union[torch.Tensor, SparseTensor]
"""

ALIASED = """\
import torch
from torch import Tensor

import aliases as al
from aliases import Adj


@torch.compile(backend="eager")
def by_module(x: Tensor, edge: al.Adj) -> Tensor:
    return x * int(edge.max())


@torch.compile(backend="eager")
def by_name(x: Tensor, edge: Adj) -> Tensor:
    return x * int(edge.max())


def main():
    edge = torch.tensor([[0, 1], [1, 2]])
    by_module(torch.randn(4, 3), edge)
    by_name(torch.randn(4, 3), edge)
"""


def test_a_type_alias_read_from_another_module_is_what_the_caller_passes(tmp_path):
    """``edge: Adj`` and ``edge: al.Adj`` with ``Adj = Union[Tensor, SparseTensor]`` in another module (kb54 measures
    torch's own alias): the driver passes a tensor, so ``int(edge.max())`` breaks for sure (Dynamo breaks at both,
    GB0124, measured by a helper on torch 2.13); before, the parameter was taken for no tensor."""
    (tmp_path / "aliases.py").write_text(ALIASES)
    (tmp_path / "main.py").write_text(ALIASED)
    doc = json.loads(run_cli("check", "--isolated", "--no-cache", "--format", "json", "--exit-zero", "main.py",
                             cwd=str(tmp_path)).stdout)
    got = sorted((d["line"], d["code"], d["certainty"]) for d in doc["diagnostics"])
    assert got == [(10, "GBL102", "definite"), (15, "GBL102", "definite")], got


def test_a_slice_bound_bound_to_a_tensor_by_name_skips_the_frame():
    """Measured (kd22): a slice bound that is a name bound to a tensor (``s = ptr[1]``, ``n = lengths.max()``,
    ``n = torch.tensor(3)``) or taken by a loop from a parameter the driver fills with a tensor (torch_geometric's
    ``HeteroLinear.forward_naive``) skips the frame (GB0124); an ``int`` parameter's or a shape's does not, nor one a
    loop takes from lists of ints a module returns (diffusers' Lumina2: the kind of an unpacked result is no fact).
    An ``int`` parameter as a bound on the line of another break leaves that break reported (``F.one_hot(i, max(top,
    n))[..., :n]`` breaks at ``one_hot``, GB0033: mixture-of-experts' ``safe_one_hot``)."""
    found = sorted((d["line"], d["code"], d["certainty"], d["effect"])
                   for d in predicted()["kd22_tensor_slice_bound_by_name.py"])
    assert found == [(12, "GBL135", "definite", "skip"), (18, "GBL135", "definite", "skip"),
                     (23, "GBL135", "definite", "skip"), (28, "GBL135", "definite", "skip"),
                     (43, "GBL139", "definite", "break")], found


DEVICE_SET = """import torch

torch.set_default_device("cpu")


class Check(torch.nn.Module):
    def forward(self, preds):
        if preds.device == torch.device("cpu"):
            if not torch.all((preds >= 0) * (preds <= 1)):
                preds = preds.sigmoid()
        return preds * 2


def main():
    model = torch.compile(Check())
    return model(torch.rand(32) * 2)
"""


def test_dtype_and_device_of_the_driver_inputs_are_facts(tmp_path):
    """Measured (kd23): the driver's ``torch.rand(32) * 2`` is a float32 tensor on the CPU, so ``is_floating_point()``,
    ``is_complex()`` (methods or ``torch.`` functions), ``.device == torch.device("cpu")``, ``.device.type``,
    ``.is_cuda`` and ``.is_cpu`` decide their branches: the breaks behind the arms taken are definite and those behind the others are not reported
    (torchmetrics' ``normalize_logits_if_needed``). A program that sets the default device (any file of the project
    read: it is checked alone) leaves the device test undecided: conditional (Dynamo breaks at line 9, GB0170, measured
    on torch 2.13 with ``torch.set_default_device("cpu")``; it would not on a CUDA default)."""
    found = sorted((d["line"], d["certainty"]) for d in predicted()["kd23_dtype_and_device_of_inputs.py"])
    assert found == [(11, "definite"), (17, "definite")], found
    (tmp_path / "main.py").write_text(DEVICE_SET)
    doc = json.loads(run_cli("check", "--isolated", "--no-cache", "--format", "json", "--exit-zero", "main.py",
                             cwd=str(tmp_path)).stdout)
    found = [(d["line"], d["certainty"], d["condition"]) for d in doc["diagnostics"]]
    assert found == [(9, "conditional", 'when `preds.device == torch.device("cpu")`')], found


#: program -> the line and condition of a break met whichever arm of a test decided at run time runs: the condition
#: left is a test that inputs are not empty (the default output shows it)
EITHER_ARM = {"kd25_break_met_under_either_arm.py": (8, "when `x.numel() > 0` (true for inputs that are not empty)")}


def test_a_break_met_whichever_arm_runs_drops_that_test_from_its_condition():
    """Measured (kd25): a helper that breaks on inputs that are not empty, called from both arms of a test decided at
    run time, breaks whichever arm runs: the condition names only the test that inputs are not empty (shown by
    default), not the arm's test (before: "and 1 more condition")."""
    for name, (line, condition) in EITHER_ARM.items():
        found = [(d["line"], d["certainty"], d["condition"]) for d in predicted()[name]]
        assert found == [(line, "conditional", condition)], found


def test_the_rest_after_a_return_nested_in_an_arm_runs_only_when_it_did_not_return():
    """Measured (kd26, a helper found it): after ``if a: if b: return``, the rest runs only when ``not (a and b)``; it
    was taken to run always (a definite break at the ``print`` where Dynamo made none). Decided parts decide it:
    ``if A: if x.is_complex(): return`` with a float ``x`` always reaches the ``print`` (definite)."""
    found = [(d["line"], d["certainty"]) for d in predicted()["kd26_return_nested_in_an_arm.py"]]
    assert found == [(13, "conditional"), (21, "definite"), (31, "conditional")], found
