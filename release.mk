# release.mk: how gno is built, cross-built and released (included by the
# Makefile).
#
#   $(BUILD_WORK)  a Go workspace: this module, plus
#                  github.com/santhosh-tekuri/jsonschema/v6 (mcp-go's schema
#                  validator) with third_party/jsonschema-lazy-init.patch, which
#                  compiles its metaschemas on first use instead of in init():
#                  about 5.7 ms off every gno command (bench/RESULTS.md). The
#                  patch applies to the module as downloaded and verified by
#                  go.sum; nothing is vendored. `go install` ignores the
#                  workspace and builds the same program, 5.7 ms slower to start.
#   make cross     builds gno for every release target (what `make test` runs,
#                  so a change that breaks macOS or Windows fails CI)
#   make release   dist/gno-VERSION-OS-ARCH[.exe] for every release target
#
# onnxruntime_go loads ONNX Runtime through cgo on every platform, so cross
# builds need a C compiler per target: zig cc, from the ziglang wheel on PyPI
# (sha256 pinned), fetched with pip and unpacked into .cache/zig with
# python3 (which `make models` needs anyway).

GOBUILD        = GOWORK=$(CURDIR)/$(BUILD_WORK) $(GO) build
JSONSCHEMA_MOD := github.com/santhosh-tekuri/jsonschema/v6@v6.0.2
VERSION        ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
RELEASE_TARGETS := linux/amd64 linux/arm64 darwin/arm64 darwin/amd64 windows/amd64

ZIG_VERSION    := 0.14.1
ZIG_PLATFORM_x86_64  := manylinux_2_12_x86_64
ZIG_SHA256_x86_64    := 6eb9d4d759b292c83810dbee2e9e8e3fbfbf01d864e6e9811bae711fd74e1c2f
ZIG_PLATFORM_aarch64 := manylinux_2_17_aarch64
ZIG_SHA256_aarch64   := 7994b27f3cbfcedea43f9b7552e38b45857bdf0e9a45065474092dd74e7048cf
ZIG            := .cache/zig/ziglang/zig
HOST_ARCH      := $(shell uname -m)

.PHONY: cross release

$(BUILD_WORK): third_party/jsonschema-lazy-init.patch go.mod go.sum
	rm -rf $(dir $@) && mkdir -p $(dir $@)
	cp -R "$$($(GO) mod download -json $(JSONSCHEMA_MOD) | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$$/\1/p')" $(dir $@)jsonschema
	chmod -R u+w $(dir $@)jsonschema
	git apply --directory=$(dir $@)jsonschema third_party/jsonschema-lazy-init.patch
	printf 'go %s\n\nuse ../..\n\nreplace %s => ./jsonschema\n' "$$(sed -n 's/^go //p' go.mod)" "$(subst @, ,$(JSONSCHEMA_MOD))" > $@

$(ZIG):
	@test -n "$(ZIG_SHA256_$(HOST_ARCH))" || { echo "release.mk: no pinned zig for $(HOST_ARCH); set ZIG=/path/to/zig" >&2; exit 1; }
	mkdir -p .cache/zig && rm -f .cache/zig/ziglang-*.whl
	python3 -m pip download -q --no-deps --no-cache-dir --disable-pip-version-check --only-binary=:all: \
		--platform $(ZIG_PLATFORM_$(HOST_ARCH)) -d .cache/zig ziglang==$(ZIG_VERSION)
	cd .cache/zig && whl=$$(ls ziglang-*.whl) && echo "$(ZIG_SHA256_$(HOST_ARCH))  $$whl" | sha256sum -c --quiet \
		&& python3 -m zipfile -e $$whl . && rm $$whl
	chmod +x $@ && touch $@

# Linking for macOS needs the system libraries Go's standard library names
# (CoreFoundation and Security for crypto/x509, libresolv for DNS). zig
# ships libSystem but not these, so text stubs (.tbd) are generated from the
# symbols Go's own sources import, into $(DARWIN_STUBS); the binary loads the
# real libraries from /System and /usr/lib at run time, like any Mac program.
DARWIN_STUBS := $(CURDIR)/.cache/zig/darwin-stubs
GOROOT_SRC    = $(shell $(GO) env GOROOT)/src

$(DARWIN_STUBS)/stamp:
	@rm -rf $(DARWIN_STUBS) && mkdir -p $(DARWIN_STUBS)/lib
	@stub() { syms=$$(grep -rh "cgo_import_dynamic" $$1 | grep "$$2" | awk '{print "_"$$3}' | sort -u | paste -sd, -); \
	  test -n "$$syms" || { echo "release.mk: no symbols for $$2 in $$1" >&2; exit 1; }; \
	  printf -- "--- !tapi-tbd\ntbd-version: 4\ntargets: [ x86_64-macos, arm64-macos ]\ninstall-name: '%s'\nexports:\n  - targets: [ x86_64-macos, arm64-macos ]\n    symbols: [ %s ]\n...\n" "$$2" "$$syms" > $$3; }; \
	for fw in CoreFoundation Security; do mkdir -p $(DARWIN_STUBS)/$$fw.framework; \
	  stub $(GOROOT_SRC)/crypto/x509/internal/macos /System/Library/Frameworks/$$fw.framework/Versions/A/$$fw $(DARWIN_STUBS)/$$fw.framework/$$fw.tbd; done; \
	stub $(GOROOT_SRC)/internal/syscall/unix /usr/lib/libresolv.9.dylib $(DARWIN_STUBS)/lib/libresolv.tbd
	@touch $@

# ZIG_TARGET maps $$os/$$arch to zig's target (glibc 2.28 on Linux: Debian
# 10, RHEL 8 and later; macOS 11; the MinGW ABI on Windows) and extra flags:
# macOS links against the stubs above, and without DWARF (-w), since Go
# would run the host's strip on the Mach-O file otherwise.
ZIG_TARGET = zx=; ldw=; case $$os/$$arch in \
  linux/amd64) zt=x86_64-linux-gnu.2.28;; linux/arm64) zt=aarch64-linux-gnu.2.28;; \
  darwin/arm64) zt=aarch64-macos.11.0; zx="-F$(DARWIN_STUBS) -L$(DARWIN_STUBS)/lib"; ldw=-w;; \
  darwin/amd64) zt=x86_64-macos.11.0; zx="-F$(DARWIN_STUBS) -L$(DARWIN_STUBS)/lib"; ldw=-w;; \
  windows/amd64) zt=x86_64-windows-gnu;; *) echo "no zig target for $$os/$$arch" >&2; exit 1;; esac
# CROSS_ENV is the environment of one cgo build with zig cc for $$os/$$arch.
CROSS_ENV = CGO_ENABLED=1 GOOS=$$os GOARCH=$$arch CC="$(CURDIR)/$(ZIG) cc -target $$zt $$zx" CXX="$(CURDIR)/$(ZIG) c++ -target $$zt $$zx"

cross: $(BUILD_WORK) $(ZIG) $(DARWIN_STUBS)/stamp
	@set -e; for t in $(RELEASE_TARGETS); do os=$${t%/*}; arch=$${t#*/}; $(ZIG_TARGET); \
	  echo "cross: go build $$t (zig cc -target $$zt)"; \
	  $(CROSS_ENV) $(GOBUILD) -ldflags "$$ldw" -o /dev/null ./cmd/gno; \
	done
	@# bench/ and reliability/ are test tooling for the Linux reference
	@# machine (rusage, /proc, SIGKILL, tmpfs mounts): vetted for Linux only.
	@os=windows; arch=amd64; $(ZIG_TARGET); echo "cross: go vet (all but bench/, reliability/) for $$os/$$arch"; \
	  $(CROSS_ENV) $(GO) vet $$($(GO) list ./... | grep -v '/bench\|/reliability')

release: $(BUILD_WORK) $(ZIG) $(DARWIN_STUBS)/stamp
	@set -e; mkdir -p dist; for t in $(RELEASE_TARGETS); do os=$${t%/*}; arch=$${t#*/}; $(ZIG_TARGET); \
	  out=dist/gno-$(VERSION)-$$os-$$arch; [ $$os = windows ] && out=$$out.exe; \
	  echo "release: $$out"; \
	  $(CROSS_ENV) $(GOBUILD) -trimpath -ldflags "-s -w -X main.version=$(VERSION)" -o $$out ./cmd/gno; \
	done
	cd dist && sha256sum gno-$(VERSION)-* > gno-$(VERSION)-SHA256SUMS
	@ls -l dist
