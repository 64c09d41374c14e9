// Package pgtest gives tests a fresh PostgreSQL database: the server
// named by TOOLGUARD_TEST_DATABASE (.ci/run starts one), a new database
// on it per test, dropped when the test ends. Without the variable, or
// with a server that does not answer, the test is skipped saying why —
// and fails when CI=true.
package pgtest

import (
	"context"
	"crypto/rand"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// Env names the server's DSN (a superuser: the tests create databases).
const Env = "TOOLGUARD_TEST_DATABASE"

// DSN returns the DSN of a new, empty database for t.
func DSN(t testing.TB) string {
	t.Helper()
	base := os.Getenv(Env)
	unavailable := func(why string) {
		t.Helper()
		if os.Getenv("CI") == "true" {
			t.Fatalf("PostgreSQL unavailable under CI=true: %s", why)
		}
		t.Skipf("PostgreSQL unavailable (%s): .ci/run starts one and sets %s", why, Env)
	}
	if base == "" {
		unavailable(Env + " is not set")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	admin, err := pgx.Connect(ctx, base)
	if err != nil {
		unavailable(err.Error())
	}
	defer admin.Close(context.Background())
	name := "tg_test_" + strings.ToLower(rand.Text()[:12])
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatalf("create database: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		c, err := pgx.Connect(ctx, base)
		if err != nil {
			t.Logf("drop database %s: %v", name, err)
			return
		}
		defer c.Close(context.Background())
		if _, err := c.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			t.Logf("drop database %s: %v", name, err)
		}
	})
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		t.Fatalf("%s: want a postgres:// URL", Env)
	}
	u.Path = "/" + name
	return u.String()
}
