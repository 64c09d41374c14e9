package shellparse

import "testing"

// TestReaders: programs that print or pack files the path attribution
// does not know by name (jq, yq, cut, diff, zip, hexdump, gpg -c, 7z a …)
// read their file operands, given as a nested cat of them; a filter, an
// archive name, a --args list and a decrypted input are not.
func TestReaders(t *testing.T) {
	t.Parallel()
	runCases(t, []analyzeCase{
		{"jq . ~/.docker/config.json", []string{"jq . /home/u/.docker/config.json", "cat -- /home/u/.docker/config.json <- jq reads paths=read:/home/u/.docker/config.json"}},
		{"jq -r '.a' a.json b.json", []string{"jq -r .a a.json b.json", "cat -- a.json b.json <- jq reads paths=read:/w/a.json,read:/w/b.json"}},
		{"jq -n --rawfile k ~/.netrc '$k'", []string{"jq -n --rawfile k /home/u/.netrc $k", "cat -- /home/u/.netrc <- jq reads paths=read:/home/u/.netrc"}},
		{"jq -f prog.jq data.json", []string{"jq -f prog.jq data.json", "cat -- prog.jq data.json <- jq reads paths=read:/w/prog.jq,read:/w/data.json"}},
		{"jq -n '$ARGS' --args a b", []string{"jq -n $ARGS --args a b"}},
		{"yq e '.a' ~/.kube/config", []string{"yq e .a /home/u/.kube/config paths=read:/home/u/.kube/config", "cat -- /home/u/.kube/config <- yq reads paths=read:/home/u/.kube/config"}},
		{"cut -d: -f1 /etc/passwd", []string{"cut -d: -f1 /etc/passwd", "cat -- /etc/passwd <- cut reads paths=read:/etc/passwd"}},
		{"diff -u a.txt ~/.netrc", []string{"diff -u a.txt /home/u/.netrc", "cat -- a.txt /home/u/.netrc <- diff reads paths=read:/w/a.txt,read:/home/u/.netrc"}},
		{"cmp a b", []string{"cmp a b", "cat -- a b <- cmp reads paths=read:/w/a,read:/w/b"}},
		{"zip -r out.zip ~/.ssh", []string{"zip -r out.zip /home/u/.ssh paths=write:/w/out.zip", "cat -- /home/u/.ssh <- zip reads paths=read:/home/u/.ssh"}},
		{"zip -q out.zip", []string{"zip -q out.zip paths=write:/w/out.zip"}},
		{"hexdump -C ~/.netrc", []string{"hexdump -C /home/u/.netrc", "cat -- /home/u/.netrc <- hexdump reads paths=read:/home/u/.netrc"}},
		{"paste -d, a b", []string{"paste -d, a b", "cat -- a b <- paste reads paths=read:/w/a,read:/w/b"}},
		{"gpg -c ~/.netrc", []string{"gpg -c /home/u/.netrc", "cat -- /home/u/.netrc <- gpg reads paths=read:/home/u/.netrc"}},
		{"gpg -d x.gpg", []string{"gpg -d x.gpg"}},
		{"7z a out.7z ~/.aws", []string{"7z a out.7z /home/u/.aws paths=write:/w/out.7z", "cat -- /home/u/.aws <- 7z reads paths=read:/home/u/.aws"}},
		{"7z x in.7z", []string{"7z x in.7z paths=write:/w"}},
		{"split -l 10 big.txt part-", []string{"split -l 10 big.txt part- paths=write:/w", "cat -- big.txt <- split reads paths=read:/w/big.txt"}},
	})
}
