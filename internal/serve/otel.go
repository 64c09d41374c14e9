package serve

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/toolguard/toolguard/internal/audit"
	"github.com/toolguard/toolguard/internal/guard"
	"github.com/toolguard/toolguard/internal/serve/otelexport"
	"github.com/toolguard/toolguard/internal/workspace"
)

// serve --otlp-endpoint (docs/otel.md): every audit line the server
// appends — the hook calls it decides, the approval decisions made
// through it, the lines hooks send (POST /v1/audit) — is also sent to an
// OpenTelemetry collector as a log record, once the chain (the file or
// the database's) holds it. The chain stays the record; the export never
// blocks or changes a decision.

type otlpFlags struct {
	endpoint string
	insecure bool
	version  string // the server's (service.version)
}

func (f *otlpFlags) register(cmd *cobra.Command) {
	cmd.PreRun = func(cmd *cobra.Command, _ []string) {
		f.version = strings.TrimPrefix(cmd.Root().Version, cmd.Root().Name()+" ")
	}
	fl := cmd.Flags()
	fl.StringVar(&f.endpoint, "otlp-endpoint", "", "also send each audit line as an OpenTelemetry log record to this OTLP/HTTP `URL` (default: OTEL_EXPORTER_OTLP_LOGS_ENDPOINT or OTEL_EXPORTER_OTLP_ENDPOINT; none: no export)")
	fl.BoolVar(&f.insecure, "otlp-insecure", false, "allow a plain http:// --otlp-endpoint that is not loopback")
}

// appendLine appends one audit line and returns it as written and its
// hash: audit.AppendLine on the file, or the database's chain (db.go).
type appendLine func(ctx context.Context, path string, rec audit.Record) (audit.Record, string, error)

// startExport starts the export the flags and environment ask for and
// points sys's audit appends through it; stop sends what is queued and
// ends it. Off (no endpoint), or with no audit log to export, it changes
// nothing. A bad endpoint is a usage error: serve does not start.
func startExport(ctx context.Context, sys *guard.System, o *Options, ps *workspace.Set) (stop func(), err error) {
	x, err := otelexport.New(ctx, otelexport.Config{
		Endpoint: o.otlp.endpoint,
		Insecure: o.otlp.insecure,
		Getenv:   sys.Getenv,
		Version:  o.otlp.version,
		Logf:     func(f string, a ...any) { fmt.Fprintf(sys.Stderr, f+"\n", a...) },
	})
	if err != nil {
		if ce, ok := err.(*otelexport.ConfigError); ok {
			return nil, workspace.Usagef("%s", ce.Msg)
		}
		return nil, err
	}
	if x == nil {
		return func() {}, nil
	}
	stop = func() {
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = x.Shutdown(sctx) // reports what it could not send
	}
	write := o.appendLine // the database's chain
	switch prev := sys.AppendAudit; {
	case write != nil:
	case prev != nil: // a chain that does not tell its hash
		write = func(ctx context.Context, path string, rec audit.Record) (audit.Record, string, error) {
			return rec, "", prev(ctx, path, rec)
		}
	case sys.AuditPath(o.AuditLog, o.StateDir, ps.Pol) == "":
		fmt.Fprintf(sys.Stderr, "toolguard serve: warning: OpenTelemetry export to %s: auditing is off (settings.audit = \"off\"): nothing to export\n", x.Endpoint())
		return stop, nil
	default:
		write = audit.AppendLine
	}
	// The one call site: a line is exported once it is appended.
	sys.AppendAudit = func(ctx context.Context, path string, rec audit.Record) error {
		written, hash, err := write(ctx, path, rec)
		if err == nil {
			x.Export(ctx, written, hash, nodeOf(ctx))
		}
		return err
	}
	fmt.Fprintf(sys.Stderr, "toolguard serve: exporting audit lines to %s (OpenTelemetry logs over OTLP/HTTP)\n", x.Endpoint())
	return stop, nil
}

type nodeKey struct{}

// withNode marks ctx as a hook call of node (POST /v1/hooks/{agent}): its
// audit line is exported with the node's name.
func withNode(ctx context.Context, node string) context.Context {
	return context.WithValue(ctx, nodeKey{}, node)
}

func nodeOf(ctx context.Context) string {
	n, _ := ctx.Value(nodeKey{}).(string)
	return n
}
