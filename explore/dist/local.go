package dist

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
)

// A Server is a NATS server with JetStream embedded in this process, for a
// cluster on one machine: it listens on a free loopback port and stores its
// streams in a temporary directory, removed by Shutdown.
type Server struct {
	s   *server.Server
	dir string
}

// StartServer starts an embedded NATS server with JetStream.
func StartServer() (*Server, error) {
	dir, err := os.MkdirTemp("", "rdmasim-nats-*")
	if err != nil {
		return nil, fmt.Errorf("dist: %w", err)
	}
	s, err := server.NewServer(&server.Options{
		Host:      "127.0.0.1",
		Port:      server.RANDOM_PORT,
		JetStream: true,
		StoreDir:  dir,
		NoSigs:    true,
		NoLog:     true,
		// Records travel in messages of up to a few batches.
		MaxPayload: 8 << 20,
	})
	if err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("dist: starting the NATS server: %w", err)
	}
	s.Start()
	if !s.ReadyForConnections(10 * time.Second) {
		s.Shutdown()
		os.RemoveAll(dir)
		return nil, errors.New("dist: the NATS server did not start within 10s")
	}
	return &Server{s: s, dir: dir}, nil
}

// URL returns the server's client URL, nats://127.0.0.1:PORT.
func (s *Server) URL() string { return s.s.ClientURL() }

// Shutdown stops the server and removes its store.
func (s *Server) Shutdown() {
	s.s.Shutdown()
	s.s.WaitForShutdown()
	os.RemoveAll(s.dir)
}

// Conn is a connection to a NATS server: the package's callers hold one
// without importing NATS (the client library stays behind this package).
type Conn = nats.Conn

// Security is how a connection proves itself and checks the server:
// Creds, a NATS credentials file (user JWT and nkey seed); TLSCA, a CA
// certificate (PEM) to verify the server's TLS certificate with. Empty
// fields are not used.
type Security struct {
	Creds, TLSCA string
}

// Dial connects to the NATS server at url as Connect does, with the
// credentials and TLS of sec.
func Dial(url, name string, sec Security) (*Conn, error) {
	var opts []nats.Option
	if sec.Creds != "" {
		opts = append(opts, nats.UserCredentials(sec.Creds))
	}
	if sec.TLSCA != "" {
		opts = append(opts, nats.RootCAs(sec.TLSCA))
	}
	return Connect(url, name, opts...)
}

// Connect connects to the NATS server at url, reconnecting for ever if it
// goes away, with the options opts (credentials, TLS).
func Connect(url, name string, opts ...nats.Option) (*nats.Conn, error) {
	opts = append([]nats.Option{nats.Name(name), nats.MaxReconnects(-1), nats.ReconnectWait(250 * time.Millisecond)}, opts...)
	nc, err := nats.Connect(url, opts...)
	if err != nil {
		return nil, fmt.Errorf("dist: connecting to %s: %w", url, err)
	}
	return nc, nil
}

// Processes are worker processes started on this machine, restarted when
// they die until Stop.
type Processes struct {
	mu      sync.Mutex
	cmds    []*exec.Cmd
	stopped bool
	wg      sync.WaitGroup
	starts  int
}

// StartProcesses starts n worker processes, each the command argv with
// the extra arguments "--id local-K" (K = 0, ..., n-1), their output to
// stderr. A process that dies before Stop is started again, with the same id,
// so that it takes its partition back at once.
func StartProcesses(ctx context.Context, n int, argv []string, stderr io.Writer) (*Processes, error) {
	ps := &Processes{cmds: make([]*exec.Cmd, n)}
	if _, isFile := stderr.(*os.File); !isFile {
		// Each process's output is copied by a goroutine of its own: a
		// writer that is not a file gets one Write at a time.
		stderr = &lockedWriter{w: stderr}
	}
	for k := range n {
		if err := ps.start(ctx, k, argv, stderr); err != nil {
			ps.Stop()
			return nil, err
		}
	}
	return ps, nil
}

func (ps *Processes) start(ctx context.Context, k int, argv []string, stderr io.Writer) error {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if ps.stopped {
		return nil
	}
	args := append(append([]string(nil), argv[1:]...), "--id", fmt.Sprintf("local-%d", k))
	cmd := exec.Command(argv[0], args...)
	cmd.Stdout, cmd.Stderr = stderr, stderr
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("dist: starting worker %d: %w", k, err)
	}
	ps.cmds[k] = cmd
	ps.starts++
	ps.wg.Add(1)
	go func() {
		defer ps.wg.Done()
		cmd.Wait()
		ps.mu.Lock()
		again := !ps.stopped && ctx.Err() == nil
		ps.mu.Unlock()
		if again {
			time.Sleep(100 * time.Millisecond)
			ps.start(ctx, k, argv, stderr)
		}
	}()
	return nil
}

// Restarts returns how many times a process was started again.
func (ps *Processes) Restarts() int {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	return ps.starts - len(ps.cmds)
}

// Kill kills worker k (SIGKILL), as a crash would: it is started again.
func (ps *Processes) Kill(k int) error {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	return ps.cmds[k].Process.Kill()
}

// Stop kills the workers and waits for them.
func (ps *Processes) Stop() {
	ps.mu.Lock()
	ps.stopped = true
	for _, c := range ps.cmds {
		if c != nil && c.Process != nil {
			c.Process.Kill()
		}
	}
	ps.mu.Unlock()
	ps.wg.Wait()
}

// Local is a cluster on this machine: an embedded server and worker
// processes, each the command argv followed by "--nats URL" (and "--id
// local-K").
type Local struct {
	*Server
	procs *Processes
}

// StartLocal starts a cluster of n worker processes on this machine.
func StartLocal(ctx context.Context, n int, argv []string, stderr io.Writer) (*Local, error) {
	srv, err := StartServer()
	if err != nil {
		return nil, err
	}
	argv = append(append([]string(nil), argv...), "--nats", srv.URL())
	ps, err := StartProcesses(ctx, n, argv, stderr)
	if err != nil {
		srv.Shutdown()
		return nil, err
	}
	return &Local{Server: srv, procs: ps}, nil
}

// Stop stops the workers and the server.
func (l *Local) Stop() {
	l.procs.Stop()
	l.Shutdown()
}

// Kill kills worker k (SIGKILL), as a crash would; it is started again.
func (l *Local) Kill(k int) error { return l.procs.Kill(k) }

// Restarts returns how many times a worker was started again.
func (l *Local) Restarts() int { return l.procs.Restarts() }

// lockedWriter serialises the writes of several goroutines to w.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
