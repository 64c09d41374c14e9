// Package otlptest is a loopback OTLP/HTTP logs receiver for tests: it
// decodes each ExportLogsServiceRequest (protobuf, gzip or not) and keeps
// the records, and can be told to answer an error status.
package otlptest

import (
	"compress/gzip"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	collogs "go.opentelemetry.io/proto/otlp/collector/logs/v1"
	common "go.opentelemetry.io/proto/otlp/common/v1"
	"google.golang.org/protobuf/proto"
)

// Log is one record the receiver took, its values as strings.
type Log struct {
	Time         time.Time
	EventName    string
	Severity     int32
	SeverityText string
	Body         string
	Attrs        map[string]string
	Resource     map[string]string
	Scope        string
}

// Receiver is a running receiver; URL is its logs endpoint.
type Receiver struct {
	URL string
	srv *httptest.Server

	mu       sync.Mutex
	logs     []Log
	status   int
	requests int
	bad      []string
}

// Start starts a receiver on loopback until the test ends.
func Start(t testing.TB) *Receiver {
	r := &Receiver{status: http.StatusOK}
	r.srv = httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(r.srv.Close)
	r.URL = r.srv.URL + "/v1/logs"
	return r
}

// Close stops the receiver: later exports find nothing listening.
func (r *Receiver) Close() { r.srv.Close() }

// SetStatus makes the receiver answer code (and keep nothing) from now
// on; http.StatusOK restores it.
func (r *Receiver) SetStatus(code int) {
	r.mu.Lock()
	r.status = code
	r.mu.Unlock()
}

// Requests is how many export requests arrived (answered or not).
func (r *Receiver) Requests() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.requests
}

// Logs returns the records kept so far.
func (r *Receiver) Logs() []Log {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Log(nil), r.logs...)
}

// Problems are the requests the receiver could not decode.
func (r *Receiver) Problems() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.bad...)
}

// Wait returns the records once ok says they are complete, failing the
// test after timeout.
func (r *Receiver) Wait(t testing.TB, timeout time.Duration, ok func([]Log) bool) []Log {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		logs := r.Logs()
		if ok(logs) {
			return logs
		}
		if time.Now().After(deadline) {
			t.Fatalf("the receiver did not get the records in %s; it has %d: %+v (bad requests: %v)", timeout, len(logs), logs, r.Problems())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (r *Receiver) serve(w http.ResponseWriter, req *http.Request) {
	r.mu.Lock()
	r.requests++
	status := r.status
	r.mu.Unlock()
	if status != http.StatusOK {
		http.Error(w, "test receiver told to fail", status)
		return
	}
	if req.Method != http.MethodPost || req.URL.Path != "/v1/logs" || req.Header.Get("Content-Type") != "application/x-protobuf" {
		r.problem("%s %s (%s)", req.Method, req.URL.Path, req.Header.Get("Content-Type"))
		http.Error(w, "want POST /v1/logs application/x-protobuf", http.StatusBadRequest)
		return
	}
	var body io.Reader = req.Body
	if req.Header.Get("Content-Encoding") == "gzip" {
		gz, err := gzip.NewReader(req.Body)
		if err != nil {
			r.problem("gzip: %v", err)
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		body = gz
	}
	data, err := io.ReadAll(body)
	if err != nil {
		r.problem("read: %v", err)
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var msg collogs.ExportLogsServiceRequest
	if err := proto.Unmarshal(data, &msg); err != nil {
		r.problem("decode: %v", err)
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var got []Log
	for _, rl := range msg.GetResourceLogs() {
		res := attrs(rl.GetResource().GetAttributes())
		for _, sl := range rl.GetScopeLogs() {
			for _, lr := range sl.GetLogRecords() {
				got = append(got, Log{
					Time:         time.Unix(0, int64(lr.GetTimeUnixNano())).UTC(),
					EventName:    lr.GetEventName(),
					Severity:     int32(lr.GetSeverityNumber()),
					SeverityText: lr.GetSeverityText(),
					Body:         value(lr.GetBody()),
					Attrs:        attrs(lr.GetAttributes()),
					Resource:     res,
					Scope:        sl.GetScope().GetName(),
				})
			}
		}
	}
	r.mu.Lock()
	r.logs = append(r.logs, got...)
	r.mu.Unlock()
	out, _ := proto.Marshal(&collogs.ExportLogsServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	_, _ = w.Write(out)
}

func (r *Receiver) problem(format string, args ...any) {
	r.mu.Lock()
	r.bad = append(r.bad, fmt.Sprintf(format, args...))
	r.mu.Unlock()
}

func attrs(kvs []*common.KeyValue) map[string]string {
	m := map[string]string{}
	for _, kv := range kvs {
		m[kv.GetKey()] = value(kv.GetValue())
	}
	return m
}

// value is an AnyValue as a string: arrays joined by commas.
func value(v *common.AnyValue) string {
	switch x := v.GetValue().(type) {
	case *common.AnyValue_StringValue:
		return x.StringValue
	case *common.AnyValue_IntValue:
		return strconv.FormatInt(x.IntValue, 10)
	case *common.AnyValue_DoubleValue:
		return strconv.FormatFloat(x.DoubleValue, 'g', -1, 64)
	case *common.AnyValue_BoolValue:
		return strconv.FormatBool(x.BoolValue)
	case *common.AnyValue_ArrayValue:
		var parts []string
		for _, e := range x.ArrayValue.GetValues() {
			parts = append(parts, value(e))
		}
		return strings.Join(parts, ",")
	}
	return ""
}
