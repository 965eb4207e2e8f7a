package main

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/gnosearch/gno/server"
	"github.com/gnosearch/gno/server/install"
	"github.com/gnosearch/gno/server/skill"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

func init() { extraCommands = append(extraCommands, newSkillCmd) }

// newSkillCmd is `gno skill`: install the agent skill generated from this
// binary's commands and MCP tools.
func newSkillCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "skill",
		Short: "Install gno's agent skill (SKILL.md and references) for Claude Code, Codex, OpenCode",
		Long: `Install gno's agent skill: a SKILL.md telling an agent when to use which
gno command or MCP tool, how to retry a search, and recipes (find a note,
answer with citations, follow links, edit safely, check what changed), with
references/mcp-tools.md and references/cli.md. It is generated from this
binary's command tree and MCP tool registry, so it matches them exactly.

Folders (user scope; project scope is the same under the current folder):
  claude    ~/.claude/skills/gno/
  codex     ~/.agents/skills/gno/
  opencode  ~/.config/opencode/skills/gno/    (project: .opencode/skills/gno/)

A skill file you edited is never overwritten or removed without --force,
which keeps your version as FILE.bak.`,
	}
	var target, scope string
	var force, dryRun bool
	run := func(uninstall bool) func(*cobra.Command, []string) error {
		return func(c *cobra.Command, _ []string) error {
			env, err := installEnv()
			if err != nil {
				return err
			}
			ts, err := skill.Expand(target, install.Scope(scope))
			if err != nil {
				return err
			}
			in := skillInput(c.Root())
			var results []*skill.Result
			for _, t := range ts {
				o := skill.Options{Target: t, Scope: install.Scope(scope), Force: force, DryRun: dryRun}
				var res *skill.Result
				if uninstall {
					res, err = skill.Uninstall(env, in, o)
				} else {
					res, err = skill.Install(env, in, o)
				}
				if err != nil {
					return err
				}
				results = append(results, res)
			}
			if a.json {
				return a.printJSON(map[string]any{"results": results})
			}
			for _, r := range results {
				printSkillResult(a, r)
			}
			return nil
		}
	}
	addFlags := func(c *cobra.Command, verb string) {
		f := c.Flags()
		f.StringVarP(&target, "target", "t", string(skill.Claude), "client: "+strings.Join(skill.TargetNames(), ", ")+" or all")
		f.StringVarP(&scope, "scope", "s", string(install.User), "user, or project (the current folder)")
		f.BoolVarP(&force, "force", "f", false, verb+" files you edited (each kept as FILE.bak)")
		f.BoolVar(&dryRun, "dry-run", false, "show what would change without writing")
	}
	inst := &cobra.Command{Use: "install", Short: "Write the skill into a client's skills folder", Args: cobra.NoArgs, RunE: run(false)}
	addFlags(inst, "replace")
	uninst := &cobra.Command{Use: "uninstall", Short: "Remove the skill files gno wrote", Args: cobra.NoArgs, RunE: run(true)}
	addFlags(uninst, "remove")

	var sTarget, sScope string
	status := &cobra.Command{
		Use:   "status",
		Short: "Show where the skill is installed and whether it is current",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			env, err := installEnv()
			if err != nil {
				return err
			}
			st, err := skill.Status(env, skillInput(c.Root()), sTarget, sScope)
			if err != nil {
				return err
			}
			if a.json {
				return a.printJSON(map[string]any{"targets": st})
			}
			fmt.Fprintf(a.stdout, "Agent Skill Status\n%s\n", strings.Repeat("─", 50))
			n := 0
			for _, s := range st {
				mark := map[string]string{"current": "✓", "stale": "~", "modified": "!", "not-installed": "✗"}[s.State]
				if s.State != "not-installed" {
					n++
				}
				fmt.Fprintf(a.stdout, "\n%s %s (%s): %s\n    Folder: %s\n", mark, skill.DisplayName(s.Target), s.Scope, s.State, tilde(env, s.Dir))
				if s.State == "stale" {
					fmt.Fprintf(a.stdout, "    Written by gno %s; run gno skill install -t %s -s %s to update\n", s.Version, s.Target, s.Scope)
				}
			}
			fmt.Fprintf(a.stdout, "\n%d/%d installed\n", n, len(st))
			return nil
		},
	}
	status.Flags().StringVarP(&sTarget, "target", "t", "all", "client, or all")
	status.Flags().StringVarP(&sScope, "scope", "s", "all", "user, project or all")

	var file string
	show := &cobra.Command{
		Use:   "show",
		Short: "Print the generated skill (SKILL.md, or --file references/cli.md)",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			for _, f := range skill.Generate(skillInput(c.Root())) {
				if f.Path == file {
					_, err := a.stdout.Write(f.Content)
					return err
				}
			}
			return fmt.Errorf("no skill file %q: use SKILL.md, references/mcp-tools.md or references/cli.md", file)
		},
	}
	show.Flags().StringVar(&file, "file", "SKILL.md", "which file")
	cmd.AddCommand(inst, uninst, status, show)
	return cmd
}

// skillInput reads what the skill is generated from: every command of
// the tree (but help and completion) with its own flags, the global
// flags, and the MCP tool registry.
func skillInput(root *cobra.Command) skill.Input {
	in := skill.Input{Version: version, Tools: skillTools(), GlobalFlags: flagsOf(root.PersistentFlags())}
	var walk func(*cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			if !sub.IsAvailableCommand() || sub.Name() == "completion" {
				continue
			}
			in.Commands = append(in.Commands, skill.Command{Path: sub.CommandPath(), Use: sub.Use,
				Short: sub.Short, Flags: flagsOf(sub.NonInheritedFlags())})
			walk(sub)
		}
	}
	walk(root)
	return in
}

func flagsOf(fs *pflag.FlagSet) []skill.Flag {
	var out []skill.Flag
	fs.VisitAll(func(f *pflag.Flag) {
		if f.Hidden || f.Name == "help" || f.Name == "version" {
			return
		}
		typ, usage := pflag.UnquoteUsage(f)
		if f.Value.Type() == "bool" {
			typ = "bool"
		}
		out = append(out, skill.Flag{Name: f.Name, Shorthand: f.Shorthand, Type: typ, Default: f.DefValue, Usage: usage})
	})
	return out
}

func printSkillResult(a *app, r *skill.Result) {
	name := skill.DisplayName(r.Target)
	prefix := ""
	if r.DryRun {
		prefix = "[dry run] would have "
	}
	switch r.Action {
	case "unchanged":
		fmt.Fprintf(a.stdout, "gno skill is current for %s (%s scope) in %s\n", name, r.Scope, r.Dir)
	case "not-installed":
		fmt.Fprintf(a.stdout, "gno skill is not installed for %s (%s scope) in %s\n", name, r.Scope, r.Dir)
	default:
		fmt.Fprintf(a.stdout, "%s%s gno skill for %s (%s scope)\n    Folder: %s\n", prefix, r.Action, name, r.Scope, r.Dir)
	}
	for _, f := range r.Files {
		if f.Backup != "" {
			fmt.Fprintf(a.stdout, "    Your edited %s kept as %s\n", filepath.Base(f.Path), f.Backup)
		}
	}
	for _, l := range r.Left {
		fmt.Fprintf(a.stdout, "    Left (not gno's): %s\n", l)
	}
}

// tilde shortens a path under the home folder for display.
func tilde(env install.Env, p string) string {
	if env.Home != "" && strings.HasPrefix(p, env.Home+string(filepath.Separator)) {
		return "~" + p[len(env.Home):]
	}
	return p
}

// skillTools is the server's tool registry as the skill reads it.
func skillTools() []skill.Tool {
	infos := server.Tools()
	out := make([]skill.Tool, len(infos))
	for i, ti := range infos {
		out[i] = skill.Tool(ti)
	}
	return out
}
