package sqlite

import (
	"database/sql/driver"
	"strings"
	"sync"

	sqlite "modernc.org/sqlite"

	"github.com/linksrus/linksrus/textindex/internal/terms"
)

// registerSiteFunc registers linksrus_on_site(url, sites) with the SQLite
// driver, once: 1 when url's host is one of the space-separated sites or a
// subdomain of one, else 0. It is how a site: restriction is applied in
// SQL; host names are parsed as package url parses them, not by string
// matching that a look-alike URL could fool.
var registerSiteFunc = sync.OnceValue(func() error {
	return sqlite.RegisterDeterministicScalarFunction("linksrus_on_site", 2,
		func(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
			u, _ := args[0].(string)
			sites, _ := args[1].(string)
			host := terms.HostOf(u)
			for _, s := range strings.Fields(sites) {
				if terms.OnSite(host, s) {
					return int64(1), nil
				}
			}
			return int64(0), nil
		})
})
