package main

import "github.com/spf13/cobra"

func newMCPInstallCmds(a *app) []*cobra.Command { return nil }
