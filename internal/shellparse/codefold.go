package shellparse

import "strings"

// Constant folding of string expressions in interpreter code (issue 33):
// a call's argument built only from literals is as known as a literal,
// so subprocess.run(['tool'+'guard', 'uninstall']) runs toolguard
// uninstall and os.system('rm -rf ' + '/') runs rm -rf /. Folded:
//
//   - concatenation of literals: 'a' + 'b' (Python, Node, Ruby), 'a' . 'b'
//     (Perl, PHP);
//   - joins of literal lists: ' '.join(['a', 'b']) (Python),
//     ['a', 'b'].join(' ') (Node, Ruby).
//
// Anything else joined in (a variable, a call) leaves the expression
// unknown, as before: the caller treats it as built at run time.

// foldString reads a string expression at s[k]. ok: s[k] starts a string
// literal or a literal list join; whole: every part was a literal (val is
// then the value). end is where the part read so far ends.
func foldString(s string, k int, lang string) (val string, end int, ok, whole bool) {
	val, end, ok = foldAtom(s, k, lang)
	if !ok {
		return "", k, false, false
	}
	whole = true
	for depth := 0; depth < 64; depth++ {
		e := skipSpace(s, end)
		if e >= len(s) || !concatOp(s, e, lang) {
			return val, end, true, whole
		}
		n := skipSpace(s, e+1)
		next, nend, nok := foldAtom(s, n, lang)
		if !nok {
			return val, end, true, false // joined to something built at run time
		}
		val += next
		end = nend
	}
	return val, end, true, false
}

// concatOp reports a concatenation operator at s[e].
func concatOp(s string, e int, lang string) bool {
	switch lang {
	case "perl", "php":
		return s[e] == '.' && (e+1 >= len(s) || s[e+1] != '.' && s[e+1] != '=')
	case "python", "node", "deno", "ruby":
		return s[e] == '+' && (e+1 >= len(s) || s[e+1] != '=' && s[e+1] != '+')
	}
	return false
}

// foldAtom reads one literal operand: a string literal, a Python
// 'SEP'.join([...]) or a Node/Ruby [...].join('SEP') of literals.
func foldAtom(s string, k int, lang string) (string, int, bool) {
	if k < len(s) && s[k] == '[' && (lang == "node" || lang == "deno" || lang == "ruby") {
		items, e, ok := literalList(s, k, lang)
		if !ok || !strings.HasPrefix(s[e:], ".join(") {
			return "", k, false
		}
		sep, se, sok := readString(s, skipSpace(s, e+len(".join(")), lang)
		if !sok {
			return "", k, false
		}
		se = skipSpace(s, se)
		if se >= len(s) || s[se] != ')' {
			return "", k, false
		}
		return strings.Join(items, sep), se + 1, true
	}
	str, end, ok := readString(s, k, lang)
	if !ok {
		return "", k, false
	}
	if lang == "python" && strings.HasPrefix(s[end:], ".join(") {
		items, e, lok := literalList(s, skipSpace(s, end+len(".join(")), lang)
		if !lok {
			return "", k, false
		}
		e = skipSpace(s, e)
		if e >= len(s) || s[e] != ')' {
			return "", k, false
		}
		return strings.Join(items, str), e + 1, true
	}
	return str, end, true
}

// literalList reads [ 'a', 'b' + 'c', … ] of foldable strings (or a
// Python tuple); false when an element is not one.
func literalList(s string, k int, lang string) ([]string, int, bool) {
	if k >= len(s) || (s[k] != '[' && s[k] != '(') {
		return nil, k, false
	}
	closer := byte(']')
	if s[k] == '(' {
		closer = ')'
	}
	k++
	var items []string
	for n := 0; n < 256; n++ {
		k = skipSpace(s, k)
		if k < len(s) && s[k] == closer {
			return items, k + 1, true
		}
		v, e, ok, whole := foldString(s, k, lang)
		if !ok || !whole {
			return nil, k, false
		}
		items = append(items, v)
		k = skipSpace(s, e)
		if k < len(s) && s[k] == ',' {
			k++
		}
	}
	return nil, k, false
}
