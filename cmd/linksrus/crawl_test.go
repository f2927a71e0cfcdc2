package main

import (
	"flag"
	"testing"
)

// Every option named in optionFlags is set by a flag of that name, of the
// crawl or the import command.
func TestOptionFlagsAreFlags(t *testing.T) {
	env := &environment{getenv: func(string) string { return "" }}
	crawl := flag.NewFlagSet("crawl", flag.ContinueOnError)
	new(crawlOptions).register(crawl, env)
	imp := flag.NewFlagSet("import", flag.ContinueOnError)
	new(importOptions).register(imp, env)
	for field, name := range optionFlags {
		if crawl.Lookup(name[2:]) == nil && imp.Lookup(name[2:]) == nil {
			t.Errorf("%s: no flag %s", field, name)
		}
	}
}
