// Package fastpath answers a read command (search, get, links…) from the
// `gno daemon` serving the index, before the rest of gno initialises.
//
// Go initialises packages in dependency order and, among those ready, in
// import-path order. This package imports only what package os imports
// itself, and two gno packages held to the same rule (config/dirs, the one
// rule for where an index lives, and daemon/wire, the protocol), so its
// init runs after about eighty small packages and before gno's heavy
// dependencies (the MCP SDK's schema compiler, SQLite, ONNX Runtime's
// bindings, the HTML and PDF converters…). TestInitOrder keeps it so. When a daemon answers, the process exits
// from here with the daemon's exit code, having written exactly what the
// command would have: the daemon runs the same cobra command with this
// process's arguments, terminal and working directory.
//
// Anything unusual falls back to running the command in-process, silently
// unless -v is given: no daemon, --no-daemon, a socket or daemon not of
// this user, another build of gno, another environment, a busy or stale
// daemon, a command that writes.
//
// main imports this package blank; its API is for tests and for
// `gno daemon` itself.
package fastpath

import (
	"os"
	"time"

	"github.com/gnosearch/gno/retrieval/config/dirs"
	"github.com/gnosearch/gno/server/daemon/wire"
)

func init() {
	if code, ok := Forward(os.Args[1:]); ok {
		os.Exit(code)
	}
}

// IsRead reports whether a daemon may answer the command (sub is the
// word after it, for commands whose subcommands differ): it only reads
// the index and prints.
func IsRead(cmd, sub string) bool {
	switch cmd {
	case "search", "vsearch", "query", "get", "multi-get", "ls", "status", "tags", "changes",
		"links", "hubs", "orphans", "path", "related", "resolve", "ask",
		"affected", "diff":
		return true
	case "packages":
		// add and rm write; these read the package-docs index (a project
		// whose lockfile changed is re-indexed by the daemon's own writer,
		// and a version diff fetches is stored by it too).
		return sub == "search" || sub == "describe" || sub == "list" || sub == "diff"
	}
	return false
}

// Answers reports whether a daemon may be asked to run the command: a read
// command, or `gno update`, which a daemon answers from its watcher's
// changes instead of looking at every file (it hands back --rebuild and
// --git-pull).
func Answers(cmd, sub string) bool { return IsRead(cmd, sub) || cmd == "update" }

// Line is what Parse reads of a command line.
type Line struct {
	// Command is the first word that is not a global flag or its value;
	// Sub is the word after it when that is not a flag.
	Command, Sub string
	// Index and Config are the --index and --config values ("" if absent).
	Index, Config string
	// NoDaemon is --no-daemon; Verbose is -v/--verbose.
	NoDaemon, Verbose bool
}

// Parse reads the global flags gno's root command defines, wherever they
// stand (cobra accepts them after the command too), up to "--".
func Parse(args []string) Line {
	var l Line
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			break
		}
		switch {
		case a == "--index" || a == "--config":
			if i+1 < len(args) {
				if a == "--index" {
					l.Index = args[i+1]
				} else {
					l.Config = args[i+1]
				}
			}
			i++
		case len(a) > 8 && a[:8] == "--index=":
			l.Index = a[8:]
		case len(a) > 9 && a[:9] == "--config=":
			l.Config = a[9:]
		case a == "--no-daemon":
			l.NoDaemon = true
		case a == "-v" || a == "--verbose":
			l.Verbose = true
		case len(a) > 0 && a[0] == '-':
		case l.Command == "":
			l.Command = a
			if i+1 < len(args) && args[i+1] != "" && args[i+1][0] != '-' {
				l.Sub = args[i+1]
			}
		}
	}
	return l
}

// Timeout bounds connecting to the daemon and its first answer (accept
// or refuse); a daemon that takes longer is treated as stale.
const Timeout = 2 * time.Second

// Forward runs args on the daemon serving their index, if there is one
// it may use, copying its output to stdout and stderr. ok is false when
// the command must run in-process (nothing has been written then).
func Forward(args []string) (code int, ok bool) {
	l := Parse(args)
	if l.NoDaemon || !Answers(l.Command, l.Sub) {
		return 0, false
	}
	p, err := dirs.Resolve(l.Index, l.Config)
	if err != nil {
		return 0, false
	}
	b, err := os.ReadFile(p.IndexDir + string(os.PathSeparator) + wire.EndpointFile)
	if err != nil {
		return 0, false // no daemon
	}
	fail := func(why string) (int, bool) {
		if l.Verbose {
			os.Stderr.WriteString("gno: daemon not used (" + why + "); running in-process\n")
		}
		return 0, false
	}
	sock := string(b)
	for i := range len(sock) {
		if sock[i] == '\n' {
			sock = sock[:i]
			break
		}
	}
	if err := wire.CheckSocket(sock); err != nil {
		return fail(err.Error())
	}
	conn, err := wire.Dial(sock, Timeout)
	if err != nil {
		return fail(err.Error())
	}
	defer conn.Close()
	cwd, _ := os.Getwd()
	req := wire.Request{Kind: wire.KindCLI, Build: wire.Build(), IndexDir: p.IndexDir, ConfigFile: p.ConfigFile,
		ModelsDir: p.ModelsDir, Index: l.Index, Env: wire.EnvSig(os.Environ()), Cwd: cwd,
		StdoutTTY: wire.IsTerminal(int(os.Stdout.Fd())), StderrTTY: wire.IsTerminal(int(os.Stderr.Fd())),
		Width: wire.Width(int(os.Stdout.Fd())), Args: args}
	if l.Config != "" {
		req.Config = p.ConfigFile
	}
	if _, err := conn.Write(req.Encode()); err != nil {
		return fail(err.Error())
	}
	fr := wire.NewReader(conn, 64<<10)
	typ, payload, err := fr.Next()
	switch {
	case err != nil:
		return fail("no answer: " + err.Error())
	case typ == wire.FrameRefuse:
		return fail(string(payload))
	case typ != wire.FrameAccept:
		return fail("unexpected answer")
	}
	conn.SetReadTimeout(0)
	// Consecutive frames of one stream already received go out in one
	// write; before waiting for more, everything received is written, so
	// a streamed answer shows as it comes.
	var pend []byte
	var pendTyp byte
	wrote := false
	flush := func() {
		if len(pend) == 0 {
			return
		}
		if pendTyp == wire.FrameStdout {
			os.Stdout.Write(pend)
		} else {
			os.Stderr.Write(pend)
		}
		pend, wrote = pend[:0], true
	}
	for {
		if !fr.Buffered() {
			flush()
		}
		typ, payload, err := fr.Next()
		if err != nil {
			flush()
			if !wrote {
				return fail("the daemon closed the connection")
			}
			os.Stderr.WriteString("gno: the daemon closed the connection before the command ended\n")
			return 1, true
		}
		switch typ {
		case wire.FrameStdout, wire.FrameStderr:
			if typ != pendTyp {
				flush()
				pendTyp = typ
			}
			pend = append(pend, payload...)
		case wire.FrameExit:
			flush()
			return wire.ExitCode(payload), true
		}
	}
}
