package cmd

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"

	"github.com/reviewdev/review/internal/text"
	"github.com/reviewdev/review/review/host/azure"
	"github.com/reviewdev/review/review/host/bitbucket"
	"github.com/reviewdev/review/review/host/gitea"
	"github.com/reviewdev/review/review/host/github"
	"github.com/reviewdev/review/review/host/gitlab"
	"github.com/reviewdev/review/review/host/seam"
	"github.com/reviewdev/review/review/result"
)

// hosts are the places review posts to, by --post name, in the order
// their CI is asked for (ciFrom). A host is its package under
// review/host and one row here: nothing else in cmd names it.
var hosts = []hostRow{
	{Host: github.Host, denied: annotateDenied},
	{Host: gitlab.Host},
	{Host: gitea.Host},
	{Host: bitbucket.Host},
	{Host: azure.Host},
}

// hostRow is a host and what cmd does for it beyond the seam.
type hostRow struct {
	seam.Host
	// denied gives the findings of a review the token may not post to
	// the job, saying why (err); nil lists them in the job's log
	// (logDenied).
	denied func(opts *ReviewOptions, outs []output, res *result.Result, err error) error
}

// hostNamed is the row of --post name; nil for none.
func hostNamed(name string) *hostRow {
	for i := range hosts {
		if hosts[i].Name == name {
			return &hosts[i]
		}
	}
	return nil
}

// readsCommands reports whether the CI of the row's host reads a step's
// output for workflow commands; false for no row.
func (r *hostRow) readsCommands() bool { return r != nil && r.WorkflowCommands }

// hostNames are what --post takes.
func hostNames() []string {
	names := make([]string, len(hosts))
	for i, h := range hosts {
		names[i] = h.Name
	}
	return names
}

// knownHost reports whether --post names a host review posts to.
func knownHost(name string) bool { return hostNamed(name) != nil }

// unknownHost is the usage error of a --post that names no host.
func unknownHost(name string) error {
	return usageErrorf("unknown --post %q: use %s", name, text.JoinOr(hostNames()))
}

// postHelp is the help of --post: each host and what it posts (about
// picks the words: a review's or an answer's).
func postHelp(lead string, about func(seam.About) string) string {
	parts := make([]string, len(hosts))
	for i, h := range hosts {
		parts[i] = fmt.Sprintf("%s (%s)", h.Name, about(h.About))
	}
	return lead + text.JoinOr(parts)
}

// hostFlags hold the values of every host's flags, by name.
type hostFlags struct {
	flags map[string]*string
}

func (h *hostFlags) register(fl *pflag.FlagSet) {
	h.flags = map[string]*string{}
	for _, r := range hosts {
		for _, f := range r.Flags {
			h.flags[f.Name] = fl.String(f.Name, "", f.Usage)
			inGroup(fl, groupOutputs, f.Name)
		}
	}
}

// values are the host flags given, by name.
func (h hostFlags) values() map[string]string {
	m := map[string]string{}
	for k, v := range h.flags {
		if *v != "" {
			m[k] = *v
		}
	}
	return m
}

// withHostFlags are host flags with the values of m, as a comment's event
// names its change.
func withHostFlags(m map[string]string) hostFlags {
	h := hostFlags{flags: map[string]*string{}}
	for k, v := range m {
		h.flags[k] = &v
	}
	return h
}

// hostAdvice words what a host says it needs with the flags that give it.
func hostAdvice(err error) error {
	var need *seam.NeedError
	var bad *seam.ValueError
	switch {
	case errors.As(err, &need):
		s := fmt.Sprintf("--post %s needs %s", need.Host, need.What)
		if need.Flag != "" {
			s += ", or --" + need.Flag + need.FlagNote
		}
		return errors.New(s)
	case errors.As(err, &bad) && bad.Var == "":
		return usageErrorf("--%s %q is not %s", bad.Flag, bad.Value, bad.Why)
	case errors.As(err, &bad):
		s := fmt.Sprintf("%s %q is not %s: %s", bad.Var, bad.Value, bad.Why, bad.Do)
		if bad.Flag != "" {
			s += ", or give --" + bad.Flag
		}
		return errors.New(s)
	}
	return err
}

// annotateDenied gives the findings of a review GitHub would not take to
// the job as annotations (denied).
func annotateDenied(opts *ReviewOptions, outs []output, res *result.Result, err error) error {
	fmt.Fprintf(opts.IO.ErrOut, "review: not posted: %s; the findings are annotations on the job instead\n", text.OneLine(err.Error(), 0))
	return denied(opts, outs, res)
}

// logDenied gives the findings of a review the host would not take to the
// job's log, one line each, and says where the Code Quality report, which
// GitLab's merge request widget shows, was written. It never fails the
// job: --fail-on still decides.
func logDenied(opts *ReviewOptions, outs []output, res *result.Result, err error) error {
	w := opts.IO.ErrOut
	where := "in the job log"
	for _, o := range outs {
		if o.format.Name == "codequality" && o.path != "" && o.path != "-" {
			where = "in the Code Quality report (" + o.path + ") and the job log"
		}
	}
	fmt.Fprintf(w, "review: not posted: %s; the findings are %s instead\n", text.OneLine(err.Error(), 0), where)
	for _, f := range res.Findings {
		fmt.Fprintf(w, "review: %s: [%s] %s (%s)\n", f.Location(), f.Severity, text.OneLine(f.Title, 0), f.RuleID())
	}
	_, err = io.WriteString(w, "review: "+strings.TrimSpace(result.CountFindings(res.Findings))+"\n")
	return err
}
