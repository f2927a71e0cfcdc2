package safety

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/linksrus/linksrus/internal/pgtest"
)

// pgServer is a PostgreSQL server of the test's own, in a temporary data
// directory on a free loopback port, so that the test may stop and start
// it without disturbing the machine's shared server other tests use.
type pgServer struct {
	bin  string // directory of initdb, pg_ctl
	dir  string // data directory
	log  string
	port int
	cred *syscall.Credential // the postgres user when running as root
}

// startPGServer initdbs and starts a private server. It skips when the
// server binaries are missing, unless LINKSRUS_REQUIRE_PG=1.
func startPGServer(t *testing.T) *pgServer {
	t.Helper()
	skip := func(format string, args ...any) {
		t.Helper()
		if os.Getenv(pgtest.EnvRequire) == "1" {
			t.Fatalf(format+" (and %s=1)", append(args, pgtest.EnvRequire)...)
		}
		t.Skipf(format, args...)
	}
	bins, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	if len(bins) == 0 {
		skip("private PostgreSQL server test skipped: no initdb under /usr/lib/postgresql/*/bin")
	}
	slices.Sort(bins)
	s := &pgServer{bin: filepath.Dir(bins[len(bins)-1])}

	dir, err := os.MkdirTemp("", "linksrus-safety-pg")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	s.dir = filepath.Join(dir, "data")
	s.log = filepath.Join(dir, "server.log")
	if os.Geteuid() == 0 {
		// PostgreSQL refuses to run as root.
		u, err := user.Lookup("postgres")
		if err != nil {
			skip("private PostgreSQL server test skipped: running as root and no postgres user: %v", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		s.cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
		if err := os.Chown(dir, uid, gid); err != nil {
			t.Fatal(err)
		}
	}
	s.port = freePort(t)
	if out, err := s.run("initdb", "-D", s.dir, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync"); err != nil {
		t.Fatalf("initdb: %v\n%s", err, out)
	}
	s.start(t)
	t.Cleanup(func() {
		if out, err := s.run("pg_ctl", "-D", s.dir, "-m", "immediate", "-w", "stop"); err != nil {
			t.Logf("stop the private PostgreSQL server: %v\n%s", err, out)
		}
	})
	return s
}

func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// run runs one of the server's programs as the postgres user.
func (s *pgServer) run(prog string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(s.bin, prog), args...)
	cmd.Dir = filepath.Dir(s.dir)
	if s.cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: s.cred}
	}
	return cmd.CombinedOutput()
}

// start starts the server and waits until it accepts connections. The
// Unix socket goes in the data directory's parent, away from the shared
// server's.
func (s *pgServer) start(t *testing.T) {
	t.Helper()
	opts := fmt.Sprintf("-p %d -c listen_addresses=127.0.0.1 -c unix_socket_directories=%s -c fsync=off", s.port, filepath.Dir(s.dir))
	if out, err := s.run("pg_ctl", "-D", s.dir, "-l", s.log, "-o", opts, "-w", "start"); err != nil {
		log, _ := os.ReadFile(s.log)
		t.Fatalf("pg_ctl start: %v\n%s\n%s", err, out, log)
	}
}

// stop shuts the server down the way an operator's restart does: fast
// mode, which disconnects every client and aborts their transactions.
func (s *pgServer) stop(t *testing.T) {
	t.Helper()
	if out, err := s.run("pg_ctl", "-D", s.dir, "-m", "fast", "-w", "stop"); err != nil {
		t.Fatalf("pg_ctl stop: %v\n%s", err, out)
	}
}

// dsn is the URL of a database of the server.
func (s *pgServer) dsn(db string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", s.port, db)
}

// createDB creates a database on the server and returns its URL.
func (s *pgServer) createDB(t *testing.T, name string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, s.dsn("postgres"))
	if err != nil {
		t.Fatalf("connect to the private server: %v", err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatalf("create database: %v", err)
	}
	return s.dsn(name)
}
