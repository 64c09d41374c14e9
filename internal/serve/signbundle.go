package serve

import (
	"crypto/ed25519"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/toolguard/toolguard/internal/approval"
	"github.com/toolguard/toolguard/internal/bundle"
	"github.com/toolguard/toolguard/internal/guard"
)

// serveBundle signs the policy serve runs as a bundle (docs/bundles.md):
// the bytes of each layer it loaded (the embedded defaults excepted: every
// node has its own), with the key of --bundle-key, generated there (0600)
// on first use like the approver key. No flag: no bundle (nil).
func serveBundle(sys guard.System, o *Options, project string) ([]byte, error) {
	if o.bundleKey == "" {
		return nil, nil
	}
	path := sys.Path(o.bundleKey)
	key, err := approval.LoadKey(path)
	if errors.Is(err, fs.ErrNotExist) {
		if key, err = approval.GenerateKey(path); err == nil {
			fmt.Fprintf(sys.Stderr, "toolguard serve: created the bundle key %s\n", path)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("--bundle-key: %w", err)
	}
	srcs, err := sys.Sources(o.Selection, project)
	if err != nil {
		return nil, err
	}
	host, _ := os.Hostname()
	body := bundle.Body{Created: sys.Now().UTC(), Server: host}
	for _, s := range srcs {
		data := s.Data
		if s.File != nil {
			data = make([]byte, s.File.Size())
			if _, err := s.File.ReadAt(data, 0); err != nil && err != io.EOF {
				return nil, fmt.Errorf("policy bundle: %s: %v", s.Path, err)
			}
		}
		name := s.Layer
		if name == "" {
			name = s.Name
		}
		if name == "" {
			name = filepath.Base(s.Path)
		}
		body.Layers = append(body.Layers, bundle.Layer{Name: name, Path: s.Path, Data: string(data)})
	}
	raw, err := bundle.Sign(body, key)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(sys.Stderr, "toolguard serve: policy bundle %s (%d layers) at GET /v1/policy/bundle; nodes pin settings.policy_pubkey = %q\n",
		bundle.Hash(raw), len(body.Layers), approval.PublicText(key.Public().(ed25519.PublicKey)))
	return raw, nil
}
