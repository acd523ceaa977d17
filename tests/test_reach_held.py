"""A hazard reached through an object the code holds (scanner/reach/held.py, held_graphs.py):
a runner class chosen into a local, a backend a factory returns into an attribute, runners
kept in a list, methods a class inherits, and the graphs an object keeps between a capture
and a replay."""

from __future__ import annotations

from pathlib import Path

import pytest

from scanner import Polarity, Role
from tests.scanned import scanned_knob

# sgl-project/sglang, srt/model_executor/runner_backend/full_cuda_graph_backend.py:99-182 (one
# torch.cuda.CUDAGraph per shape, captured in capture_one) and runner_backend/utils.py:48-104
# (resolve_decode_backend: the class picked into a local, then called).
BACKEND = (
    "import torch\n\n"
    "OUT_OF_TREE = False\n\n\n"
    "class FullBackend:\n"
    "    def __init__(self, runner):\n"
    "        self.runner = runner\n"
    "        self.graphs = {}\n\n"
    "    def capture_one(self, key, forward_fn):\n"
    "        forward_fn()\n"
    "        graph = torch.cuda.CUDAGraph()\n"
    "        with torch.cuda.graph(graph):\n"
    "            forward_fn()\n"
    "        self.graphs[key] = graph\n\n\n"
    "def make_backend(runner):\n"
    "    backend_cls = None\n"
    "    if OUT_OF_TREE:\n"
    "        backend_cls = runner.platform_backend_cls()\n"
    "    if backend_cls is None:\n"
    "        backend_cls = FullBackend\n"
    "    return backend_cls(runner)\n"
)
# srt/model_executor/runner/decode_cuda_graph_runner.py:251,595,1249-1368: the base runner's
# capture loop, each shape handed to self.backend.capture_one.
RUNNER_BASE = (
    "from pkg.backend import make_backend\n\n\n"
    "class DecodeRunner:\n"
    "    def __init__(self, model):\n"
    "        self.model = model\n"
    "        self.backend = make_backend(self)\n"
    "        self.capture()\n\n"
    "    def capture(self):\n"
    "        for bs in (1, 2, 4):\n"
    "            self.capture_one_shape(bs)\n\n"
    "    def capture_one_shape(self, bs):\n"
    "        def run_once():\n"
    "            return self.model(bs)\n\n"
    "        self.backend.capture_one(bs, run_once)\n"
)
# srt/speculative/eagle_draft_extend_cuda_graph_runner.py:95,103,299-303: a subclass that
# inherits capture() and calls it from __init__.
EXTEND_RUNNER = (
    "from pkg.backend import make_backend\n"
    "from pkg.runner_base import DecodeRunner\n\n\n"
    "class DraftExtendRunner(DecodeRunner):\n"
    "    def __init__(self, worker):\n"
    "        self.model = worker.model\n"
    "        self.backend = make_backend(self)\n"
    "        self.capture()\n"
)
# srt/speculative/eagle_worker_v2.py:151-162 (_select_spec_graph_runner_cls calls one of two
# lambdas), :479 (the runner attribute set to None first), :539-544 (a dict of runner classes
# by device), :606-633 (the gate, then extend_runner_cls(self)).
SELECTED = {
    "pkg/__init__.py": "",
    "pkg/backend.py": BACKEND,
    "pkg/runner_base.py": RUNNER_BASE,
    "pkg/extend_runner.py": EXTEND_RUNNER,
    "pkg/worker.py": (
        "import os\n\n"
        "from pkg.backend import OUT_OF_TREE\n"
        "from pkg.extend_runner import DraftExtendRunner\n\n\n"
        "def _select_runner_cls(*, builtin_runner_cls, oot_runner_cls):\n"
        "    if not OUT_OF_TREE:\n"
        "        return builtin_runner_cls()\n"
        "    return oot_runner_cls()\n\n\n"
        "class DraftWorker:\n"
        "    def __init__(self, model, device, platform):\n"
        "        self.model = model\n"
        "        self.device = device\n"
        "        self.platform = platform\n"
        "        self.runner = None\n\n"
        "    def capture_cuda_graphs(self):\n"
        "        self.runner = None\n"
        '        runners = {"cuda": DraftExtendRunner, "xpu": DraftExtendRunner}\n'
        "        runner_cls = _select_runner_cls(\n"
        "            builtin_runner_cls=lambda: runners[self.device] if self.model else None,\n"
        '            oot_runner_cls=lambda: self.platform.runner_cls("draft_extend"),\n'
        "        )\n"
        "        if (\n"
        "            self.model is not None\n"
        '            and not os.environ.get("X_DISABLE_DRAFT_EXTEND_GRAPH", "0") == "1"\n'
        "            and runner_cls is not None\n"
        "        ):\n"
        "            self.runner = runner_cls(self)\n"
    ),
}
# srt/speculative/multi_layer_eagle_worker_v2.py:417-453 (an early return, then the runner
# built) and multi_layer_eagle_draft_extend_cuda_graph_runner.py:142,213-228,557-637 (per-step
# runners kept in a list by self.runners.append(self._create_runner(step)), each captured by
# self.runners[step].init_buffers_and_capture(...)).
LISTED = {
    "pkg/__init__.py": "",
    "pkg/backend.py": BACKEND,
    "pkg/runner_base.py": RUNNER_BASE,
    "pkg/steps.py": (
        "from pkg.backend import make_backend\n"
        "from pkg.runner_base import DecodeRunner\n\n\n"
        "class StepRunner(DecodeRunner):\n"
        "    def __init__(self, worker, step):\n"
        "        self.model = worker.model\n"
        "        self.step = step\n\n"
        "    def init_buffers_and_capture(self, buffers):\n"
        "        self.buffers = buffers\n"
        "        self.backend = make_backend(self)\n"
        "        self.capture()\n\n\n"
        "class MultiStepRunner:\n"
        "    def __init__(self, worker):\n"
        "        self.worker = worker\n"
        "        self.runners = []\n"
        "        self._init_and_capture()\n\n"
        "    def _create_runner(self, step):\n"
        "        return StepRunner(self.worker, step)\n\n"
        "    def _init_and_capture(self):\n"
        "        self.runners = []\n"
        "        for step in range(self.worker.num_steps):\n"
        "            self.runners.append(self._create_runner(step))\n"
        "        for step in range(self.worker.num_steps - 1, -1, -1):\n"
        "            if self.runners[step] is not None:\n"
        "                self.runners[step].init_buffers_and_capture(None)\n"
    ),
    "pkg/worker.py": (
        "import os\n\n"
        "from pkg.steps import MultiStepRunner\n\n\n"
        "class MultiLayerWorker:\n"
        "    def __init__(self, model, num_steps):\n"
        "        self.model = model\n"
        "        self.num_steps = num_steps\n\n"
        "    def capture_cuda_graphs(self):\n"
        "        self.runner = None\n"
        '        if os.environ.get("X_DISABLE_DRAFT_EXTEND_GRAPH", "0") == "1":\n'
        "            return\n"
        "        self.runner = MultiStepRunner(self)\n"
    ),
}
# srt/model_executor/runner/metadata_glue_graph.py:82-125 (run captures a graph per key on its
# third call, replay replays it) and decode_cuda_graph_runner.py:557-575,1751-1807 (the
# attribute bound twice; the switch replays the captured graph instead of running through the
# view, which captures it): both values run the object's CUDA graph.
REPLAYED = {
    "pkg/__init__.py": "",
    "pkg/glue.py": (
        "import torch\n\n\n"
        "class GlueGraph:\n"
        "    def __init__(self, device):\n"
        "        self.device = device\n"
        "        self.states = {}\n\n"
        "    def is_captured(self, key):\n"
        "        return key in self.states\n\n"
        "    def replay(self, key):\n"
        "        self.states[key].replay()\n\n"
        "    def run(self, prep, key):\n"
        "        if key in self.states:\n"
        "            self.states[key].replay()\n"
        "            return\n"
        "        graph = torch.cuda.CUDAGraph()\n"
        "        with torch.cuda.graph(graph):\n"
        "            prep()\n"
        "        self.states[key] = graph\n"
    ),
    "pkg/runner.py": (
        "import os\n\n"
        "from pkg.glue import GlueGraph\n\n\n"
        "class Runner:\n"
        "    def __init__(self, device, enable, draft):\n"
        "        self.device = device\n"
        "        self._glue = GlueGraph(device) if enable else None\n"
        "        if draft:\n"
        "            self._glue = GlueGraph(device)\n"
        '        self._skip_view = os.environ.get("X_SKIP_GLUED_REPLAY_VIEW", "0") == "1"\n\n'
        "    def replay_prepare(self, key, prep):\n"
        "        if self._glue is not None and self._skip_view and self._glue.is_captured(key):\n"
        "            self._glue.replay(key)\n"
        "        else:\n"
        "            self._prepare_from_view(key, prep)\n\n"
        "    def _prepare_from_view(self, key, prep):\n"
        "        if self._glue is not None:\n"
        "            self._glue.run(prep, key)\n"
        "        else:\n"
        "            prep()\n"
    ),
}

HELD: list[tuple[str, dict[str, str], str, Role, Polarity, str]] = [
    (
        "a-runner-class-chosen-into-a-local-then-called",
        SELECTED,
        "X_DISABLE_DRAFT_EXTEND_GRAPH",
        Role.KERNEL,
        Polarity.DISABLE,
        "unset, it runs the branch of `self.model is not None and (not "
        "os.environ.get('X_DISABLE...` at pkg/worker.py:28, which reaches calls "
        "DraftExtendRunner (pkg/extend_runner.py:5) -> "
        "calls DraftExtendRunner.__init__ (pkg/extend_runner.py:6) -> calls DecodeRunner.capture "
        "(pkg/runner_base.py:10) -> calls DecodeRunner.capture_one_shape (pkg/runner_base.py:14) "
        "-> calls FullBackend.capture_one (pkg/backend.py:11) -> torch.cuda.CUDAGraph at "
        "pkg/backend.py:13; X_DISABLE_DRAFT_EXTEND_GRAPH='1' leaves that branch, and what runs "
        "instead reaches no such kernel",
    ),
    (
        "runners-kept-in-a-list-then-captured",
        LISTED,
        "X_DISABLE_DRAFT_EXTEND_GRAPH",
        Role.KERNEL,
        Polarity.DISABLE,
        "unset, it runs the branch of `not (os.environ.get('X_DISABLE_DRAFT_EXTEND_GRAPH', '0') "
        "== '1')` at pkg/worker.py:13, which reaches calls MultiStepRunner (pkg/steps.py:16) -> "
        "calls MultiStepRunner.__init__ (pkg/steps.py:17) -> calls "
        "MultiStepRunner._init_and_capture (pkg/steps.py:25) -> calls "
        "StepRunner.init_buffers_and_capture (pkg/steps.py:10) -> calls DecodeRunner.capture "
        "(pkg/runner_base.py:10) -> calls DecodeRunner.capture_one_shape (pkg/runner_base.py:14) "
        "-> calls FullBackend.capture_one (pkg/backend.py:11) -> torch.cuda.CUDAGraph at "
        "pkg/backend.py:13; X_DISABLE_DRAFT_EXTEND_GRAPH='1' leaves that branch, and what runs "
        "instead reaches no such kernel",
    ),
    (
        "a-replay-of-the-graph-the-object-captured-is-that-graph",
        REPLAYED,
        "X_SKIP_GLUED_REPLAY_VIEW",
        Role.UNKNOWN,
        Polarity.DISABLE,
        "the name says SKIP: it skips part of the run, and its name does not say which",
    ),
]


@pytest.mark.parametrize(
    ("files", "name", "role", "polarity", "reason"),
    [pytest.param(*case[1:], id=case[0]) for case in HELD],
)
def test_a_hazard_reached_through_an_object_the_code_holds(
    tmp_path: Path,
    files: dict[str, str],
    name: str,
    role: Role,
    polarity: Polarity,
    reason: str,
) -> None:
    knob = scanned_knob(tmp_path, files, name)
    assert (knob.role, knob.polarity, knob.role_reason) == (role, polarity, reason)


# What a held value may call, asked twice of one Holder (the functions' returns and the
# ``.append`` calls of a function or class are found once, kept by node): the runners kept
# in a list (LISTED, multi_layer_eagle_draft_extend_cuda_graph_runner.py:557-637), a class
# a factory returns (BACKEND's make_backend, runner_backend/utils.py:48-104), a local list.
HELD_TWICE = {
    **LISTED,
    "pkg/local.py": (
        "from pkg.backend import make_backend\n"
        "from pkg.steps import StepRunner\n\n\n"
        "def first(worker):\n"
        "    found = []\n"
        "    found.append(StepRunner(worker, 0))\n"
        "    found.append(make_backend(worker))\n"
        "    return found[0]\n"
    ),
}


def test_a_holder_asked_again_answers_the_same(tmp_path: Path) -> None:
    import ast

    from scanner.reach.calls import Reach
    from scanner.reach.modules import Module, Tree
    from tests.conftest import write_tree

    write_tree(tmp_path, HELD_TWICE)
    files = {
        rel: (tmp_path / rel, rel.removesuffix(".py").replace("/", "."))
        for rel in HELD_TWICE
        if rel != "pkg/__init__.py"
    }
    reach = Reach(Tree(files))
    asked: list[tuple[Module, ast.expr, str | None]] = []
    for rel, method, name in (
        ("pkg/steps.py", "_init_and_capture", "init_buffers_and_capture"),
        ("pkg/local.py", "first", "found"),
    ):
        module = reach.tree.module_at(rel)
        assert module is not None
        function = next(
            n for n in ast.walk(module.tree) if isinstance(n, ast.FunctionDef) and n.name == method
        )
        for node in ast.walk(function):
            if isinstance(node, ast.Attribute) and node.attr == name:
                asked.append((module, node.value, "pkg.steps.MultiStepRunner"))
            elif isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name):
                asked.append((module, node, None))
    first = [reach.holder.callees(m, n, o) for m, n, o in asked]
    assert ["pkg.steps.StepRunner.__call__"] in first
    assert ["pkg.backend.FullBackend.__call__", "pkg.steps.StepRunner.__call__"] in first
    assert [reach.holder.callees(m, n, o) for m, n, o in asked] == first
