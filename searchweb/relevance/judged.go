package relevance

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"unicode/utf8"
)

// Judgment is one judged query: what a reader types, and the pages that
// answer it.
type Judgment struct {
	// Query is the query as typed, in the search box's syntax.
	Query string
	// Pages are the pages that answer the query, as the file names them:
	// URL references, usually relative to the root of the corpus (see
	// Options.Base). Any one of them on the page of results counts.
	Pages []string
	// Line is the judgment's line in the file, for messages.
	Line int
}

// maxLine bounds a line of a judged file, so that a file that is not one
// (a binary, a file without newlines) is an error rather than a large
// allocation.
const maxLine = 64 << 10

// Parse reads a judged set: one query per line, the query, a tab, and the
// pages that answer it separated by spaces. Blank lines are skipped; a line
// may end in CRLF. An error names the line and what is wrong with it: no
// tab, an empty query, no page, a query or a page given twice, text that is
// not UTF-8 or holds control characters, a line too long. A file without a
// judgment is an error too: it would measure nothing.
func Parse(r io.Reader) ([]Judgment, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), maxLine)
	var (
		out  []Judgment
		seen = map[string]int{} // query, folded as the index folds it, to its line
		line int
	)
	for sc.Scan() {
		line++
		text := strings.TrimSuffix(sc.Text(), "\r")
		if strings.TrimSpace(text) == "" {
			continue
		}
		j, err := parseLine(text)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", line, err)
		}
		j.Line = line
		key := strings.ToLower(strings.Join(strings.Fields(j.Query), " "))
		if first, ok := seen[key]; ok {
			return nil, fmt.Errorf("line %d: the query %q is judged on line %d already", line, j.Query, first)
		}
		seen[key] = line
		out = append(out, j)
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, fmt.Errorf("line %d: longer than %d KB (is this a judged file?)", line+1, maxLine>>10)
		}
		return nil, fmt.Errorf("read judged set: %w", err)
	}
	if len(out) == 0 {
		return nil, errors.New("no judged query in the file (one a line: the query, a tab, the pages that answer it)")
	}
	return out, nil
}

// parseLine reads one non-blank line.
func parseLine(text string) (Judgment, error) {
	if !utf8.ValidString(text) {
		return Judgment{}, errors.New("not UTF-8 text")
	}
	if i := strings.IndexFunc(text, func(r rune) bool { return r != '\t' && (r < 0x20 || r == 0x7f) }); i >= 0 {
		return Judgment{}, fmt.Errorf("a control character (%U) at byte %d", text[i], i+1)
	}
	query, pages, ok := strings.Cut(text, "\t")
	if !ok {
		return Judgment{}, fmt.Errorf("no tab between the query and its pages in %q", clip(text))
	}
	j := Judgment{Query: strings.TrimSpace(query)}
	if j.Query == "" {
		return Judgment{}, errors.New("the query before the tab is empty")
	}
	for _, p := range strings.Fields(pages) {
		for _, q := range j.Pages {
			if q == p {
				return Judgment{}, fmt.Errorf("the page %q is listed twice for %q", p, j.Query)
			}
		}
		j.Pages = append(j.Pages, p)
	}
	if len(j.Pages) == 0 {
		return Judgment{}, fmt.Errorf("no page after the tab answers %q", j.Query)
	}
	return j, nil
}

// ReadFile reads the judged set in the file at path (see Parse); its
// errors start with the path.
func ReadFile(path string) ([]Judgment, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("judged set: %w", err)
	}
	defer f.Close()
	set, err := Parse(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return set, nil
}

// clip shortens s for a message.
func clip(s string) string {
	const max = 60
	if len(s) <= max {
		return s
	}
	for i := max; i > 0; i-- {
		if utf8.RuneStart(s[i]) {
			return s[:i] + "…"
		}
	}
	return ""
}
