package dist

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"rdmasim/store"
)

// serve serves partition k of run s until the run is over (it then returns
// nil) or the worker loses its claim: it builds the machine, recovers the
// partition from the run's stream and takes part in every level.
func (w *Worker) serve(ctx context.Context, js jetstream.JetStream, runs, claims jetstream.KeyValue, s *Spec, k int, inc string, l *lease) error {
	m, err := w.Factory(s.Payload)
	if err != nil {
		return fmt.Errorf("%w: cannot build its machine: %v", errRefused, err)
	}
	if fp := store.Of(m.Initial(nil)); [2]uint64{fp.Lo, fp.Hi} != s.Initial {
		return fmt.Errorf("%w: its machine has another initial state here (another program or semantics?)", errRefused)
	}
	var set store.Set = store.NewMem(0)
	if w.NewSet != nil {
		if set, err = w.NewSet(); err != nil {
			return fmt.Errorf("dist: opening the visited set: %w", err)
		}
	}
	defer set.Close()

	// rctx ends with the run, or when another worker took the partition.
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	st, err := watchState(rctx, cancel, runs, s.Run)
	if err != nil {
		return err
	}
	go func() {
		select {
		case <-l.lost:
			w.logf("lost its claim on partition %d of run %s", k, s.Run)
			cancel()
		case <-l.orphaned:
			w.logf("left run %s: its coordinator is gone", s.Run)
			cancel()
		case <-rctx.Done():
		}
	}()
	if st.Done {
		return nil
	}
	p := newPartition(k, s.Partitions, m, set)
	// An error as the run ends (its stream deleted before its state said
	// so) is no failure: settled waits a moment to tell.
	if err := recoverPartition(rctx, js, s, p, st.Level); err != nil {
		return settled(rctx, err)
	}
	for d := st.Level; ; d++ {
		if err := w.level(rctx, js, claims, s, p, d, inc); err != nil {
			return settled(rctx, err)
		}
	}
}

// stopped returns nil if the run's context ctx is done (the run is over, or
// the partition has another worker), else err.
func stopped(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return nil
	}
	return err
}

// watchState returns the run's state, and calls cancel once it is over.
func watchState(ctx context.Context, cancel context.CancelFunc, runs jetstream.KeyValue, run string) (State, error) {
	wt, err := runs.Watch(ctx, stateKey(run))
	if err != nil {
		return State{}, fmt.Errorf("dist: watching the run's state: %w", err)
	}
	parse := func(e jetstream.KeyValueEntry) (State, bool) {
		var st State
		if e.Operation() != jetstream.KeyValuePut || json.Unmarshal(e.Value(), &st) != nil {
			return State{Done: true}, true
		}
		return st, st.Done
	}
	var st State
	for e := range wt.Updates() {
		if e == nil {
			break // the current value came first
		}
		st, _ = parse(e)
	}
	go func() {
		defer wt.Stop()
		for e := range wt.Updates() {
			if e == nil {
				continue
			}
			if _, done := parse(e); done {
				cancel()
				return
			}
		}
	}()
	return st, ctx.Err()
}

// recoverPartition rebuilds partition p of run s at the start of level
// level: its visited set from its new states of every numbered level, and
// the level's states with their ids.
func recoverPartition(ctx context.Context, js jetstream.JetStream, s *Spec, p *partition, level int) error {
	ids, of, err := readIDs(ctx, js, s, p.k, level)
	if err != nil {
		return err
	}
	var states [][]byte // the level's, with their places (hSeq)
	var seqs []int
	prefix := fmt.Sprintf("rdmasim.%s.new.", s.Run)
	err = read(ctx, js, s.Run, []string{fmt.Sprintf("%s*.%d", prefix, p.k)}, func(m jetstream.Msg) (bool, error) {
		meta, err := m.Metadata()
		if err != nil {
			return false, fmt.Errorf("dist: %w", err)
		}
		d, _ := strconv.Atoi(strings.SplitN(strings.TrimPrefix(m.Subject(), prefix), ".", 2)[0])
		if h := m.Headers(); d <= level && h.Get(hEnd) == "" {
			// Any incarnation's states of a numbered level are
			// the partition's: a dead one's are some of them.
			if err := p.remember(m.Data()); err != nil {
				return false, err
			}
			if d == level && h.Get(hInc) == of {
				seq, err := dataSeq(h, len(seqs))
				if err != nil {
					return false, fmt.Errorf("dist: partition %d's new states of level %d: %w", p.k, d, err)
				}
				states, seqs = append(states, m.Data()), append(seqs, seq)
			}
		}
		return meta.NumPending == 0, nil
	}, nil)
	if err != nil {
		return err
	}
	return p.setLevel(bytes.Join(inOrder(states, seqs), nil), ids)
}

// readIDs reads the ids of partition k's states of depth level, and the
// incarnation whose new states they number.
func readIDs(ctx context.Context, js jetstream.JetStream, s *Spec, k, level int) (ids []uint64, of string, err error) {
	col := newCollector(s.Partitions)
	err = read(ctx, js, s.Run, []string{subject(s.Run, "ids", level, k)}, func(m jetstream.Msg) (bool, error) {
		if err := col.add(m); err != nil {
			return false, err
		}
		return col.done[k] != nil, nil
	}, nil)
	if err != nil {
		return nil, "", err
	}
	ids, err = decodeIDs(nil, col.joined(k))
	return ids, col.done[k].hdr.Get(hOf), err
}

// level takes partition p through level d: it expands the partition's states
// and sends their successors to their owners and their expansion records to
// the coordinator, while it receives the successors sent to it; then it sends
// its new states to the coordinator and waits for their ids.
func (w *Worker) level(ctx context.Context, js jetstream.JetStream, claims jetstream.KeyValue, s *Spec, p *partition, d int, inc string) error {
	recv := make(chan error, 1)
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() { recv <- receive(rctx, js, claims, s, p, d, w.lostAfter()) }()

	pub := newPublisher(js, inc, p.k)
	out := make([][]byte, s.Partitions)
	var exps []byte
	expSubj := subject(s.Run, "exp", d, p.k)
	// Successors this partition owns go straight to it, not through the
	// stream: were the worker to die, its successor redoes the level.
	send := func(to int, b []byte) error {
		if to == p.k {
			return p.receive(b)
		}
		return pub.data(subject(s.Run, "succ", d, to), b)
	}
	err := p.expand(func(to int, parent uint64, ord uint32, enc []byte) error {
		out[to] = appendState(out[to], parent, ord, enc)
		if len(out[to]) < s.Batch {
			return nil
		}
		b := out[to]
		out[to] = nil
		return send(to, b)
	}, func(id uint64, succs uint32, pruned uint32) error {
		if exps = appendExp(exps, id, succs, pruned); len(exps) < s.Batch {
			return nil
		}
		b := exps
		exps = nil
		return pub.data(expSubj, b)
	})
	for to, b := range out {
		if err == nil && len(b) > 0 {
			err = send(to, b)
		}
	}
	if err == nil && len(exps) > 0 {
		err = pub.data(expSubj, exps)
	}
	// The end markers follow the records on the same connection, so the
	// stream stores them after; should a record fail to be stored, the
	// count an end marker carries tells its receiver.
	for to := range out {
		if err == nil && to != p.k {
			err = pub.end(subject(s.Run, "succ", d, to), nil)
		}
	}
	// Every successor stored before waiting for the others': a publish
	// that failed (the server went away with it) fails the level now, so
	// that the partition is served again and its receivers, which wait
	// for the messages the end markers count, get them.
	if err == nil {
		err = pub.flush(ctx)
	}
	if err != nil {
		return fmt.Errorf("dist: partition %d, level %d: %w", p.k, d, err)
	}
	if err := <-recv; err != nil {
		return err
	}
	// The visited set is the receivers' until they are done.
	if err := pub.end(expSubj, map[string]string{hBytes: strconv.FormatUint(p.set.Bytes(), 10)}); err != nil {
		return err
	}

	next := p.next()
	newSubj := subject(s.Run, "new", d+1, p.k)
	for b := next; len(b) > 0; {
		// Cut at a record boundary.
		n := 0
		for rest := b; n < len(b) && n < s.Batch; {
			_, _, _, r, err := nextState(rest)
			if err != nil {
				return err
			}
			n += len(rest) - len(r)
			rest = r
		}
		if err := pub.data(newSubj, b[:n]); err != nil {
			return err
		}
		b = b[n:]
	}
	if err := pub.end(newSubj, nil); err != nil {
		return err
	}
	if err := pub.flush(ctx); err != nil {
		return err
	}
	ids, _, err := readIDs(ctx, js, s, p.k, d+1)
	if err != nil {
		return err
	}
	return p.setLevel(next, ids)
}

// receive reads the successors sent to partition p at level d, until every
// partition has sent its end marker, and takes them (partition.receive).
//
// An incarnation whose end marker counts more messages than arrived is
// short: receive waits for another incarnation of its partition (the
// messages are taken as they come, and again from the next incarnation,
// which p.receive keeps once), unless the short one still claims the
// partition after lostAfter, when its messages are lost (ErrLost).
func receive(ctx context.Context, js jetstream.JetStream, claims jetstream.KeyValue, s *Spec, p *partition, d int, lostAfter time.Duration) error {
	ended := make([]bool, s.Partitions)
	ended[p.k] = true // its own successors do not come through the stream
	left := s.Partitions - 1
	if left == 0 {
		return nil
	}
	var lost, err error
	for rereads := 0; ; rereads++ {
		// Read again from the first (see rereadAfter): p.receive keeps
		// a successor once, and ended partitions stay ended.
		tally := newTally()
		short := shorts{}
		checked := time.Now()
		rctx, cancel := context.WithCancel(ctx)
		reread := false
		// A reread asks the stream's leader (readLeader).
		readLevel := read
		if rereads > 0 {
			readLevel = readLeader
		}
		err = readLevel(rctx, js, s.Run, []string{subject(s.Run, "succ", d, p.k)}, func(m jetstream.Msg) (bool, error) {
			h := m.Headers()
			from, err := strconv.Atoi(h.Get(hFrom))
			if err != nil || from < 0 || from >= s.Partitions {
				return false, fmt.Errorf("dist: successors from partition %q", h.Get(hFrom))
			}
			if ended[from] {
				return false, nil
			}
			key := h.Get(hFrom) + " " + h.Get(hInc)
			if end := h.Get(hEnd); end == "" {
				seq, err := dataSeq(h, tally.arrived(key))
				if err != nil {
					return false, fmt.Errorf("dist: partition %d's successors to %d: %w", from, p.k, err)
				}
				if !tally.data(key, seq) {
					return false, nil // a copy
				}
				if err := p.receive(m.Data()); err != nil {
					return false, err
				}
			} else if n, err := strconv.Atoi(end); err != nil || n < 0 {
				return false, fmt.Errorf("dist: the end marker of partition %d's successors to %d: a count %q", from, p.k, end)
			} else {
				tally.end(key, n)
			}
			// The end marker may come before some of the data it counts
			// (see collector).
			switch want, got := tally.want[key], tally.arrived(key); {
			case want < 0 || got < want:
				if want >= 0 {
					short.add(from, h.Get(hInc), fmt.Sprintf("the end marker of partition %d's successors to %d says %d messages, %d arrived", from, p.k, want, got))
				}
				return false, nil
			case got > want:
				return false, fmt.Errorf("dist: the end marker of partition %d's successors to %d says %d messages, %d arrived", from, p.k, want, got)
			}
			delete(short, from) // the partition has ended, whichever incarnation was short
			ended[from] = true
			left--
			return left == 0, nil
		}, func() {
			if len(short) == 0 || time.Since(checked) < time.Second {
				return
			}
			if rereads < maxRereads && short.older(rereadAfter(lostAfter)) {
				reread = true
				cancel()
				return
			}
			checked = time.Now()
			cctx, done := checking(ctx, js.Conn())
			defer done()
			if lost = short.lost(cctx, claims, s.Run, func(k int) bool { return !ended[k] }, lostAfter); lost != nil {
				cancel()
			}
		})
		cancel()
		if !reread || ctx.Err() != nil {
			break
		}
	}
	if lost != nil {
		return lost
	}
	return err
}
