package audit

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
)

// TopBlocked is how many summaries [Summary.TopBlocked] keeps.
const TopBlocked = 10

// Count is one name and how many records had it.
type Count struct {
	Name  string `json:"name"`
	Count int    `json:"count"`
}

// Summary is an aggregate of decision records. Every list is ordered by
// count, highest first, then by name.
type Summary struct {
	Since time.Time `json:"since,omitzero"` // the cut-off asked for; zero: all
	First time.Time `json:"first,omitzero"` // time of the earliest record counted
	Last  time.Time `json:"last,omitzero"`  // time of the latest record counted
	Total int       `json:"total"`

	ByDecision []Count `json:"by_decision"`
	ByRule     []Count `json:"by_rule"`     // "(none)" for records without a rule
	ByProvider []Count `json:"by_provider"` // the agents
	// TopBlocked holds the most frequent summaries of deny and ask
	// decisions, at most [TopBlocked] of them.
	TopBlocked []Count `json:"top_blocked"`
}

// noName stands for an empty rule, provider or summary in a Summary.
const noName = "(none)"

// Aggregate counts the policy.decision records of recs whose time is not
// before since (a zero since counts them all). Records of other events are
// ignored.
func Aggregate(recs []Record, since time.Time) Summary {
	sum := Summary{Since: since}
	byDecision := map[string]int{}
	byRule := map[string]int{}
	byProvider := map[string]int{}
	blocked := map[string]int{}
	for _, r := range recs {
		if r.Event != EventDecision && r.Event != "" {
			continue
		}
		if !since.IsZero() && r.Time.Before(since) {
			continue
		}
		sum.Total++
		if sum.First.IsZero() || r.Time.Before(sum.First) {
			sum.First = r.Time
		}
		if r.Time.After(sum.Last) {
			sum.Last = r.Time
		}
		byDecision[orNone(r.Decision)]++
		byRule[orNone(r.Rule)]++
		byProvider[orNone(r.Provider)]++
		if r.Decision == "deny" || r.Decision == "ask" {
			blocked[orNone(r.Summary)]++
		}
	}
	sum.ByDecision = sortedCounts(byDecision, 0)
	sum.ByRule = sortedCounts(byRule, 0)
	sum.ByProvider = sortedCounts(byProvider, 0)
	sum.TopBlocked = sortedCounts(blocked, TopBlocked)
	return sum
}

func orNone(s string) string {
	if s == "" {
		return noName
	}
	return s
}

// sortedCounts orders m by count descending, then name; n > 0 keeps the
// first n. The result is never nil, so JSON shows [] rather than null.
func sortedCounts(m map[string]int, n int) []Count {
	out := make([]Count, 0, len(m))
	for name, c := range m {
		out = append(out, Count{Name: name, Count: c})
	}
	slices.SortFunc(out, func(a, b Count) int {
		if c := cmp.Compare(b.Count, a.Count); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
	if n > 0 && len(out) > n {
		out = out[:n]
	}
	return out
}

// WriteText writes s for people: totals, then one section per list.
// Summaries are shown on one line, with newlines and tabs escaped.
func (s Summary) WriteText(w io.Writer) error {
	var b strings.Builder
	switch {
	case s.Total == 0 && s.Since.IsZero():
		b.WriteString("no decisions recorded\n")
	case s.Total == 0:
		fmt.Fprintf(&b, "no decisions since %s\n", s.Since.UTC().Format(time.RFC3339))
	default:
		fmt.Fprintf(&b, "%d decisions from %s to %s\n", s.Total,
			s.First.UTC().Format(time.RFC3339), s.Last.UTC().Format(time.RFC3339))
	}
	section(&b, "by decision", s.ByDecision)
	section(&b, "by rule", s.ByRule)
	section(&b, "by agent", s.ByProvider)
	section(&b, "most blocked (deny and ask)", s.TopBlocked)
	_, err := io.WriteString(w, b.String())
	return err
}

var oneLine = strings.NewReplacer("\r", `\r`, "\n", `\n`, "\t", `\t`)

func section(b *strings.Builder, title string, counts []Count) {
	if len(counts) == 0 {
		return
	}
	fmt.Fprintf(b, "\n%s:\n", title)
	width := 0
	for _, c := range counts {
		width = max(width, len(fmt.Sprint(c.Count)))
	}
	for _, c := range counts {
		fmt.Fprintf(b, "  %*d  %s\n", width, c.Count, oneLine.Replace(c.Name))
	}
}
