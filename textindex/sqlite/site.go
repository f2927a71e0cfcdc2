package sqlite

import (
	"database/sql/driver"
	"strings"
	"sync"

	sqlite "modernc.org/sqlite"

	"github.com/linksrus/linksrus/textindex/internal/terms"
)

// registerFuncs registers the package's SQL functions with the SQLite
// driver, once:
//
//   - linksrus_on_site(url, sites): 1 when url is on one of the
//     space-separated sites (as terms.Site.String writes them; see
//     terms.Site.Holds), else 0. It is how a site: restriction is applied
//     in SQL; URLs are parsed as package url parses them, not by string
//     matching that a look-alike URL could fool.
//   - linksrus_url_terms(url): the terms of url's path, space-separated, as
//     the url column of docs_fts holds them (textindex.URLTerms), for the
//     migrations that rebuild docs_fts from the stored bodies.
//   - linksrus_text(text) and linksrus_stems(text, lang): text as an exact
//     column of docs_fts holds it, and its stems in language lang as the
//     column of its stems does (see fieldsOf), for the same migrations.
var registerFuncs = sync.OnceValue(func() error {
	err := sqlite.RegisterDeterministicScalarFunction("linksrus_url_terms", 1,
		func(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
			u, _ := args[0].(string)
			return strings.Join(terms.URLTerms(u), " "), nil
		})
	if err != nil {
		return err
	}
	err = sqlite.RegisterDeterministicScalarFunction("linksrus_text", 1,
		func(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
			text, _ := args[0].(string)
			return exactText(text), nil
		})
	if err != nil {
		return err
	}
	err = sqlite.RegisterDeterministicScalarFunction("linksrus_stems", 2,
		func(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
			text, _ := args[0].(string)
			lang, _ := args[1].(string)
			return stemText(text, terms.StemmerFor(lang)), nil
		})
	if err != nil {
		return err
	}
	return sqlite.RegisterDeterministicScalarFunction("linksrus_on_site", 2,
		func(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
			u, _ := args[0].(string)
			sites, _ := args[1].(string)
			place, ok := terms.PlaceOf(u)
			if !ok {
				return int64(0), nil
			}
			for _, v := range strings.Fields(sites) {
				if s, ok := terms.ParseSite(v); ok && s.Holds(place) {
					return int64(1), nil
				}
			}
			return int64(0), nil
		})
})
