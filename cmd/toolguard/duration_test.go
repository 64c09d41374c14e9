package main

import (
	"testing"
	"time"
)

func TestParseDuration(t *testing.T) {
	for _, c := range []struct {
		in   string
		want time.Duration
		bad  bool
	}{
		{in: "7d", want: 7 * 24 * time.Hour},
		{in: "2d12h", want: 60 * time.Hour},
		{in: "1.5d", want: 36 * time.Hour},
		{in: "90m", want: 90 * time.Minute},
		{in: "0", want: 0},
		{in: "0d", want: 0},
		{in: "-1d", bad: true},
		{in: "-5m", bad: true},
		{in: "d", bad: true},
		{in: "7x", bad: true},
		{in: "1e3d", bad: true},
		{in: "7dd", bad: true},
		{in: "99999999d", bad: true},
		{in: "", bad: true},
	} {
		got, err := parseDuration(c.in)
		if c.bad {
			if err == nil {
				t.Errorf("parseDuration(%q) = %v, want an error", c.in, got)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("parseDuration(%q) = %v, %v; want %v", c.in, got, err, c.want)
		}
	}
	if s := formatDuration(7 * 24 * time.Hour); s != "7d" {
		t.Errorf("formatDuration(7d) = %q", s)
	}
}
