"""gblint's break-source rules, one module per family (installed as ``gblint.rules``).

:data:`ALL_RULES` lists one instance of every rule; the engine groups them by the libcst
node types they inspect and runs them all in a single traversal.
"""
from .autograd import BackwardCall, DataAssignment, TensorHook
from .base import BreakSite, Rule
from .builtins import DeepcopyTensor, FormatTensor, LoggingCall, PrintCall, ReprOfTensor, SkippedModuleCall
from .control_flow import DataDependentBranch
from .dynamic_shape import DynamicShapeOp
from .explicit import ExplicitGraphBreak, SkipFrameMarker, StepUnsupportedMarker
from .language import ClassStatement, ModuleConstruction, SortedWithKey, UncaughtRaise
from .scalars import NumpyConversion, ScalarExtraction, ToList
from .tensor_methods import UnsupportedTensorMethod

ALL_RULES = [
    ExplicitGraphBreak(), ScalarExtraction(), ToList(), NumpyConversion(), DataDependentBranch(),
    DynamicShapeOp(), PrintCall(), ReprOfTensor(), LoggingCall(), SkippedModuleCall(), DeepcopyTensor(),
    ClassStatement(), ModuleConstruction(), SortedWithKey(), BackwardCall(), TensorHook(), DataAssignment(),
    SkipFrameMarker(), StepUnsupportedMarker(), FormatTensor(), UncaughtRaise(), UnsupportedTensorMethod(),
]

__all__ = ["ALL_RULES", "BreakSite", "Rule"]
