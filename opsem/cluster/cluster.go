// Package cluster is the RDMA side of a distributed search (explore/dist,
// which knows nothing of RDMA): what a run's payload holds — the program's
// text, the semantics and the machine's bounds — and the machine a worker
// builds from it, the one verdict.Compute explores.
package cluster

import (
	"encoding/json"
	"fmt"

	"rdmasim/explore"
	"rdmasim/opsem/machine"
	"rdmasim/opsem/parse"
	"rdmasim/opsem/verdict"
)

// Payload is a run's payload: enough to build, on any machine, the machine
// a coordinator explores.
type Payload struct {
	File        string `json:"file"`   // the program's file name, for messages
	Source      []byte `json:"source"` // its text
	Semantics   string `json:"semantics"`
	MaxInflight int    `json:"max_inflight"`
	Unroll      int    `json:"unroll"`
	Reduce      bool   `json:"reduce"`
	// Params are a protocol's params set on the command line (--param).
	Params map[string]int `json:"params,omitempty"`
}

// Encode returns the payload of a run of verdict.Compute on the program of
// file, whose text is src, read with the params (nil: the file's own), under
// sem with the machine options opt.
func Encode(file string, src []byte, params map[string]int, sem machine.Semantics, opt machine.Options) ([]byte, error) {
	b, err := json.Marshal(Payload{File: file, Source: src, Semantics: sem.String(),
		MaxInflight: opt.MaxInflight, Unroll: opt.Unroll, Reduce: opt.Reduce, Params: params})
	if err != nil {
		return nil, fmt.Errorf("cluster: %w", err)
	}
	return b, nil
}

// Machine builds the machine of a payload: a worker's dist.Factory.
func Machine(payload []byte) (explore.Machine, error) {
	var pl Payload
	if err := json.Unmarshal(payload, &pl); err != nil {
		return nil, fmt.Errorf("cluster: a payload that is not a program run: %w", err)
	}
	sem, err := machine.ParseSemantics(pl.Semantics)
	if err != nil {
		return nil, fmt.Errorf("cluster: semantics %w", err)
	}
	p, err := parse.ParseOptions(pl.File, pl.Source, parse.Options{Params: pl.Params})
	if err != nil {
		return nil, err
	}
	return verdict.OutcomeMachine(p, sem, machine.Options{MaxInflight: pl.MaxInflight, Unroll: pl.Unroll, Reduce: pl.Reduce})
}
