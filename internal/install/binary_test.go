package install

import "testing"

func TestIsGoBuildDir(t *testing.T) {
	for name, want := range map[string]bool{"go-build": true, "go-build123456": true, "go-builder": false, "go-build-tools": false, "bin": false} {
		if isGoBuildDir(name) != want {
			t.Errorf("isGoBuildDir(%q) = %v", name, !want)
		}
	}
}
