package main

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestMedians(t *testing.T) {
	s := time.Second
	for _, c := range []struct {
		in     []time.Duration
		median time.Duration
		index  int
	}{
		{nil, 0, -1},
		{[]time.Duration{3 * s}, 3 * s, 0},
		{[]time.Duration{5 * s, 1 * s, 3 * s}, 3 * s, 2},
		{[]time.Duration{1 * s, 4 * s}, 2500 * time.Millisecond, 0},
		{[]time.Duration{9 * s, 2 * s, 7 * s, 4 * s}, 5500 * time.Millisecond, 3},
		{[]time.Duration{2 * s, 2 * s, 1 * s}, 2 * s, 0},
	} {
		if got := medianDuration(c.in); got != c.median {
			t.Errorf("medianDuration(%v) = %v, want %v", c.in, got, c.median)
		}
		if c.index >= 0 {
			if got := medianIndex(c.in); got != c.index {
				t.Errorf("medianIndex(%v) = %d, want %d", c.in, got, c.index)
			}
		}
	}
	if got := medianInt([]int64{40, 10, 30}); got != 30 {
		t.Errorf("medianInt = %d, want 30", got)
	}
}

func TestParseRobust(t *testing.T) {
	for _, c := range []struct {
		name, json string
		want       answer
	}{
		{"robust", `{"robust":true,"complete":true,"coverage":"complete","bound":"","method":"decide","states":16115,"expect":{"semantics":"robust","expected":"yes","status":"ok"}}`,
			answer{Verdict: "yes", Method: "decide", States: "16115", Expect: "ok"}},
		{"violation", `{"robust":false,"complete":true,"bound":"","method":"enum-machine","states":366127,"witness":{"cycle":[]},"expect":null}`,
			answer{Verdict: "no", Method: "enum-machine", States: "366127", Expect: "-"}},
		{"expect fails", `{"robust":false,"complete":true,"method":"decide","states":7,"expect":{"semantics":"robust","expected":"yes","status":"fail"}}`,
			answer{Verdict: "no", Method: "decide", States: "7", Expect: "FAIL robust", Failed: true}},
		{"timeout", `{"robust":null,"complete":false,"coverage":"unknown","bound":"timeout=1s","method":"decide","stopped":[{"method":"enum-machine","bound":"timeout=1s"}],"states":1328575}`,
			answer{Verdict: "unknown (timeout=1s; enum-machine: timeout=1s)", Method: "decide", States: "1328575", Expect: "-", Limited: true}},
		{"raced out of time", `{"robust":null,"complete":false,"bound":"max-inflight=8","method":"enum-machine","stopped":[{"method":"decide","bound":"timeout=3s"}],"states":310636}`,
			answer{Verdict: "unknown (max-inflight=8; decide: timeout=3s)", Method: "enum-machine", States: "310636", Expect: "-", Limited: true}},
		{"within bounds", `{"robust":null,"complete":false,"bound":"max-inflight=8","method":"enum-machine","states":12,"expect":{"semantics":"robust","status":"unknown"}}`,
			answer{Verdict: "unknown (max-inflight=8)", Method: "enum-machine", States: "12", Expect: "unknown robust"}},
	} {
		got, err := parseRobust([]byte(c.json + "\n"))
		if err != nil || got != c.want {
			t.Errorf("%s: parseRobust = %+v, %v; want %+v", c.name, got, err, c.want)
		}
	}
	if _, err := parseRobust([]byte("rdmasim: no such file\n")); err == nil {
		t.Error("parseRobust accepted text that is not JSON")
	}
}

func TestParseCheck(t *testing.T) {
	for _, c := range []struct {
		name, json string
		want       answer
	}{
		{"query", `{"query":"reach receiver@fail","rdma":{"allowed":false,"complete":true,"bound":"","states":774,"outcomes":[{}]},"sc":{"allowed":false,"complete":true,"states":173,"outcomes":[{}]},` +
			`"expect":[{"semantics":"rdma","expected":"forbidden","status":"ok"},{"semantics":"sc","status":"ok"},{"semantics":"robust","status":"unknown"}]}`,
			answer{Verdict: "rdma forbidden, sc forbidden", States: "774+173", Expect: "ok"}},
		{"outcomes within bounds", `{"query":"","rdma":{"allowed":false,"complete":false,"bound":"max-inflight=8","states":14899,"outcomes":[{"D":10}]},"sc":{"allowed":false,"complete":true,"states":2891,"outcomes":[{"D":10}]},"expect":[]}`,
			answer{Verdict: "rdma 1 outcome (max-inflight=8), sc 1 outcome", States: "14899+2891", Expect: "-"}},
		{"failed expect", `{"query":"exists x","rdma":{"allowed":true,"complete":true,"states":5,"outcomes":[{},{}]},"sc":{"allowed":null,"complete":false,"bound":"timeout=1m0s","states":9},` +
			`"expect":[{"semantics":"rdma","status":"ok"},{"semantics":"sc","status":"fail"}]}`,
			answer{Verdict: "rdma allowed, sc ? (timeout=1m0s)", States: "5+9", Expect: "FAIL sc", Limited: true, Failed: true}},
	} {
		got, err := parseCheck([]byte(c.json))
		if err != nil || got != c.want {
			t.Errorf("%s: parseCheck = %+v, %v; want %+v", c.name, got, err, c.want)
		}
	}
}

func TestSummarize(t *testing.T) {
	s := time.Second
	a := func(v, m string) answer { return answer{Verdict: v, Method: m, States: m} }
	sum := summarize([]sample{
		{wall: 3 * s, peakKB: 300, ans: a("yes", "decide")},
		{wall: 1 * s, peakKB: 100, ans: a("yes", "enum-machine")},
		{wall: 2 * s, peakKB: 500, ans: a("yes", "enum-machine")},
	})
	if sum.wall != 2*s || sum.peakKB != 300 || sum.ans.States != "enum-machine" || sum.method != "decide 1, enum-machine 2" || sum.ans.Failed {
		t.Errorf("summarize = %+v", sum)
	}
	mixed := summarize([]sample{{wall: s, ans: a("yes", "decide")}, {wall: s, ans: a("no", "decide")}})
	if !strings.HasPrefix(mixed.ans.Verdict, "MIXED yes | no") || !mixed.ans.Failed || mixed.method != "decide" {
		t.Errorf("summarize of disagreeing runs = %+v", mixed)
	}
}

func TestParseRange(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []int
		bad  bool
	}{
		{"", nil, false},
		{"3", []int{3}, false},
		{"1-4", []int{1, 2, 3, 4}, false},
		{"1,3,5-6", []int{1, 3, 5, 6}, false},
		{"0-2", nil, true},
		{"4-2", nil, true},
		{"x", nil, true},
	} {
		got, err := parseRange(c.in)
		if (err != nil) != c.bad || !reflect.DeepEqual(got, c.want) {
			t.Errorf("parseRange(%q) = %v, %v", c.in, got, err)
		}
	}
}

func TestFormat(t *testing.T) {
	for _, c := range [][2]string{
		{mib(0), "?"}, {mib(2048), "2 MiB"},
		{seconds(1234 * time.Millisecond), "1.23s"}, {seconds(95 * time.Second), "95.0s"},
		{ratio(1, 2), "0.50×"}, {ratio(1, 0), "-"},
		{both("a", "a"), "a"}, {both("a", "b"), "a → b"}, {both("", ""), "-"},
	} {
		if c[0] != c[1] {
			t.Errorf("got %q, want %q", c[0], c[1])
		}
	}
}
