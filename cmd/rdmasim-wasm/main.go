//go:build js && wasm

// Command rdmasim-wasm is rdmasim in a browser: built with GOOS=js
// GOARCH=wasm and loaded by the playground's Web Worker (worker.js, beside
// it in cmd/rdmasim/web/static), it answers the page's messages with the
// library (package play) and posts the answers back. It is glue only: every
// answer is built, and tested natively, in opsem/play.
//
// Messages from the page (event.data):
//
//	{type: "run", id, request}    request: a play.Request as JSON text
//	{type: "stop", id}            stop run id, as Ctrl-C stops the CLI
//	{type: "diagnose", id, file, program}
//
// and to it: {type: "ready"} once loaded, {type: "progress", id, json}
// about once a second while run id searches, {type: "result", id, json}
// (a play.Response), {type: "diagnostics", id, json} (play.Diagnostic
// list).
//
// Stopping: Go's WebAssembly runtime is single-threaded, so while a search
// runs the Worker's event loop cannot deliver "stop". The progress
// callback therefore sleeps a millisecond after posting each report
// (about once a second): with the search goroutine asleep and no other
// goroutine ready, the runtime returns to the event loop, which delivers
// the pending "stop"; its handler cancels the run's context and the search
// ends as the CLI's does on Ctrl-C, with a report of what it explored. (A
// search that does not yield this way in time is ended by the page, which
// terminates the Worker and starts another.)
package main

import (
	"context"
	"encoding/json"
	"sync"
	"syscall/js"
	"time"

	"rdmasim/opsem/play"
)

func main() {
	w := &worker{self: js.Global(), runs: map[int]context.CancelFunc{}}
	w.self.Set("onmessage", js.FuncOf(w.onMessage))
	w.post(map[string]any{"type": "ready"})
	select {}
}

// worker answers the messages of one Web Worker.
type worker struct {
	self js.Value // the worker's global scope
	mu   sync.Mutex
	runs map[int]context.CancelFunc // the runs in progress, by id
}

// post sends msg to the page.
func (w *worker) post(msg map[string]any) { w.self.Call("postMessage", msg) }

// postJSON sends v as JSON text in a message of type typ for run id.
func (w *worker) postJSON(typ string, id int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		b, _ = json.Marshal(map[string]string{"error": err.Error()})
	}
	w.post(map[string]any{"type": typ, "id": id, "json": string(b)})
}

// onMessage handles one message; it must not block, so runs go to their
// own goroutine.
func (w *worker) onMessage(_ js.Value, args []js.Value) any {
	data := args[0].Get("data")
	id := data.Get("id").Int()
	switch data.Get("type").String() {
	case "diagnose":
		w.postJSON("diagnostics", id, play.Diagnose(data.Get("file").String(), data.Get("program").String()))
	case "stop":
		w.mu.Lock()
		if cancel := w.runs[id]; cancel != nil {
			cancel()
		}
		w.mu.Unlock()
	case "run":
		var req play.Request
		if err := json.Unmarshal([]byte(data.Get("request").String()), &req); err != nil {
			w.postJSON("result", id, &play.Response{Errors: []play.Diagnostic{{Message: "bad request: " + err.Error()}}})
			return nil
		}
		ctx, cancel := context.WithCancel(context.Background())
		w.mu.Lock()
		w.runs[id] = cancel
		w.mu.Unlock()
		go w.run(ctx, id, req, cancel)
	}
	return nil
}

// run answers req, posting its progress and its result.
func (w *worker) run(ctx context.Context, id int, req play.Request, cancel context.CancelFunc) {
	defer func() {
		w.mu.Lock()
		delete(w.runs, id)
		w.mu.Unlock()
		cancel()
	}()
	resp := play.Run(ctx, req, func(p play.Progress) {
		w.postJSON("progress", id, p)
		time.Sleep(time.Millisecond) // yield to the event loop: see the package comment
	})
	w.postJSON("result", id, resp)
}
