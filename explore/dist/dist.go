// Package dist runs the breadth-first search of package explore over many
// processes, on NATS JetStream: partitioned exhaustive search, as distributed
// Murphi, PReach and TLC's sharded fingerprint sets do it, with JetStream's
// persistent streams as the network and as every partition's memory.
//
// A run has a coordinator (a Coordinator, the explore.Remote of the search
// that prints the report) and n partitions, each served by one worker process
// (Worker) wherever it runs. Every state has an owner, the partition Owner
// picks from its fingerprint; the owner keeps it in its visited set and
// expands it. The search is level-synchronous. For level d:
//
//  1. each partition expands its states of depth d and sends every successor,
//     as its encoding, its parent's id and its ordinal, to the successor's
//     owner (subject succ.d.OWNER), batched, then an end marker to every
//     partition, and its expansion records (id, successors, pruned bounds) to
//     the coordinator (exp.d.K);
//  2. each partition reads every successor sent to it until it has an end
//     marker from every partition, keeps those not in its visited set with
//     their least (parent, ordinal), and sends them, sorted so, to the
//     coordinator (new.d+1.K);
//  3. the coordinator merges the partitions' records into the order of the
//     sequential breadth-first search and hands them to the search's commit
//     core (see explore.Remote), which numbers, records and visits the new
//     states and applies the bounds; it sends each partition the ids of its
//     new states (ids.d+1.K), and records in the key-value store that level
//     d+1 has begun.
//
// So the ids, depths, parents, visits, counts and stops are those of the
// sequential search, and the witness runs too: the coordinator records the
// parent references the partitions send and replays them on its machine.
//
// A worker may die at any moment (SIGKILL). Whatever it sent is in the
// stream; a worker that takes its partition over (the same worker restarted
// takes its claim back at once, any other once the claim's lease lapses)
// rebuilds the visited set from the partition's new-state messages of every
// level the coordinator numbered, and redoes the current level. Doing a level
// twice is harmless: a successor received twice keeps its least discoverer,
// and the coordinator uses, per partition, the messages of the first worker
// incarnation that finished them, which are the same whoever sent them.
//
// # Resuming a run
//
// A run whose coordinator died (SIGKILL, its machine lost) keeps everything
// in JetStream: its description and state (the level being expanded, the
// states numbered so far) in the bucket of runs, and in its stream the
// partitions' expansion records and new states of every level, and the ids
// the coordinator gave them. Its workers leave it once the coordinator's
// lease lapses. A coordinator of the same search (Config.Key) that starts
// later finds it through its resumable record, takes the lease and goes on:
//
//   - the levels the dead coordinator numbered (those before the state's
//     Level) are replayed: Expand reads their expansion records and new
//     states from the stream and merges them into the search's commit core
//     as it did then, so that the search's counts, visits, parent records
//     (witnesses) and bounds are rebuilt exactly, without any worker and
//     without publishing anything; the count of states it numbers is
//     checked against the state's;
//   - the level the dead coordinator was expanding is done as usual: the
//     workers come back to the run (its lease is held again), rebuild their
//     partitions from the stream as a worker that takes a partition over
//     does (serve.go), and redo the level.
//
// So the resumed search reports what the uninterrupted one would have. The
// coordinator's side is rebuilt by replaying rather than from a saved
// snapshot: the commit core's state is the caller's too (what Visit built,
// the parent records), which explore does not save for a remote search,
// and the replay rebuilds it from records the run keeps anyway (the
// expansion records are 16 bytes a state; the new states were kept for the
// workers). The cost is reading the run's records once more, in the
// coordinator.
//
// A finished run is not resumed: Close removes its record with the run, so
// that the same search run again starts afresh. A record is used only if it
// and the run it names agree with the new coordinator on the search's key,
// the partitions, the build, the fingerprint seed and the initial state
// (the record's key in the bucket is derived from the first four, so a
// different partition count never even finds it); the run must not be over
// and its stream must exist. A run whose lease is still renewed has a live
// coordinator (the same search started twice): it is left alone and a new
// run starts.
//
// A dead run is kept for Config.Keep (DefaultKeep, a day) to be resumed:
// every coordinator's Start first removes the runs that no coordinator
// holds and of which nothing was written for longer (sweep), so a run
// nobody resumes does not stay on the server for ever.
//
// The package knows nothing of what it searches: a run carries an opaque
// payload from which a worker's Factory builds the machine, and a worker
// refuses a run whose version, fingerprint seed or initial state differs
// from its own.
package dist

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"rdmasim/store"
)

// Spec describes a run to its workers. The coordinator stores it in the
// bucket of runs (RunsBucket) under the run's id; workers find runs there.
type Spec struct {
	Run        string    `json:"run"`
	Name       string    `json:"name"`
	Partitions int       `json:"partitions"`
	Payload    []byte    `json:"payload"`  // what a worker's Factory builds the machine from
	Version    string    `json:"version"`  // the coordinator's build (Version)
	Seed       [2]uint64 `json:"seed"`     // store.FingerprintSeed
	Initial    [2]uint64 `json:"initial"`  // the fingerprint of the initial state
	Batch      int       `json:"batch"`    // the bytes of records per message
	Created    time.Time `json:"created"`  // when the run began
	Protocol   int       `json:"protocol"` // protocol
	// Campaign, for a campaign rather than a search, names its task
	// function (see RunCampaign); AckWait is how long a task may run.
	Campaign string        `json:"campaign,omitempty"`
	AckWait  time.Duration `json:"ack_wait,omitempty"`
}

// State is a run's progress, in the bucket of runs under RUN.state: the
// coordinator's state, from which workers (and a restarted worker) learn
// where the run is.
type State struct {
	// Level is the depth whose states are numbered and being expanded.
	Level int `json:"level"`
	// Next is the count of states numbered before Level+1: the states
	// of depth Level and less (0 in a run of an earlier build). A
	// coordinator that resumes the run checks its replay against it.
	Next uint64 `json:"next,omitempty"`
	// Done says the run is over: its workers leave it.
	Done bool `json:"done"`
}

const (
	// RunsBucket is the key-value bucket of run specs and states.
	RunsBucket = "rdmasim-runs"
	// ClaimsBucket is the key-value bucket of partition claims
	// (RUN.K), whose entries lapse after ClaimTTL unless renewed.
	ClaimsBucket = "rdmasim-claims"
	// ClaimTTL is how long a dead worker's partition waits for another
	// (a worker restarted under the same ID takes it back at once).
	ClaimTTL = 10 * time.Second

	protocol = 1

	// DefaultBatch is the bytes of records a message carries.
	DefaultBatch = 256 << 10

	hInc   = "Rdm-Inc"   // the sending worker incarnation
	hFrom  = "Rdm-From"  // the sending partition
	hEnd   = "Rdm-End"   // an end marker: the count of data messages it ends
	hBytes = "Rdm-Bytes" // on an expansion end marker: the visited set's bytes
	hOf    = "Rdm-Of"    // on an ids end marker: the incarnation whose new states they number
	hSeq   = "Rdm-Seq"   // on a data message: its place among its sender's data messages on the subject, from 0
)

// Version returns the version of this build, as a run records it: the
// module version or VCS revision, and the Go version.
func Version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	v := bi.Main.Version
	for _, s := range bi.Settings {
		if s.Key == "vcs.revision" || s.Key == "vcs.modified" {
			v += " " + s.Value
		}
	}
	return fmt.Sprintf("%s %s %s", bi.Main.Path, v, bi.GoVersion)
}

// compatible says why a worker of version version cannot serve run s, or "".
func (s *Spec) compatible(version string) string {
	switch {
	case s.Protocol != protocol:
		return fmt.Sprintf("protocol %d, this worker speaks %d", s.Protocol, protocol)
	case s.Version != version:
		return fmt.Sprintf("built from %q, this worker from %q", s.Version, version)
	case s.Seed != store.FingerprintSeed():
		return "another fingerprint seed"
	}
	return ""
}

func streamName(run string) string { return "rdmasim-" + run }

func subject(run, kind string, depth, part int) string {
	return fmt.Sprintf("rdmasim.%s.%s.%d.%d", run, kind, depth, part)
}

func stateKey(run string) string { return run + ".state" }

func claimKey(run string, k int) string { return run + "." + strconv.Itoa(k) }

// coordKey is the key of the coordinator's lease in the bucket of claims.
func coordKey(run string) string { return run + ".coordinator" }

// buckets opens the bucket of runs and of claims. The coordinator (replicas
// > 0) creates or updates them with that many replicas; a worker (replicas
// 0) opens them, creating them with one replica only if they do not exist
// yet, so that it never changes a coordinator's choice.
func buckets(ctx context.Context, js jetstream.JetStream, replicas int) (runs, claims jetstream.KeyValue, err error) {
	open := func(cfg jetstream.KeyValueConfig) (jetstream.KeyValue, error) {
		deadline := time.Now().Add(stallWait)
		for {
			kv, err := openBucket(ctx, js, cfg, replicas)
			if err != nil && ctx.Err() == nil && time.Now().Before(deadline) &&
				(unanswered(err) || errors.Is(err, jetstream.ErrStreamNameAlreadyInUse) || errors.Is(err, jetstream.ErrBucketExists) || noPeersYet(err)) {
				// The bucket's stream has no leader for a moment
				// (the coordinator scales it up, or its leader's
				// server went away), or another process made it
				// at the same moment (the workers of a cluster
				// start together), or the cluster's servers are
				// still joining: ask again.
				select {
				case <-ctx.Done():
				case <-time.After(250 * time.Millisecond):
				}
				continue
			}
			if err != nil {
				return nil, fmt.Errorf("dist: opening the bucket %s: %w", cfg.Bucket, err)
			}
			if err := streamReady(ctx, js, "KV_"+cfg.Bucket); err != nil {
				return nil, fmt.Errorf("dist: the bucket %s: %w", cfg.Bucket, err)
			}
			return kv, nil
		}
	}
	if runs, err = open(jetstream.KeyValueConfig{Bucket: RunsBucket, Storage: jetstream.FileStorage}); err != nil {
		return nil, nil, err
	}
	if claims, err = open(jetstream.KeyValueConfig{Bucket: ClaimsBucket, TTL: ClaimTTL, Storage: jetstream.FileStorage}); err != nil {
		return nil, nil, err
	}
	return runs, claims, nil
}

// openBucket makes one attempt at opening the bucket of cfg, as buckets
// does, each request bounded by requestWait and by the connection
// (whileConnected).
func openBucket(ctx context.Context, js jetstream.JetStream, cfg jetstream.KeyValueConfig, replicas int) (jetstream.KeyValue, error) {
	wctx, done := whileConnected(ctx, js.Conn())
	defer done()
	rctx, cancel := context.WithTimeout(wctx, requestWait)
	defer cancel()
	mark := func(kv jetstream.KeyValue, err error) (jetstream.KeyValue, error) {
		if err != nil && rctx.Err() != nil && ctx.Err() == nil {
			// Unanswered, not abandoned: say so to buckets.
			err = fmt.Errorf("%w (%w)", errUnanswered, err)
		}
		return kv, err
	}
	if replicas > 0 {
		cfg.Replicas = replicas
		return mark(js.CreateOrUpdateKeyValue(rctx, cfg))
	}
	// A worker makes the bucket only if it does not exist: a request
	// that failed otherwise must not scale a coordinator's bucket down.
	kv, err := js.KeyValue(rctx, cfg.Bucket)
	if !errors.Is(err, jetstream.ErrBucketNotFound) {
		return mark(kv, err)
	}
	cfg.Replicas = 1
	return mark(js.CreateKeyValue(rctx, cfg))
}

// noPeersYet says whether err is JetStream's "no suitable peers for
// placement" (10005), which a cluster whose servers are still joining
// answers a stream with replicas: once a run of TestReplicaServerLost in
// four, right after its cluster elected its meta leader.
func noPeersYet(err error) bool {
	var api *jetstream.APIError
	return errors.As(err, &api) && api.ErrorCode == 10005
}

// errUnanswered is the error of a request to a JetStream cluster that got
// no answer within its bound, as a request to a stream without a leader
// gets none: it may be made again.
var errUnanswered = errors.New("no answer")

// unanswered says whether err, a request's error, may be cured by making
// the request again: it got no answer, or the connection went away, or the
// stream had no leader to answer. (A server without JetStream, as a server
// restarting is for a moment, fails the request at once: a worker pointed
// at a plain nats-server should say so at once.)
func unanswered(err error) bool {
	return errors.Is(err, errUnanswered) || errors.Is(err, nats.ErrDisconnected) ||
		errors.Is(err, nats.ErrNoResponders) || errors.Is(err, jetstream.ErrNoStreamResponse)
}

// streamReady waits until the stream name of a JetStream cluster has a leader
// and a quorum of its replicas has caught up, with no change of its peers
// under way, for at most stallWait; on a single server it returns at once.
//
// A bucket made with one replica (by a worker, which makes it when it is
// missing, or by an earlier run with --nats-replicas 1) and opened with
// three is scaled up by CreateOrUpdateKeyValue, which returns at once: a
// request sent while the stream elects its leader among the new peers gets
// no answer, and the key-value operation that sent it (taking the
// coordinator's lease) waits until its context ends ("context deadline
// exceeded") even though the stream is ready a second later.
func streamReady(ctx context.Context, js jetstream.JetStream, name string) error {
	ctx, cancel := context.WithTimeout(ctx, stallWait)
	defer cancel()
	for {
		s, err := js.Stream(ctx, name)
		if err == nil {
			info := s.CachedInfo()
			c := info.Cluster
			// Right after the update the info may still be the old
			// group's: a leader and no peers. Ready is the new
			// group's leader with every peer listed and a quorum
			// current: a cluster that lost a server keeps working
			// with two copies of three.
			ready := c == nil
			if c != nil && c.Leader != "" && c.Desired == nil && len(c.Replicas) == info.Config.Replicas-1 {
				current := 1 // the leader
				for _, r := range c.Replicas {
					if r.Current && !r.Offline {
						current++
					}
				}
				ready = current > info.Config.Replicas/2
			}
			if ready {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			if err == nil {
				err = ctx.Err()
			}
			return fmt.Errorf("its stream %s has no leader with a quorum of current replicas after %s (a JetStream cluster with fewer servers than --nats-replicas?): %w", name, stallWait, err)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// stallWait is how long a publish waits for the server to store the
// messages published before it (see publisher.pub): as long as a request.
const stallWait = 30 * time.Second

// ackWait is how long a published message waits for the stream's
// acknowledgement before its publish fails (a worker's level fails and is
// served again; the coordinator publishes it again). A stream stores a
// message within milliseconds, or a second on a loaded machine; but on a
// JetStream cluster, a message sent to a stream leader whose server went
// away is lost with it while the client stays connected to another server,
// and nothing else says so: waiting stallWait for it held the run up for
// 30 s each time (TestReplicaServerLost).
const ackWait = 5 * time.Second

// newJS returns the JetStream context of nc, with a bound on the messages
// published and not yet stored, and a patient timeout for requests: a
// server on a loaded machine answers slowly, and a request that times out
// costs a level's work.
func newJS(nc *nats.Conn) (jetstream.JetStream, error) {
	// A message that the server never acknowledges (it went away with
	// it) fails its publish after ackWait: the level that sent it
	// fails, and its partition is served again.
	js, err := jetstream.New(nc, jetstream.WithPublishAsyncMaxPending(64), jetstream.WithDefaultTimeout(30*time.Second),
		jetstream.WithPublishAsyncTimeout(ackWait))
	if err != nil {
		return nil, fmt.Errorf("dist: %w", err)
	}
	return js, nil
}

// A collector gathers the messages of one subject per partition, as several
// incarnations of a worker may have sent them, and keeps, per partition, the
// data of the first incarnation that is complete: its end marker has arrived,
// and as many data messages as it counts. The stream may hold an
// incarnation's messages out of the order they were sent in (a message sent
// through a server of a JetStream cluster that was going away was stored
// after later ones sent through another, and a resending publisher's copy
// comes after the end marker), so a message may arrive after its end marker,
// and bodies are kept in their sender's order (hSeq), not the stream's. An
// incarnation whose end marker counts more data messages than have arrived is
// short until they do; the collector meanwhile waits for it, or for another
// incarnation of the partition, which comes if the short one's worker found
// its publishes failed (see shorts).
type collector struct {
	n     int
	parts []map[string]*incData // per partition, per incarnation
	done  []*incData            // per partition, once complete
	left  int
	short shorts
}

type incData struct {
	inc    string
	bodies [][]byte // in the sender's order, once complete
	seqs   []int    // the hSeq of each body, while they arrive
	seen   map[int]bool
	want   int         // the end marker's count; -1 before it arrives
	hdr    nats.Header // of the end marker
}

func newCollector(n int) *collector {
	c := &collector{n: n, parts: make([]map[string]*incData, n), done: make([]*incData, n), left: n, short: shorts{}}
	for i := range c.parts {
		c.parts[i] = map[string]*incData{}
	}
	return c
}

// add takes a message; it fails on a malformed one. An end marker that
// counts more data messages than have arrived makes its incarnation short
// until the rest arrives.
func (c *collector) add(m jetstream.Msg) error {
	h := m.Headers()
	from, err := strconv.Atoi(h.Get(hFrom))
	if err != nil || from < 0 || from >= c.n {
		return fmt.Errorf("dist: message on %s from partition %q", m.Subject(), h.Get(hFrom))
	}
	if c.done[from] != nil {
		return nil
	}
	inc := h.Get(hInc)
	d := c.parts[from][inc]
	if d == nil {
		d = &incData{inc: inc, seen: map[int]bool{}, want: -1}
		c.parts[from][inc] = d
	}
	end := h.Get(hEnd)
	if end == "" {
		seq, err := dataSeq(h, len(d.seqs))
		if err != nil {
			return fmt.Errorf("dist: a data message on %s of %s: %w", m.Subject(), inc, err)
		}
		if d.seen[seq] {
			return nil // a copy
		}
		d.seen[seq] = true
		d.bodies, d.seqs = append(d.bodies, m.Data()), append(d.seqs, seq)
	} else {
		n, err := strconv.Atoi(end)
		if err != nil || n < 0 {
			return fmt.Errorf("dist: the end marker on %s of %s: a count %q", m.Subject(), inc, end)
		}
		d.want, d.hdr = n, h
	}
	switch {
	case d.want < 0:
		return nil
	case len(d.bodies) < d.want:
		c.short.add(from, inc, fmt.Sprintf("the end marker on %s of %s says %d messages, %d arrived", m.Subject(), inc, d.want, len(d.bodies)))
		return nil
	case len(d.bodies) > d.want:
		return fmt.Errorf("dist: the end marker on %s of %s says %d messages, %d arrived", m.Subject(), inc, d.want, len(d.bodies))
	}
	d.inOrder()
	delete(c.short, from) // the partition is complete, whichever incarnation was short

	c.done[from] = d
	c.parts[from] = nil
	c.left--
	return nil
}

// inOrder puts the bodies into their sender's order.
func (d *incData) inOrder() {
	d.bodies, d.seqs, d.seen = inOrder(d.bodies, d.seqs), nil, nil
}

// inOrder returns bodies sorted by their places seqs (hSeq).
func inOrder(bodies [][]byte, seqs []int) [][]byte {
	idx := make([]int, len(bodies))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool { return seqs[idx[a]] < seqs[idx[b]] })
	out := make([][]byte, len(idx))
	for i, j := range idx {
		out[i] = bodies[j]
	}
	return out
}

// A tally counts, per sender incarnation, the data messages that arrived
// (each place hSeq once) and what its end marker says (want, -1 before it),
// for a reader that takes the data as they come (receive).
type tally struct {
	seen map[string]map[int]bool
	want map[string]int
}

func newTally() *tally { return &tally{seen: map[string]map[int]bool{}, want: map[string]int{}} }

// data records the data message at place seq of key; false for a copy.
func (t *tally) data(key string, seq int) bool {
	if t.seen[key] == nil {
		t.seen[key] = map[int]bool{}
		if _, ok := t.want[key]; !ok {
			t.want[key] = -1
		}
	}
	if t.seen[key][seq] {
		return false
	}
	t.seen[key][seq] = true
	return true
}

// end records key's end marker, which counts n data messages.
func (t *tally) end(key string, n int) { t.want[key] = n }

// arrived is how many data messages of key arrived.
func (t *tally) arrived(key string) int { return len(t.seen[key]) }

// dataSeq returns a data message's place among its sender's on its subject
// (hSeq); arrived, the count of its incarnation's data messages that came
// before it, stands in for a message without one.
func dataSeq(h nats.Header, arrived int) (int, error) {
	v := h.Get(hSeq)
	if v == "" {
		return arrived, nil
	}
	seq, err := strconv.Atoi(v)
	if err != nil || seq < 0 {
		return 0, fmt.Errorf("a place %q", v)
	}
	return seq, nil
}

// shorts are the short incarnations of the partitions whose messages a
// reader waits for: per partition, the last one, what was short and when it
// was seen.
type shorts map[int]short

type short struct {
	inc, what string
	since     time.Time
}

func (s shorts) add(k int, inc, what string) { s[k] = short{inc: inc, what: what, since: time.Now()} }

// older says whether a short incarnation has been waiting for longer than
// d.
func (s shorts) older(d time.Duration) bool {
	for _, sh := range s {
		if time.Since(sh.since) > d {
			return true
		}
	}
	return false
}

// A reader whose records have arrived short for rereadAfter(lostAfter)
// reads them all again, from the stream's first, as the stream's leader has
// them (readLeader), once per wait, before it waits for the short
// incarnation to be served again (shorts.lost). On a JetStream cluster that lost a server, a consumer
// handed an end marker without the data message it counts, though the
// stream had acknowledged that message to its sender, which went on to
// wait for the next level: the run stopped with ErrLost after lostAfter
// (one run of four of TestReplicaServerLost/restarted). By rereadAfter, a
// sender whose publishes were lost has found out (ackWait) and is served
// again.
const maxRereads = 1

// rereadAfter is how long a reader whose records arrived short waits before
// it reads them again: 2 ackWait, or half of lostAfter if that is shorter.
func rereadAfter(lostAfter time.Duration) time.Duration { return min(2*ackWait, lostAfter/2) }

// lost returns the ErrLost of a partition of run, among those waited for
// (waiting), whose short incarnation has had lostAfter to be replaced and
// still holds the partition's claim: its worker believes its messages sent,
// so that no other incarnation will send them; nil if there is none.
func (s shorts) lost(ctx context.Context, claims jetstream.KeyValue, run string, waiting func(k int) bool, lostAfter time.Duration) error {
	for k, sh := range s {
		if !waiting(k) || time.Since(sh.since) < lostAfter {
			continue
		}
		e, err := claims.Get(ctx, claimKey(run, k))
		if err != nil || !strings.HasSuffix(string(e.Value()), " "+sh.inc) {
			continue // served again, or about to be
		}
		return fmt.Errorf("dist: %s: %w", sh.what, ErrLost)
	}
	return nil
}

// lostAfter is how long a reader waits for a partition whose messages arrived
// short to be served again before it says they are lost (ErrLost): longer
// than a publish waits for its acknowledgement (ackWait) or for the server
// to store what it sent before (stallWait), after which the
// sending worker finds its publishes failed, and a claim's renewal.
const lostAfter = stallWait + ClaimTTL/2

// bodies returns the data of partition k, as the bodies of its messages.
func (c *collector) bodies(k int) [][]byte { return c.done[k].bodies }

// joined returns the data of partition k, concatenated.
func (c *collector) joined(k int) []byte {
	var b []byte
	for _, x := range c.done[k].bodies {
		b = append(b, x...)
	}
	return b
}
