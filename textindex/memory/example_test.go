package memory_test

import (
	"fmt"
	"log"

	"github.com/google/uuid"

	"github.com/linksrus/linksrus/textindex"
	"github.com/linksrus/linksrus/textindex/memory"
)

func ExampleNew() {
	idx := memory.New()
	defer idx.Close()
	doc := &textindex.Document{LinkID: uuid.New(), Title: "Hello", Content: "Hello, world!"}
	if err := idx.Index(doc); err != nil {
		log.Fatal(err)
	}
	it, err := idx.Search(textindex.Query{Type: textindex.QueryTypeMatch, Expression: "WORLD"})
	if err != nil {
		log.Fatal(err)
	}
	defer it.Close()
	for it.Next() {
		fmt.Println(it.Document().Title)
	}
	// Output:
	// Hello
}
