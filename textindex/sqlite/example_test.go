package sqlite_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/google/uuid"

	"github.com/linksrus/linksrus/textindex"
	"github.com/linksrus/linksrus/textindex/sqlite"
)

// ExampleOpen creates an index file, writes a page and finds it again
// after reopening the file.
func ExampleOpen() {
	dir, err := os.MkdirTemp("", "textindex-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "data", "index.db") // "data" is created
	ctx := context.Background()

	idx, err := sqlite.Open(ctx, path, sqlite.Options{})
	if err != nil {
		log.Fatal(err)
	}
	id := uuid.MustParse("7d444840-9dc0-11d1-b245-5ffdce74fad2")
	if err := idx.Index(&textindex.Document{LinkID: id, Title: "Persistent", Content: "stored on disk"}); err != nil {
		log.Fatal(err)
	}
	if err := idx.Close(); err != nil {
		log.Fatal(err)
	}

	// The same file through textindex.Open, as the command-line tool does.
	reopened, err := textindex.Open(ctx, "sqlite://"+path)
	if err != nil {
		log.Fatal(err)
	}
	defer reopened.Close()
	doc, err := reopened.FindByID(id)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(doc.Title, "-", doc.Content)
	// Output:
	// Persistent - stored on disk
}

// A search front end opens the index read-only, beside the crawl that
// writes it; Options{ReadOnly: true} is what the URL's ?mode=ro sets.
func ExampleOpen_readOnly() {
	dir, err := os.MkdirTemp("", "textindex-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "index.db")
	ctx := context.Background()

	writer, err := sqlite.Open(ctx, path, sqlite.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer writer.Close()
	id := uuid.MustParse("7d444840-9dc0-11d1-b245-5ffdce74fad2")
	if err := writer.Index(&textindex.Document{LinkID: id, Title: "Shared", Content: "read while written"}); err != nil {
		log.Fatal(err)
	}

	reader, err := sqlite.Open(ctx, path, sqlite.Options{ReadOnly: true})
	if err != nil {
		log.Fatal(err)
	}
	defer reader.Close()
	doc, err := reader.FindByID(id)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(doc.Title, "-", doc.Content)
	err = reader.Index(&textindex.Document{LinkID: id, Title: "Changed"})
	fmt.Println(errors.Is(err, sqlite.ErrReadOnly))
	// Output:
	// Shared - read while written
	// true
}
