package cmd

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/reviewdev/review/toolmem"
)

// resolveRunID returns the whole ID of the run that id names: the ID
// itself, or the only run whose ID starts with id, or whose random suffix
// does ("tzsbup" for 20261126-015917-tzsbup). Every command that takes a
// run ID reads it here, so they all accept the same short forms. An
// ambiguous id is an error naming the runs it matches; an unknown one is
// the store's own error (not found, or the run's record damaged).
func resolveRunID(st *toolmem.Store, id string) (string, error) {
	id = strings.TrimSpace(id)
	// A whole ID, or a damaged record, is answered without the listing,
	// which would warn of every damaged run.
	switch r, err := st.Run(id); {
	case err == nil && r.ID == id:
		return id, nil
	case errors.Is(err, toolmem.ErrDamaged):
		return "", err
	}
	runs, err := st.Runs()
	if err != nil {
		return "", err
	}
	var matches []string
	for _, r := range runs {
		if r.ID == id {
			return id, nil
		}
		if id != "" && (strings.HasPrefix(r.ID, id) || strings.HasPrefix(runSuffix(r.ID), id)) {
			matches = append(matches, r.ID)
		}
	}
	switch len(matches) {
	case 0:
		// The store's own answer: not found, or a damaged record.
		r, err := st.Run(id)
		if err != nil {
			return "", err
		}
		return r.ID, nil
	case 1:
		return matches[0], nil
	}
	const show = 3
	list := strings.Join(matches[:min(show, len(matches))], ", ")
	if len(matches) > show {
		list += fmt.Sprintf(" and %d more", len(matches)-show)
	}
	return "", fmt.Errorf("run ID %q is ambiguous: it matches %s; give more of the ID", id, list)
}

// runSuffix is the random part of a run ID, after its time
// (toolmem.NewRunID); "" for an ID of another shape.
func runSuffix(id string) string {
	i := strings.LastIndexByte(id, '-')
	if i < 0 {
		return ""
	}
	return id[i+1:]
}

// lookupRunID resolves id in the store that flag, the environment and dir
// name, opened read-only for the lookup alone.
func lookupRunID(flag string, getenv func(string) string, dir string, errOut io.Writer, id string) (string, error) {
	st, err := peekStore(flag, getenv, dir, errOut)
	if err != nil {
		return "", err
	}
	defer st.Close()
	return resolveRunID(st, id)
}
