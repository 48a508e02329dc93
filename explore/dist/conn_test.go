package dist

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"
)

// TestRequestEndsWithConnection sends a request that the server takes and
// nobody answers, then stops the server: the request's context from
// whileConnected ends at once with errConnLost, so that the request is
// made again once the server is back, where nats.go alone would wait for
// the answer until its timeout (the stall of TestServerRestarted).
func TestRequestEndsWithConnection(t *testing.T) {
	port := freePort(t)
	srv := startFixed(t, port, t.TempDir())
	defer srv.Shutdown()
	nc, err := Connect(fmt.Sprintf("nats://127.0.0.1:%d", port), "test")
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	// A responder that takes the request and never answers.
	sub, err := nc.SubscribeSync("never.answered")
	if err != nil {
		t.Fatal(err)
	}
	// Without whileConnected the request would end with this bound.
	base, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	ctx, done := whileConnected(base, nc)
	defer done()
	errc := make(chan error, 1)
	go func() {
		_, err := nc.RequestWithContext(ctx, "never.answered", nil)
		errc <- err
	}()
	if _, err := sub.NextMsg(time.Minute); err != nil {
		t.Fatalf("the request did not reach the responder: %v", err)
	}
	srv.Shutdown()
	err = <-errc
	if !errors.Is(context.Cause(ctx), errConnLost) || !lostConn(ctx, err) {
		t.Fatalf("the request ended with %v (cause %v), want the connection lost", err, context.Cause(ctx))
	}
}
