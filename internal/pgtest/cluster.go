package pgtest

import (
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
)

// Cluster is a throwaway PostgreSQL server a test starts for itself (with
// the initdb and pg_ctl of Debian's postgresql package), for what a test
// must not do to the server it shares with others: restart it.
type Cluster struct {
	t    testing.TB
	bin  string // the directory of initdb and pg_ctl
	data string
	port int
	cred *syscall.Credential // the postgres user's, when the test runs as root
}

// StartCluster starts a server of its own on 127.0.0.1, trusting local
// connections, stopped and removed when the test ends, and returns it and
// the URL of a database on it. Like Database, it skips the test when
// PostgreSQL's programs are missing, unless LINKSRUS_REQUIRE_PG=1.
func StartCluster(t testing.TB) (*Cluster, string) {
	t.Helper()
	bins, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	if len(bins) == 0 {
		if os.Getenv(EnvRequire) == "1" {
			t.Fatalf("%s=1 but no /usr/lib/postgresql/*/bin/initdb: install postgresql", EnvRequire)
		}
		t.Skip("PostgreSQL's initdb not found: apt-get install postgresql")
	}
	slices.SortFunc(bins, func(a, b string) int { return versionOf(a) - versionOf(b) })
	dir, err := os.MkdirTemp("", "linksrus-pgcluster-")
	if err != nil {
		t.Fatal(err)
	}
	c := &Cluster{t: t, bin: filepath.Dir(bins[len(bins)-1]), data: filepath.Join(dir, "data"), port: freePort(t)}
	if os.Geteuid() == 0 {
		// initdb refuses to run as root: the cluster is the postgres
		// user's.
		u, err := user.Lookup("postgres")
		if err != nil {
			t.Fatalf("running as root with no postgres user: %v", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		c.cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
		if err := os.Chown(dir, uid, gid); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		_ = c.run("pg_ctl", "stop", "-D", c.data, "-m", "immediate", "-w")
		_ = os.RemoveAll(dir)
	})
	if err := c.run("initdb", "-D", c.data, "-A", "trust", "-U", "postgres", "--no-sync"); err != nil {
		t.Fatalf("initdb: %v", err)
	}
	c.Start()
	return c, c.CreateDatabase("linksrus_test")
}

// CreateDatabase creates a database on the server and returns its URL.
func (c *Cluster) CreateDatabase(name string) string {
	c.t.Helper()
	dsn := func(db string) string {
		return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", c.port, db)
	}
	if err := execSQL(dsn("postgres"), "CREATE DATABASE "+name); err != nil {
		c.t.Fatalf("create database %s: %v", name, err)
	}
	return dsn(name)
}

// Restart stops the server (fast: sessions are ended) and starts it again,
// waiting for both.
func (c *Cluster) Restart() {
	c.t.Helper()
	c.Stop()
	c.Start()
}

// Stop shuts the server down as an operator's restart does: fast mode,
// which ends every session and aborts its transaction.
func (c *Cluster) Stop() {
	c.t.Helper()
	if err := c.pgctl("stop", "-m", "fast"); err != nil {
		c.t.Fatalf("stop the cluster: %v", err)
	}
}

// Start starts the server again after Stop, and waits until it takes
// connections.
func (c *Cluster) Start() {
	c.t.Helper()
	if err := c.pgctl("start"); err != nil {
		c.t.Fatalf("start the cluster: %v", err)
	}
}

func (c *Cluster) pgctl(args ...string) error {
	opts := fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1 -c fsync=off", c.port, c.data)
	return c.run("pg_ctl", append(args, "-D", c.data, "-w", "-o", opts, "-l", c.data+".log")...)
}

// run runs one of PostgreSQL's programs, as the postgres user when the
// test runs as root.
func (c *Cluster) run(prog string, args ...string) error {
	cmd := exec.Command(filepath.Join(c.bin, prog), args...)
	cmd.Dir = filepath.Dir(c.data)
	if c.cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: c.cred}
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%s: %w\n%s", prog, err, out)
	}
	return nil
}

// versionOf is the major version in an initdb's path.
func versionOf(path string) int {
	v, _ := strconv.Atoi(filepath.Base(filepath.Dir(filepath.Dir(path))))
	return v
}

func freePort(t testing.TB) int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}
