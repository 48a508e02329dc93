package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"rdmasim/cmd/rdmasim/web"
	"rdmasim/corpus"
)

// cmdServe serves the playground (package web) until interrupted, or with
// --write writes its files to a directory for a static host.
func cmdServe(ctx context.Context, args []string, e *env) int {
	fs := newFlagSet("serve", e)
	addr := fs.String("addr", "127.0.0.1:8080", "address to listen on; the default is reachable from this machine only (loopback): give another host (0.0.0.0:8080) to serve other machines; port 0 picks a free port")
	write := fs.String("write", "", "instead of serving, write the page's files (the page, the WebAssembly build, the examples) to this directory, to publish on any static host")
	if code := parseFlags(fs, args, e, "serve [--addr HOST:PORT] [--write DIR]"); code >= 0 {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(e.stderr, "rdmasim serve: unexpected argument %q\n", fs.Arg(0))
		return exitUsage
	}
	static := e.static
	if static == nil {
		static = web.Static()
	}
	site, err := web.NewSite(static, corpus.Examples())
	if err != nil {
		fmt.Fprintf(e.stderr, "rdmasim serve: %v\n", err)
		return exitUsage
	}
	if *write != "" {
		if err := site.Write(*write); err != nil {
			fmt.Fprintf(e.stderr, "rdmasim serve: %v\n", err)
			return exitUsage
		}
		fmt.Fprintf(e.stdout, "rdmasim serve: wrote the playground to %s\n", *write)
		return exitOK
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintf(e.stderr, "rdmasim serve: %v\n", err)
		return exitUsage
	}
	if host, _, err := net.SplitHostPort(*addr); err == nil && !loopback(host) {
		fmt.Fprintf(e.stderr, "rdmasim serve: %s is not a loopback address: other machines can reach the playground\n", host)
	}
	fmt.Fprintf(e.stdout, "rdmasim serve: the playground is at http://%s/ (Ctrl-C stops)\n", ln.Addr())
	srv := &http.Server{Handler: site.Handler(), ReadHeaderTimeout: 10 * time.Second}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err = <-done:
	case <-ctx.Done():
		shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		err = srv.Shutdown(shut)
		cancel()
	}
	if err != nil && !errors.Is(err, http.ErrServerClosed) {
		fmt.Fprintf(e.stderr, "rdmasim serve: %v\n", err)
		return exitInternal
	}
	return exitOK
}

// loopback reports whether host names this machine only: localhost or a
// loopback IP address.
func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
