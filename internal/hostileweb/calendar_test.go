package hostileweb_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/linksrus/linksrus/internal/hostileweb"
)

func TestCalendarNeverRunsOut(t *testing.T) {
	s := start(t, smallOptions)
	c := newClient(t, 5*time.Second)
	seen := map[string]bool{}
	path := hostileweb.PathCalendar
	const steps = 45
	for i := 0; i < steps; i++ {
		if seen[path] {
			t.Fatalf("step %d: %s seen before; want a new URL every time", i, path)
		}
		seen[path] = true
		resp, body := fetch(t, c, s.URL()+path, 1<<20)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: status %d", path, resp.StatusCode)
		}
		hrefs := links(t, body)
		if len(hrefs) < 2 {
			t.Fatalf("%s links %q, want next day and next month", path, hrefs)
		}
		if i == 0 && hrefs[1] != "/calendar/2026/12/22" {
			t.Errorf("next month of %s is %s, want /calendar/2026/12/22", path, hrefs[1])
		}
		path = hrefs[0] // next day
	}
	// 45 days after 2026-11-22, across the year boundary.
	if path != "/calendar/2027/01/06" {
		t.Errorf("after %d steps at %s, want /calendar/2027/01/06", steps, path)
	}
	for _, bad := range []string{"/calendar/2026/02/30", "/calendar/2026/2/03", "/calendar/0000/01/01", "/calendar/x/01/01"} {
		if resp, _ := fetch(t, c, s.URL()+bad, 1<<10); resp.StatusCode != http.StatusNotFound {
			t.Errorf("%s: status %d, want 404", bad, resp.StatusCode)
		}
	}
}
