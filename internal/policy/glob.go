package policy

import "path"

// globMatch is path.Match with the shell's spelling of a negated class:
// `[!a-z]` means "not a-z", as in sh, doublestar (the path globs) and
// gitignore. path.Match alone reads `[!a-z]` as "'!' or a-z", the
// opposite of what a rule author meant. `[^a-z]` keeps working.
func globMatch(pattern, name string) (bool, error) {
	return path.Match(shellClass(pattern), name)
}

// shellClass rewrites each unescaped `[!` that opens a class to `[^`.
func shellClass(p string) string {
	var b []byte
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '\\':
			i++ // the escaped byte is literal
		case '[':
			j := i + 1
			if j < len(p) && (p[j] == '!' || p[j] == '^') {
				if p[j] == '!' {
					if b == nil {
						b = []byte(p)
					}
					b[j] = '^'
				}
				j++
			}
			// Skip the class body: a '[' inside it opens nothing.
			for ; j < len(p) && p[j] != ']'; j++ {
				if p[j] == '\\' {
					j++
				}
			}
			i = j
		}
	}
	if b == nil {
		return p
	}
	return string(b)
}
