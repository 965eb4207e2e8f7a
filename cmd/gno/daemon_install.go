package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/gnosearch/gno/retrieval/config"
	"github.com/gnosearch/gno/server/daemon/unit"
	"github.com/gnosearch/gno/server/daemon/wire"
	"github.com/spf13/cobra"
)

// installFlags are `gno daemon install`'s: the daemon flags the unit
// passes on, and what to do.
type installFlags struct {
	addr                 string
	enableWrite, noEmbed bool
	debounce             time.Duration
	dryRun, noStart      bool
	goos                 string
}

// daemonUnit computes the unit for the index a's flags name. It also
// returns the secret variables it left out.
func (a *app) daemonUnit(cmd *cobra.Command, f installFlags) (unit.Unit, []string, error) {
	p, err := config.Resolve(a.index, a.configPath)
	if err != nil {
		return unit.Unit{}, nil, err
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return unit.Unit{}, nil, err
	}
	exe, err := os.Executable()
	if err != nil {
		return unit.Unit{}, nil, err
	}
	if r, err := filepath.EvalSymlinks(exe); err == nil {
		exe = r
	}
	args := []string{"--index", p.Index}
	if a.configPath != "" {
		args = append(args, "--config", p.ConfigFile)
	}
	args = append(args, "daemon", "--log-file", filepath.Join(p.IndexDir, wire.LogFile))
	fl := cmd.Flags()
	if fl.Changed("addr") {
		args = append(args, "--addr", f.addr)
	}
	if f.enableWrite {
		args = append(args, "--enable-write")
	}
	if f.noEmbed {
		args = append(args, "--no-embed")
	}
	if fl.Changed("debounce") {
		args = append(args, "--debounce", f.debounce.String())
	}
	// The daemon answers the CLI only with the environment the CLI has:
	// pass on what matters, except secrets (a unit file is no place for
	// them).
	var env, secrets []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if !wire.Relevant(name) {
			continue
		}
		up := strings.ToUpper(name)
		if strings.Contains(up, "KEY") || strings.Contains(up, "TOKEN") || strings.Contains(up, "SECRET") || strings.Contains(up, "PASSWORD") {
			secrets = append(secrets, name)
			continue
		}
		env = append(env, kv)
	}
	s := unit.Spec{GOOS: f.goos, Home: home, Index: p.Index, Exe: exe, Args: args, Env: env,
		LogFile: filepath.Join(p.IndexDir, wire.LogFile)}
	if x := os.Getenv("XDG_CONFIG_HOME"); filepath.IsAbs(x) {
		s.XDGConfigHome = x
	}
	s.LocalAppData = os.Getenv("LOCALAPPDATA")
	u, err := unit.For(s)
	return u, secrets, err
}

func installFlagsOn(cmd *cobra.Command, f *installFlags) {
	fl := cmd.Flags()
	fl.BoolVar(&f.dryRun, "dry-run", false, "print what would be written and run")
	fl.BoolVar(&f.noStart, "no-start", false, "write the file only; print the commands that register and start it")
	fl.StringVar(&f.goos, "os", runtime.GOOS, "the layout to write: linux, darwin or windows")
	fl.MarkHidden("os")
}

func newDaemonInstallCmd(a *app) *cobra.Command {
	var f installFlags
	cmd := &cobra.Command{
		Use:   "install",
		Short: "Start the daemon at login: a systemd user unit (Linux), a launchd agent (macOS), a scheduled task (Windows)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			u, secrets, err := a.daemonUnit(cmd, f)
			if err != nil {
				return err
			}
			if f.dryRun {
				fmt.Fprintf(a.stdout, "would write %s:\n%s\nwould run:\n", u.Path, printable(u.Content))
				for _, c := range u.Start {
					fmt.Fprintf(a.stdout, "  %s\n", strings.Join(c, " "))
				}
				return nil
			}
			if err := os.MkdirAll(filepath.Dir(u.Path), 0o755); err != nil {
				return err
			}
			if err := config.WriteFileAtomic(u.Path, u.Content, 0o644); err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "wrote %s\n", u.Path)
			if len(secrets) > 0 {
				fmt.Fprintf(a.stderr, "gno: %s not written to the unit (secrets); commands run with them set use the daemon only if it has them too\n", strings.Join(secrets, ", "))
			}
			return runUnitCommands(a, u.Start, f.noStart, "to start it now and at every login, run")
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.addr, "addr", "127.0.0.1:7777", "the daemon's --addr")
	fl.BoolVar(&f.enableWrite, "enable-write", false, "the daemon's --enable-write")
	fl.BoolVar(&f.noEmbed, "no-embed", false, "the daemon's --no-embed")
	fl.DurationVar(&f.debounce, "debounce", 500*time.Millisecond, "the daemon's --debounce")
	installFlagsOn(cmd, &f)
	return cmd
}

func newDaemonUninstallCmd(a *app) *cobra.Command {
	var f installFlags
	cmd := &cobra.Command{
		Use:   "uninstall",
		Short: "Remove what gno daemon install wrote (stopping the service)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			u, _, err := a.daemonUnit(cmd, f)
			if err != nil {
				return err
			}
			if _, err := os.Stat(u.Path); errors.Is(err, os.ErrNotExist) {
				fmt.Fprintf(a.stdout, "nothing installed at %s\n", u.Path)
				return nil
			}
			if f.dryRun {
				fmt.Fprintf(a.stdout, "would run:\n")
				for _, c := range u.Stop {
					fmt.Fprintf(a.stdout, "  %s\n", strings.Join(c, " "))
				}
				fmt.Fprintf(a.stdout, "would remove %s\n", u.Path)
				return nil
			}
			// Unregister first, while the file still names the service.
			runUnitCommands(a, u.Stop, f.noStart, "to stop it, run")
			if err := os.Remove(u.Path); err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "removed %s\n", u.Path)
			return nil
		},
	}
	installFlagsOn(cmd, &f)
	return cmd
}

// runUnitCommands runs the service manager's commands when it is there
// (and not told otherwise), else prints them.
func runUnitCommands(a *app, cmds [][]string, noStart bool, advice string) error {
	if len(cmds) == 0 {
		return nil
	}
	if _, err := exec.LookPath(cmds[0][0]); err != nil || noStart {
		fmt.Fprintf(a.stdout, "%s:\n", advice)
		for _, c := range cmds {
			fmt.Fprintf(a.stdout, "  %s\n", strings.Join(c, " "))
		}
		return nil
	}
	for _, c := range cmds {
		out, err := exec.Command(c[0], c[1:]...).CombinedOutput()
		if err != nil {
			return fmt.Errorf("%s: %v: %s", strings.Join(c, " "), err, strings.TrimSpace(string(out)))
		}
		fmt.Fprintf(a.stdout, "ran %s\n", strings.Join(c, " "))
	}
	return nil
}

// printable shows a unit file: UTF-16 task files decoded.
func printable(b []byte) string {
	if len(b) >= 2 && b[0] == 0xff && b[1] == 0xfe {
		var r []rune
		for i := 2; i+1 < len(b); i += 2 {
			r = append(r, rune(uint16(b[i])|uint16(b[i+1])<<8))
		}
		return strings.ReplaceAll(string(r), "\r\n", "\n")
	}
	return string(b)
}
