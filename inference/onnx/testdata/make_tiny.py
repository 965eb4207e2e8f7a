"""Tiny ONNX models with known outputs for gno's pipeline tests.

Each is a few KB, committed under testdata/tiny/, and regenerated with
`.cache/venv/bin/python inference/onnx/testdata/make_tiny.py` (pinned onnx
from models.mk). The "encoder" is a lookup table: token id t maps to the
vector EMB[t] = [t, 1, t mod 3, -t] / 10, so mean/CLS pooling results can be
computed exactly in the Go test.

  ok/            input_ids, attention_mask, token_type_ids -> last_hidden_state [b, s, 4]
  extra_input/   also takes pixel_values: gno must refuse it
  rank2_output/  output is [b, 4] while the spec asks for mean pooling
  small_vocab/   10-row table, smaller than the tokenizer's 20-token vocabulary
  not_onnx/      model.onnx is a text file
  matmul/        C = A x B with both operands as inputs: the CPU's GEMM
                 throughput through ONNX Runtime, for the FLOP ceiling
"""
import json
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tiny")
VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "the", "cat", "sat", "on", "mat", "a",
         "dog", "##s", "run", "fast", "hello", "world", "!", ",", ".", "?"]


def tokenizer_json():
    vocab = {t: i for i, t in enumerate(VOCAB)}
    return {
        "version": "1.0", "truncation": None, "padding": None,
        "added_tokens": [{"id": i, "content": t, "single_word": False, "lstrip": False, "rstrip": False,
                          "normalized": False, "special": True} for i, t in enumerate(VOCAB[:4])],
        "normalizer": {"type": "BertNormalizer", "clean_text": True, "handle_chinese_chars": True,
                       "strip_accents": None, "lowercase": True},
        "pre_tokenizer": {"type": "BertPreTokenizer"},
        "post_processor": {"type": "TemplateProcessing",
                           "single": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}},
                                      {"SpecialToken": {"id": "[SEP]", "type_id": 0}}],
                           "pair": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}},
                                    {"SpecialToken": {"id": "[SEP]", "type_id": 0}}, {"Sequence": {"id": "B", "type_id": 1}},
                                    {"SpecialToken": {"id": "[SEP]", "type_id": 1}}],
                           "special_tokens": {"[CLS]": {"id": "[CLS]", "ids": [2], "tokens": ["[CLS]"]},
                                              "[SEP]": {"id": "[SEP]", "ids": [3], "tokens": ["[SEP]"]}}},
        "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": True},
        "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
                  "max_input_chars_per_word": 100, "vocab": vocab},
    }


def table(rows):
    t = np.arange(rows, dtype=np.float32)
    return (np.stack([t, np.ones_like(t), t % 3, -t], axis=1) / 10).astype(np.float32)


def model(rows=len(VOCAB), extra_input=False, rank2=False):
    ids = helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "seq"])
    mask = helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["batch", "seq"])
    types = helper.make_tensor_value_info("token_type_ids", TensorProto.INT64, ["batch", "seq"])
    inputs = [ids, mask, types]
    nodes = [helper.make_node("Gather", ["embeddings.word_embeddings.weight", "input_ids"], ["h0"], axis=0)]
    # Use mask and type ids so they stay graph inputs: h = h0 + 0*mask + 0*types.
    nodes += [
        helper.make_node("Cast", ["attention_mask"], ["maskf"], to=TensorProto.FLOAT),
        helper.make_node("Cast", ["token_type_ids"], ["typef"], to=TensorProto.FLOAT),
        helper.make_node("Add", ["maskf", "typef"], ["mt"]),
        helper.make_node("Mul", ["mt", "zero"], ["mt0"]),
        helper.make_node("Unsqueeze", ["mt0", "axis2"], ["mt0u"]),
        helper.make_node("Add", ["h0", "mt0u"], ["last_hidden_state"]),
    ]
    inits = [numpy_helper.from_array(table(rows), "embeddings.word_embeddings.weight"),
             numpy_helper.from_array(np.array(0, dtype=np.float32), "zero"),
             numpy_helper.from_array(np.array([2], dtype=np.int64), "axis2")]
    out = helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, ["batch", "seq", 4])
    if extra_input:
        inputs.append(helper.make_tensor_value_info("pixel_values", TensorProto.FLOAT, ["batch", 3]))
        nodes.append(helper.make_node("Identity", ["pixel_values"], ["pv"]))
    if rank2:
        nodes.append(helper.make_node("ReduceMean", ["last_hidden_state"], ["pooled"], axes=[1], keepdims=0))
        out = helper.make_tensor_value_info("pooled", TensorProto.FLOAT, ["batch", 4])
    g = helper.make_graph(nodes, "tiny", inputs, [out], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)], producer_name="gno-tiny")
    m.ir_version = 8
    onnx.checker.check_model(m)
    return m


def write(name, m):
    d = os.path.join(HERE, name)
    os.makedirs(d, exist_ok=True)
    if m is None:
        with open(os.path.join(d, "model.onnx"), "w") as f:
            f.write("this is not an ONNX model\n")
    else:
        with open(os.path.join(d, "model.onnx"), "wb") as f:
            f.write(m.SerializeToString(deterministic=True))
    with open(os.path.join(d, "tokenizer.json"), "w") as f:
        json.dump(tokenizer_json(), f, indent=1)


def matmul():
    g = helper.make_graph(
        [helper.make_node("MatMul", ["A", "B"], ["C"])], "matmul",
        [helper.make_tensor_value_info("A", TensorProto.FLOAT, ["m", "k"]),
         helper.make_tensor_value_info("B", TensorProto.FLOAT, ["k", "n"])],
        [helper.make_tensor_value_info("C", TensorProto.FLOAT, ["m", "n"])])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)], producer_name="gno-tiny")
    m.ir_version = 8
    onnx.checker.check_model(m)
    d = os.path.join(HERE, "matmul")
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "model.onnx"), "wb") as f:
        f.write(m.SerializeToString(deterministic=True))


if __name__ == "__main__":
    matmul()
    write("ok", model())
    write("extra_input", model(extra_input=True))
    write("rank2_output", model(rank2=True))
    write("small_vocab", model(rows=10))
    write("not_onnx", None)
