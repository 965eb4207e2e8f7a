"""Build gno's TEST cross-encoder: a real BERT graph with an untrained head.

No trained cross-encoder is published in a package registry that gno's
build machines reach, so the reranker code is exercised on this instead:
the all-MiniLM-L6-v2 int8 ONNX graph (6 layers x 384, real pair-encoding
inputs) with a sequence-classification head appended -- BERT pooler (dense
384x384 + tanh on the [CLS] vector) and one logit -- whose weights come from
a fixed seed. Its scores are meaningless; the model is marked test-only in
gno's registry and never ranks a user's results.

The output is byte-for-byte reproducible for the pinned onnx and numpy
versions, so its sha256 is pinned in models/registry.json.

usage: build_test_reranker.py all-minilm-l6-v2-q.onnx OUT.onnx
"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

SEED = 20240501
HIDDEN = 384


def build(src: str, dst: str) -> None:
    model = onnx.load(src)
    g = model.graph
    outs = [o.name for o in g.output]
    if outs != ["last_hidden_state"]:
        raise SystemExit(f"{src}: expected one output last_hidden_state, got {outs}")
    rng = np.random.default_rng(SEED)
    w1 = rng.normal(0.0, 0.05, (HIDDEN, HIDDEN)).astype(np.float32)
    b1 = rng.normal(0.0, 0.02, (HIDDEN,)).astype(np.float32)
    w2 = rng.normal(0.0, 0.08, (HIDDEN, 1)).astype(np.float32)
    b2 = np.array([0.1], dtype=np.float32)
    g.initializer.extend([
        numpy_helper.from_array(np.array(0, dtype=np.int64), "gno_head.cls_index"),
        numpy_helper.from_array(w1, "gno_head.pooler.weight"),
        numpy_helper.from_array(b1, "gno_head.pooler.bias"),
        numpy_helper.from_array(w2, "gno_head.classifier.weight"),
        numpy_helper.from_array(b2, "gno_head.classifier.bias"),
    ])
    g.node.extend([
        helper.make_node("Gather", ["last_hidden_state", "gno_head.cls_index"], ["gno_head.cls"], axis=1, name="gno_head_cls"),
        helper.make_node("MatMul", ["gno_head.cls", "gno_head.pooler.weight"], ["gno_head.p0"], name="gno_head_pool_mm"),
        helper.make_node("Add", ["gno_head.p0", "gno_head.pooler.bias"], ["gno_head.p1"], name="gno_head_pool_add"),
        helper.make_node("Tanh", ["gno_head.p1"], ["gno_head.pooled"], name="gno_head_tanh"),
        helper.make_node("MatMul", ["gno_head.pooled", "gno_head.classifier.weight"], ["gno_head.l0"], name="gno_head_cls_mm"),
        helper.make_node("Add", ["gno_head.l0", "gno_head.classifier.bias"], ["logits"], name="gno_head_cls_add"),
    ])
    del g.output[:]
    g.output.append(helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch_size", 1]))
    model.doc_string = "gno TEST cross-encoder: untrained seeded head; never rank real results with it"
    onnx.checker.check_model(model)
    with open(dst, "wb") as f:
        f.write(model.SerializeToString(deterministic=True))


if __name__ == "__main__":
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    build(sys.argv[1], sys.argv[2])
