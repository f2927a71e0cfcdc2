package hostileweb

import (
	"fmt"
	"net/http"
	"strconv"
	"time"
)

// maxCalendarYear keeps dates far inside time.Time's range; the trap is
// still effectively endless (hundreds of millions of pages).
const maxCalendarYear = 1_000_000

// calendarPath is the one canonical URL of a day.
func calendarPath(t time.Time) string {
	return fmt.Sprintf("/calendar/%04d/%02d/%02d", t.Year(), int(t.Month()), t.Day())
}

// serveCalendar is the classic crawler trap: each day's page links the next
// day and the same day next month, so every fetch yields new URLs and the
// site never runs out. Only a depth, page or per-host budget ends it.
func (s *Server) serveCalendar(w http.ResponseWriter, r *http.Request) {
	y, errY := strconv.Atoi(r.PathValue("year"))
	m, errM := strconv.Atoi(r.PathValue("month"))
	d, errD := strconv.Atoi(r.PathValue("day"))
	if errY != nil || errM != nil || errD != nil || y < 1 || y > maxCalendarYear {
		http.NotFound(w, r)
		return
	}
	day := time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC)
	// time.Date normalises 2026/02/31 to March; only canonical, real dates exist.
	if calendarPath(day) != r.URL.Path {
		http.NotFound(w, r)
		return
	}
	next, nextMonth := day.AddDate(0, 0, 1), day.AddDate(0, 1, 0)
	body := fmt.Sprintf("<p>Events on %s: none.</p>\n<ul>\n"+
		"<li><a href=\"%s\">next day</a></li>\n"+
		"<li><a href=\"%s\">next month</a></li>\n"+
		"<li><a href=\"/\">index</a></li>\n</ul>\n",
		day.Format(time.DateOnly), calendarPath(next), calendarPath(nextMonth))
	writePage(w, "Calendar "+day.Format(time.DateOnly), body)
}
