"""PyTorch Geometric: the models of ``torch_geometric.nn.models`` and a broad selection of the
message-passing layers of ``torch_geometric.nn`` (each used on its own as the model, the way users
compile a layer), plus graph-level models that pool with a readout, all built small (16 input
channels, 32 hidden, two layers) with random weights.

Inputs are of the kind PyG's ``torch.compile`` guide uses: node features ``x`` and a plain
``edge_index`` tensor (no ``SparseTensor``), here a fixed random graph of 20 nodes and 64 edges
drawn under ``torch.manual_seed(0)``; ``edge_attr``, ``edge_weight``, ``pos`` or ``batch`` are added
where the layer or model takes them. Graph-level entries use a batch of two graphs of ten nodes,
each with its own 32 edges.

Only what runs without the optional compiled extensions (``torch_scatter``, ``torch_sparse``,
``torch_cluster``, ``torch_spline_conv``, ``pyg-lib``) is listed: ``SplineConv``, ``GravNetConv``,
``DynamicEdgeConv``, ``XConv``, ``PANConv``, ``DimeNet``/``DimeNetPlusPlus``, ``ViSNet``, ``GNNFF``
and ``Node2Vec`` need them; ``SchNet`` is given its own all-pairs interaction graph instead of its
default radius graph. ``LabelPropagation`` (a ``no_grad`` forward, nothing to train),
``CorrectAndSmooth`` (no forward) and ``GroupAddRev`` (in training it frees its input's storage,
so the same inputs cannot be fed twice) are left out. Layers without weights (``APPNP``,
``WLConvContinuous``) follow a ``Linear`` in a ``torch_geometric.nn.Sequential``.
"""
from __future__ import annotations

from typing import Dict, List

NODES = 20
EDGES = 64


def _graph(channels: int = 16, edge_dim: int = 0, weight: bool = False, pos: bool = False,
           batch: bool = False, edge_type: int = 0) -> str:
    """The input lines: a seeded random graph and the extras asked for."""
    lines = ["torch.manual_seed(0)", f"x = torch.randn({NODES}, {channels})"]
    if batch:
        half = NODES // 2
        lines.append(f"edge_index = torch.cat([torch.randint(0, {half}, (2, {EDGES // 2})), "
                     f"torch.randint({half}, {NODES}, (2, {EDGES // 2}))], dim=1)")
        lines.append(f"batch = torch.arange(2).repeat_interleave({half})")
    else:
        lines.append(f"edge_index = torch.randint(0, {NODES}, (2, {EDGES}))")
    if edge_dim:
        lines.append(f"edge_attr = torch.randn({EDGES}, {edge_dim})")
    if weight:
        lines.append(f"edge_weight = torch.rand({EDGES})")
    if edge_type:
        lines.append(f"edge_type = torch.randint(0, {edge_type}, ({EDGES},))")
    if pos:
        lines.append(f"pos = torch.randn({NODES}, 3)")
    return "\n".join(lines) + "\n"


def _src(imports: str, build: str, args: str, kwargs: str = "", pre: str = "", **graph) -> str:
    """One entry's source: ``imports``, ``build`` (defines ``model``, or empty when ``pre`` does),
    the graph, the lines ``pre`` (what is derived from the graph), the call."""
    text = imports.strip() + "\n\n" + (build.strip() + "\n" if build.strip() else "") + _graph(**graph)
    if pre:
        text += pre.strip() + "\n"
    tail = "" if "," in args else ","
    return text + f"args = ({args}{tail})\nkwargs = dict({kwargs})\n"


def _conv(layer: str, build: str, args: str = "x, edge_index", kwargs: str = "", pre: str = "",
          **graph) -> str:
    """A message-passing layer of ``torch_geometric.nn`` used as the model."""
    return _src(f"from torch_geometric.nn import {layer}", f"model = {build}", args, kwargs, pre, **graph)


def _entries() -> Dict[str, str]:
    e: Dict[str, str] = {}

    # ---- models of torch_geometric.nn.models
    e["GCN"] = _src("from torch_geometric.nn import GCN",
                    "model = GCN(16, 32, num_layers=2, out_channels=8)",
                    "x, edge_index", "edge_weight=edge_weight", weight=True)
    e["GCN_jk_cat_batch_norm"] = _src(
        "from torch_geometric.nn import GCN",
        "model = GCN(16, 32, num_layers=3, out_channels=8, dropout=0.5, norm='batch_norm', jk='cat')",
        "x, edge_index")
    e["GAT"] = _src("from torch_geometric.nn import GAT",
                    "model = GAT(16, 32, num_layers=2, out_channels=8, heads=4)", "x, edge_index")
    e["GAT_v2_edge_attr"] = _src("from torch_geometric.nn import GAT",
                                 "model = GAT(16, 32, num_layers=2, out_channels=8, v2=True, heads=4, edge_dim=4)",
                                 "x, edge_index", "edge_attr=edge_attr", edge_dim=4)
    e["GIN"] = _src("from torch_geometric.nn import GIN",
                    "model = GIN(16, 32, num_layers=2, out_channels=8)", "x, edge_index")
    e["GraphSAGE"] = _src("from torch_geometric.nn import GraphSAGE",
                          "model = GraphSAGE(16, 32, num_layers=2, out_channels=8)", "x, edge_index")
    e["PNA"] = _src(
        "from torch_geometric.nn import PNA\nfrom torch_geometric.utils import degree",
        "", "x, edge_index",
        pre=f"deg = torch.bincount(degree(edge_index[1], num_nodes={NODES}, dtype=torch.long))\n"
            "model = PNA(16, 32, num_layers=2, out_channels=8, aggregators=['mean', 'min', 'max', 'std'],\n"
            "            scalers=['identity', 'amplification', 'attenuation'], deg=deg)")
    e["EdgeCNN"] = _src("from torch_geometric.nn import EdgeCNN",
                        "model = EdgeCNN(16, 32, num_layers=2, out_channels=8)", "x, edge_index")
    e["MLP"] = _src("from torch_geometric.nn import MLP",
                    "model = MLP([16, 32, 32, 8], norm='batch_norm', dropout=0.1)", "x")
    e["GraphUNet"] = _src("from torch_geometric.nn import GraphUNet",
                          "model = GraphUNet(16, 32, 8, depth=2, pool_ratios=0.5)", "x, edge_index")
    e["AttentiveFP"] = _src("from torch_geometric.nn.models import AttentiveFP",
                            "model = AttentiveFP(16, 32, 8, edge_dim=4, num_layers=2, num_timesteps=2)",
                            "x, edge_index, edge_attr, batch", edge_dim=4, batch=True)
    e["SchNet"] = (
        "import torch\n"
        "from torch_geometric.nn.models import SchNet\n"
        "\n"
        "\n"
        "def interaction_graph(pos, batch):\n"
        "    # all pairs of atoms of the same molecule closer than the cutoff\n"
        "    dist = torch.cdist(pos, pos)\n"
        "    adj = (dist < 5.0) & (batch.view(-1, 1) == batch.view(1, -1))\n"
        "    adj.fill_diagonal_(False)\n"
        "    edge_index = adj.nonzero().t()\n"
        "    return edge_index, dist[edge_index[0], edge_index[1]]\n"
        "\n"
        "\n"
        "model = SchNet(hidden_channels=32, num_filters=32, num_interactions=2, num_gaussians=16,\n"
        "               cutoff=5.0, interaction_graph=interaction_graph)\n"
        "torch.manual_seed(0)\n"
        f"z = torch.randint(1, 10, ({NODES},))\n"
        f"pos = torch.randn({NODES}, 3)\n"
        f"batch = torch.arange(2).repeat_interleave({NODES // 2})\n"
        "args = (z, pos, batch)\n"
        "kwargs = dict()\n"
    )
    e["LINKX"] = _src("from torch_geometric.nn.models import LINKX",
                      f"model = LINKX({NODES}, 16, 32, 8, num_layers=2)", "x, edge_index")
    e["RECT_L"] = _src("from torch_geometric.nn.models import RECT_L",
                       "model = RECT_L(16, 32)", "x, edge_index")
    e["GAE"] = _src("from torch_geometric.nn import GAE, GCN",
                    "model = GAE(GCN(16, 32, num_layers=2, out_channels=16))", "x, edge_index")
    e["VGAE"] = (
        "import torch\n"
        "from torch_geometric.nn import GCNConv, VGAE\n"
        "\n"
        "\n"
        "class VariationalGCNEncoder(torch.nn.Module):\n"
        "    def __init__(self, in_channels, out_channels):\n"
        "        super().__init__()\n"
        "        self.conv1 = GCNConv(in_channels, 2 * out_channels)\n"
        "        self.conv_mu = GCNConv(2 * out_channels, out_channels)\n"
        "        self.conv_logstd = GCNConv(2 * out_channels, out_channels)\n"
        "\n"
        "    def forward(self, x, edge_index):\n"
        "        x = self.conv1(x, edge_index).relu()\n"
        "        return self.conv_mu(x, edge_index), self.conv_logstd(x, edge_index)\n"
        "\n"
        "\n"
        "model = VGAE(VariationalGCNEncoder(16, 16))\n"
        + _graph() + "args = (x, edge_index)\nkwargs = dict()\n"
    )
    e["DeepGraphInfomax"] = (
        "import torch\n"
        "from torch_geometric.nn import DeepGraphInfomax, GCNConv\n"
        "\n"
        "\n"
        "class Encoder(torch.nn.Module):\n"
        "    def __init__(self, in_channels, hidden_channels):\n"
        "        super().__init__()\n"
        "        self.conv = GCNConv(in_channels, hidden_channels)\n"
        "        self.prelu = torch.nn.PReLU(hidden_channels)\n"
        "\n"
        "    def forward(self, x, edge_index):\n"
        "        return self.prelu(self.conv(x, edge_index))\n"
        "\n"
        "\n"
        "def corruption(x, edge_index):\n"
        "    return x[torch.randperm(x.size(0))], edge_index\n"
        "\n"
        "\n"
        "model = DeepGraphInfomax(32, encoder=Encoder(16, 32),\n"
        "                         summary=lambda z, *args, **kwargs: z.mean(dim=0).sigmoid(),\n"
        "                         corruption=corruption)\n"
        + _graph() + "args = (x, edge_index)\nkwargs = dict()\n"
    )
    e["SGFormer"] = _src("from torch_geometric.nn.models import SGFormer",
                         "model = SGFormer(16, 32, 8, trans_num_layers=1, gnn_num_layers=2)",
                         "x, edge_index, batch", batch=True)
    e["DeepGCNLayer"] = _src(
        "from torch.nn import LayerNorm, ReLU\nfrom torch_geometric.nn import DeepGCNLayer, GENConv",
        "model = DeepGCNLayer(GENConv(32, 32, aggr='softmax', t=1.0, learn_t=True, num_layers=2, norm='layer'),\n"
        "                     LayerNorm(32), ReLU(inplace=True), block='res+', dropout=0.1)",
        "x, edge_index", channels=32)
    e["MetaLayer"] = (
        "import torch\n"
        "from torch.nn import Linear, ReLU, Sequential\n"
        "from torch_geometric.nn import MetaLayer\n"
        "from torch_geometric.utils import scatter\n"
        "\n"
        "\n"
        "class EdgeModel(torch.nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.edge_mlp = Sequential(Linear(2 * 16 + 4 + 8, 32), ReLU(), Linear(32, 4))\n"
        "\n"
        "    def forward(self, src, dst, edge_attr, u, batch):\n"
        "        out = torch.cat([src, dst, edge_attr, u[batch]], 1)\n"
        "        return self.edge_mlp(out)\n"
        "\n"
        "\n"
        "class NodeModel(torch.nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.node_mlp_1 = Sequential(Linear(16 + 4, 32), ReLU(), Linear(32, 32))\n"
        "        self.node_mlp_2 = Sequential(Linear(16 + 32 + 8, 32), ReLU(), Linear(32, 16))\n"
        "\n"
        "    def forward(self, x, edge_index, edge_attr, u, batch):\n"
        "        row, col = edge_index\n"
        "        out = torch.cat([x[row], edge_attr], dim=1)\n"
        "        out = self.node_mlp_1(out)\n"
        "        out = scatter(out, col, dim=0, dim_size=x.size(0), reduce='mean')\n"
        "        out = torch.cat([x, out, u[batch]], dim=1)\n"
        "        return self.node_mlp_2(out)\n"
        "\n"
        "\n"
        "class GlobalModel(torch.nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.global_mlp = Sequential(Linear(8 + 16, 32), ReLU(), Linear(32, 8))\n"
        "\n"
        "    def forward(self, x, edge_index, edge_attr, u, batch):\n"
        "        out = torch.cat([u, scatter(x, batch, dim=0, reduce='mean')], dim=1)\n"
        "        return self.global_mlp(out)\n"
        "\n"
        "\n"
        "model = MetaLayer(EdgeModel(), NodeModel(), GlobalModel())\n"
        + _graph(edge_dim=4, batch=True)
        + "u = torch.randn(2, 8)\n"
        "args = (x, edge_index, edge_attr, u, batch)\nkwargs = dict()\n"
    )

    # ---- message-passing layers of torch_geometric.nn, each used as the model
    e["GCNConv"] = _conv("GCNConv", "GCNConv(16, 32)", kwargs="edge_weight=edge_weight", weight=True)
    e["GATConv"] = _conv("GATConv", "GATConv(16, 8, heads=4)")
    e["GATv2Conv"] = _conv("GATv2Conv", "GATv2Conv(16, 8, heads=4, edge_dim=4)",
                           kwargs="edge_attr=edge_attr", edge_dim=4)
    e["SAGEConv"] = _conv("SAGEConv", "SAGEConv(16, 32)")
    e["SAGEConv_multi_aggr"] = _conv("SAGEConv", "SAGEConv(16, 32, aggr=['mean', 'max', 'std'])")
    e["GINConv"] = _src("from torch_geometric.nn import GINConv, MLP",
                        "model = GINConv(MLP([16, 32, 32]), train_eps=True)", "x, edge_index")
    e["GraphConv"] = _conv("GraphConv", "GraphConv(16, 32, aggr='mean')")
    e["TransformerConv"] = _conv("TransformerConv", "TransformerConv(16, 8, heads=4, edge_dim=4, beta=True)",
                                 kwargs="edge_attr=edge_attr", edge_dim=4)
    e["ChebConv"] = _conv("ChebConv", "ChebConv(16, 32, K=3)")
    e["SGConv"] = _conv("SGConv", "SGConv(16, 32, K=2)")
    e["APPNP"] = _src(
        "from torch.nn import Linear, ReLU\nfrom torch_geometric.nn import APPNP, Sequential",
        "model = Sequential('x, edge_index', [\n"
        "    (Linear(16, 32), 'x -> x'),\n"
        "    ReLU(inplace=True),\n"
        "    (Linear(32, 8), 'x -> x'),\n"
        "    (APPNP(K=10, alpha=0.1), 'x, edge_index -> x'),\n"
        "])", "x, edge_index")
    e["ARMAConv"] = _conv("ARMAConv", "ARMAConv(16, 32, num_stacks=2, num_layers=2)")
    e["TAGConv"] = _conv("TAGConv", "TAGConv(16, 32, K=3)")
    e["GENConv"] = _conv("GENConv", "GENConv(16, 32, aggr='softmax', learn_t=True, edge_dim=4)",
                         kwargs="edge_attr=edge_attr", edge_dim=4)
    e["GeneralConv"] = _conv("GeneralConv", "GeneralConv(16, 32, in_edge_channels=4, attention=True, heads=4)",
                             kwargs="edge_attr=edge_attr", edge_dim=4)
    e["ResGatedGraphConv"] = _conv("ResGatedGraphConv", "ResGatedGraphConv(16, 32)")
    e["EdgeConv"] = _src("from torch_geometric.nn import EdgeConv, MLP",
                         "model = EdgeConv(MLP([32, 32, 32]), aggr='max')", "x, edge_index")
    e["PointNetConv"] = _src(
        "from torch_geometric.nn import MLP, PointNetConv",
        "model = PointNetConv(local_nn=MLP([16 + 3, 32, 32]), global_nn=MLP([32, 32]))",
        "x, pos, edge_index", pos=True)
    e["PointTransformerConv"] = _conv("PointTransformerConv", "PointTransformerConv(16, 32)",
                                      args="x, pos, edge_index", pos=True)
    e["GMMConv"] = _conv("GMMConv", "GMMConv(16, 32, dim=2, kernel_size=4)",
                         kwargs="edge_attr=edge_attr", edge_dim=2)
    e["NNConv"] = _src(
        "from torch.nn import Linear, ReLU, Sequential\nfrom torch_geometric.nn import NNConv",
        "model = NNConv(16, 32, Sequential(Linear(4, 32), ReLU(), Linear(32, 16 * 32)), aggr='mean')",
        "x, edge_index, edge_attr", edge_dim=4)
    e["CGConv"] = _conv("CGConv", "CGConv(16, dim=4, batch_norm=True)", kwargs="edge_attr=edge_attr",
                        edge_dim=4)
    e["FeaStConv"] = _conv("FeaStConv", "FeaStConv(16, 32, heads=2)")
    e["LEConv"] = _conv("LEConv", "LEConv(16, 32)")
    e["ClusterGCNConv"] = _conv("ClusterGCNConv", "ClusterGCNConv(16, 32, diag_lambda=0.1)")
    e["SuperGATConv"] = _conv("SuperGATConv", "SuperGATConv(16, 8, heads=4, attention_type='MX')")
    e["FAConv"] = _conv("FAConv", "FAConv(16, eps=0.1)", args="x, x_0, edge_index", pre="x_0 = x.clone()")
    e["EGConv"] = _conv("EGConv", "EGConv(16, 32, aggregators=['sum', 'mean', 'max'], num_heads=4, num_bases=4)")
    e["PDNConv"] = _conv("PDNConv", "PDNConv(16, 32, edge_dim=4, hidden_channels=16)",
                         kwargs="edge_attr=edge_attr", edge_dim=4)
    e["GCN2Conv"] = _conv("GCN2Conv", "GCN2Conv(16, alpha=0.1, theta=0.5, layer=1)",
                          args="x, x_0, edge_index", pre="x_0 = x.clone()")
    e["WLConvContinuous"] = _src(
        "from torch.nn import Linear\nfrom torch_geometric.nn import Sequential, WLConvContinuous",
        "model = Sequential('x, edge_index', [\n"
        "    (Linear(16, 32), 'x -> x'),\n"
        "    (WLConvContinuous(), 'x, edge_index -> x'),\n"
        "    (WLConvContinuous(), 'x, edge_index -> x'),\n"
        "])", "x, edge_index")
    e["FiLMConv"] = _conv("FiLMConv", "FiLMConv(16, 32, num_relations=3)", kwargs="edge_type=edge_type",
                          edge_type=3)
    e["HypergraphConv"] = (
        "import torch\n"
        "from torch_geometric.nn import HypergraphConv\n"
        "\n"
        "model = HypergraphConv(16, 32)\n"
        "torch.manual_seed(0)\n"
        f"x = torch.randn({NODES}, 16)\n"
        "# node i belongs to hyperedges i // 4 and i % 5\n"
        f"nodes = torch.arange({NODES})\n"
        "hyperedge_index = torch.stack([torch.cat([nodes, nodes]), torch.cat([nodes // 4, 5 + nodes % 5])])\n"
        "args = (x, hyperedge_index)\nkwargs = dict()\n"
    )
    e["RGCNConv"] = _conv("RGCNConv", "RGCNConv(16, 32, num_relations=3, num_bases=2)",
                          args="x, edge_index, edge_type", edge_type=3)
    e["GPSConv"] = _src(
        "from torch_geometric.nn import GINConv, GPSConv, MLP",
        "model = GPSConv(32, GINConv(MLP([32, 32, 32])), heads=4, attn_type='multihead')",
        "x, edge_index, batch", channels=32, batch=True)
    e["HGTConv"] = (
        "import torch\n"
        "from torch_geometric.nn import HGTConv\n"
        "\n"
        "metadata = (['paper', 'author'], [('author', 'writes', 'paper'), ('paper', 'rev_writes', 'author'),\n"
        "                                   ('paper', 'cites', 'paper')])\n"
        "model = HGTConv(16, 32, metadata, heads=4)\n"
        "torch.manual_seed(0)\n"
        "x_dict = {'paper': torch.randn(12, 16), 'author': torch.randn(8, 16)}\n"
        "writes = torch.stack([torch.randint(0, 8, (24,)), torch.randint(0, 12, (24,))])\n"
        "edge_index_dict = {\n"
        "    ('author', 'writes', 'paper'): writes,\n"
        "    ('paper', 'rev_writes', 'author'): writes.flip(0),\n"
        "    ('paper', 'cites', 'paper'): torch.randint(0, 12, (2, 24)),\n"
        "}\n"
        "args = (x_dict, edge_index_dict)\nkwargs = dict()\n"
    )

    # ---- graph-level models: message passing, pooling, readout
    e["pool_global_mean_pool"] = _src(
        "from torch.nn import Linear, ReLU\nfrom torch_geometric.nn import GCNConv, Sequential, global_mean_pool",
        "model = Sequential('x, edge_index, batch', [\n"
        "    (GCNConv(16, 32), 'x, edge_index -> x'),\n"
        "    ReLU(inplace=True),\n"
        "    (GCNConv(32, 32), 'x, edge_index -> x'),\n"
        "    ReLU(inplace=True),\n"
        "    (global_mean_pool, 'x, batch -> x'),\n"
        "    Linear(32, 4),\n"
        "])", "x, edge_index, batch", batch=True)
    e["pool_TopKPooling"] = _pool_net(
        "TopKPooling", "TopKPooling(32, ratio=0.5)",
        "x, edge_index, _, batch, _, _ = self.pool(x, edge_index, None, batch)")
    e["readout_Set2Set"] = _readout("Set2Set", "Set2Set(32, processing_steps=2)", 64)
    e["readout_GraphMultisetTransformer"] = _readout(
        "GraphMultisetTransformer", "GraphMultisetTransformer(32, k=4, heads=4)", 32)
    return e


def _pool_net(pool: str, build: str, call: str) -> str:
    """A graph classifier: GCN layers, the hierarchical pooling layer ``pool``, mean readout."""
    return (
        "import torch\n"
        f"from torch_geometric.nn import GCNConv, {pool}, global_mean_pool\n"
        "\n"
        "\n"
        "class Net(torch.nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.conv1 = GCNConv(16, 32)\n"
        f"        self.pool = {build}\n"
        "        self.conv2 = GCNConv(32, 32)\n"
        "        self.lin = torch.nn.Linear(32, 4)\n"
        "\n"
        "    def forward(self, x, edge_index, batch):\n"
        "        x = self.conv1(x, edge_index).relu()\n"
        f"        {call}\n"
        "        x = self.conv2(x, edge_index).relu()\n"
        "        x = global_mean_pool(x, batch)\n"
        "        return self.lin(x)\n"
        "\n"
        "\n"
        "model = Net()\n"
        + _graph(batch=True) + "args = (x, edge_index, batch)\nkwargs = dict()\n"
    )


def _readout(aggr: str, build: str, out: int) -> str:
    """A graph classifier: two GCN layers, the aggregation ``aggr`` as readout, a linear head."""
    return (
        "import torch\n"
        f"from torch_geometric.nn import GCNConv, {aggr}\n"
        "\n"
        "\n"
        "class Net(torch.nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.conv1 = GCNConv(16, 32)\n"
        "        self.conv2 = GCNConv(32, 32)\n"
        f"        self.readout = {build}\n"
        f"        self.lin = torch.nn.Linear({out}, 4)\n"
        "\n"
        "    def forward(self, x, edge_index, batch):\n"
        "        x = self.conv1(x, edge_index).relu()\n"
        "        x = self.conv2(x, edge_index).relu()\n"
        "        x = self.readout(x, batch)\n"
        "        return self.lin(x)\n"
        "\n"
        "\n"
        "model = Net()\n"
        + _graph(batch=True) + "args = (x, edge_index, batch)\nkwargs = dict()\n"
    )


def names() -> List[str]:
    """The entries, sorted."""
    return sorted(_entries())


def setup(name: str) -> str:
    """User-style source for the entry ``name`` (see ``spec.py``)."""
    text = _entries()[name]
    if not text.startswith("import torch\n"):
        text = "import torch\n" + text
    return text
