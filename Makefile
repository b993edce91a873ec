# Thin wrapper over CMake. The two commands a newcomer needs:
#   make run    install dependencies, build, start the server on its embedded defaults
#               with the controller manager beside it
#   make test   install dependencies, build, run every test
BUILD    ?= build
JOBS     ?= 2
DATA_DIR ?= $(CURDIR)/data
BIND     ?= 127.0.0.1
PORT     ?= 6443
ARGS     ?=
# CONTROLLERS=false runs the API server alone (no kube-controller-manager).
CONTROLLERS ?= true

KUBECONFIG_PATH := $(DATA_DIR)/admin.kubeconfig

.PHONY: deps test-deps configure build run test clean

deps:
	scripts/install-deps.sh

test-deps:
	scripts/install-deps.sh --test

configure:
	@test -f $(BUILD)/build.ninja || cmake -S . -B $(BUILD) -G Ninja

build: deps configure
	cmake --build $(BUILD) -j $(JOBS) --target kube-apiserver kube-controller-manager

run: build
	@echo
	@echo "Starting kube-apiserver on https://$(BIND):$(PORT) (data in $(DATA_DIR)) and"
	@echo "kube-controller-manager (CONTROLLERS=false leaves it out); Ctrl-C stops both."
	@echo "The admin kubeconfig is written to $(KUBECONFIG_PATH). In another terminal:"
	@echo "  kubectl --kubeconfig $(KUBECONFIG_PATH) version"
	@echo "  kubectl --kubeconfig $(KUBECONFIG_PATH) get --raw '/readyz?verbose'"
	@echo
	exec scripts/run-cluster.sh $(BUILD) $(DATA_DIR) $(BIND) $(PORT) $(CONTROLLERS) $(ARGS)

test: test-deps configure
	cmake --build $(BUILD) -j $(JOBS)
	ctest --test-dir $(BUILD) --output-on-failure --no-tests=error -j $(JOBS)

clean:
	rm -rf $(BUILD)
