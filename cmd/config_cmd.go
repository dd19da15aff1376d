package cmd

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/reviewdev/review/cmd/config"
	"github.com/reviewdev/review/internal/text"
	"github.com/reviewdev/review/review/report"
)

// ConfigOptions are the settings of `review config`.
type ConfigOptions struct {
	IO     *IOStreams
	Getenv func(string) string
	Dir    string

	JSON bool
	agentFlags
}

// NewCmdConfig builds `review config`.
func NewCmdConfig(f *Factory) *cobra.Command {
	opts := &ConfigOptions{IO: f.IO, Getenv: f.Getenv, Dir: f.Dir}
	c := &cobra.Command{
		Use:   "config [flags]",
		Short: "Show the effective configuration and where each value comes from",
		Long:  configLong(),
		Example: `  review config
  review config --model gpt-4o --json
  review config --config-from base --base origin/main`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(*cobra.Command, []string) error {
			opts.ci = ciFrom(opts.Getenv)
			return runConfig(opts)
		},
	}
	c.Flags().BoolVar(&opts.JSON, "json", false, `print {"key": {"value": ..., "source": ...}} for every setting`)
	c.Flags().StringVar(&opts.Base, "base", "", "read .review.yaml and learnings at `REV` with --config-from base")
	inGroup(c.Flags(), groupOutputs, "json")
	inGroup(c.Flags(), groupChange, "base")
	opts.agentFlags.register(c.Flags())
	return c
}

func runConfig(opts *ConfigOptions) error {
	e, err := opts.effective(opts.Getenv, opts.Dir)
	if err != nil {
		return err
	}
	if opts.JSON {
		return report.WriteJSON(opts.IO.Out, e.Rows())
	}
	return e.WriteTable(opts.IO.Out)
}

// configLong is the help of `review config`, with the variables and file
// keys taken from the settings table so that it never falls behind it.
func configLong() string {
	var envs []string
	for _, k := range config.Keys() {
		if k.Env != "" {
			envs = append(envs, k.Env)
		}
	}
	files := strings.Join(config.FileKeys(), ", ")
	if i := strings.LastIndex(files, ", "); i >= 0 {
		files = files[:i] + " and " + files[i+2:]
	}
	return `config prints the settings a review run here would use, and where each one
comes from: a flag, an environment variable, the repository's .review.yaml,
the user's configuration file, or the default. It takes the same flags as
review, so their effect can be seen too, and it fails on the same mistakes
in the configuration files, which makes it a quick check of a file.

Settings are read, first match wins, from:

  1. flags
  2. environment: ` + strings.Join(envs, ", ") + `
  3. .review.yaml at the top of the repository's working tree
  4. $XDG_CONFIG_HOME/review/config.yaml (default ~/.config/review/config.yaml)
  5. defaults

` + text.Wrap("Configuration files are YAML mappings with the keys "+files+
		". A key set in one file replaces that key of a file below it whole: lists and mappings are not merged.", 76)
}
