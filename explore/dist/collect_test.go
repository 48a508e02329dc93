package dist

import (
	"strconv"
	"strings"
	"testing"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// msg is a message of partition from's incarnation inc, as a publisher sends
// it: data at place seq (seq < 0: no place header, as an older sender), or
// an end marker counting end messages (end >= 0).
func msg(from int, inc string, seq int, body string, end int) jetstream.Msg {
	h := nats.Header{}
	h.Set(hFrom, strconv.Itoa(from))
	h.Set(hInc, inc)
	if end >= 0 {
		h.Set(hEnd, strconv.Itoa(end))
	} else if seq >= 0 {
		h.Set(hSeq, strconv.Itoa(seq))
	}
	return rawMsg{&jetstream.RawStreamMsg{Subject: "rdmasim.r.ids.1.0", Header: h, Data: []byte(body)}}
}

// TestCollectorOrder: a partition's data is complete when its end marker
// and every message it counts have arrived, in whatever order the stream
// holds them (a message sent through a server that was going away is stored
// after later ones; a resent copy comes after the end marker), and its bodies
// are in their sender's order. Before, an end marker that came first made the
// incarnation short for good, and the run stopped with ErrLost or waited for
// ever (issue 30).
func TestCollectorOrder(t *testing.T) {
	const noEnd = -1
	tests := []struct {
		name  string
		msgs  []jetstream.Msg
		want  string // the bodies joined, "" for not complete
		short bool   // a short incarnation is left
		err   string
	}{
		{"in order", []jetstream.Msg{msg(0, "a", 0, "x", noEnd), msg(0, "a", 1, "y", noEnd), msg(0, "a", 0, "", 2)}, "xy", false, ""},
		{"end first", []jetstream.Msg{msg(0, "a", 0, "", 2), msg(0, "a", 0, "x", noEnd), msg(0, "a", 1, "y", noEnd)}, "xy", false, ""},
		{"data swapped", []jetstream.Msg{msg(0, "a", 1, "y", noEnd), msg(0, "a", 0, "x", noEnd), msg(0, "a", 0, "", 2)}, "xy", false, ""},
		{"one after the end", []jetstream.Msg{msg(0, "a", 1, "y", noEnd), msg(0, "a", 0, "", 2), msg(0, "a", 0, "x", noEnd)}, "xy", false, ""},
		{"a copy", []jetstream.Msg{msg(0, "a", 0, "x", noEnd), msg(0, "a", 0, "x", noEnd), msg(0, "a", 1, "y", noEnd), msg(0, "a", 0, "", 2)}, "xy", false, ""},
		{"still short", []jetstream.Msg{msg(0, "a", 0, "", 2), msg(0, "a", 1, "y", noEnd)}, "", true, ""},
		{"another incarnation", []jetstream.Msg{msg(0, "a", 0, "", 2), msg(0, "a", 1, "y", noEnd), msg(0, "b", 0, "z", noEnd), msg(0, "b", 0, "", 1)}, "z", false, ""},
		{"no places", []jetstream.Msg{msg(0, "a", -1, "x", noEnd), msg(0, "a", -1, "y", noEnd), msg(0, "a", 0, "", 2)}, "xy", false, ""},
		{"more than counted", []jetstream.Msg{msg(0, "a", 0, "x", noEnd), msg(0, "a", 1, "y", noEnd), msg(0, "a", 0, "", 1)}, "", false, "says 1 messages, 2 arrived"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newCollector(1)
			var err error
			for _, m := range tt.msgs {
				if err = c.add(m); err != nil {
					break
				}
			}
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := ""
			if c.done[0] != nil {
				got = string(c.joined(0))
			}
			if got != tt.want {
				t.Errorf("data %q, want %q", got, tt.want)
			}
			if _, short := c.short[0]; short != tt.short {
				t.Errorf("short %v, want %v", short, tt.short)
			}
		})
	}
}

// TestTally: the receivers' count of successors tolerates the same orders.
func TestTally(t *testing.T) {
	tl := newTally()
	tl.end("0 a", 2)
	if !tl.data("0 a", 1) || tl.data("0 a", 1) {
		t.Fatal("a place counted twice, or a first one not counted")
	}
	if got := tl.arrived("0 a"); got != 1 || tl.want["0 a"] != 2 {
		t.Fatalf("arrived %d want %d, after one of two", got, tl.want["0 a"])
	}
	tl.data("0 a", 0)
	if tl.arrived("0 a") != 2 {
		t.Fatal("the data after the end marker not counted")
	}
	if !tl.data("1 b", 0) || tl.want["1 b"] != -1 {
		t.Fatalf("before its end marker, want %d, not -1", tl.want["1 b"])
	}
}
