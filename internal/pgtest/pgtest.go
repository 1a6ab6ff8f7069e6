package pgtest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/firmakit/firmakit/internal/freeport"
	"github.com/jackc/pgx/v5"
)

// ErrUnavailable is returned when no PostgreSQL server could be started.
var ErrUnavailable = errors.New("PostgreSQL could not be started for the tests; install it with 'apt-get install postgresql' (make deps does), " +
	"which puts initdb and postgres in /usr/lib/postgresql/*/bin")

// Server is a PostgreSQL server in a temporary directory.
type Server struct {
	dir  string // holds data/, the socket and the log
	bin  string
	port int
	cmd  *exec.Cmd
	cred *syscall.Credential // nil unless running as root
	done chan struct{}
}

// Bin returns the directory of initdb and postgres: on PATH, else the
// newest of /usr/lib/postgresql/*/bin.
func Bin() (string, error) {
	if p, err := exec.LookPath("initdb"); err == nil {
		if _, err := os.Stat(filepath.Join(filepath.Dir(p), "postgres")); err == nil {
			return filepath.Dir(p), nil
		}
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	// The newest major version first: 15 before 9.6.
	slices.SortFunc(dirs, func(a, b string) int { return version(b) - version(a) })
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "initdb")); err == nil {
			return d, nil
		}
	}
	return "", fmt.Errorf("%w: no initdb on PATH nor in /usr/lib/postgresql/*/bin", ErrUnavailable)
}

func version(binDir string) int {
	v := filepath.Base(filepath.Dir(binDir))
	major, _, _ := strings.Cut(v, ".")
	n, _ := strconv.Atoi(major)
	return n
}

// Start runs initdb in a new temporary directory and starts postgres on
// a free loopback port. Stop it with Stop.
func Start() (*Server, error) {
	bin, err := Bin()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "firmakit-pg-")
	if err != nil {
		return nil, err
	}
	s := &Server{dir: dir, bin: bin, done: make(chan struct{})}
	if os.Geteuid() == 0 {
		if s.cred, err = nobody(); err != nil {
			os.RemoveAll(dir)
			return nil, fmt.Errorf("%w: running as root, and %v", ErrUnavailable, err)
		}
		if err := os.Chown(dir, int(s.cred.Uid), int(s.cred.Gid)); err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
	}
	data := filepath.Join(dir, "data")
	initdb := exec.Command(filepath.Join(bin, "initdb"), "-D", data, "-U", "postgres", "--auth=trust",
		"--encoding=UTF8", "--locale=C", "--no-sync")
	initdb.SysProcAttr = &syscall.SysProcAttr{Credential: s.cred}
	initdb.Env = append(os.Environ(), "LC_ALL=C")
	if out, err := initdb.CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("%w: initdb: %v\n%s", ErrUnavailable, err, out)
	}
	// A port taken between the probe and postgres's bind: try another.
	for range 3 {
		port, perr := freePort()
		if perr != nil {
			return nil, perr
		}
		if err = s.startOn(port); err == nil {
			return s, nil
		}
	}
	os.RemoveAll(dir)
	return nil, err
}

// nobody is the user the server runs as when the tests run as root.
func nobody() (*syscall.Credential, error) {
	u, err := user.Lookup("nobody")
	if err != nil {
		return nil, fmt.Errorf("no user nobody to run it as (initdb refuses root): %v", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, nil
}

func (s *Server) startOn(port int) error {
	bin, data := s.bin, filepath.Join(s.dir, "data")
	logPath := filepath.Join(s.dir, "postgres.log")
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer logf.Close()
	if s.cred != nil {
		_ = logf.Chown(int(s.cred.Uid), int(s.cred.Gid))
	}
	// Durability is not what these tests measure: fsync off.
	cmd := exec.Command(filepath.Join(bin, "postgres"), "-D", data, "-p", strconv.Itoa(port),
		"-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories="+s.dir,
		"-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off",
		"-c", "max_connections=300", "-c", "shared_buffers=32MB")
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: s.cred, Setpgid: true}
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("%w: postgres: %v", ErrUnavailable, err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	s.port, s.cmd, s.done = port, cmd, done
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-done:
			log, _ := os.ReadFile(logPath)
			return fmt.Errorf("%w: postgres exited at start:\n%s", ErrUnavailable, tail(log))
		default:
		}
		// Through the socket in this server's own folder: another test's
		// server that took the port first answers on TCP, not there.
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		c, err := pgx.Connect(ctx, fmt.Sprintf("postgres://postgres@/postgres?host=%s&port=%d&sslmode=disable", s.dir, port))
		cancel()
		if err == nil {
			c.Close(context.Background())
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	s.kill()
	log, _ := os.ReadFile(logPath)
	return fmt.Errorf("%w: postgres did not accept connections within 30 s:\n%s", ErrUnavailable, tail(log))
}

func tail(b []byte) string {
	if len(b) > 2000 {
		b = b[len(b)-2000:]
	}
	return string(b)
}

func freePort() (int, error) { return freeport.Port() }

// URL returns the connection URL of database db.
func (s *Server) URL(db string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", s.port, db)
}

// CreateDatabase creates a new, empty database and returns its URL.
func (s *Server) CreateDatabase(name string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := pgx.Connect(ctx, s.URL("postgres"))
	if err != nil {
		return "", err
	}
	defer c.Close(ctx)
	if _, err := c.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize()); err != nil {
		return "", fmt.Errorf("create database %s: %w", name, err)
	}
	return s.URL(name), nil
}

// Stop stops the server (a fast shutdown, then a kill) and removes its
// directory.
func (s *Server) Stop() {
	if s.cmd != nil && s.cmd.Process != nil {
		_ = s.cmd.Process.Signal(syscall.SIGINT) // fast shutdown
		select {
		case <-s.done:
		case <-time.After(10 * time.Second):
			s.kill()
		}
	}
	os.RemoveAll(s.dir)
}

// Halt stops the server and keeps its data, as a database that went
// away; Resume starts it again on the same port.
func (s *Server) Halt() {
	if s.cmd != nil && s.cmd.Process != nil {
		_ = s.cmd.Process.Signal(syscall.SIGINT)
		select {
		case <-s.done:
		case <-time.After(10 * time.Second):
			s.kill()
		}
	}
	s.cmd = nil
}

// Resume starts a halted server again, on the port it had.
func (s *Server) Resume() error { return s.startOn(s.port) }

func (s *Server) kill() {
	if s.cmd != nil && s.cmd.Process != nil {
		// postgres and the backends it forked, by process group.
		_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
		<-s.done
	}
}

// The package's server, started by the first NewDatabase and stopped by
// Main once the tests have run.
var (
	shared     *Server
	sharedErr  error
	sharedOnce sync.Once
	databases  atomic.Int64
)

// NewDatabase returns the URL of a new, empty database on the package's
// server, starting the server the first time. Its error wraps
// ErrUnavailable when the server could not be started.
func NewDatabase() (string, error) {
	sharedOnce.Do(func() { shared, sharedErr = Start() })
	if sharedErr != nil {
		return "", sharedErr
	}
	return shared.CreateDatabase(fmt.Sprintf("test_%d_%d", os.Getpid(), databases.Add(1)))
}

// Main runs a package's tests (m is its *testing.M) and then stops the
// server NewDatabase started, if any; its result is the exit code.
func Main(m interface{ Run() int }) int {
	code := m.Run()
	if shared != nil {
		shared.Stop()
	}
	return code
}
