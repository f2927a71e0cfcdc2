package docbatch_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/google/uuid"
	"go.uber.org/goleak"

	"github.com/linksrus/linksrus/textindex"
	"github.com/linksrus/linksrus/textindex/internal/docbatch"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestPrepareKeepsLastOfEachLinkID(t *testing.T) {
	a, b := uuid.New(), uuid.New()
	docs := []*textindex.Document{
		{LinkID: a, Title: "a1"}, {LinkID: b, Title: "b1"}, {LinkID: a, Title: "a2"}, {LinkID: a, Title: "a3"},
	}
	got, err := docbatch.Prepare(docs)
	if err != nil {
		t.Fatalf("Prepare: %v", err)
	}
	if len(got) != 2 || got[0] != docs[3] || got[1] != docs[1] {
		t.Fatalf("Prepare = %v, want [a3 b1]", got)
	}
	if docs[0].Title != "a1" || len(docs) != 4 {
		t.Fatal("Prepare modified its input")
	}
}

func TestPrepareEmpty(t *testing.T) {
	got, err := docbatch.Prepare(nil)
	if err != nil || len(got) != 0 {
		t.Fatalf("Prepare(nil) = %v, %v", got, err)
	}
}

func TestPrepareRefusesInvalid(t *testing.T) {
	ok := &textindex.Document{LinkID: uuid.New()}
	for _, tc := range []struct {
		name string
		bad  *textindex.Document
		want error
	}{
		{"nil", nil, textindex.ErrMissingLinkID},
		{"no LinkID", &textindex.Document{Title: "x"}, textindex.ErrMissingLinkID},
		{"NaN", &textindex.Document{LinkID: uuid.New(), PageRank: math.NaN()}, textindex.ErrInvalidScore},
		{"Inf", &textindex.Document{LinkID: uuid.New(), PageRank: math.Inf(-1)}, textindex.ErrInvalidScore},
	} {
		got, err := docbatch.Prepare([]*textindex.Document{ok, tc.bad})
		if !errors.Is(err, tc.want) || got != nil {
			t.Errorf("%s: Prepare = %v, %v; want error %v", tc.name, got, err, tc.want)
		}
		if err != nil && !strings.Contains(err.Error(), "document 1") {
			t.Errorf("%s: error %q does not name the position", tc.name, err)
		}
	}
}
