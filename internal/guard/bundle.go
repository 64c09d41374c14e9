package guard

import (
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/toolguard/toolguard/internal/approval"
	"github.com/toolguard/toolguard/internal/audit"
	"github.com/toolguard/toolguard/internal/bundle"
	"github.com/toolguard/toolguard/internal/policy"
	"github.com/toolguard/toolguard/internal/workspace"
)

// The managed policy bundle (docs/bundles.md): with settings.policy_pubkey
// set by a trusted layer, the hook asks the server of
// settings.approval_url for its signed policy bundle (a conditional GET:
// If-None-Match with the last good one's hash), verifies it against the
// pinned key, and loads its layers after the node's own as untrusted
// layers (policy.Source.Untrusted: they only tighten, the mechanism of an
// untrusted project policy). The last bundle that verified and loaded is
// kept in the state directory (bundle/last-good.json, written atomically)
// and verified again on every read. A bundle that does not verify or does
// not load is refused — on stderr and in the audit log — and the last
// good one answers; with none, LoadPolicy fails and the hook denies every
// call, naming the bundle's problem.

// BundleTimeout bounds the request for the bundle (dial included).
const BundleTimeout = time.Second

// bundleCacheName is the last good bundle's file in the state directory.
var bundleCacheName = filepath.Join("bundle", "last-good.json")

// LoadPolicy loads the policy in effect for project (workspace.Env.Load)
// and, when a trusted layer pins a bundle key (settings.policy_pubkey),
// the managed bundle's layers after it. ctx bounds the request for the
// bundle.
func LoadPolicy(ctx context.Context, sys System, f *Options, project string) (*workspace.Set, error) {
	srcs, err := sys.Sources(f.Selection, project)
	if err != nil {
		return nil, err
	}
	ps, err := workspace.LoadSources(f.Selection, srcs)
	if err != nil || ps.Pol.Settings.PolicyPubkey == "" {
		return ps, err
	}
	return withBundle(ctx, sys, f, ps, srcs)
}

// withBundle is the node's policy ps (from srcs) with the managed bundle.
func withBundle(ctx context.Context, sys System, f *Options, ps *workspace.Set, srcs []policy.Source) (*workspace.Set, error) {
	pol := ps.Pol
	pinned, err := approval.ParsePublic(pol.Settings.PolicyPubkey)
	if err != nil {
		return nil, fmt.Errorf("settings.policy_pubkey: %v", err)
	}
	dir := sys.StateDir(f.StateDir, pol)
	cache := ""
	if dir != "" {
		cache = filepath.Join(dir, bundleCacheName)
	}
	load := func(b *bundle.Bundle) (*workspace.Set, error) {
		all := append(append(make([]policy.Source, 0, len(srcs)+len(b.Layers)), srcs...), b.Sources()...)
		got, err := workspace.LoadSources(f.Selection, all)
		if err != nil {
			return nil, &bundle.Error{Hash: b.Hash, Msg: fmt.Sprintf("does not load over this node's policy: %v", err)}
		}
		got.Files, got.Bundle = ps.Files, b.Hash
		return got, nil
	}
	refuse := func(err error) {
		fmt.Fprintf(sys.Stderr, "toolguard: %v; refused\n", err)
		if path := sys.AuditPath(f.AuditLog, f.StateDir, pol); path != "" {
			rec := audit.Record{Time: sys.Now(), Event: audit.EventBundle, Decision: "refuse",
				Reason: "policy bundle refused", Error: audit.Redact(err.Error()), PolicyHash: pol.Hash()}
			var be *bundle.Error
			if errors.As(err, &be) {
				rec.Bundle = be.Hash
			}
			if aerr := AppendAudit(ctx, sys, pol, path, rec); aerr != nil { // audit_log = "server": the server keeps it
				fmt.Fprintf(sys.Stderr, "toolguard: %v\n", aerr)
			}
		}
	}

	// The last good bundle, verified again: the state directory is the
	// user's, and so the agent's, to write.
	var last *bundle.Bundle
	var lastErr error
	if cache == "" {
		lastErr = errors.New("no state directory for the last good bundle")
	} else if raw, err := readBundleFile(cache); err != nil {
		lastErr = fmt.Errorf("no last good bundle (%s): %v", cache, err)
	} else if last, lastErr = bundle.Verify(raw, pinned); lastErr != nil {
		refuse(fmt.Errorf("last good bundle %s: %w", cache, lastErr))
		last = nil
	}

	fetched, fetchErr := fetchBundle(ctx, sys, pol, last, pinned)
	switch {
	case fetchErr != nil:
		var be *bundle.Error
		if errors.As(fetchErr, &be) {
			refuse(fetchErr) // it came and is wrong: say so
		} else {
			fmt.Fprintf(sys.Stderr, "toolguard: policy bundle: %v\n", fetchErr)
		}
	case fetched != nil:
		got, err := load(fetched)
		if err == nil {
			if cache != "" && (last == nil || last.Hash != fetched.Hash) {
				if werr := writeBundleFile(cache, fetched.Raw); werr != nil {
					fmt.Fprintf(sys.Stderr, "toolguard: policy bundle: keeping it: %v\n", werr)
				}
			}
			return got, nil
		}
		refuse(err)
		fetchErr = err
	}
	if last == nil {
		why := fetchErr
		if why == nil {
			why = errors.New("the server has it unchanged, but it is not here")
		}
		return nil, fmt.Errorf("managed policy bundle required (settings.policy_pubkey) and none verified: %v; %v", why, lastErr)
	}
	got, err := load(last)
	if err != nil {
		refuse(err)
		return nil, fmt.Errorf("managed policy bundle required (settings.policy_pubkey) and none loads: %v", err)
	}
	return got, nil
}

// fetchBundle asks approval_url's server for its bundle, conditionally on
// last. It returns (nil, nil) when last is still the server's; a
// *bundle.Error when what came does not verify.
func fetchBundle(ctx context.Context, sys System, pol *policy.Policy, last *bundle.Bundle, pinned ed25519.PublicKey) (*bundle.Bundle, error) {
	if pol.Settings.ApprovalURL == "" {
		return nil, errors.New("settings.policy_pubkey wants settings.approval_url: the server that publishes the bundle")
	}
	c, err := remoteClient(sys.Env, pol)
	if err != nil {
		return nil, err
	}
	c.Timeout = BundleTimeout
	etag := ""
	if last != nil {
		etag = bundle.ETag(last.Hash)
	}
	raw, notModified, err := c.Bundle(ctx, etag)
	if err != nil {
		return nil, err
	}
	if notModified {
		if last == nil {
			return nil, errors.New("the server answered 304 Not Modified to no entity tag")
		}
		return nil, nil
	}
	return bundle.Verify(raw, pinned)
}

// readBundleFile reads the cached bundle: a regular file of at most
// bundle.MaxSize bytes, opened without blocking.
func readBundleFile(path string) ([]byte, error) {
	data, _, err := workspace.ReadSmall(path, bundle.MaxSize, true)
	return data, err
}

// writeBundleFile replaces path with data atomically: a temporary file in
// the same directory, synced, renamed over it.
func writeBundleFile(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, ".last-good-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // after the rename: nothing there
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
