"""Reference vectors for gno's ONNX inference parity tests.

For every model installed in the model cache, runs the same model files
through the reference stack -- Hugging Face `tokenizers` + `onnxruntime` +
numpy, with the pooling, prefixes and truncation from models/registry.json --
and writes the expected token ids and pooled, L2-normalised vectors (fp16,
base64) to testdata/golden/<model>.json, or for an int8 model to
testdata/golden/int8-<vnni|novnni>/<model>.json: ONNX Runtime's integer
kernels differ with and without VNNI, so each kind of CPU has its reference. The Go tests
(inference/onnx/parity_test.go) require identical ids and cosine >= 0.9999.

Run with `make -f models.mk golden` (pinned versions in a throwaway venv).

usage: golden.py MODELS_DIR OUT_DIR
"""
import base64
import json
import os
import sys

import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer

HERE = os.path.dirname(os.path.abspath(__file__))
REGISTRY = os.path.join(HERE, "..", "..", "..", "models", "registry.json")

LOREM = ("Retrieval systems rank documents by estimated relevance to a query. "
         "Lexical methods such as BM25 count shared terms, while dense methods "
         "compare learned vector representations of meaning. ")


def texts():
    long_words = " ".join((LOREM * 80).split()[:2000])
    return [
        ("document", "The quick brown fox jumps over the lazy dog."),
        ("document", "Aspirin reduces the risk of heart attack in adults over fifty."),
        ("document", "Héllo WORLD, naïve café résumé: Ünïcödé àccents!"),
        ("document", "我爱北京天安门，今天天气很好。"),
        ("document", "機械学習は人工知能の一分野です。カタカナとひらがなも含みます。"),
        ("document", "한국어 텍스트 임베딩 테스트입니다."),
        ("document", "emoji 😀🎉 test 👍🏽 and flags 🇫🇷"),
        ("document", ""),
        ("document", "Word"),
        ("document", long_words),
        ("document", "Tabs\tand\nnewlines\r\nand\u00a0no-break\u3000ideographic spaces"),
        ("document", "Control\u0007chars\u200band zero\u200dwidth joiners"),
        ("document", "func main() { fmt.Println(\"hello\") } // code snippet"),
        ("document", "See https://example.com/path?q=1&x=2 or mail me@example.org."),
        ("document", "3.14159 is pi; 2,718 approximates e*1000; 1e-9 is tiny."),
        ("document", "Supercalifragilisticexpialidocious" * 4),
        ("document", "ALL CAPS SHOUTING ABOUT GENOMICS AND CRISPR-CAS9 EDITING"),
        ("document", "don't won't can't it's they're we've"),
        ("document", "Ελληνικά και русский текст вместе"),
        ("document", "   leading and trailing spaces   "),
        ("document", "The mitochondria is the powerhouse of the cell, producing ATP."),
        ("document", "Vitamin D deficiency is associated with increased fracture risk."),
        ("document", "中文和English混合的句子, with 数字 123."),
        ("document", "Ça va? Où est la bibliothèque? Straße, Æsir, Øresund."),
        ("document", "a " * 300),
        ("query", "what reduces heart attack risk"),
        ("query", "capital of france"),
        ("query", "哪种维生素与骨折有关"),
        ("query", "Does CRISPR edit genes?"),
        ("query", ""),
    ]


def pair_texts():
    long_passage = " ".join((LOREM * 40).split()[:600])
    q = "what reduces the risk of heart attack"
    return [
        (q, "Aspirin reduces the risk of heart attack in adults over fifty."),
        (q, "Bananas are yellow fruit rich in potassium."),
        (q, ""),
        (q, long_passage),
        ("", "Empty query against a passage."),
        ("café naïve?", "Ünïcödé àccents in both sides — résumé"),
        ("中文查询", "中文段落，讨论心脏病。"),
        (long_passage, "short passage after a long query"),
    ]


def b64f16(v):
    return base64.b64encode(np.asarray(v, dtype="<f2").tobytes()).decode()


def load_tokenizer(path, max_len):
    tk = Tokenizer.from_file(path)
    tk.no_padding()
    tk.enable_truncation(max_length=max_len, strategy="longest_first")
    return tk


def session(path):
    so = ort.SessionOptions()
    so.intra_op_num_threads = 2
    return ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])


def feed(sess, ids, type_ids):
    ids = np.array([ids], dtype=np.int64)
    f = {"input_ids": ids, "attention_mask": np.ones_like(ids)}
    if any(i.name == "token_type_ids" for i in sess.get_inputs()):
        f["token_type_ids"] = np.array([type_ids], dtype=np.int64)
    return f


def pick_output(sess, spec):
    names = [o.name for o in sess.get_outputs()]
    if spec.get("output"):
        return spec["output"]
    for cand in ("sentence_embedding", "last_hidden_state", "token_embeddings", "logits"):
        if cand in names:
            return cand
    return names[0]


def embed_golden(mdir, spec):
    tk = load_tokenizer(os.path.join(mdir, "tokenizer.json"), spec["max_tokens"])
    sess = session(os.path.join(mdir, "model.onnx"))
    out_name = pick_output(sess, spec)
    cases = []
    for kind, text in texts():
        prefix = spec.get("query_prefix" if kind == "query" else "doc_prefix", "")
        enc = tk.encode(prefix + text)
        (out,) = sess.run([out_name], feed(sess, enc.ids, enc.type_ids))
        if spec["pooling"] == "cls":
            v = out[0, 0].astype(np.float64)
        elif spec["pooling"] == "mean":
            v = out[0].astype(np.float64).mean(axis=0)
        else:
            v = out[0].astype(np.float64)
        v = v / np.linalg.norm(v)
        cases.append({"kind": kind, "text": text, "ids": enc.ids, "vector_f16": b64f16(v)})
    return {"model": spec["name"], "role": "embed", "cases": cases}


def rerank_golden(mdir, spec):
    tk = load_tokenizer(os.path.join(mdir, "tokenizer.json"), spec["max_tokens"])
    sess = session(os.path.join(mdir, "model.onnx"))
    out_name = pick_output(sess, spec)
    cases = []
    for q, p in pair_texts():
        enc = tk.encode(q, p)
        (out,) = sess.run([out_name], feed(sess, enc.ids, enc.type_ids))
        logit = float(out[0, -1] - (out[0, 0] if out.shape[1] == 2 else 0.0))
        cases.append({"query": q, "passage": p, "ids": enc.ids, "type_ids": enc.type_ids,
                      "score": 1.0 / (1.0 + np.exp(-logit))})
    return {"model": spec["name"], "role": "rerank", "cases": cases}


def int8_kernels():
    """The name parity_test.go's int8Kernels gives this CPU."""
    flags = open("/proc/cpuinfo", encoding="utf-8").read() if os.path.exists("/proc/cpuinfo") else ""
    if "avx2" not in flags:
        return os.uname().machine
    return "vnni" if ("avx512_vnni" in flags or "avx_vnni" in flags) else "novnni"


def is_int8(path):
    import onnx
    ops = {n.op_type for n in onnx.load(path, load_external_data=False).graph.node}
    return bool(ops & {"MatMulInteger", "DynamicQuantizeLinear", "QLinearMatMul", "ConvInteger", "QAttention"})


def main():
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    models_dir, out_dir = sys.argv[1], sys.argv[2]
    os.makedirs(out_dir, exist_ok=True)
    registry = json.load(open(REGISTRY, encoding="utf-8"))["models"]
    for spec in registry:
        mdir = os.path.join(models_dir, spec["name"])
        if not os.path.exists(os.path.join(mdir, "manifest.json")):
            print(f"golden: {spec['name']}: not installed, skipped")
            continue
        g = embed_golden(mdir, spec) if spec["role"] == "embed" else rerank_golden(mdir, spec)
        g["versions"] = {"onnxruntime": ort.__version__, "numpy": np.__version__,
                         "tokenizers": __import__("tokenizers").__version__}
        sub = out_dir
        if is_int8(os.path.join(mdir, "model.onnx")):
            # int8 kernels differ with and without VNNI: one reference per kind.
            sub = os.path.join(out_dir, "int8-" + int8_kernels())
            os.makedirs(sub, exist_ok=True)
        path = os.path.join(sub, spec["name"] + ".json")
        with open(path, "w", encoding="utf-8") as f:
            json.dump(g, f, ensure_ascii=False, separators=(",", ":"))
            f.write("\n")
        print(f"golden: wrote {path} ({len(g['cases'])} cases)")


if __name__ == "__main__":
    main()
