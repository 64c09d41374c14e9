// Command corpus scores toolguard's embedded default rules against the
// peer corpus: the commands and file-tool calls that two other agent
// guards (cc-safety-net, nah) block or allow in their own test suites.
//
//	go run ./tools/corpus [-shared ../shared] [-v] [-auto]
//
// Each record goes through the same steps as `toolguard hook`: a Claude
// Code PreToolUse payload is built (the Bash tool for a command, the
// record's tool otherwise, with the record's cwd), decoded with
// protocol.DecodeWith, and evaluated against the embedded defaults with
// the record's home and project root. A block record is met by deny or
// ask, an allow record by pass or allow. The output is block recall and
// allow false-positive rate per file and per category; -v also lists
// every record toolguard disagrees with. Records that name no command and
// no tool input give nothing to evaluate; they are counted as unscorable
// and left out of both rates.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("corpus", flag.ContinueOnError)
	fl.SetOutput(stderr)
	shared := fl.String("shared", "../shared", "directory holding corpus/*.jsonl")
	verbose := fl.Bool("v", false, "list every record toolguard disagrees with")
	md := fl.Bool("md", false, "print the scores and every disagreement as Markdown (docs/corpus.md)")
	auto := fl.Bool("auto", false, "score settings.auto_allow = \"read-only\": the share of allow records auto-allowed, why not, and block records allowed (docs/auto-allow.md)")
	if err := fl.Parse(args); err != nil {
		return 2
	}
	dir := filepath.Join(*shared, "corpus")
	if files, _ := filepath.Glob(filepath.Join(dir, "*.jsonl")); len(files) == 0 {
		fmt.Fprintf(stderr, "corpus: no peer corpus at %s (no *.jsonl files). This tool scores the defaults against "+
			"commands and file-tool calls taken from the test suites of two other agent guards "+
			"(kenryu42/cc-safety-net and manuelschipper/nah), one JSON object a line; that corpus lives beside "+
			"the repository, not in it. Point -shared at the directory that holds corpus/*.jsonl; docs/corpus.md "+
			"has the format and the last scores. (go test ./tools/corpus skips without it.)\n", dir)
		return 1
	}
	if *auto {
		a, err := autoScoreDir(filepath.Join(*shared, "corpus"))
		if err != nil {
			fmt.Fprintf(stderr, "corpus: %v\n", err)
			return 1
		}
		a.report(stdout, *verbose)
		if len(a.BlockAllow) > 0 {
			return 1
		}
		return 0
	}
	s, err := newScorer()
	if err != nil {
		fmt.Fprintf(stderr, "corpus: %v\n", err)
		return 1
	}
	scores, err := s.scoreDir(dir)
	if err != nil {
		fmt.Fprintf(stderr, "corpus: %v\n", err)
		return 1
	}
	if *md {
		markdown(stdout, scores)
		return 0
	}
	report(stdout, scores, *verbose)
	return 0
}

// report prints the per-file table, then each file's categories, then
// (verbose) the misses.
func report(w io.Writer, scores []*fileScore, verbose bool) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	width := 0
	for _, fs := range scores {
		width = max(width, len(fs.Name))
	}
	fmt.Fprintln(tw, pad("file", width)+"\tblock\thit\trecall\tallow\tflagged\tFP\tunscorable\t")
	for _, fs := range scores {
		row(tw, pad(fs.Name, width), fs.Total)
	}
	tw.Flush()
	fmt.Fprintln(w, "\nrecall: block records denied or asked; FP: allow records denied or asked; unscorable records (no command, no tool input) are left out of both.")
	for _, fs := range scores {
		fmt.Fprintf(w, "\n%s\n", fs.Name)
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
		cats := make([]string, 0, len(fs.Categories))
		width := len("category")
		for c := range fs.Categories {
			cats = append(cats, c)
			width = max(width, len(c))
		}
		sort.Strings(cats)
		fmt.Fprintln(tw, pad("category", width)+"\tblock\thit\trecall\tallow\tflagged\tFP\tunscorable\t")
		for _, c := range cats {
			row(tw, pad(c, width), *fs.Categories[c])
		}
		tw.Flush()
	}
	if !verbose {
		return
	}
	fmt.Fprintln(w, "\nmisses (expect → got [rule]):")
	for _, fs := range scores {
		for _, m := range fs.Misses {
			what := m.what()
			rule := m.Rule
			if rule == "" {
				rule = "-"
			}
			fmt.Fprintf(w, "%s:%d\t%s → %s [%s]\t%s\t(%s)\n", m.File, m.Line, m.Record.Expect, m.Decision, rule, what, m.Record.Category)
		}
	}
}

func row(w io.Writer, name string, t tally) {
	recall, fp := "-", "-"
	if t.Block > 0 {
		recall = fmt.Sprintf("%.1f%%", t.Recall())
	}
	if t.Allow > 0 {
		fp = fmt.Sprintf("%.1f%%", t.FP())
	}
	fmt.Fprintf(w, "%s\t%d\t%d\t%s\t%d\t%d\t%s\t%d\t\n", name, t.Block, t.BlockHit, recall, t.Allow, t.AllowMiss, fp, t.Unscorable)
}

// pad left-aligns s in a right-aligned table.
func pad(s string, width int) string { return s + strings.Repeat(" ", width-len(s)) }

// what is the record's command or tool call on one line.
func (m miss) what() string {
	w := ""
	if m.Record.Command != nil {
		w = *m.Record.Command
	} else {
		w = strings.TrimSpace(m.Record.ToolName + " " + string(m.Record.ToolInput))
	}
	return strings.ReplaceAll(w, "\n", `\n`)
}

// markdown prints the score tables and one line per disagreement with its
// reason.
func markdown(w io.Writer, scores []*fileScore) {
	fmt.Fprintln(w, "| file | block | hit | recall | allow | flagged | FP | unscorable |")
	fmt.Fprintln(w, "|---|--:|--:|--:|--:|--:|--:|--:|")
	for _, fs := range scores {
		mdRow(w, "`"+fs.Name+"`", fs.Total)
	}
	for _, fs := range scores {
		fmt.Fprintf(w, "\n#### %s\n\n", fs.Name)
		fmt.Fprintln(w, "| category | block | hit | recall | allow | flagged | FP | unscorable |")
		fmt.Fprintln(w, "|---|--:|--:|--:|--:|--:|--:|--:|")
		cats := make([]string, 0, len(fs.Categories))
		for c := range fs.Categories {
			cats = append(cats, c)
		}
		sort.Strings(cats)
		for _, c := range cats {
			mdRow(w, c, *fs.Categories[c])
		}
	}
	fmt.Fprint(w, "\n## Every disagreement\n\n")
	fmt.Fprintln(w, "One line each: record, the peer's verdict → toolguard's decision [deciding rule or cause], the command or tool call, and why.")
	for _, fs := range scores {
		fmt.Fprintf(w, "\n### %s\n\n", fs.Name)
		for _, m := range fs.Misses {
			why := ""
			if m.Record.Expect == "block" {
				why = missReason(m.Record.Category)
			} else {
				why = fpReason(m.Rule)
			}
			what := m.what()
			if len(what) > 140 {
				what = what[:140] + "…"
			}
			what = strings.ReplaceAll(what, "`", "'")
			rule := m.Rule
			if rule == "" {
				rule = "-"
			}
			fmt.Fprintf(w, "- %d: %s → %s [%s] `%s` — %s\n", m.Line, m.Record.Expect, m.Decision, rule, what, why)
		}
	}
}

func mdRow(w io.Writer, name string, t tally) {
	recall, fp := "-", "-"
	if t.Block > 0 {
		recall = fmt.Sprintf("%.1f%%", t.Recall())
	}
	if t.Allow > 0 {
		fp = fmt.Sprintf("%.1f%%", t.FP())
	}
	name = strings.ReplaceAll(name, "|", "\\|")
	fmt.Fprintf(w, "| %s | %d | %d | %s | %d | %d | %s | %d |\n", name, t.Block, t.BlockHit, recall, t.Allow, t.AllowMiss, fp, t.Unscorable)
}
