"""TorchMetrics: metric modules as users compile them, called as ``metric(preds, target)`` (the
metric's ``forward``: it updates the running state and returns the batch's value), with random
inputs of the kind each expects.

- classification: binary accuracy on probabilities, macro F1, AUROC and a normalized confusion
  matrix on multiclass logits, average precision on multilabel scores;
- regression: mean squared error, Pearson correlation (a metric whose ``forward`` takes the
  full-state-update path) and R2;
- retrieval: normalized DCG over queries given by ``indexes``;
- audio: scale-invariant SNR and SNR on waveforms;
- image: SSIM on images;
- aggregation: ``MeanMetric`` with weights;
- ``MetricCollection`` of accuracy, precision and recall (with its compute groups);
- text: word error rate on lists of strings.

Differentiable metrics get predictions that require a gradient, so their training step
back-propagates the metric's value; the others give no tensor to back-propagate, so only their
eval mode is measured.
"""
from __future__ import annotations

from typing import Dict, List

BATCH = 32
CLASSES = 5


def _metric(imports: str, build: str, inputs: str, args: str = "preds, target", kwargs: str = "") -> str:
    lines = [imports, "", f"model = {build}", inputs, f"args = ({args},)", f"kwargs = dict({kwargs})"]
    return "\n".join(lines) + "\n"


_MULTICLASS = (f"preds = torch.randn({BATCH}, {CLASSES})\n"
               f"target = torch.randint(0, {CLASSES}, ({BATCH},))")
_REGRESSION = (f"preds = torch.randn({BATCH}, requires_grad=True)\n"
               f"target = torch.randn({BATCH})")
_AUDIO = ("preds = torch.randn(2, 4000, requires_grad=True)\n"
          "target = torch.randn(2, 4000)")
_IMAGES = ("preds = torch.rand(2, 3, 32, 32, requires_grad=True)\n"
           "target = torch.rand(2, 3, 32, 32)")


def _entries() -> Dict[str, str]:
    e: Dict[str, str] = {}
    e["binary_accuracy"] = _metric(
        "from torchmetrics.classification import BinaryAccuracy",
        "BinaryAccuracy(threshold=0.5)",
        f"preds = torch.rand({BATCH})\ntarget = torch.randint(0, 2, ({BATCH},))")
    e["multiclass_f1_macro"] = _metric(
        "from torchmetrics.classification import MulticlassF1Score",
        f"MulticlassF1Score(num_classes={CLASSES}, average=\"macro\")", _MULTICLASS)
    e["multiclass_auroc"] = _metric(
        "from torchmetrics.classification import MulticlassAUROC",
        f"MulticlassAUROC(num_classes={CLASSES})", _MULTICLASS)
    e["multiclass_confusion_matrix"] = _metric(
        "from torchmetrics.classification import MulticlassConfusionMatrix",
        f"MulticlassConfusionMatrix(num_classes={CLASSES}, normalize=\"true\")", _MULTICLASS)
    e["multilabel_average_precision"] = _metric(
        "from torchmetrics.classification import MultilabelAveragePrecision",
        "MultilabelAveragePrecision(num_labels=4, thresholds=10)",
        f"preds = torch.rand({BATCH}, 4)\ntarget = torch.randint(0, 2, ({BATCH}, 4))")
    e["mean_squared_error"] = _metric(
        "from torchmetrics.regression import MeanSquaredError", "MeanSquaredError()", _REGRESSION)
    e["pearson_corrcoef"] = _metric(
        "from torchmetrics.regression import PearsonCorrCoef", "PearsonCorrCoef()", _REGRESSION)
    e["r2_score"] = _metric(
        "from torchmetrics.regression import R2Score", "R2Score()", _REGRESSION)
    e["retrieval_ndcg"] = _metric(
        "from torchmetrics.retrieval import RetrievalNormalizedDCG",
        "RetrievalNormalizedDCG(top_k=5)",
        f"preds = torch.rand({BATCH})\ntarget = torch.randint(0, 2, ({BATCH},))\n"
        f"indexes = torch.arange({BATCH}) // 8",
        kwargs="indexes=indexes")
    e["si_snr"] = _metric(
        "from torchmetrics.audio import ScaleInvariantSignalNoiseRatio", "ScaleInvariantSignalNoiseRatio()", _AUDIO)
    e["snr"] = _metric(
        "from torchmetrics.audio import SignalNoiseRatio", "SignalNoiseRatio(zero_mean=True)", _AUDIO)
    e["ssim"] = _metric(
        "from torchmetrics.image import StructuralSimilarityIndexMeasure",
        "StructuralSimilarityIndexMeasure(data_range=1.0)", _IMAGES)
    e["mean_metric"] = _metric(
        "from torchmetrics.aggregation import MeanMetric", "MeanMetric()",
        f"value = torch.randn({BATCH}, requires_grad=True)\nweight = torch.rand({BATCH})",
        args="value, weight")
    e["metric_collection"] = _metric(
        "from torchmetrics import MetricCollection\n"
        "from torchmetrics.classification import MulticlassAccuracy, MulticlassPrecision, MulticlassRecall",
        "MetricCollection([\n"
        f"    MulticlassAccuracy(num_classes={CLASSES}),\n"
        f"    MulticlassPrecision(num_classes={CLASSES}),\n"
        f"    MulticlassRecall(num_classes={CLASSES}),\n"
        "])", _MULTICLASS)
    e["word_error_rate"] = _metric(
        "from torchmetrics.text import WordErrorRate", "WordErrorRate()",
        'preds = ["the cat sat on the mat", "hello world", "a quick brown fox"]\n'
        'target = ["the cat sat on a mat", "hello there world", "the quick brown fox"]')
    return e


def names() -> List[str]:
    """The entries, sorted."""
    return sorted(_entries())


def setup(name: str) -> str:
    """User-style source for the entry ``name`` (see ``spec.py``)."""
    return "import torch\n" + _entries()[name]
