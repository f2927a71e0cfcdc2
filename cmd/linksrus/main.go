// Command linksrus crawls web sites into a link graph and a full-text index,
// searches what it crawled, and reports on it.
//
// Usage:
//
//	linksrus crawl [flags] URL...   crawl from the given seeds
//	linksrus search [flags] QUERY   search the crawled pages
//	linksrus stats [flags]          summarise the link graph and the index
//	linksrus rank [flags]           compute PageRank and store it in the index
//	linksrus import [flags] DIR     rebuild the stores from WARC files
//	linksrus eval [flags]           score the ranking on judged queries
//	linksrus --version              the version it was built from
//
// By default everything is kept in an embedded data directory (--data,
// ./linksrus-data), with nothing else to install; --graph and --index point
// the same commands at PostgreSQL instead, so that several
// processes (see crawl --partition) can share one graph.
//
// Exit codes: 0 success, 1 the command failed, 2 the command line was wrong,
// 130 the crawl was interrupted before it finished.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"
)

// Exit codes that scripts can rely on.
const (
	exitOK          = 0
	exitFailure     = 1
	exitUsage       = 2
	exitInterrupted = 130
)

// errUsage marks command-line mistakes; the message has already been printed
// with the command's usage.
var errUsage = errors.New("usage error")

// errInterrupted is returned by a command stopped by a signal; what it had
// done is kept.
var errInterrupted = errors.New("interrupted")

type command struct {
	name    string
	summary string
	run     func(ctx context.Context, env *environment, args []string) error
}

var commands = []command{
	{"crawl", "crawl web sites from seed URLs into the link graph and text index", runCrawl},
	{"search", "search the crawled pages", runSearch},
	{"stats", "summarise the link graph and the text index", runStats},
	{"rank", "compute PageRank over the link graph and store it in the index", runRank},
	{"serve", "serve a web page to search the crawl (and a JSON API)", runServe},
	{"import", "rebuild the link graph and text index from WARC files (crawl --warc), fetching nothing", runImport},
	{"eval", "measure the ranking on judged queries: MRR@10, success@1 and success@3", runEval},
}

// environment is what a command may touch outside itself, so that tests can
// run commands in-process with their own streams and variables.
type environment struct {
	stdout, stderr io.Writer
	getenv         func(string) string
	// interrupts delivers SIGINT/SIGTERM; a crawl stops taking new pages on
	// the first and abandons in-flight pages on the second.
	interrupts <-chan os.Signal
	// stderrIsTerminal selects live progress over log lines.
	stderrIsTerminal bool
}

func main() {
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	env := &environment{
		stdout:           os.Stdout,
		stderr:           os.Stderr,
		getenv:           os.Getenv,
		interrupts:       sigs,
		stderrIsTerminal: isTerminal(os.Stderr),
	}
	os.Exit(run(context.Background(), env, os.Args[1:]))
}

// run executes the command line args and returns the process exit code.
func run(ctx context.Context, env *environment, args []string) int {
	if len(args) > 0 && (args[0] == "--version" || args[0] == "-version" || args[0] == "version") {
		fmt.Fprintln(env.stdout, versionString())
		return exitOK
	}
	if len(args) == 0 || args[0] == "-h" || args[0] == "-help" || args[0] == "--help" || args[0] == "help" {
		if len(args) > 1 && args[0] == "help" {
			return run(ctx, env, []string{args[1], "--help"})
		}
		mainUsage(env.stderr)
		if len(args) == 0 {
			return exitUsage
		}
		return exitOK
	}
	for _, c := range commands {
		if c.name != args[0] {
			continue
		}
		err := c.run(ctx, env, args[1:])
		switch {
		case err == nil:
			return exitOK
		case errors.Is(err, flag.ErrHelp):
			return exitOK
		case errors.Is(err, errUsage):
			return exitUsage
		case errors.Is(err, errInterrupted):
			fmt.Fprintf(env.stderr, "linksrus %s: %v\n", c.name, err)
			return exitInterrupted
		default:
			fmt.Fprintf(env.stderr, "linksrus %s: %s\n", c.name, oneLine(err))
			return exitFailure
		}
	}
	fmt.Fprintf(env.stderr, "linksrus: unknown command %q\nrun 'linksrus --help' for usage\n", args[0])
	return exitUsage
}

func mainUsage(w io.Writer) {
	fmt.Fprintln(w, "linksrus crawls web sites into a link graph and a full-text index and searches them.")
	fmt.Fprintln(w, "\nUsage:\n\n\tlinksrus <command> [flags] [arguments]\n\nCommands:")
	for _, c := range commands {
		fmt.Fprintf(w, "\t%-8s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\nRun \"linksrus <command> --help\" for a command's flags, \"linksrus --version\" for the version.")
}

// versionString is the module version and VCS revision the binary was
// built from, as the Go toolchain recorded them.
func versionString() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "linksrus (unknown version)"
	}
	v := "linksrus " + info.Main.Version
	var rev, modified string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				modified = "+dirty"
			}
		}
	}
	if rev != "" {
		v += " (" + rev[:min(12, len(rev))] + modified + ")"
	}
	return v + " " + info.GoVersion
}

// newFlagSet returns a flag set that reports errors instead of exiting;
// --help prints the usage with the command's synopsis and every flag.
func newFlagSet(env *environment, name, synopsis string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintf(env.stderr, "Usage: linksrus %s\n\nFlags:\n", synopsis)
		fs.SetOutput(env.stderr)
		fs.PrintDefaults()
		fs.SetOutput(io.Discard)
	}
	// Parse errors are printed by parseFlags, in one line and a hint, not
	// followed by every flag.
	fs.SetOutput(io.Discard)
	return fs
}

// parseFlags parses args, flags before, between and after the arguments
// (as most command-line tools accept them; "--" ends the flags, for an
// argument that starts with '-'), and returns the arguments. A mistake is
// printed as one line and a hint, and returned as errUsage; --help prints
// the usage and returns flag.ErrHelp.
func parseFlags(env *environment, fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	usage := fs.Usage
	fs.Usage = func() {} // the flag package calls it on errors too
	defer func() { fs.Usage = usage }()
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				usage()
				return nil, err
			}
			return nil, usageError(env, fs, "%v", err)
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return positional, nil
		}
		if consumed := len(args) - len(rest); consumed > 0 && args[consumed-1] == "--" {
			return append(positional, rest...), nil
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
}

// usageError prints msg and where to find the usage, as the go tool does,
// and returns errUsage.
func usageError(env *environment, fs *flag.FlagSet, format string, args ...any) error {
	fmt.Fprintf(env.stderr, "linksrus %s: %s\nrun 'linksrus %s --help' for usage\n", fs.Name(), fmt.Sprintf(format, args...), fs.Name())
	return errUsage
}

// oneLine flattens a multi-line error message (pgx lists every address it
// tried on its own line) so that the command fails with one line.
func oneLine(err error) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(err.Error(), "\n", "; ")), " ")
}

func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
