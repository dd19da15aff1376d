package learn

import (
	"fmt"
	"strings"
)

// InForce returns the learnings that apply to a change of the files at
// paths, in the order the model reads them: those whose paths match a
// changed file first, then those that apply to every file, each in the
// file's order. A learning whose paths match no changed file is not in
// force for this change.
func InForce(ls []Learning, paths []string) []Learning {
	var scoped, all []Learning
	for _, l := range ls {
		if len(l.Paths) == 0 {
			all = append(all, l)
			continue
		}
		for _, p := range paths {
			if l.Applies(p) {
				scoped = append(scoped, l)
				break
			}
		}
	}
	return append(scoped, all...)
}

// Intro opens the section of the static layer that holds the learnings.
const Intro = "Team learnings: rules this repository's team agreed for its reviews, from " + Path +
	" as merged. Follow them. When one makes a finding no problem here, submit it with learning set to that learning's number: it is withheld, and the team sees which learning held it."

// Section is the learnings as the model reads them, within max tokens by
// count: Intro, then one line each (with the paths it applies to), in
// the order given, and a line naming those left out to fit. It returns
// the text and the learnings it holds; "" when none fits.
func Section(ls []Learning, max int, count func(string) int) (string, []Learning) {
	if len(ls) == 0 {
		return "", nil
	}
	lines := make([]string, len(ls))
	total := count(Intro + "\n")
	for i, l := range ls {
		lines[i] = Line(l) + "\n"
		total += count(lines[i])
	}
	// All of them, or as many as leave room to name the others.
	reserve := 0
	if total > max {
		reserve = leftOutCost
	}
	var b strings.Builder
	b.WriteString(Intro + "\n")
	used := count(Intro + "\n")
	var in, out []Learning
	for i, l := range ls {
		if n := count(lines[i]); used+n+reserve <= max {
			b.WriteString(lines[i])
			used += n
			in = append(in, l)
			continue
		}
		out = append(out, l)
	}
	if len(in) == 0 {
		return "", nil
	}
	if len(out) > 0 {
		b.WriteString(LeftOut(out) + "\n")
	}
	return strings.TrimRight(b.String(), "\n"), in
}

// leftOutCost bounds the tokens of the line LeftOut writes.
const leftOutCost = 60

// Line is a learning as one line of the section.
func Line(l Learning) string {
	s := fmt.Sprintf("%d. %s", l.N, strings.Join(strings.Fields(l.Rule), " "))
	if len(l.Paths) > 0 {
		s += " (applies to " + strings.Join(l.Paths, ", ") + ")"
	}
	return s
}

// LeftOut names the learnings a section had no room for.
func LeftOut(out []Learning) string {
	nums := make([]string, 0, len(out))
	for i, l := range out {
		if i == 20 {
			nums = append(nums, fmt.Sprintf("and %d more", len(out)-i))
			break
		}
		nums = append(nums, fmt.Sprint(l.N))
	}
	return fmt.Sprintf("(Learnings %s are left out to fit the context budget; they are in %s.)", strings.Join(nums, ", "), Path)
}
