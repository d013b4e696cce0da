"""gblint's break-source rules, one module per family (installed as ``gblint.rules``).

:data:`ALL_RULES` lists one instance of every rule; the engine groups them by the libcst
node types they inspect and runs them all in a single traversal.
"""
from .autograd import ApplyDuplicateInput, BackwardCall, DataAssignment, MarkDirty, TensorHook
from .base import BreakSite, Rule
from .builtins import DeepcopyTensor, LoggingCall, PrintCall, RangeOfTensor, ReprOfTensor, SkippedModuleCall
from .control_flow import AssertTensorContainer, DataDependentBranch
from .dynamic_shape import DynamicShapeOp
from .dynamo_api import DynamoApiInRegion
from .explicit import ExplicitGraphBreak, SkipFrameMarker, StepUnsupportedMarker
from .formatting import FormatTensor
from .hooks import BackwardHookedModule, HookHandleUse, ModuleHookInRegion, OptimizerCall
from .imports import ImportFailure
from .indexing import DataDependentIndex, DataDependentSlice
from .language import ClassStatement, MetaclassSuperCall, ModuleConstruction, SortedWithKey, UncaughtRaise
from .objects import BuiltinGetattr, ClassAssignment, ContextVarCall, DictIteratorAcrossBreak, TensorSetUse
from .scalars import NumpyConversion, ScalarExtraction, ToList
from .tensor_methods import UnsupportedTensorMethod
from .trace_errors import OpFailsInTry

ALL_RULES = [
    ExplicitGraphBreak(), ScalarExtraction(), ToList(), NumpyConversion(), DataDependentBranch(),
    DynamicShapeOp(), PrintCall(), ReprOfTensor(), LoggingCall(), SkippedModuleCall(), DeepcopyTensor(),
    ClassStatement(), ModuleConstruction(), SortedWithKey(), BackwardCall(), TensorHook(), DataAssignment(),
    SkipFrameMarker(), StepUnsupportedMarker(), FormatTensor(), UncaughtRaise(), UnsupportedTensorMethod(),
    ImportFailure(), ContextVarCall(), ModuleHookInRegion(), BackwardHookedModule(), DynamoApiInRegion(),
    BuiltinGetattr(), OptimizerCall(), ClassAssignment(), TensorSetUse(), DataDependentIndex(), OpFailsInTry(),
    DictIteratorAcrossBreak(), HookHandleUse(), DataDependentSlice(), AssertTensorContainer(), MarkDirty(),
    RangeOfTensor(), ApplyDuplicateInput(), MetaclassSuperCall(),
]

__all__ = ["ALL_RULES", "BreakSite", "Rule"]
