package anchors

import (
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/linksrus/linksrus/textindex"
)

func TestEncodeDecode(t *testing.T) {
	links := []textindex.Link{
		{URL: "https://example.com/b", Text: "B"},
		{URL: "https://example.com/a", Text: " first "},
		{URL: "https://example.com/a", Text: "FIRST"}, // said already
		{URL: "https://example.com/a", Text: "again"},
		{URL: "https://example.com/none", Text: ""},
		{URL: "https://example.com/bad", Text: "\xff"},
		{URL: "https://example.com/long", Text: strings.Repeat("é", MaxText)},
	}
	got, err := Links(Encode(links))
	if err != nil {
		t.Fatal(err)
	}
	want := []textindex.Link{
		{URL: "https://example.com/a", Text: "first; again"},
		{URL: "https://example.com/b", Text: "B"},
		{URL: "https://example.com/long", Text: strings.Repeat("é", MaxText/2)},
	}
	if !slices.Equal(got, want) {
		t.Fatalf("got %q\nwant %q", got, want)
	}
	if Encode(nil) != nil || Encode([]textindex.Link{{URL: "x"}}) != nil {
		t.Error("links without words encode to something")
	}
}

func TestDecodeCorrupt(t *testing.T) {
	good := Encode([]textindex.Link{{URL: "https://example.com/a", Text: "a"}, {URL: "https://example.com/b", Text: "b"}})
	for _, b := range [][]byte{good[:len(good)-1], {0x05, 0x01, 'x', 0x00}, {0x00, 0xff}, append(slices.Clone(good), 0x00, 0x02, 'x')} {
		if _, err := Links(b); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%q: %v, want ErrCorrupt", b, err)
		}
	}
}

// TestCollector: a target's texts come from other groups' links only, each
// text once per source group, folded, spelt as most sources spell it, the
// most used first, at most MaxTexts.
func TestCollector(t *testing.T) {
	c := NewCollector[string]()
	for _, d := range []struct{ url, key string }{
		{"https://x/t", "T"}, {"https://x/t-copy", "T"}, {"https://x/s1", "S1"}, {"https://x/s2", "S2"}, {"https://x/s3", "S3"},
	} {
		c.Document(d.url, d.key)
	}
	add := func(source string, links ...textindex.Link) {
		t.Helper()
		if err := c.Links(source, Encode(links)); err != nil {
			t.Fatal(err)
		}
	}
	add("T", textindex.Link{URL: "https://x/t", Text: "self"}, textindex.Link{URL: "https://x/t-copy", Text: "self copy"})
	add("S1", textindex.Link{URL: "https://x/t", Text: "Vacuum"}, textindex.Link{URL: "https://x/t-copy", Text: "vacuum"}, textindex.Link{URL: "https://x/unknown", Text: "lost"})
	add("S2", textindex.Link{URL: "https://x/t", Text: "VACUUM; garbage  collection"})
	add("S3", textindex.Link{URL: "https://x/t", Text: "VACUUM"})
	var got map[string][]string = map[string][]string{}
	if err := c.Each(func(k string, texts []string) error { got[k] = texts; return nil }); err != nil {
		t.Fatal(err)
	}
	if want := []string{"VACUUM", "garbage  collection"}; len(got) != 1 || !slices.Equal(got["T"], want) {
		t.Fatalf("got %q, want T: %q", got, want)
	}

	many := NewCollector[int]()
	many.Document("https://x/t", 0)
	for n := 1; n <= MaxTexts+5; n++ {
		var links []textindex.Link
		for k := 0; k < n; k++ {
			links = append(links, textindex.Link{URL: "https://x/t", Text: "t" + strconv.Itoa(k+1)})
		}
		if err := many.Links(n, Encode(links)); err != nil {
			t.Fatal(err)
		}
	}
	_ = many.Each(func(_ int, texts []string) error {
		if len(texts) != MaxTexts || texts[0] != "t1" || texts[MaxTexts-1] != "t"+strconv.Itoa(MaxTexts) {
			t.Errorf("%d texts: %q…", len(texts), texts[:3])
		}
		return nil
	})
}

// FuzzDecode: whatever the bytes, Decode returns links or ErrCorrupt,
// never panics; what Encode makes decodes to what it was given.
func FuzzDecode(f *testing.F) {
	f.Add(Encode([]textindex.Link{{URL: "https://example.com/a", Text: "a"}, {URL: "https://example.com/ab", Text: "b; c"}}))
	f.Add([]byte{0x00, 0x80})
	f.Fuzz(func(t *testing.T, b []byte) {
		links, err := Links(b)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("error %v", err)
			}
			return
		}
		again, err := Links(Encode(links))
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range again {
			if l.Text == "" || len(l.Text) > MaxText {
				t.Fatalf("re-encoded link %q", l)
			}
		}
		c := NewCollector[int]()
		for _, l := range links {
			c.Document(l.URL, 1)
		}
		if err := c.Links(2, b); err != nil {
			t.Fatal(err)
		}
	})
}
