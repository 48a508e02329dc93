package dist

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nuid"

	"rdmasim/explore"
	"rdmasim/store"
)

// Config is what a run needs besides the machine: how many partitions, what
// workers build the machine from, and where to say what happens.
type Config struct {
	// Partitions is the number of partitions, each served by one worker
	// at a time; at least 1.
	Partitions int
	// Payload is what a worker's Factory builds the machine from: it must
	// build the machine that the search the Coordinator serves explores.
	Payload []byte
	// Name names the run to workers (e.g. the program and semantics).
	Name string
	// Version is the coordinator's build (Version() if empty); workers of
	// another refuse the run.
	Version string
	// Batch is the bytes of records per message (DefaultBatch if 0).
	Batch int
	// Log, if not nil, is told of workers that refuse the run.
	Log func(string)
	// Memory keeps the run's stream in the server's memory rather than
	// in files: for a server that lives and dies with the coordinator
	// (StartLocal), where files would survive nothing, and cost a third
	// of the time.
	Memory bool
	// Replicas is the number of copies a JetStream cluster keeps of the
	// run's stream and of the buckets, so that the run survives the loss
	// of a server (1 if 0).
	Replicas int
	// LostAfter is how long a level waits for a partition whose records
	// arrived short to be served again before it says they are lost
	// (ErrLost); 0: lostAfter.
	LostAfter time.Duration
	// Key names the search, so that a run whose coordinator died (its
	// process killed, its machine lost) is resumed by the next
	// coordinator of the same search rather than started again: the
	// same Key, Partitions, Version and fingerprint seed, and the same
	// initial state (see "Resuming a run" in the package
	// documentation). It must name everything that changes the state
	// space the workers build from Payload (for rdmasim's searches, the
	// job's Key, which covers the program's text, its params, the kind
	// of search, the semantics and the machine options). Empty: the run
	// is never resumed.
	Key string
	// Keep is how long a run whose coordinator died is kept for a
	// coordinator of the same search to resume: Start first removes the
	// runs on the server (searches and campaigns) that no coordinator
	// holds and of which nothing was written for longer (see sweep).
	// 0: DefaultKeep; negative: runs are never removed so.
	Keep time.Duration
}

// A Coordinator is the explore.Remote of a distributed search: it publishes
// the run, merges the partitions' levels into the search's order (see the
// package documentation) and numbers their states. Close ends the run.
type Coordinator struct {
	nc        *nats.Conn
	js        jetstream.JetStream
	runs      jetstream.KeyValue
	spec      Spec
	stream    jetstream.Stream
	log       func(string)
	memory    bool
	replicas  int
	lostAfter time.Duration
	keep      time.Duration // Config.Keep

	next    uint64              // the id the next level's first state gets
	workers map[string]bool     // the incarnations that expanded states
	bytes   []uint64            // the visited set of each partition
	refused map[string]struct{} // keys of refusals already logged
	purge   chan error          // the purge of the last level's messages, if running

	claims        jetstream.KeyValue
	stopHeartbeat func(release bool) // ends the coordinator's lease

	key string // Config.Key
	// A resumed run: the levels before replayTo are replayed from the
	// run's stream (Expand numbers their states again and publishes
	// nothing); wantNext is the count of states numbered before level
	// replayTo that the run's state recorded (0: not recorded).
	resumed  bool
	replayTo int
	wantNext uint64

	levelDone func(level int) // tests: called once level's state is recorded
	idsDone   func(level int) // tests: called once level's ids are published, before its state
}

var _ explore.RemoteCloser = (*Coordinator)(nil)

// NewCoordinator returns the coordinator of a new run on the NATS server of
// nc; Start publishes it.
func NewCoordinator(nc *nats.Conn, cfg Config) (*Coordinator, error) {
	if cfg.Partitions < 1 {
		return nil, fmt.Errorf("dist: %d partitions", cfg.Partitions)
	}
	js, err := newJS(nc)
	if err != nil {
		return nil, err
	}
	c := &Coordinator{nc: nc, js: js, log: cfg.Log, memory: cfg.Memory, replicas: max(cfg.Replicas, 1), lostAfter: cmp.Or(cfg.LostAfter, lostAfter), workers: map[string]bool{},
		bytes: make([]uint64, cfg.Partitions), refused: map[string]struct{}{}, key: cfg.Key, keep: cfg.Keep}
	if c.keep == 0 {
		c.keep = DefaultKeep
	}
	c.spec = Spec{Run: nuid.Next(), Name: cfg.Name, Partitions: cfg.Partitions, Payload: cfg.Payload,
		Version: cfg.Version, Seed: store.FingerprintSeed(), Batch: cfg.Batch, Protocol: protocol}
	if c.spec.Version == "" {
		c.spec.Version = Version()
	}
	if c.spec.Batch <= 0 {
		c.spec.Batch = DefaultBatch
	}
	return c, nil
}

// Run returns the run's id (once Start has returned, that of the run it
// resumed, if it resumed one).
func (c *Coordinator) Run() string { return c.spec.Run }

// Resumed returns the level at which Start resumed a run whose coordinator
// had died, and whether it did.
func (c *Coordinator) Resumed() (level int, ok bool) { return c.replayTo, c.resumed }

// Start creates the run's stream, gives the initial state to its owner and
// publishes the run for workers to find; or, with a Key, resumes the run of
// the same search whose coordinator died, if there is one (resume).
func (c *Coordinator) Start(ctx context.Context, initial []byte) error {
	var err error
	if c.runs, c.claims, err = buckets(ctx, c.js, c.replicas); err != nil {
		return err
	}
	claims := c.claims
	fp := store.Of(initial)
	c.spec.Initial = [2]uint64{fp.Lo, fp.Hi}
	c.next = 1
	// The runs nobody resumed in time go first, this search's too: a
	// run older than keep is not resumed but done again.
	sweep(ctx, c.nc, c.js, c.runs, claims, c.keep, time.Now(), c.logf)
	if c.key != "" {
		if ok, err := c.resume(ctx); err != nil || ok {
			return err
		}
	}
	// The coordinator's own lease: workers leave a run whose coordinator
	// is gone.
	if c.stopHeartbeat, err = coordLease(ctx, c.nc, claims, c.spec.Run); err != nil {
		return err
	}
	storage := jetstream.FileStorage
	if c.memory {
		storage = jetstream.MemoryStorage
	}
	c.stream, err = c.js.CreateStream(ctx, jetstream.StreamConfig{
		Name:     streamName(c.spec.Run),
		Subjects: []string{"rdmasim." + c.spec.Run + ".>"},
		Storage:  storage,
		Replicas: c.replicas,
	})
	if err != nil {
		return fmt.Errorf("dist: creating the run's stream: %w", err)
	}
	// On a JetStream cluster the stream elects its leader after
	// CreateStream returns: a publish before gets no acknowledgement and
	// fails only after stallWait.
	if err := streamReady(ctx, c.js, streamName(c.spec.Run)); err != nil {
		return fmt.Errorf("dist: the run's stream: %w", err)
	}
	c.spec.Created = time.Now().UTC()
	owner := Owner(fp, c.spec.Partitions)
	pub := newPublisher(c.js, "coordinator", 0).resending(c.spec.Run)
	for k := range c.spec.Partitions {
		pub.from = k
		if k == owner {
			if err := pub.data(subject(c.spec.Run, "new", 0, k), appendState(nil, 0, 0, initial)); err != nil {
				return err
			}
			if err := pub.data(subject(c.spec.Run, "ids", 0, k), appendIDs(nil, []uint64{0})); err != nil {
				return err
			}
		}
		if err := pub.end(subject(c.spec.Run, "new", 0, k), nil); err != nil {
			return err
		}
		if err := pub.end(subject(c.spec.Run, "ids", 0, k), map[string]string{hOf: "coordinator"}); err != nil {
			return err
		}
	}
	if err := pub.flush(ctx); err != nil {
		return err
	}
	if err := c.putState(ctx, State{Level: 0, Next: 1}); err != nil {
		return err
	}
	spec, err := json.Marshal(c.spec)
	if err != nil {
		return fmt.Errorf("dist: %w", err)
	}
	if _, err := c.runs.Put(ctx, c.spec.Run, spec); err != nil {
		return fmt.Errorf("dist: publishing the run: %w", err)
	}
	return c.putResumable(ctx)
}

func (c *Coordinator) putState(ctx context.Context, st State) error {
	b, err := json.Marshal(st)
	if err != nil {
		return fmt.Errorf("dist: %w", err)
	}
	err = retry(ctx, c.js, c.spec.Run, func(ctx context.Context) error {
		_, err := c.runs.Put(ctx, stateKey(c.spec.Run), b)
		return err
	})
	if err != nil {
		return fmt.Errorf("dist: recording the run's state: %w", err)
	}
	return nil
}

// Expand waits for every partition's expansion records of level depth and
// new states of level depth+1, merges them into the committer, and, unless
// the search halted, numbers the new states and starts the next level.
func (c *Coordinator) Expand(ctx context.Context, depth int, commit func(*explore.Expansion) bool, wait func()) error {
	n := c.spec.Partitions
	run := c.spec.Run
	exps, news := newCollector(n), newCollector(n)
	since, checked := time.Now(), time.Now()
	subjects := []string{
		fmt.Sprintf("rdmasim.%s.exp.%d.*", run, depth),
		fmt.Sprintf("rdmasim.%s.new.%d.*", run, depth+1),
	}
	// rctx ends the wait when a worker found that the stream lost
	// messages (lost): the level can then never be completed; or, for
	// one attempt, when records arrived short for a while (reread).
	var lost, err error
	for rereads := 0; ; rereads++ {
		rctx, cancel := context.WithCancel(ctx)
		reread := false
		// A reread asks the stream's leader (readLeader).
		readLevel := read
		if rereads > 0 {
			readLevel = readLeader
		}
		err = readLevel(rctx, c.js, run, subjects, func(m jetstream.Msg) (bool, error) {
			col := news
			if kindOf(m.Subject()) == "exp" {
				col = exps
			}
			if err := col.add(m); err != nil {
				return false, err
			}
			return exps.left == 0 && news.left == 0, nil
		}, func() {
			// The checks are looked at again at the next tick: a
			// request the server does not answer (it went away)
			// must not hold the level.
			ctx, done := checking(ctx, c.nc)
			defer done()
			c.checkRefusals(ctx)
			if rereads < maxRereads && (exps.short.older(rereadAfter(c.lostAfter)) || news.short.older(rereadAfter(c.lostAfter))) {
				reread = true
				cancel()
				return
			}
			if time.Since(checked) > lostEvery {
				if lost = c.checkLost(ctx, depth); lost == nil {
					lost = c.shortLost(ctx, depth, exps, news)
				}
				if lost != nil {
					cancel()
					return
				}
				checked = time.Now()
			}
			if time.Since(since) > unservedAfter {
				c.checkUnserved(ctx, depth, exps, news)
				since = time.Now()
			}
			wait()
		})
		cancel()
		if !reread || ctx.Err() != nil {
			break
		}
		exps, news = newCollector(n), newCollector(n)
	}
	if lost != nil {
		return lost
	}
	if err != nil {
		return err
	}
	expData, newData := make([][][]byte, n), make([][][]byte, n)
	for k := range n {
		expData[k], newData[k] = exps.bodies(k), news.bodies(k)
		c.workers[exps.done[k].inc] = true
		c.bytes[k], _ = strconv.ParseUint(exps.done[k].hdr.Get(hBytes), 10, 64)
	}
	ids, halted, err := merge(expData, newData, c.next, commit)
	if err != nil {
		return fmt.Errorf("dist: merging level %d: %w", depth, err)
	}
	if halted {
		return nil
	}
	if depth < c.replayTo {
		// A level the dead coordinator numbered: its ids and state
		// are published already.
		for k := range n {
			c.next += uint64(len(ids[k]))
		}
		if depth == c.replayTo-1 && c.wantNext != 0 && c.next != c.wantNext {
			return fmt.Errorf("dist: resuming run %s: its stream's levels 0 to %d hold %d states, its state says %d were numbered", run, depth, c.next, c.wantNext)
		}
		return nil
	}
	pub := newPublisher(c.js, "coordinator", 0).resending(c.spec.Run)
	for k := range n {
		subj := subject(run, "ids", depth+1, k)
		pub.from = k
		b := appendIDs(nil, ids[k])
		for len(b) > 0 {
			m := min(len(b), c.spec.Batch)
			if err := pub.data(subj, b[:m]); err != nil {
				return err
			}
			b = b[m:]
		}
		// The incarnation whose new states these ids number.
		if err := pub.end(subj, map[string]string{hOf: news.done[k].inc}); err != nil {
			return err
		}
		c.next += uint64(len(ids[k]))
	}
	if err := pub.flush(ctx); err != nil {
		return err
	}
	if c.idsDone != nil {
		c.idsDone(depth + 1)
	}
	if err := c.putState(ctx, State{Level: depth + 1, Next: c.next}); err != nil {
		return err
	}
	if c.levelDone != nil {
		c.levelDone(depth + 1)
	}
	// No worker needs the successors of the level before this one any
	// more: they go while the next level runs. Not this level's: a
	// partition's new incarnation that began redoing this level before
	// the coordinator merged it from another incarnation's records (as
	// when a resumed run's level is merged at once from those of the
	// dead coordinator's workers) must still receive them; it cannot be
	// two levels behind. (Expansion records and new states stay: a
	// coordinator that resumes the run replays its levels from them, and
	// a worker that takes a partition over rebuilds it from the new
	// states.) A purge only saves the stream's space (a later level's
	// readers filter by level), so one that fails is told, not fatal,
	// and each is bounded by purgeWait: on a JetStream cluster that lost
	// the server leading the stream, a purge request made again and
	// again went unanswered, and the run, waiting for it before the next
	// level's ids, hung (TestReplicaServerLost).
	if err := c.purged(); err != nil && c.log != nil {
		c.log(fmt.Sprintf("level %d: %v (those messages stay in the run's stream until it ends)", depth-2, err))
	}
	if depth < 1 {
		return nil
	}
	c.purge = make(chan error, 1)
	go func(purge chan<- error) {
		subj := fmt.Sprintf("rdmasim.%s.succ.%d.*", run, depth-1)
		pctx, cancel := context.WithTimeout(ctx, purgeWait)
		defer cancel()
		err := retry(pctx, c.js, run, func(ctx context.Context) error {
			return c.stream.Purge(ctx, jetstream.WithPurgeSubject(subj))
		})
		if err != nil {
			err = fmt.Errorf("dist: purging %s: %w", subj, err)
		}
		purge <- err
	}(c.purge)
	return nil
}

// purgeWait bounds the purge of one kind of a past level's messages, made
// again while unanswered (see Expand).
const purgeWait = 2 * requestWait

// purged waits for the last purge and returns its error.
func (c *Coordinator) purged() error {
	if c.purge == nil {
		return nil
	}
	err := <-c.purge
	c.purge = nil
	return err
}

// kindOf returns the kind of a run's subject: succ, exp, new or ids.
func kindOf(subj string) string {
	// rdmasim.RUN.KIND.D.K
	start, dots := 0, 0
	for i := range len(subj) {
		if subj[i] == '.' {
			dots++
			switch dots {
			case 2:
				start = i + 1
			case 3:
				return subj[start:i]
			}
		}
	}
	return ""
}

// checkRefusals logs the workers that refused the run since the last call.
func (c *Coordinator) checkRefusals(ctx context.Context) {
	if c.log == nil {
		return
	}
	keys, err := c.runs.ListKeysFiltered(ctx, c.spec.Run+".refused.>")
	if err != nil {
		return
	}
	for k := range keys.Keys() {
		if _, ok := c.refused[k]; ok {
			continue
		}
		c.refused[k] = struct{}{}
		if e, err := c.runs.Get(ctx, k); err == nil {
			c.log(string(e.Value()))
		}
	}
}

// lostEvery is how often a waiting level looks for the records of workers
// that found messages of the run lost (see ErrLost).
const lostEvery = time.Second

// checkLost returns the error that ends a run, at level depth, whose
// workers recorded that its stream lost messages (Worker.lost), or nil.
func (c *Coordinator) checkLost(ctx context.Context, depth int) error {
	keys, err := c.runs.ListKeysFiltered(ctx, c.spec.Run+".lost.>")
	if err != nil {
		return nil
	}
	var first string
	for k := range keys.Keys() { // every key, so that the lister ends
		if first == "" {
			first = k
		}
	}
	if first == "" {
		return nil
	}
	why := first
	if e, err := c.runs.Get(ctx, first); err == nil {
		why = string(e.Value())
	}
	// why ends with ErrLost's text: wrap ErrLost itself.
	why = strings.TrimSuffix(why, ErrLost.Error())
	return fmt.Errorf("dist: level %d cannot be completed, the run stops: %s%w", depth, why, ErrLost)
}

// shortLost returns the ErrLost of level depth when a partition's expansion
// records or new states arrived short and were not sent again (see
// shorts.lost), or nil.
func (c *Coordinator) shortLost(ctx context.Context, depth int, exps, news *collector) error {
	for _, col := range []*collector{exps, news} {
		if err := col.short.lost(ctx, c.claims, c.spec.Run, func(k int) bool { return col.done[k] == nil }, c.lostAfter); err != nil {
			return fmt.Errorf("dist: level %d cannot be completed, the run stops: %w", depth, err)
		}
	}
	return nil
}

// unservedAfter is how long a level waits before the coordinator says which
// partitions have no worker.
const unservedAfter = 10 * time.Second

// checkUnserved says which partitions of the level depth have not sent all
// their records and have no worker (a run with more partitions than
// workers waits for ever).
func (c *Coordinator) checkUnserved(ctx context.Context, depth int, exps, news *collector) {
	if c.log == nil {
		return
	}
	var missing []int
	for k := range c.spec.Partitions {
		if exps.done[k] != nil && news.done[k] != nil {
			continue
		}
		if _, err := c.claims.Get(ctx, claimKey(c.spec.Run, k)); errors.Is(err, jetstream.ErrKeyNotFound) {
			missing = append(missing, k)
		}
	}
	if len(missing) > 0 {
		c.log(fmt.Sprintf("level %d waits for partitions %v, which no worker serves: start more workers (rdmasim worker --nats URL)", depth, missing))
	}
}

// coordLease takes the coordinator's lease on run and renews it until stop
// is called, which removes it with release (else it lapses after
// ClaimTTL, as a dead coordinator's does): workers leave a run whose lease
// lapsed.
func coordLease(ctx context.Context, nc *nats.Conn, claims jetstream.KeyValue, run string) (stop func(release bool), err error) {
	key, value := coordKey(run), []byte(run)
	rev, err := claims.Create(ctx, key, value)
	if err != nil {
		return nil, fmt.Errorf("dist: taking the coordinator's lease: %w", err)
	}
	hctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	release := true
	go func() {
		defer close(done)
		t := time.NewTicker(ClaimTTL / 5)
		defer t.Stop()
		for {
			select {
			case <-hctx.Done():
				if release {
					dctx, dcancel := context.WithTimeout(context.Background(), time.Second)
					claims.Delete(dctx, key)
					dcancel()
				}
				return
			case <-t.C:
				// Bounded (checking): a renewal left
				// unanswered (the stream's leader went away
				// with the request) must not wait 30 s, past
				// the lease's lapse, which sends the workers
				// away (TestReplicaServerLost).
				cctx, done := checking(hctx, nc)
				if r, err := claims.Update(cctx, key, value, rev); err == nil {
					rev = r
				} else if r, held := renew(cctx, claims, key, value); r != 0 && held {
					rev = r
				}
				done()
			}
		}
	}()
	return func(r bool) { release = r; cancel(); <-done }, nil
}

// Stats returns the workers that took part and their visited sets' size.
func (c *Coordinator) Stats() explore.RemoteStats {
	var b uint64
	for _, x := range c.bytes {
		b += x
	}
	return explore.RemoteStats{Workers: len(c.workers), StoreBytes: b}
}

// Close ends the run: its workers leave it, and its stream and records are
// deleted.
func (c *Coordinator) Close() error {
	if c.runs == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c.purged() // the stream goes anyway
	// Over, and no longer resumable, before the lease goes: a
	// coordinator of the same search that takes the lease then finds the
	// run over (see resume).
	err := c.putState(ctx, State{Done: true})
	err = errors.Join(err, c.dropResumable(ctx))
	if c.stopHeartbeat != nil {
		c.stopHeartbeat(true)
	}
	if derr := c.js.DeleteStream(ctx, streamName(c.spec.Run)); derr != nil && !errors.Is(derr, jetstream.ErrStreamNotFound) {
		err = errors.Join(err, fmt.Errorf("dist: deleting the run's stream: %w", derr))
	}
	for _, key := range []string{c.spec.Run, stateKey(c.spec.Run)} {
		if perr := c.runs.Purge(ctx, key); perr != nil {
			err = errors.Join(err, fmt.Errorf("dist: removing the run: %w", perr))
		}
	}
	return err
}
