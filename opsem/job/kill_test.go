package job_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"reflect"
	"testing"
	"time"

	"rdmasim/explore"
	"rdmasim/explore/dist"
	"rdmasim/opsem/job"
	"rdmasim/opsem/machine"
	"rdmasim/opsem/parse"
	"rdmasim/opsem/verdict"
)

// workerEnv, set, makes the test binary a worker (see TestMain), as
// dist.StartLocal starts it: "--nats URL --id NAME".
const workerEnv = "RDMASIM_JOB_TEST_WORKER"

func TestMain(m *testing.M) {
	if os.Getenv(workerEnv) != "" {
		var url, id string
		for i, a := range os.Args {
			switch {
			case a == "--nats" && i+1 < len(os.Args):
				url = os.Args[i+1]
			case a == "--id" && i+1 < len(os.Args):
				id = os.Args[i+1]
			}
		}
		nc, err := dist.Connect(url, "test worker")
		if err == nil {
			err = (&dist.Worker{Factory: job.Machine, ID: id}).Run(context.Background(), nc)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestKilledRDMA answers mp3's query on a local cluster of three workers,
// with witnesses, while workers are killed (SIGKILL) and restarted, and
// checks that the answer is the single process's: outcomes, counts, the
// verdict, completeness and the witness run, step by step.
func TestKilledRDMA(t *testing.T) {
	file := "../../corpus/bench/mp3.rdma"
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	p, err := parse.Parse(file, src)
	if err != nil {
		t.Fatal(err)
	}
	mopt := machine.Options{MaxInflight: 8, Reduce: false}
	opt := verdict.Options{Machine: mopt, Witness: true}
	want, err := verdict.Compute(context.Background(), p, machine.RDMA, opt)
	if err != nil {
		t.Fatal(err)
	}

	t.Setenv(workerEnv, "1")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	l, err := dist.StartLocal(ctx, 3, []string{os.Args[0], "-test.run=^$"}, os.Stderr)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Stop()
	nc, err := dist.Connect(l.URL(), "test coordinator")
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	// The search's own description, given the program, is the payload.
	var payload []byte
	opt.Remote = job.Remote(job.Job{File: file, Source: src}, func(j job.Job) (explore.RemoteCloser, error) {
		payload = j.Encode()
		return dist.NewCoordinator(nc, dist.Config{Partitions: 3, Payload: payload, Memory: true})
	})

	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 2))
	done := make(chan struct{})
	kills := make(chan int, 1)
	go func() {
		n := 0
		defer func() { kills <- n }()
		for range 3 {
			select {
			case <-done:
				return
			case <-time.After(time.Duration(50+rng.IntN(250)) * time.Millisecond):
			}
			if l.Kill(rng.IntN(3)) == nil {
				n++
			}
		}
	}()
	got, err := verdict.Compute(context.Background(), p, machine.RDMA, opt)
	close(done)
	n := <-kills
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d kills, %d worker incarnations took part, %d configurations, %.2fs", n, got.Search.Workers, got.Search.States, got.Search.Elapsed.Seconds())
	if n == 0 {
		t.Errorf("the run ended before a worker was killed: make it longer")
	}
	if got.Search.States != want.Search.States || got.Search.Transitions != want.Search.Transitions || got.Search.MaxDepth != want.Search.MaxDepth {
		t.Errorf("searched %+v, want %+v", got.Search.Stats, want.Search.Stats)
	}
	if !reflect.DeepEqual(got.Outcomes, want.Outcomes) || got.Allowed != want.Allowed || got.Complete != want.Complete ||
		got.Positive != want.Positive || got.Negative != want.Negative || got.Finals != want.Finals || got.Bound != want.Bound {
		t.Errorf("answered %+v, want %+v", got, want)
	}
	steps := func(r *verdict.Run) int {
		if r == nil {
			return -1
		}
		return len(r.Steps)
	}
	if wantPayload := (job.Job{Kind: job.Outcomes, File: file, Source: src, Semantics: machine.RDMA, Machine: job.MachineOf(mopt)}).Encode(); string(payload) != string(wantPayload) {
		t.Errorf("payload %s, want %s", payload, wantPayload)
	}
	if want.Witness == nil || !reflect.DeepEqual(got.Witness, want.Witness) {
		t.Errorf("witness of %d steps, want the same run of %d steps", steps(got.Witness), steps(want.Witness))
	}
}
