// Command pull installs gno's models into the model cache for the build
// (models.mk), until `gno models pull` does the same from the CLI.
//
//	pull NAME              download from the model's primary URL
//	pull NAME --from DIR   import files already on disk (mirror artifacts)
//	pull -check NAME       exit 0 when NAME is installed
//	pull -mirrors NAME     print "KIND ARTIFACT" per mirror, for models.mk
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"

	"github.com/gnosearch/gno/models"
)

func main() {
	from := flag.String("from", "", "import from this folder instead of downloading")
	check := flag.Bool("check", false, "only report whether the model is installed")
	mirrors := flag.Bool("mirrors", false, "print the model's mirror artifacts")
	dir := flag.String("dir", "", "model cache (default: gno's)")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: pull [-from DIR | -check | -mirrors] [-dir CACHE] NAME")
		os.Exit(2)
	}
	if err := run(flag.Arg(0), *dir, *from, *check, *mirrors); err != nil {
		fmt.Fprintln(os.Stderr, "pull:", err)
		os.Exit(1)
	}
}

func run(name, dir, from string, check, mirrors bool) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	m, err := models.Builtin().Lookup(name)
	if err != nil {
		return err
	}
	if mirrors {
		for _, mi := range m.Mirrors {
			fmt.Println(mi.Kind, mi.Artifact)
		}
		return nil
	}
	if dir == "" {
		if dir, err = models.DefaultDir(); err != nil {
			return err
		}
	}
	c := models.Cache{Dir: dir}
	if check {
		_, err := c.Installed(name)
		return err
	}
	if from != "" {
		err = c.Import(ctx, m, []string{from})
	} else {
		err = c.Pull(ctx, m, models.PullOptions{})
	}
	if err != nil {
		return err
	}
	fmt.Printf("installed %s in %s\n", name, c.ModelDir(name))
	return nil
}
