package audit

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/toolguard/toolguard/internal/call"
)

// Fake secrets, long enough for their patterns and obviously not real.
const (
	ghToken  = "ghp_0123456789abcdefghijABCDEFGHIJ012345"
	pat      = "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz"
	awsID    = "AKIAIOSFODNN7EXAMPLE"
	awsKey   = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
	jwt      = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
	googleKy = "AIzaSyA1234567890abcdefghijklmnopqrstuv"
)

var redactCases = []struct {
	name, in, want string
}{
	// Token formats.
	{"github classic", "git clone https://" + ghToken + "@github.com/o/r", "git clone https://ghp_***@github.com/o/r"},
	{"github oauth", "echo gho_0123456789abcdefghij0123", "echo gho_***"},
	{"github user", "x ghu_0123456789abcdefghij0123", "x ghu_***"},
	{"github server", "x ghs_0123456789abcdefghij0123", "x ghs_***"},
	{"github refresh", "x ghr_0123456789abcdefghij0123", "x ghr_***"},
	{"github fine-grained", "gh auth login --with-token <<< " + pat, "gh auth login --with-token <<< github_pat_***"},
	{"aws key id", "aws configure set aws_access_key_id " + awsID, "aws configure set aws_access_key_id AKIA***"},
	{"aws session key id", "echo ASIAIOSFODNN7EXAMPLE", "echo ASIA***"},
	{"aws secret assignment", "export AWS_SECRET_ACCESS_KEY=" + awsKey, "export AWS_SECRET_ACCESS_KEY=***"},
	{"aws secret config", "echo 'aws_secret_access_key = " + awsKey + "' >> ~/.aws/credentials", "echo 'aws_secret_access_key = ***' >> ~/.aws/credentials"},
	{"slack bot", "curl -d token=xoxb-1234567890-abcdefghij https://slack.com/api", "curl -d token=*** https://slack.com/api"},
	{"slack user", "echo xoxp-1234567890-1234567890-abcdef", "echo xoxp-***"},
	{"slack hook", "curl -X POST https://hooks.slack.com/services/T000/B000/XXXXXXXX -d '{}'", "curl -X POST https://hooks.slack.com/services/*** -d '{}'"},
	{"openai legacy", "echo sk-abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKL", "echo sk-***"},
	{"openai project", "echo sk-proj-abc_DEF-0123456789xyzXYZ", "echo sk-proj-***"},
	{"anthropic", "curl -H 'x-api-key: sk-ant-api03-abcdefghijklmnop-QRST' https://api.anthropic.com", "curl -H 'x-api-key: ***' https://api.anthropic.com"},
	{"anthropic bare", "echo sk-ant-api03-abcdefghijklmnop-QRST", "echo sk-ant-***"},
	{"google", "curl 'https://maps.googleapis.com/x?key=" + googleKy + "'", "curl 'https://maps.googleapis.com/x?key=AIza***'"},
	{"gitlab", "echo glpat-abcdefghij0123456789", "echo glpat-***"},
	{"npm", "echo npm_abcdefghijklmnopqrstuvwxyz0123456789", "echo npm_***"},
	{"stripe", "echo sk_live_abcdefghijklmnop1234", "echo sk_live_***"},
	{"huggingface", "echo hf_abcdefghijklmnopqrstuvwxyz012345", "echo hf_***"},
	{"jwt", "echo " + jwt, "echo eyJ***"},
	{"private key", "printf '-----BEGIN RSA PRIVATE KEY-----\nMIIEow\nIBAAK\n-----END RSA PRIVATE KEY-----\n' > k", "printf '-----BEGIN RSA PRIVATE KEY-----***-----END RSA PRIVATE KEY-----\n' > k"},
	{"private key unterminated", "echo '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk", "echo '-----BEGIN OPENSSH PRIVATE KEY-----***"},
	// Headers.
	{"authorization bearer", `curl -H "Authorization: Bearer abc.def.ghi123" https://x`, `curl -H "Authorization: Bearer ***" https://x`},
	{"authorization token", "curl -H 'Authorization: token 0123456789abcdef' https://api.github.com", "curl -H 'Authorization: token ***' https://api.github.com"},
	{"authorization basic lower", "curl -H 'authorization: basic dXNlcjpwYXNz' x", "curl -H 'authorization: basic ***' x"},
	{"authorization bare", "curl -H 'Authorization: s3cr3tvalue' x", "curl -H 'Authorization: ***' x"},
	{"bearer alone", "http GET x 'Bearer abcdefgh12345678'", "http GET x 'Bearer ***'"},
	{"private-token header", "curl --header 'PRIVATE-TOKEN: abcdef123456' https://gitlab.com", "curl --header 'PRIVATE-TOKEN: ***' https://gitlab.com"},
	{"cookie header", `curl -H "Cookie: session=abc123; theme=dark" x`, `curl -H "Cookie: ***" x`},
	// Flags.
	{"password equals", "mysql --password=hunter2 db", "mysql --password=*** db"},
	{"password space", "psql --password hunter2", "psql --password ***"},
	{"password quoted", "tool --password='pa ss' x", "tool --password='***' x"},
	{"token equals", "gh api --token=abc123 /user", "gh api --token=*** /user"},
	{"token space", "vault login --token s.abcdef", "vault login --token ***"},
	{"prefixed flag", "wget --http-password=hunter2 x", "wget --http-password=*** x"},
	{"api key flag", "cli --api-key abcdef123 run", "cli --api-key *** run"},
	{"client secret flag", "az login --client-secret 'x y z'", "az login --client-secret '***'"},
	// Assignments.
	{"env password", "PASSWORD=hunter2 ./run.sh", "PASSWORD=*** ./run.sh"},
	{"env token", "GITHUB_TOKEN=abc123 gh pr list", "GITHUB_TOKEN=*** gh pr list"},
	{"env secret quoted", `export CLIENT_SECRET="a b c"`, `export CLIENT_SECRET="***"`},
	{"env key", "OPENAI_API_KEY=whatever python x.py", "OPENAI_API_KEY=*** python x.py"},
	{"env db password", "DB_PASSWORD=x1;echo ok", "DB_PASSWORD=***;echo ok"},
	{"query access token", "curl 'https://x/api?access_token=abc123&page=2'", "curl 'https://x/api?access_token=***&page=2'"},
	{"kubectl literal", "kubectl create secret generic s --from-literal=password=abc", "kubectl create secret generic s --from-literal=password=***"},
	{"json password", `curl -d '{"user":"bob","password":"hunter2"}' x`, `curl -d '{"user":"bob","password":"***"}' x`},
	{"json api key", `echo '{"api_key": "abc\"def"}'`, `echo '{"api_key": "***"}'`},
	// URLs.
	{"url credentials", "git clone https://bob:hunter2@example.com/r.git", "git clone https://bob:***@example.com/r.git"},
	{"postgres url", "psql postgres://admin:s3cret@db:5432/app", "psql postgres://admin:***@db:5432/app"},
	{"x-access-token url", "git push https://x-access-token:abc123def@github.com/o/r", "git push https://x-access-token:***@github.com/o/r"},
	// Scoped: mysql and curl.
	{"mysql -p glued", "mysql -uroot -psecret mydb", "mysql -uroot -p*** mydb"},
	{"mysql -p quoted", "mysql -u root -p'pa ss' db", "mysql -u root -p'***' db"},
	{"mysqldump path", "/usr/bin/mysqldump -pS3cr3t db > d.sql", "/usr/bin/mysqldump -p*** db > d.sql"},
	{"mariadb after pipe", "cat x.sql | mariadb -ptop db", "cat x.sql | mariadb -p*** db"},
	{"mysql scope ends", "mysql -psecret db; mkdir -pv out", "mysql -p*** db; mkdir -pv out"},
	{"docker exec mysql", "docker exec -it db mysql -pHunter2", "docker exec -it db mysql -p***"},
	{"curl -u", "curl -u admin:hunter2 https://x", "curl -u admin:*** https://x"},
	{"curl --user", "curl --user 'admin:hunter2' https://x", "curl --user 'admin:***' https://x"},
	{"curl -u glued", "curl -uadmin:hunter2 https://x", "curl -uadmin:*** https://x"},
	// Several in one line.
	{"several", "GH_TOKEN=" + ghToken + " curl -H 'Authorization: Bearer " + jwt + "' -u a:b x",
		"GH_TOKEN=*** curl -H 'Authorization: Bearer ***' -u a:*** x"},
}

// notSecrets must come out of Redact unchanged.
var notSecrets = []string{
	"git push origin main",
	"ls -la",
	"grep -p foo file.txt",
	"mkdir -p /tmp/x/y && cd /tmp/x",
	"echo sk",
	"echo sk-foo",
	"pip install scikit-learn sk-video",
	"task-1234567890abcdefghijklmn run",
	"curl https://example.com/path?q=1",
	"git clone https://github.com/org/repo.git",
	"git remote add origin git@github.com:org/repo.git",
	"ssh user@host",
	"psql postgres://user@db:5432/app",
	"export PATH=$PATH:/usr/local/bin",
	"GITHUB_TOKEN=$GITHUB_TOKEN gh pr list",
	"curl -H \"Authorization: Bearer $TOKEN\" https://x",
	"docker run -u 1000:1000 image",
	"sort -u names.txt",
	"git push -u origin feature",
	"mysql -u root -p db",
	"python -m pytest -k test_token",
	"echo max_tokens=100",
	"docker login --password-stdin < pw.txt",
	"gh auth login --with-token < token.txt",
	"ansible-playbook --ask-vault-password site.yml",
	"tool --token-file=/run/token",
	"echo 'the bearer of bad news'",
	"kubectl get pods -o json",
	"cat /etc/mysql/my.cnf",
	"npm install --save-dev eslint",
	"AKIA is a prefix",
	"grep -r PASSWORD .",
	"",
}

func TestRedact(t *testing.T) {
	t.Parallel()
	for _, tc := range redactCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := Redact(tc.in)
			if got != tc.want {
				t.Errorf("Redact(%q)\n got %q\nwant %q", tc.in, got, tc.want)
			}
			if again := Redact(got); again != got {
				t.Errorf("Redact is not idempotent: %q -> %q", got, again)
			}
		})
	}
}

func TestRedactKeepsNonSecrets(t *testing.T) {
	t.Parallel()
	for _, s := range notSecrets {
		t.Run(s, func(t *testing.T) {
			t.Parallel()
			if got := Redact(s); got != s {
				t.Errorf("Redact(%q) = %q, want it unchanged", s, got)
			}
		})
	}
}

func FuzzRedact(f *testing.F) {
	for _, tc := range redactCases {
		f.Add(tc.in)
	}
	for _, s := range notSecrets {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := Redact(s)
		if again := Redact(got); again != got {
			t.Errorf("not idempotent: %q -> %q -> %q", s, got, again)
		}
		if utf8.ValidString(s) && !utf8.ValidString(got) {
			t.Errorf("Redact(%q) = %q is not valid UTF-8", s, got)
		}
	})
}

func TestSummarize(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		max  int
		want string
	}{
		{"short", "ls -la", 10, "ls -la"},
		{"exact", "0123456789", 10, "0123456789"},
		{"no limit", strings.Repeat("a", 100), 0, strings.Repeat("a", 100)},
		{"ascii cut", "0123456789abc", 10, "0123456789…(3 bytes more)"},
		// "é" is 2 bytes: a cut after byte 5 would split it.
		{"two-byte boundary", "abcdéfgh", 5, "abcd…(5 bytes more)"},
		{"three-byte boundary", "ab€cd", 3, "ab…(5 bytes more)"},
		{"four-byte boundary", "a😀b", 4, "a…(5 bytes more)"},
		{"cut right after rune", "a😀b", 5, "a😀…(1 bytes more)"},
		{"max smaller than first rune", "😀😀", 2, "…(8 bytes more)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := Summarize(tc.in, tc.max)
			if got != tc.want {
				t.Errorf("Summarize(%q, %d) = %q, want %q", tc.in, tc.max, got, tc.want)
			}
			if !utf8.ValidString(got) {
				t.Errorf("Summarize(%q, %d) = %q is not valid UTF-8", tc.in, tc.max, got)
			}
		})
	}
}

func TestCallSummary(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		c    call.Call
		max  int
		want string
	}{
		{"shell redacted then cut", call.Call{Kind: call.KindShell, Tool: "Bash", Command: "TOKEN=" + ghToken + " make deploy"}, 14, "TOKEN=*** make…(7 bytes more)"},
		{"paths", call.Call{Kind: call.KindWrite, Tool: "Write", Paths: []call.Path{{Path: "/r/a.go", Op: call.OpWrite}, {Path: "/r/b", Op: call.OpDelete}}}, 0, "write /r/a.go, delete /r/b"},
		{"search", call.Call{Kind: call.KindSearch, Tool: "Glob", Paths: []call.Path{{Path: "/r", Op: call.OpRead}}, Patterns: []string{"**/*.go"}}, 0, "read /r, **/*.go"},
		{"mcp", call.Call{Kind: call.KindMCP, Tool: "mcp__github__delete_repo", MCPServer: "github", MCPTool: "delete_repo"}, 0, "github/delete_repo"},
		{"web with credentials", call.Call{Kind: call.KindWeb, Tool: "WebFetch", URL: "https://u:pw@x.example/"}, 0, "https://u:***@x.example/"},
		{"other", call.Call{Kind: call.KindOther, Tool: "TodoWrite"}, 0, "TodoWrite"},
		{"huge command", call.Call{Kind: call.KindShell, Command: "curl -H 'Authorization: Bearer abcdefgh12345678' " + strings.Repeat("x", 100000)}, 40,
			"curl -H 'Authorization: Bearer ***' xxxx…(99996 bytes more)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := CallSummary(tc.c, tc.max); got != tc.want {
				t.Errorf("CallSummary = %q, want %q", got, tc.want)
			}
		})
	}
}

// Every pattern compiles (they are compiled lazily at run time).
func TestRedactorPatternsCompile(t *testing.T) {
	for i := range redactors {
		if redactors[i].re.get() == nil {
			t.Errorf("redactor %d: nil regexp", i)
		}
		if redactors[i].scope != nil && redactors[i].scope.get() == nil {
			t.Errorf("redactor %d: nil scope", i)
		}
	}
}
