package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"rdmasim/explore"
	"rdmasim/explore/dist"
	"rdmasim/opsem/job"
)

// natsFlags are how a command reaches a NATS server: its URL, and the
// credentials and TLS it may need (passed to the client, never printed).
type natsFlags struct {
	url, creds, tlsCA string
}

func (f *natsFlags) register(fs *pflag.FlagSet, what string) {
	fs.StringVar(&f.url, "nats", "", what)
	fs.StringVar(&f.creds, "nats-creds", "", "NATS credentials file (user JWT and nkey seed)")
	fs.StringVar(&f.tlsCA, "nats-tls", "", "CA certificate (PEM) to verify the NATS server's TLS certificate with")
}

func (f *natsFlags) connect(name string) (*dist.Conn, error) {
	return dist.Dial(f.url, name, dist.Security{Creds: f.creds, TLSCA: f.tlsCA})
}

// clusterFlags are the flags of the searches of explore, check and robust
// on a cluster (explore/dist): one started on this machine (--cluster
// local:N) or one whose server is given (--nats URL, with --partitions).
// Each search of the command (each machine, each max-inflight of check's
// deepening, each block of the decider) is one run on the cluster.
type clusterFlags struct {
	natsFlags
	cluster    string
	partitions int
	replicas   int
	keep       time.Duration
}

func (f *clusterFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.cluster, "cluster", "", "run the searches on a cluster: local:N starts a NATS server with JetStream in this process and N worker processes (rdmasim worker) on this machine; each search's state space is split into N partitions, one per worker, and the report is the single-process one, plus the workers that took part (--json); the searches are breadth-first (reduced by symmetry as in one process, the workers expanding canonical configurations), and what cannot be partitioned (the declarative model, the decider's Karp–Miller search) runs in this process and says so on stderr")
	f.natsFlags.register(fs, "run the searches on the cluster of the NATS server (JetStream) at this URL, e.g. nats://host:4222, whose workers run 'rdmasim worker --nats URL' (needs --partitions)")
	fs.IntVar(&f.partitions, "partitions", 0, "with --nats: partitions of the state space, each served by one worker at a time")
	fs.IntVar(&f.replicas, "nats-replicas", 1, "with --nats: copies a JetStream cluster keeps of the run's stream and buckets (3 survives the loss of a server)")
	fs.DurationVar(&f.keep, "nats-keep", dist.DefaultKeep, "with --nats: how long a run whose coordinator died is kept for the same command to resume; each search first removes the runs on the server that no coordinator holds and of which nothing was written for longer (0: never)")
}

// registerCampaign registers the flags of a command whose work the
// cluster's workers share (a campaign: no partitions), doing what.
func (f *clusterFlags) registerCampaign(fs *pflag.FlagSet, what string) {
	fs.StringVar(&f.cluster, "cluster", "", what+": local:N starts a NATS server with JetStream in this process and N worker processes (rdmasim worker) on this machine, which take the work from a queue; the output is the single-process one")
	f.natsFlags.register(fs, what+" whose server (NATS with JetStream) is at this URL, e.g. nats://host:4222, and whose workers run 'rdmasim worker --nats URL'")
}

// checkCampaign says what is wrong with the cluster flags of a campaign.
func (f *clusterFlags) checkCampaign() error {
	if f.cluster != "" && f.url != "" {
		return errors.New("--cluster and --nats: give one")
	}
	if f.cluster != "" {
		n, ok := strings.CutPrefix(f.cluster, "local:")
		k, err := strconv.Atoi(n)
		if !ok || err != nil || k < 1 || k > explore.MaxWorkers {
			return fmt.Errorf("--cluster %q: want local:N, N = 1..%d", f.cluster, explore.MaxWorkers)
		}
		f.partitions = k
	}
	return nil
}

// campaign runs the work of cmd, one task per item (task makes its
// payload), on the cluster, and hands the results to result in item order.
func (f *clusterFlags) campaign(ctx context.Context, e *env, cmd, kind string, items []string, task func(string) ([]byte, error), result func(int, []byte) error) error {
	tasks := make([][]byte, len(items))
	for i, it := range items {
		var err error
		if tasks[i], err = task(it); err != nil {
			return err
		}
	}
	return f.runCampaign(ctx, e, dist.CampaignConfig{Kind: kind, Name: cmd}, tasks, result)
}

// runCampaign starts the cluster (start) and runs the campaign cfg of
// tasks on it, handing the results to result in task order.
func (f *clusterFlags) runCampaign(ctx context.Context, e *env, cfg dist.CampaignConfig, tasks [][]byte, result func(int, []byte) error) error {
	nc, stop, err := f.start(ctx, e)
	if err != nil {
		return err
	}
	defer stop()
	return dist.RunCampaign(ctx, nc, cfg, tasks, result)
}

func (f *clusterFlags) active() bool { return f.cluster != "" || f.url != "" }

// check says what is wrong with the cluster flags, with the search's
// choices c.
func (f *clusterFlags) check(c explore.Choices) error {
	switch {
	case f.cluster != "" && f.url != "":
		return errors.New("--cluster and --nats: give one")
	case f.cluster != "":
		n, ok := strings.CutPrefix(f.cluster, "local:")
		k, err := strconv.Atoi(n)
		if !ok || err != nil || k < 1 || k > explore.MaxWorkers {
			return fmt.Errorf("--cluster %q: want local:N, N = 1..%d", f.cluster, explore.MaxWorkers)
		}
		f.partitions = k
	case f.partitions < 1 || f.partitions > 1<<16:
		return fmt.Errorf("--nats needs --partitions N (1..%d): the workers that take part", 1<<16)
	}
	switch {
	case c.Order != "bfs":
		return errors.New("a search on a cluster is breadth-first: --order dfs is not possible")
	case c.Checkpoint != "":
		return errors.New("a search on a cluster does not checkpoint (its partitions recover from the NATS streams): drop --checkpoint")
	}
	return nil
}

// start starts the local cluster, or connects to the server, and returns
// the connection and what stops it all.
func (f *clusterFlags) start(ctx context.Context, e *env) (*dist.Conn, func(), error) {
	stop := func() {}
	if f.cluster != "" {
		exe, err := os.Executable()
		if err != nil {
			return nil, nil, fmt.Errorf("starting the workers: %w", err)
		}
		l, err := dist.StartLocal(ctx, f.partitions, []string{exe, "worker", "--quiet"}, e.stderr)
		if err != nil {
			return nil, nil, err
		}
		f.url, stop = l.URL(), l.Stop
	}
	nc, err := f.connect("rdmasim")
	if err != nil {
		stop()
		return nil, nil, err
	}
	return nc, func() { nc.Close(); stop() }, nil
}

// open checks the cluster flags of command cmd against the search choices
// c and starts the cluster (start). It returns the connection (nil without
// cluster flags) and what stops the cluster, or the exit code that ends
// the command (>= 0): exitUsage for flags that cannot work, exitInternal
// when the cluster does not start.
func (f *clusterFlags) open(ctx context.Context, e *env, cmd string, c explore.Choices) (*dist.Conn, func(), int) {
	if !f.active() {
		return nil, func() {}, -1
	}
	if err := f.check(c); err != nil {
		fmt.Fprintf(e.stderr, "rdmasim %s: %v\n", cmd, err)
		return nil, nil, exitUsage
	}
	nc, stop, err := f.start(ctx, e)
	if err != nil {
		fmt.Fprintf(e.stderr, "rdmasim %s: %v\n", cmd, err)
		return nil, nil, exitInternal
	}
	return nc, stop, -1
}

// remote returns the Settings.Remote of the searches of command cmd on
// program (a job that names the file and the params; the file's text is
// read now), on the cluster of nc: each search (verdict.Compute's under
// RDMA and SC, each step of check's deepening, robustness's enumeration,
// each block of the decider, robust's deadlock search) runs with its own
// job, that search's description given the program (job.Remote).
func (f *clusterFlags) remote(nc *dist.Conn, e *env, cmd string, program job.Job) (func([]byte) (explore.RemoteCloser, error), error) {
	if program.Source == nil {
		src, err := os.ReadFile(program.File)
		if err != nil {
			return nil, fmt.Errorf("reading program: %w", err)
		}
		program.Source = src
	}
	return job.Remote(program, func(j job.Job) (explore.RemoteCloser, error) {
		// The same search run again resumes the run its coordinator
		// left when it died, on a server that outlived it (--nats; a
		// --cluster local server dies with the coordinator).
		key := ""
		if f.cluster == "" {
			key = j.Key()
		}
		return dist.NewCoordinator(nc, dist.Config{
			Partitions: f.partitions,
			Payload:    j.Encode(),
			Name:       j.String(),
			Log:        func(s string) { fmt.Fprintf(e.stderr, "rdmasim %s: %s\n", cmd, s) },
			Memory:     f.cluster != "",
			Replicas:   f.replicas,
			Keep:       cmp.Or(f.keep, -1), // 0: never
			Key:        key,
		})
	}), nil
}

// karpMillerLocal says that the decider's Karp–Miller search ran in this
// process: it keeps every state in memory and accelerates counters along a
// tree of states, which no cluster partitions.
const karpMillerLocal = "a poll on a loop makes the decider's counters unbounded: its Karp–Miller search ran in this process (in memory, on one core, within --mem-budget), not on the cluster"
