// Package otelexport sends the server's audit lines to an OpenTelemetry
// collector as log records over OTLP/HTTP (docs/otel.md), with the
// official Go SDK (go.opentelemetry.io/otel/sdk/log and its otlploghttp
// exporter). Only toolguard-serve links it: the hook binary links no
// go.opentelemetry.io package (cmd/toolguard's TestHookBinaryDeps).
//
// The hash-chained audit log (the file, or the database's chain) stays
// the record: a line is handed to [Exporter.Export] only once it is
// appended, and the export never blocks, fails or changes what the
// server decided. A record that cannot be sent is counted — dropped
// when the queue is full, failed when the collector refuses it or cannot
// be reached — and reported on stderr at most once a minute.
package otelexport

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlplog/otlploghttp"
	"go.opentelemetry.io/otel/log"
	sdklog "go.opentelemetry.io/otel/sdk/log"
	"go.opentelemetry.io/otel/sdk/resource"

	"github.com/toolguard/toolguard/internal/audit"
)

// Config is how serve's command line and environment configure the export.
type Config struct {
	// Endpoint is --otlp-endpoint: the URL of the collector's OTLP/HTTP
	// logs endpoint (a URL without a path gets /v1/logs). Empty: the
	// environment's (OTEL_EXPORTER_OTLP_LOGS_ENDPOINT, else
	// OTEL_EXPORTER_OTLP_ENDPOINT + /v1/logs); neither set: no export.
	Endpoint string
	// Insecure is --otlp-insecure: plain http to a host that is not
	// loopback is refused without it (or OTEL_EXPORTER_OTLP_INSECURE /
	// OTEL_EXPORTER_OTLP_LOGS_INSECURE = true).
	Insecure bool
	// Getenv reads the environment (the OTEL_* variables above, and
	// OTEL_SDK_DISABLED, OTEL_LOGS_EXPORTER, OTEL_BLRP_MAX_QUEUE_SIZE).
	// The SDK itself reads the process environment for the rest: headers,
	// timeout, compression, certificates, resource attributes.
	Getenv func(string) string
	// Version is the server's version (service.version).
	Version string
	// Logf reports on stderr (at most once a minute for failures).
	Logf func(format string, args ...any)

	// QueueSize bounds the records waiting to be sent (default 2048, or
	// OTEL_BLRP_MAX_QUEUE_SIZE); past it a record is dropped and counted.
	QueueSize int
	// Interval is how often a batch is sent (default: the SDK's, 1 s, or
	// OTEL_BLRP_SCHEDULE_DELAY).
	Interval time.Duration
	// ReportEvery is the least time between two failure reports (default
	// a minute).
	ReportEvery time.Duration
	// Now is the clock of the reports (default time.Now).
	Now func() time.Time
}

// DefaultQueueSize is the default bound of the queue.
const DefaultQueueSize = 2048

// Exporter sends audit lines as log records. A nil *Exporter exports
// nothing.
type Exporter struct {
	endpoint string
	provider *sdklog.LoggerProvider
	logger   log.Logger
	queue    int64

	inflight atomic.Int64 // emitted, not yet back from the exporter
	stopped  atomic.Bool

	emitted, exported, failed, dropped atomic.Uint64

	logf        func(string, ...any)
	now         func() time.Time
	reportEvery time.Duration
	mu          sync.Mutex
	lastReport  time.Time
	lastErr     error
}

// Stats are the export's counts since it started.
type Stats struct {
	Emitted  uint64 // lines handed to Export
	Exported uint64 // records the collector accepted
	Failed   uint64 // records an export attempt failed for (collector down, refused, timed out)
	Dropped  uint64 // records never sent: the queue was full, or the export had stopped
}

// Stats returns the counts so far.
func (x *Exporter) Stats() Stats {
	if x == nil {
		return Stats{}
	}
	return Stats{Emitted: x.emitted.Load(), Exported: x.exported.Load(), Failed: x.failed.Load(), Dropped: x.dropped.Load()}
}

// Endpoint is the URL records are sent to ("" for a nil Exporter).
func (x *Exporter) Endpoint() string {
	if x == nil {
		return ""
	}
	return x.endpoint
}

// ConfigError is a configuration serve refuses to start with.
type ConfigError struct{ Msg string }

func (e *ConfigError) Error() string { return e.Msg }

func configErrorf(format string, args ...any) error {
	return &ConfigError{Msg: fmt.Sprintf(format, args...)}
}

// Resolve returns the logs endpoint the configuration names ("" when the
// export is off) or why it is refused: a URL that does not parse, a
// scheme other than http or https, no host, credentials in the URL (the
// headers variable carries them), or plain http to a host that is not
// loopback without Insecure.
func Resolve(cfg Config) (string, error) {
	getenv := cfg.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	raw, from := cfg.Endpoint, "--otlp-endpoint"
	if raw == "" {
		if strings.EqualFold(getenv("OTEL_SDK_DISABLED"), "true") || strings.EqualFold(getenv("OTEL_LOGS_EXPORTER"), "none") {
			return "", nil
		}
		if v := getenv("OTEL_EXPORTER_OTLP_LOGS_ENDPOINT"); v != "" {
			raw, from = v, "OTEL_EXPORTER_OTLP_LOGS_ENDPOINT"
		} else if v := getenv("OTEL_EXPORTER_OTLP_ENDPOINT"); v != "" {
			raw, from = v, "OTEL_EXPORTER_OTLP_ENDPOINT"
		} else {
			return "", nil
		}
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "", configErrorf("%s %q: not a URL: %v", from, raw, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return "", configErrorf("%s %q: want an http:// or https:// URL (OTLP/HTTP)", from, raw)
	}
	if u.Hostname() == "" {
		return "", configErrorf("%s %q: no host", from, raw)
	}
	if u.User != nil {
		return "", configErrorf("%s %q: credentials in the URL are refused; put them in OTEL_EXPORTER_OTLP_HEADERS", from, raw)
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return "", configErrorf("%s %q: a query or fragment is not part of an OTLP endpoint", from, raw)
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return "", configErrorf("%s %q: bad port %q", from, raw, p)
		}
	}
	insecure := cfg.Insecure || strings.EqualFold(getenv("OTEL_EXPORTER_OTLP_LOGS_INSECURE"), "true") ||
		strings.EqualFold(getenv("OTEL_EXPORTER_OTLP_INSECURE"), "true")
	if u.Scheme == "http" && !isLoopback(u.Hostname()) && !insecure {
		return "", configErrorf("%s %q: plain http to a host that is not loopback would send the audit in clear; use https, or --otlp-insecure to accept it", from, raw)
	}
	switch {
	case from == "OTEL_EXPORTER_OTLP_ENDPOINT":
		u.Path = strings.TrimSuffix(u.Path, "/") + "/v1/logs" // the spec's base URL + the signal's path
	case u.Path == "" || u.Path == "/":
		if from == "--otlp-endpoint" {
			u.Path = "/v1/logs"
		}
	}
	return u.String(), nil
}

// isLoopback reports whether host names only loopback addresses.
func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// New starts the export the configuration asks for: nil, nil when it is
// off; an error (a *ConfigError for the configuration) when it cannot
// start. Nothing is sent before the first line.
func New(ctx context.Context, cfg Config) (*Exporter, error) {
	endpoint, err := Resolve(cfg)
	if err != nil || endpoint == "" {
		return nil, err
	}
	getenv := cfg.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	x := &Exporter{endpoint: endpoint, logf: cfg.Logf, now: cfg.Now, reportEvery: cfg.ReportEvery, queue: int64(cfg.QueueSize)}
	if x.logf == nil {
		x.logf = func(string, ...any) {}
	}
	if x.now == nil {
		x.now = time.Now
	}
	if x.reportEvery <= 0 {
		x.reportEvery = time.Minute
	}
	if x.queue <= 0 {
		x.queue = DefaultQueueSize
		if n, err := strconv.Atoi(getenv("OTEL_BLRP_MAX_QUEUE_SIZE")); err == nil && n > 0 {
			x.queue = int64(n)
		}
	}
	exp, err := otlploghttp.New(ctx, otlploghttp.WithEndpointURL(endpoint))
	if err != nil {
		return nil, fmt.Errorf("OpenTelemetry export to %s: %v", endpoint, err)
	}
	version := cfg.Version
	if version == "" {
		version = "devel"
	}
	// service.name first: OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES
	// (WithFromEnv) override it; host.name names the replica.
	res, err := resource.New(ctx,
		resource.WithAttributes(attribute.String("service.name", "toolguard-serve"), attribute.String("service.version", version)),
		resource.WithFromEnv(), resource.WithHost(), resource.WithTelemetrySDK())
	if err != nil && res == nil {
		res = resource.Empty()
	}
	bopts := []sdklog.BatchProcessorOption{sdklog.WithMaxQueueSize(int(x.queue))}
	if cfg.Interval > 0 {
		bopts = append(bopts, sdklog.WithExportInterval(cfg.Interval))
	}
	x.provider = sdklog.NewLoggerProvider(
		sdklog.WithResource(res),
		sdklog.WithProcessor(sdklog.NewBatchProcessor(&counting{Exporter: exp, x: x}, bopts...)),
	)
	x.logger = x.provider.Logger("github.com/toolguard/toolguard/internal/serve", log.WithInstrumentationVersion(version))
	current.Store(x)
	handlerOnce.Do(func() { otel.SetErrorHandler(otel.ErrorHandlerFunc(handleSDKError)) })
	return x, nil
}

// Export hands one audit line to the export: rec as appended (its Prev
// set), hash its line's hash, node the node whose token authenticated the
// hook call ("" for other lines). It never blocks: when the queue is
// full, or the export has stopped, the record is dropped and counted.
func (x *Exporter) Export(ctx context.Context, rec audit.Record, hash, node string) {
	if x == nil {
		return
	}
	x.emitted.Add(1)
	if x.stopped.Load() {
		x.dropped.Add(1)
		return
	}
	// The SDK's batch queue drops its oldest record when full, without a
	// count we can read: the records in flight are held to its size here,
	// so that every drop happens, and is counted, at this line.
	if x.inflight.Add(1) > x.queue {
		x.inflight.Add(-1)
		x.dropped.Add(1)
		x.report(nil)
		return
	}
	r := Record(rec, hash, node)
	r.SetObservedTimestamp(time.Now())
	x.logger.Emit(context.WithoutCancel(ctx), r)
}

// Shutdown sends what is queued (within ctx) and stops the export; the
// lines it could not send are counted as failed. It reports the counts.
func (x *Exporter) Shutdown(ctx context.Context) error {
	if x == nil || x.stopped.Swap(true) {
		return nil
	}
	err := x.provider.Shutdown(ctx)
	current.CompareAndSwap(x, nil)
	s := x.Stats()
	if lost := s.Emitted - s.Exported - s.Failed - s.Dropped; int64(lost) > 0 {
		// Still queued when ctx ended: never handed to the exporter.
		x.dropped.Add(lost)
		s.Dropped += lost
	}
	if s.Failed > 0 || s.Dropped > 0 || err != nil {
		x.logf("toolguard serve: OpenTelemetry export to %s: %d of %d audit lines sent, %d failed, %d dropped (the audit log has them all)%s",
			x.endpoint, s.Exported, s.Emitted, s.Failed, s.Dropped, errSuffix(err))
	}
	return err
}

func errSuffix(err error) string {
	if err == nil {
		return ""
	}
	return "; " + err.Error()
}

// report tells stderr of a failure or a drop, at most once every
// reportEvery; err, if set, is the latest failure.
func (x *Exporter) report(err error) {
	x.mu.Lock()
	if err != nil {
		x.lastErr = err
	}
	now := x.now()
	if !x.lastReport.IsZero() && now.Sub(x.lastReport) < x.reportEvery {
		x.mu.Unlock()
		return
	}
	x.lastReport = now
	last := x.lastErr
	x.mu.Unlock()
	s := x.Stats()
	why := "the queue is full"
	if last != nil {
		why = last.Error()
	}
	x.logf("toolguard serve: OpenTelemetry export to %s: %s (so far %d audit lines sent, %d failed, %d dropped; decisions and the audit log are unaffected; next report in %s at the earliest)",
		x.endpoint, why, s.Exported, s.Failed, s.Dropped, x.reportEvery)
}

// counting is the exporter the batch processor calls: the OTLP/HTTP one,
// with every record counted as exported or failed once it returns.
type counting struct {
	sdklog.Exporter
	x *Exporter
}

func (c *counting) Export(ctx context.Context, records []sdklog.Record) error {
	err := c.Exporter.Export(ctx, records)
	n := uint64(len(records))
	c.x.inflight.Add(-int64(n))
	if err != nil {
		c.x.failed.Add(n)
		c.x.report(err)
		return err
	}
	c.x.exported.Add(n)
	return nil
}

// current is the running Exporter the SDK's other errors are reported by
// (the handler is global to the process).
var (
	current     atomic.Pointer[Exporter]
	handlerOnce sync.Once
)

// handleSDKError is the SDK's error handler: its errors are reported
// with the export's, at most once a minute, never on every batch (an
// export error reaches it as well as counting.Export).
func handleSDKError(err error) {
	if x := current.Load(); x != nil && err != nil {
		x.report(err)
	}
}
