package main

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// parseDuration is time.ParseDuration that also takes days: "7d", "2d12h",
// "1.5d". A day is 24 hours (the flags it serves count ages and lifetimes,
// not calendar days). Negative durations are refused: every flag that
// takes one is an age, a lifetime or a timeout.
func parseDuration(s string) (time.Duration, error) {
	in := s
	var total time.Duration
	if i := strings.IndexByte(s, 'd'); i >= 0 {
		n, err := strconv.ParseFloat(s[:i], 64)
		if err != nil || n < 0 || n > 100*365 || strings.ContainsAny(s[:i], "+-eE") {
			return 0, fmt.Errorf("invalid duration %q (want e.g. 30m, 24h, 7d)", in)
		}
		total = time.Duration(n * float64(24*time.Hour))
		s = s[i+1:]
		if s == "" {
			return total, nil
		}
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("invalid duration %q (want e.g. 30m, 24h, 7d)", in)
	}
	return total + d, nil
}

// durationFlag is a pflag.Value over parseDuration (pflag is not imported:
// it is an indirect dependency, and the interface is met structurally); register it with
// cmd.Flags().Var(durationVar(&x, def), name, usage) where DurationVar was.
type durationFlag struct{ d *time.Duration }

func durationVar(p *time.Duration, def time.Duration) durationFlag {
	*p = def
	return durationFlag{p}
}

func (f durationFlag) String() string {
	if f.d == nil {
		return "0"
	}
	return formatDuration(*f.d)
}

func (f durationFlag) Set(s string) error {
	d, err := parseDuration(s)
	if err != nil {
		return err
	}
	*f.d = d
	return nil
}

func (durationFlag) Type() string { return "duration" }

// formatDuration writes whole days as "7d", else as time.Duration does.
func formatDuration(d time.Duration) string {
	if d == 0 {
		return "0" // what pflag takes for a zero default (not printed in help)
	}
	if d > 0 && d%(24*time.Hour) == 0 {
		return strconv.FormatInt(int64(d/(24*time.Hour)), 10) + "d"
	}
	return d.String()
}
