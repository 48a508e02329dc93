# rdmasim: build, run the bundled litmus tests, test, benchmark, lint.
GO          ?= go
BIN         := bin/rdmasim
STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.8.2
CORPUS      := corpus/litmus/*.rdma

.PHONY: all build web wasm run corpus expected fmt vet staticcheck test test-short bench bench-go bench-verdicts bench-scaled bench-pebble bench-decide bench-spin bench-spin-robust bench-protocols bench-repair lint fuzz clean tools agree

all: build

# rdmasim embeds the playground (rdmasim serve), so the WebAssembly build
# comes first. rdmasim --version prints the revision and whether the tree was
# modified: Go stamps them itself unless GOFLAGS has -buildvcs=false, so they
# are passed by -ldflags too (empty outside a git checkout).
VCS_REVISION := $(shell git rev-parse HEAD 2>/dev/null)
VCS_MODIFIED := $(shell test -n "$$(git status --porcelain 2>/dev/null)" && echo true || echo false)
VCS_LDFLAGS  := -X main.vcsRevision=$(VCS_REVISION) -X main.vcsModified=$(VCS_MODIFIED)
build: wasm
	$(GO) build -ldflags '$(VCS_LDFLAGS)' -o $(BIN) ./cmd/rdmasim

# The playground's WebAssembly build and Go's loader for it, beside the
# committed page (cmd/rdmasim/web/static; both files are build artifacts,
# ignored by git). wasm_exec.js must come from the Go that built the wasm.
WEBSTATIC := cmd/rdmasim/web/static
wasm:
	GOOS=js GOARCH=wasm $(GO) build -o $(WEBSTATIC)/rdmasim.wasm ./cmd/rdmasim-wasm
	cp "$$($(GO) env GOROOT)/lib/wasm/wasm_exec.js" $(WEBSTATIC)/wasm_exec.js

# The playground as static files in WEBDIR (the page, the WebAssembly build,
# the examples): copy the directory to any static host.
WEBDIR ?= web-dist
web: build
	./$(BIN) serve --write $(WEBDIR)

# The main job on a bundled example (the README's: check PUT-LW under RDMA
# and SC, with its witness run), then every .rdma file of corpus/ (litmus
# tests, benchmarks, the fuzzer's regression tests) under every semantics
# against its expect lines: the files that fail, if any, and the totals
# last (`rdmasim corpus -v corpus/` prints the row of every file); --progress
# prints a line per file checked on stderr meanwhile.
run: build
	./$(BIN) check -w corpus/litmus/PUT-LW.rdma
	./$(BIN) corpus --strict --progress corpus/

# Every .rdma file under corpus/ through every semantics, against its expect
# lines (exit 1 on a failure, or on an expectation no complete search confirmed).
corpus: build
	./$(BIN) corpus --strict corpus/

# Rewrite the golden report beside each litmus test and protocol (corpus/litmus/NAME.expected,
# corpus/protocols/NAME.expected:
# outcomes, counts, completeness, robustness), which TestLitmusExpected compares
# with; review the change with git diff corpus/litmus/ corpus/protocols/.
expected:
	$(GO) test -count=1 ./corpus -run TestLitmusExpected -update-expected

# Graphviz renders execution graphs (the tests check that the DOT output
# renders); SPIN checks the exported Promela models (the opsem/promela tests
# and bench-spin); Chromium runs the playground's browser test (cmd/rdmasim,
# TestBrowser). All are installed from Debian packages when missing.
tools:
	@missing=""; \
	command -v chromium >/dev/null 2>&1 || missing="$$missing chromium"; \
	command -v dot >/dev/null 2>&1 || missing="$$missing graphviz"; \
	command -v spin >/dev/null 2>&1 || missing="$$missing spin"; \
	if [ -n "$$missing" ]; then \
	  echo "installing$$missing"; \
	  (apt-get update -qq && apt-get install -y -qq $$missing >/dev/null) || \
	  echo "warning: could not install$$missing; the tests that need them (the playground's browser test, DOT rendering, SPIN comparisons) will be skipped outside CI"; \
	fi

# The full suite, as CI runs it (the playground's browser test needs the
# WebAssembly build embedded in the test binary, hence wasm first). No test
# depends on the machine's speed (counts are bounded, not time budgets), but
# the longest packages under -race (corpus, cmd/rdmasim, corpus/surface,
# explore) take minutes each on a busy 2-core host: TEST_TIMEOUT replaces go
# test's 10-minute default per package with room for a loaded machine
# (cmd/rdmasim: about 8.5 minutes at a load of 8-17 since TestCorpusCluster
# boxes its searches at 200,000 states, 30 before; its long tests run in
# parallel, see BENCHMARKS.md "CI wall time").
#
# The race-free pass: the tests of RACE_FREE_TESTS compare a fixed sample
# under -race (raceOn or underRace in their package: every k-th file, the
# first programs of a seeded generator, a named slow case left out, smaller
# state bounds) and their whole set here, without the race detector's 5-10x,
# in one go test so that its packages run side by side. Concurrency tests
# (explore, dist, store) keep their -race runs whole and are not listed.
# Measured on a loaded host (BENCHMARKS.md "CI wall time: samples under
# -race"): opsem/decide, opsem/machine and corpus/differ went from 494 to
# 283 s of CPU under -race, this pass from 58 to 209 s (it now runs whole
# sets that no CI ran before; its longest, TestRegistersAgreement). The names
# are anchored and each is a test of one package of RACE_FREE_PKGS; a name
# that matches nothing passes silently, so check a new one with go test -list.
# One test of explore/dist is here for another reason: TestReplicaServerLost
# (three embedded NATS servers, the leader of the run's stream lost mid-run,
# for good then restarted) is opt-in (RDMASIM_TEST_LOSE_NATS, set here) and
# runs in this pass only, without -race: 5 to 25 s on this 2-core host under
# load, 5 runs of 5 passed (BENCHMARKS.md "A cluster of three NATS servers").
TEST_TIMEOUT ?= 60m
RACE_FREE_PKGS  := ./opsem/machine/ ./opsem/decide/ ./opsem/instr/ ./opsem/axiom/ ./corpus/differ/ ./explore/dist/
RACE_FREE_TESTS := ^(TestReduce|TestReduceSmallPrograms|TestReduceSettlesPastLastPut|TestSwitchSameRuns|TestAtomicsExperimental|TestAtomicsSymmetryAgree|TestSpinReductionsAgree|TestSpinLoopCost|TestSwitchesAgree|TestRegistersAgreement|TestSoloValuesCover|TestRegistersAgree|TestRepairChecked|TestEveryOpGenerated|TestDeciderAtomicsLoops|TestRegressSymmetryByBlocks|TestReplicaServerLost)$$
test: wasm vet
	$(GO) test -race -count=1 -timeout $(TEST_TIMEOUT) ./...
	RDMASIM_TEST_LOSE_NATS=1 $(GO) test -count=1 -timeout $(TEST_TIMEOUT) -run '$(RACE_FREE_TESTS)' $(RACE_FREE_PKGS)
	$(GO) test -count=1 -timeout $(TEST_TIMEOUT) -tags rdmasim_broken -run Broken ./corpus/fuzz/

# The edit-test loop: every package without the race detector, and with
# -short, which leaves out the long fuzz, kill and scale tests (about a
# minute; make test stays the whole suite).
test-short: wasm
	$(GO) test -short -count=1 -timeout $(TEST_TIMEOUT) ./...

# The Go benchmarks (bench-go), then the time-to-verdict table (bench-verdicts).
bench: bench-go bench-verdicts

# Hot-path and explorer benchmarks; medians over 5 runs with `make bench COUNT=5`.
COUNT ?= 1
bench-go:
	$(GO) test -run='^$$' -bench=. -benchmem -count=$(COUNT) ./...

# Time to verdict and peak memory (the child's rusage) of rdmasim robust
# (default method) and rdmasim check on every protocol of corpus/protocols
# and every bench program of corpus/bench: medians of ROUNDS runs, each cut
# at LIMIT (a "limit" cell), one row per file and command; 7 minutes on
# this loaded 2-core host at ce9855e with ROUNDS=3 (f5's robust most of
# it). BEFORE=OTHER_BINARY runs that binary and this build alternately on
# each command and prints both medians and their ratio (twice the time).
# MARKDOWN=1 prints a Markdown table. Not a test: the times are this
# machine's.
ROUNDS         ?= 3
LIMIT          ?= 2m
VERDICT_FILES  ?= corpus/protocols/*.rdma corpus/bench/*.rdma
VERDICTS_FLAGS  = -rdmasim $(BIN) -rounds $(ROUNDS) $(if $(BEFORE),-before $(BEFORE)) $(if $(MARKDOWN),-markdown)
bench-verdicts: build
	$(GO) run ./corpus/bench/verdicts $(VERDICTS_FLAGS) -limit $(LIMIT) $(VERDICT_FILES)

# The scaled families of corpus/bench/scaled, MP(n) for n in MP_N
# and F(n) for n in F_N, each decided three ways (robust with the default
# method, --method decide, --method enum-machine with --max-inflight 2n+1 on
# MP(n)), medians of ROUNDS runs, each cut at SCALED_LIMIT (a command that
# runs into it is skipped for the larger n); BEFORE and MARKDOWN as above.
# 6.5 minutes here at ce9855e with the defaults (F(5) most of it).
MP_N         ?= 1-10
F_N          ?= 1-5
SCALED_LIMIT ?= 10m
bench-scaled: build
	$(GO) run ./corpus/bench/verdicts -scaled -mp $(MP_N) -f $(F_N) $(VERDICTS_FLAGS) -limit $(SCALED_LIMIT)

# The sustained rate on disk: every configuration of corpus/bench/mp5.rdma
# (1.3*10^7 with the reduction) with the visited set in Pebble and 256 MiB of
# tables, progress once a second on stderr, the peak memory at the end.
PEBBLE_BENCH ?= corpus/bench/mp5.rdma
bench-pebble: build
	@dir=$$(mktemp -d) && trap 'rm -rf "$$dir"' EXIT && \
	$(BIN) explore --store pebble --store-dir "$$dir/set" --mem-budget 256MiB --progress $(PEBBLE_BENCH)

# The decider on disk: robust on corpus/bench/f5.rdma, whose instrumented
# machine (finite: no poll on a loop) has 3.98*10^7 states, with the visited
# set in Pebble and 256 MiB of tables, progress on stderr.
DECIDE_BENCH ?= corpus/bench/f5.rdma
bench-decide: build
	@dir=$$(mktemp -d) && trap 'rm -rf "$$dir"' EXIT && \
	$(BIN) robust --method decide --store pebble --store-dir "$$dir/set" --mem-budget 256MiB --progress $(DECIDE_BENCH)

# rdmasim check against SPIN (export --promela, spin -a, gcc, pan) end to
# end on mid-size programs, checking equal outcomes; medians of ROUNDS runs.
# SPIN_CFLAGS adds C compiler flags for pan (e.g. -DNOCOMP).
SPIN_CFLAGS ?=
SPIN_BENCH  := corpus/bench/mp3.rdma opsem/promela/testdata/bench-mp3x.rdma
bench-spin: build tools
	$(GO) run ./opsem/promela/spinbench -rdmasim $(BIN) -rounds $(ROUNDS) -cflags '$(SPIN_CFLAGS)' $(SPIN_BENCH)

# The robustness decider (rdmasim robust) against the seed paper's own
# pipeline (export --promela --robustness, spin -a, gcc, pan) end to end on
# every corpus program, checking equal verdicts; a table of medians of
# ROUNDS runs per file, totals and medians. MAX_COUNTER bounds the poll
# counters of the exported models (where a loop polls).
MAX_COUNTER ?= 3
bench-spin-robust: build tools
	$(GO) run ./opsem/promela/spinbench -robustness -max-counter $(MAX_COUNTER) -rdmasim $(BIN) -rounds $(ROUNDS) -cflags '$(SPIN_CFLAGS)' $(CORPUS)

lint: fmt vet staticcheck

fmt:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); echo 'gofmt: run gofmt -w'; exit 1; }

vet:
	$(GO) vet ./...

staticcheck:
	$(GO) run $(STATICCHECK) ./...

# Machine = model agreement on N generated programs (outcomes under RDMA and
# SC, and robustness); LOOPS=1 generates loops (unrolled twice), ATOMICS=1 remote
# atomics (rcas, rfaa). With ATOMICS=1 the decider's experimental instrumentation
# of remote atomics (SEMANTICS-ATOMICS.md, 5.4) is compared too, exactly on
# loop-free programs and one way with loops, its searches on programs with
# atomics bounded by DECIDER_MAX_STATES (a cut search is not compared);
# EXPERIMENTAL=0 leaves the decider out of programs with atomics, as
# rdmasim does without --atomics-experimental. VERBS=1 generates the verbs
# features (SEMANTICS-VERBS.md) as fuzz --verbs does, PLACEMENT=in-order
# places a multi-word operation's words in address order.
N ?= 10000
SEED ?= 1
EXPERIMENTAL ?= 1
DECIDER_MAX_STATES ?= 100000
agree:
	$(GO) test -count=1 -timeout=0 -run 'Agreement' -v ./corpus/agree/ -agree.n=$(N) -agree.seed=$(SEED) -agree.progress=250 $(if $(LOOPS),-agree.loops) $(if $(VERBS),-agree.verbs) $(if $(PLACEMENT),-agree.placement=$(PLACEMENT)) $(if $(ATOMICS),-agree.atomics $(if $(filter 1,$(EXPERIMENTAL)),-agree.atomics-experimental -agree.decider-max-states=$(DECIDER_MAX_STATES))) | grep -v '^=== RUN'

# Lowering = interpreter agreement on N generated protocol programs (final
# memories, error points, deadlocks under SC); DIFFER=1 also runs every
# comparison of the fuzzer (RDMA machine, model, decider) on each lowering.
.PHONY: agree-surface
agree-surface:
	$(GO) test -count=1 -timeout=0 -run 'TestAgreement' -v ./corpus/surface/ -surface.n=$(N) -surface.seed=$(SEED) $(if $(DIFFER),-surface.differ) | grep -v '^=== RUN'

FUZZTIME ?= 60s
fuzz:
	$(GO) test -run='^$$' -fuzz=FuzzParse -fuzztime=$(FUZZTIME) ./opsem/parse/

clean:
	rm -rf bin $(WEBDIR) $(WEBSTATIC)/rdmasim.wasm $(WEBSTATIC)/wasm_exec.js

# bench-verdicts on the protocols of corpus/protocols alone (the table of
# corpus/protocols/README.md).
PROTOCOLS := corpus/protocols/*.rdma
bench-protocols: build
	$(GO) run ./corpus/bench/verdicts $(VERDICTS_FLAGS) -limit $(LIMIT) $(PROTOCOLS)

# rdmasim repair on every non-robust protocol (the table "Repairs" of
# corpus/protocols/README.md): each file's insertions, cost, proof, rounds
# and seconds; then the query goal on every protocol whose RDMA answer is
# not SC's (an expect rdma line that says allowed beside an sc line that
# says forbidden, or an assertion: docs/REPAIR.md, "Measured, the query
# goal"). REPAIR_TIMEOUT bounds each decision.
REPAIR_TIMEOUT ?= 60s
bench-repair: build
	@echo "== goal robust"; for f in $$(grep -l '^expect robust no' $(PROTOCOLS)); do \
		$(BIN) repair --timeout $(REPAIR_TIMEOUT) $$f | cut -c1-160; \
	done; \
	echo "== goal query"; for f in $$(grep -l '^expect rdma allowed' $(PROTOCOLS)); do \
		grep -q '^expect sc forbidden' $$f || continue; \
		$(BIN) repair --goal query --timeout $(REPAIR_TIMEOUT) $$f | cut -c1-160; \
	done; true
