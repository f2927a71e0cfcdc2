// Package render renders pages in headless Chromium for a crawl, keeping
// every request the browser makes under the crawl's rules: the browser is
// launched so that it can neither resolve a name nor connect anywhere by
// itself, every request it makes (scripts, XHR and fetch calls, images,
// frames) is intercepted through the DevTools protocol's Fetch domain and
// handed to the crawl's Fetcher, which fetches it under its own rules
// (the private-network guard, robots.txt, per-host limits) or refuses it,
// and the page itself is served from the body the crawl already fetched,
// never downloaded twice.
//
// A Renderer owns one browser and renders at most Options.Tabs pages at
// a time, in tabs it keeps from page to page (emptied in between). Render
// returns the page's DOM once it has settled (no request under way, none
// its scripts have made and the browser not yet sent, no timer due within
// Options.Settle; or, while timers keep being due, a network idle for
// Settle), or its budget, Options.Timeout, is spent (which pages whose
// requests never stop spend), with the links a person could follow:
// anchors and areas, in open shadow roots too, and the URLs the page moved
// to with history.pushState and replaceState. Images, fonts and media are
// not fetched. A page's JavaScript heap is bounded (Options.MaxHeapMB; a
// page past it dies alone), and so is the whole browser's memory
// (Options.MaxMemoryMB: past it, a new browser takes the next pages); a
// browser that dies is started again for the next page.
package render

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/inspector"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/linksrus/linksrus/internal/chromium"
)

// Fetcher fetches, under the crawl's rules, a request the browser makes
// while it renders a page. An error refuses the request: the browser sees
// it fail, and the page renders without it.
type Fetcher interface {
	Fetch(ctx context.Context, req *http.Request) (*Response, error)
}

// FetcherFunc is a func as a Fetcher.
type FetcherFunc func(ctx context.Context, req *http.Request) (*Response, error)

// Fetch implements Fetcher.
func (f FetcherFunc) Fetch(ctx context.Context, req *http.Request) (*Response, error) {
	return f(ctx, req)
}

// Response is what the browser is given for one of its requests.
type Response struct {
	StatusCode int
	Header     http.Header
	Body       []byte
}

// Options configure a Renderer; the zero value is the default.
type Options struct {
	// Chromium is the browser's path; if empty, the first of
	// chromium.Names found in PATH (see package internal/chromium).
	Chromium string
	// Tabs is how many pages render at once (default 2).
	Tabs int
	// Timeout is a page's budget, from the start of its load to its DOM
	// read (default 15s).
	Timeout time.Duration
	// Settle is how soon a timer of the page's must be due for the page
	// to be waited for, after loading and after each scroll; a page that
	// keeps setting such timers is read once its network has been idle
	// for Settle, any other once it has been for Settle/5 with no request
	// of its scripts under way (default 250ms).
	Settle time.Duration
	// ScrollSteps is how many times at most the page is scrolled to its
	// end, for what it adds when it is (default 3); a scroll after which
	// the page starts no request and grows no longer is the last.
	ScrollSteps int
	// MaxBytes bounds what the browser's requests of one page fetch
	// together, past which they are refused, and the rendered HTML,
	// which is cut there (default 16 MiB).
	MaxBytes int64
	// MaxHeapMB bounds each page's JavaScript heap, in MiB (default
	// 512): a page that allocates past it dies alone, and Render says so.
	MaxHeapMB int
	// MaxMemoryMB bounds the memory of the whole browser, its helper
	// processes included (their proportional set size, in MiB; default
	// 2048): once past it, the next pages go to a new browser and the
	// old one ends with its last page. Measured after a page, aside, at
	// most every two seconds; Linux only.
	MaxMemoryMB int
}

func (o Options) withDefaults() (Options, error) {
	if o.Chromium == "" {
		p, err := chromium.Path()
		if err != nil {
			return o, err
		}
		o.Chromium = p
	}
	if o.Tabs <= 0 {
		o.Tabs = 2
	}
	if o.Timeout <= 0 {
		o.Timeout = 15 * time.Second
	}
	if o.Settle <= 0 {
		o.Settle = 250 * time.Millisecond
	}
	if o.ScrollSteps <= 0 {
		o.ScrollSteps = 3
	}
	if o.MaxBytes <= 0 {
		o.MaxBytes = 16 << 20
	}
	if o.MaxHeapMB <= 0 {
		o.MaxHeapMB = 512
	}
	if o.MaxMemoryMB <= 0 {
		o.MaxMemoryMB = 2048
	}
	return o, nil
}

// Page is a rendered page.
type Page struct {
	// URL is where the page is once rendered: its URL, or the last one it
	// moved to with pushState or replaceState.
	URL string
	// HTML is the rendered document, the content of its open shadow
	// roots copied into their hosts, and the href of each anchor and area
	// the absolute URL the browser resolved it to (see collect).
	HTML []byte
	// Links are the absolute URLs of the page's anchors and areas
	// (shadow roots' included) in document order, then those it moved
	// to, each once.
	Links []string
	// Moved are the URLs the page moved to that are not among its
	// anchors, links the HTML does not hold: with history.pushState and
	// replaceState, and those its scripts sent it to (location.href = ...),
	// which are not followed: the page is read as it was.
	Moved []string
	// Settled is false when the budget ran out before the page's network
	// was idle: the DOM is as it was then.
	Settled bool
	// Fetched and Refused count the browser's requests the Fetcher
	// answered and those refused (by it, or past MaxBytes); Unread those
	// failed because a crawl reads nothing from them (images, fonts,
	// media, the site's icon), never handed to the Fetcher.
	Fetched, Refused, Unread int
}

// ErrClosed is returned by Render after Close.
var ErrClosed = errors.New("render: renderer is closed")

// ErrCrashed is returned by Render for a page whose tab died (out of
// memory: see Options.MaxHeapMB): there is no DOM to read.
var ErrCrashed = errors.New("render: the page crashed")

// ErrUnresponsive is returned by Render for a page whose scripts keep it
// from answering once its budget is spent (a loop, or memory being eaten
// on the way to a crash): its DOM could not be read.
var ErrUnresponsive = errors.New("render: the page did not answer")

// Renderer renders pages in one headless Chromium; see the package
// documentation. It is safe for concurrent use. A browser that dies (a
// crash, the kernel's out-of-memory killer) is started again for the next
// page; the pages it was rendering fail with ErrBrowserDied.
type Renderer struct {
	opts Options
	tabs chan struct{}

	mu        sync.Mutex
	closed    bool
	proc      *browserProc // the browser running now
	restarts  int
	startErr  error                 // why the browser did not start, for good
	lastCheck time.Time             // of the browser's memory
	checking  bool                  // the browser's memory is being measured
	retired   map[*browserProc]bool // replaced, still rendering
	wg        sync.WaitGroup
}

// browserProc is one run of the browser, with the tabs it keeps.
type browserProc struct {
	ctx         context.Context // the browser's; ends when it dies or is closed
	cancel      context.CancelFunc
	cancelAlloc context.CancelFunc
	idle        chan *tab     // tabs ready for another page
	settle      time.Duration // Options.Settle, for the tabs' recorder
	// rendering counts the renders under way in it, and retired is set
	// once it has used more memory than allowed: it takes no more pages
	// and is closed after its last (both under the Renderer's mu).
	rendering int
	retired   bool
}

// maxTempDir is the longest TMPDIR under which Chromium's singleton
// socket (TMPDIR/org.chromium.Chromium.XXXXXX/SingletonSocket) fits in
// the 107 bytes of a socket's path.
const maxTempDir = 107 - len("/org.chromium.Chromium.XXXXXX/SingletonSocket")

// ErrBrowserDied is returned by Render for a page whose browser died
// while it rendered; the next page starts the browser again.
var ErrBrowserDied = errors.New("render: the browser died")

// New returns a Renderer for opts. It fails without a browser to run
// (chromium.ErrNotFound when Options.Chromium is empty and none is in
// PATH); the browser itself starts with the first page, so that a crawl
// that renders no page (RenderAuto on a site without scripts) pays
// nothing for it. A browser that fails to start fails that page and every
// later one with the same error.
func New(opts Options) (*Renderer, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, fmt.Errorf("render: %w", err)
	}
	if fi, err := os.Stat(opts.Chromium); err != nil {
		return nil, fmt.Errorf("render: %w", err)
	} else if fi.IsDir() || fi.Mode()&0o111 == 0 {
		return nil, fmt.Errorf("render: %s is not a program", opts.Chromium)
	}
	return &Renderer{opts: opts, tabs: make(chan struct{}, opts.Tabs), retired: make(map[*browserProc]bool)}, nil
}

// launch starts a browser for opts.
func launch(ctx context.Context, opts Options) (*browserProc, error) {
	flags := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(opts.Chromium),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		// Nothing leaves the browser by itself: no name resolves and
		// every connection goes to a proxy that is not there (the
		// discard port), loopback included; what the page needs comes
		// through the Fetch domain, answered by the crawl.
		chromedp.Flag("host-resolver-rules", "MAP * ~NOTFOUND"),
		chromedp.Flag("proxy-server", "http://127.0.0.1:9"),
		chromedp.Flag("proxy-bypass-list", "<-loopback>"),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-domain-reliability", true),
		chromedp.Flag("disable-features", "NetworkPrediction,PreconnectToSearch,ServiceWorker,WebRTC,MediaRouter"),
		chromedp.Flag("webrtc-ip-handling-policy", "disable_non_proxied_udp"),
		chromedp.Flag("force-webrtc-ip-handling-policy", true),
		chromedp.Flag("mute-audio", true),
		// One renderer process for the pages of a site from page to page
		// in a tab, where site isolation starts one for every navigation
		// (a third of a page's render): a crawl's browser holds no one's
		// cookies or logins for a page to steal from another.
		chromedp.Flag("disable-site-isolation-trials", true),
		chromedp.Flag("js-flags", fmt.Sprintf("--max-old-space-size=%d", opts.MaxHeapMB)),
	}
	if len(os.TempDir()) > maxTempDir {
		// Chromium puts a socket under TMPDIR, and a socket's path is
		// at most 107 bytes: under a long TMPDIR it fails to start.
		flags = append(flags, chromedp.Env("TMPDIR=/tmp"))
	}
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), flags...)
	browser, cancel := chromedp.NewContext(allocCtx)
	b := &browserProc{ctx: browser, cancel: cancel, cancelAlloc: cancelAlloc, idle: make(chan *tab, opts.Tabs), settle: opts.Settle}
	// The first run starts the browser; a blank tab it keeps is where
	// the browser context lives.
	started := make(chan error, 1)
	go func() { started <- chromedp.Do(browser) }()
	select {
	case err := <-started:
		if err != nil {
			b.close()
			return nil, fmt.Errorf("render: start %s: %w", opts.Chromium, err)
		}
	case <-ctx.Done():
		b.close()
		<-started
		return nil, fmt.Errorf("render: start %s: %w", opts.Chromium, ctx.Err())
	}
	return b, nil
}

// close ends the browser and its tabs.
func (b *browserProc) close() {
	b.cancel()
	for {
		select {
		case t := <-b.idle:
			t.close()
			continue
		default:
		}
		break
	}
	b.cancelAlloc()
}

// Close ends the browser, once the renders under way have ended (Close
// cancels them).
func (r *Renderer) Close() error {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return nil
	}
	r.closed = true
	var procs []*browserProc
	if r.proc != nil {
		procs = append(procs, r.proc)
	}
	for p := range r.retired {
		procs = append(procs, p)
	}
	r.mu.Unlock()
	for _, p := range procs {
		p.cancel()
	}
	r.wg.Wait()
	for _, p := range procs {
		p.close()
	}
	return nil
}

// Restarts returns how many times the browser was started again: after
// it died, or used more memory than Options.MaxMemoryMB.
func (r *Renderer) Restarts() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.restarts
}

// browser returns the running browser, starting it for the first page,
// and again if it died or was retired.
func (r *Renderer) browser(ctx context.Context) (*browserProc, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case r.closed:
		return nil, ErrClosed
	case r.startErr != nil:
		return nil, r.startErr
	}
	old := r.proc
	if old != nil && old.ctx.Err() == nil && !old.retired {
		old.rendering++
		return old, nil
	}
	if old != nil {
		if old.ctx.Err() != nil || old.rendering == 0 {
			old.close() // what is left of it: its profile, its tabs
		} else {
			r.retired[old] = true // closed after its last page (done)
		}
	}
	proc, err := launch(ctx, r.opts)
	switch {
	case err != nil && old == nil:
		if ctx.Err() == nil {
			r.startErr = err // the browser cannot start: no use trying again
		}
		return nil, err
	case err != nil && old.retired:
		return nil, fmt.Errorf("render: start a browser in place of one over MaxMemoryMB: %w", err)
	case err != nil:
		return nil, fmt.Errorf("%w, and did not start again: %w", ErrBrowserDied, err)
	}
	r.proc = proc
	if old != nil {
		r.restarts++
	}
	r.lastCheck = time.Now() // some work before its first measure
	proc.rendering++
	return proc, nil
}

// memoryCheckEvery is how often at most the browser's memory is
// measured: reading the processes' proportional set sizes takes the
// kernel tens of milliseconds.
const memoryCheckEvery = 2 * time.Second

// done ends a render on proc: the browser is closed if it was retired and
// this was its last page, and its memory is measured, aside, if it was
// not lately (see retireIfOver).
func (r *Renderer) done(proc *browserProc) {
	r.mu.Lock()
	defer r.mu.Unlock()
	proc.rendering--
	if !proc.retired && proc == r.proc && !r.checking && time.Since(r.lastCheck) >= memoryCheckEvery {
		r.checking = true
		r.wg.Add(1)
		go r.retireIfOver(proc)
	}
	// A retired browser that is still the current one is closed by the
	// next page's start (or Close), one replaced meanwhile here.
	if proc.retired && proc.rendering == 0 && proc != r.proc {
		delete(r.retired, proc)
		proc.close()
	}
}

// retireIfOver retires proc if its processes use more memory than
// Options.MaxMemoryMB: the next page starts a new browser, and proc ends
// after its last page.
func (r *Renderer) retireIfOver(proc *browserProc) {
	defer r.wg.Done()
	mb, ok := browserMemoryMB(proc.ctx)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.checking, r.lastCheck = false, time.Now()
	if !ok || mb <= r.opts.MaxMemoryMB || proc.retired || proc != r.proc {
		return
	}
	proc.retired = true
}

// begin registers a render, or fails after Close.
func (r *Renderer) begin() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return ErrClosed
	}
	r.wg.Add(1)
	return nil
}

// recorder is run in every document before its scripts (see
// recorderFor): it records the URLs the page moves to without loading
// them, and counts the work under way that may yet change the page: its
// fetch and XMLHttpRequest calls (which the browser may not have handed
// to the Fetch domain yet when its network looks idle) until their body
// is read, and its timers and intervals due within Options.Settle.
// __linksrusFrames waits for two animation frames (at most 100 ms), after
// which the events a scroll fires have run.
const recorder = `(() => {
	const urls = [];
	Object.defineProperty(window, '__linksrusMoves', { value: urls });
	let pending = 0;
	const done = () => { pending--; };
	const counted = (p) => { pending++; p.then(done, done); return p; };
	const origFetch = window.fetch;
	window.fetch = function () { return counted(origFetch.apply(this, arguments)); };
	for (const m of ['json', 'text', 'arrayBuffer', 'blob', 'formData']) {
		const orig = Response.prototype[m];
		Response.prototype[m] = function () { return counted(orig.apply(this, arguments)); };
	}
	const origSend = XMLHttpRequest.prototype.send;
	XMLHttpRequest.prototype.send = function () {
		pending++;
		this.addEventListener('loadend', done, { once: true });
		return origSend.apply(this, arguments);
	};
	const soon = new Set();
	const origSet = window.setTimeout, origClearTimeout = window.clearTimeout, origClearInterval = window.clearInterval;
	window.setTimeout = function (fn, delay) {
		if (typeof fn !== 'function' || !(Number(delay || 0) <= %d)) return origSet.apply(this, arguments);
		const args = Array.prototype.slice.call(arguments, 2);
		const id = origSet(function () { soon.delete(id); return fn.apply(this, args); }, delay);
		soon.add(id);
		return id;
	};
	const origSetInterval = window.setInterval;
	window.setInterval = function (fn, delay) {
		const id = origSetInterval.apply(this, arguments);
		if (Number(delay || 0) <= %d) soon.add(id);
		return id;
	};
	window.clearTimeout = function (id) { soon.delete(id); return origClearTimeout.apply(this, arguments); };
	window.clearInterval = function (id) { soon.delete(id); return origClearInterval.apply(this, arguments); };
	Object.defineProperty(window, '__linksrusBusy', { get: () => [pending, soon.size] });
	Object.defineProperty(window, '__linksrusFrames', { value: () => new Promise((resolve) => {
		requestAnimationFrame(() => requestAnimationFrame(() => resolve(true)));
		origSet(() => resolve(true), 100);
	}) });
	for (const m of ['pushState', 'replaceState']) {
		const orig = history[m];
		history[m] = function (state, title, u) {
			if (u !== undefined && u !== null) {
				try { urls.push(new URL(u, location.href).href); } catch (e) {}
			}
			return orig.apply(this, arguments);
		};
	}
})();`

// recorderFor is the recorder counting the timers due within settle.
func recorderFor(settle time.Duration) string {
	ms := settle.Milliseconds()
	return fmt.Sprintf(recorder, ms, ms)
}

// collect reads the rendered page: its location, its HTML, and its links.
// Each link's href is set to the URL the browser resolved it to, so that
// the HTML's links mean what they meant in the page, though pushState may
// have moved the page away from the URL they are read against. The
// content of each open shadow root (the innermost first) is copied into
// its host, ahead of the host's own children, so that the HTML holds the
// text and links a reader sees there; the page is read once this has run,
// so that its scripts reacting to the copy change nothing read. The HTML
// is cut at the limit the function is called with (in UTF-16 units), so
// that a page that builds an endless document does not send it whole.
const collect = `((limit) => {
	const links = [];
	const walk = (root) => root.querySelectorAll('*').forEach((el) => {
		if ((el.tagName === 'A' || el.tagName === 'AREA') && el.href) {
			const href = String(el.href);
			links.push(href);
			el.setAttribute('href', href);
		}
		if (el.shadowRoot) walk(el.shadowRoot);
	});
	walk(document);
	const flatten = (root) => root.querySelectorAll('*').forEach((el) => {
		if (!el.shadowRoot) return;
		flatten(el.shadowRoot);
		const copy = document.createElement('div');
		copy.innerHTML = el.shadowRoot.innerHTML;
		el.prepend(copy);
	});
	flatten(document);
	let html = document.documentElement.outerHTML;
	if (html.length > limit) html = html.slice(0, limit);
	return { url: location.href, html: html,
		links: links.slice(0, 100000), moves: (window.__linksrusMoves || []).slice(0, 1000) };
})`

// scrollToEnd scrolls the page to its end and returns its height then,
// or -1 if it is at its end already (a page shorter than the window, or
// one that did not grow since the last scroll): a scroll would fire no
// event there.
const scrollToEnd = `(() => {
	const h = document.documentElement.scrollHeight;
	if (window.scrollY + window.innerHeight >= h) return -1;
	window.scrollTo(0, h);
	return h;
})()`

type collected struct {
	URL   string   `json:"url"`
	HTML  string   `json:"html"`
	Links []string `json:"links"`
	Moves []string `json:"moves"`
}

// Render renders the page at pageURL whose body (of contentType) the
// crawl has fetched, handing every other request the browser makes to f
// (nil refuses them all).
func (r *Renderer) Render(ctx context.Context, pageURL string, body []byte, contentType string, f Fetcher) (*Page, error) {
	if f == nil {
		f = refuseAll
	}
	u, err := url.Parse(pageURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return nil, fmt.Errorf("render %q: not an http(s) URL", pageURL)
	}
	u.Fragment, u.RawFragment = "", ""
	if err := r.begin(); err != nil {
		return nil, fmt.Errorf("render %s: %w", pageURL, err)
	}
	defer r.wg.Done()
	select {
	case r.tabs <- struct{}{}:
		defer func() { <-r.tabs }()
	case <-ctx.Done():
		return nil, fmt.Errorf("render %s: %w", pageURL, ctx.Err())
	}
	proc, err := r.browser(ctx)
	if err != nil {
		return nil, fmt.Errorf("render %s: %w", pageURL, err)
	}
	defer r.done(proc)
	t, err := proc.takeTab()
	if err != nil {
		return nil, r.renderErr(ctx, proc, pageURL, err)
	}
	reusable := false
	defer func() { proc.giveBack(t, reusable) }()
	tab := t.ctx
	// The tab ends with ctx (and is not used again), or with the renderer.
	stop := context.AfterFunc(ctx, t.close)
	defer stop()
	budget, cancelBudget := context.WithTimeout(tab, r.opts.Timeout)
	defer cancelBudget()

	// The requests are answered until the page is read; the Fetcher's
	// context ends then too.
	serving, stopServing := context.WithCancel(tab)
	rs := &requests{body: body, contentType: contentType, fetcher: f, ctx: serving, limit: r.opts.MaxBytes}
	defer func() {
		stopServing()
		rs.wait()
	}()
	p := &Page{}
	err = chromedp.Do(tab, chromedp.Func(func(_ context.Context, target *chromedp.Target) error {
		rs.serve(serving, target, cdp.Events(serving, target, fetch.RequestPaused))
		// A page that dies (out of memory, say) ends its budget at once.
		crashes := cdp.Events(serving, target, inspector.TargetCrashed)
		rs.wg.Add(1)
		go func() {
			defer rs.wg.Done()
			for _, err := range crashes {
				if err == nil {
					rs.crashed.Store(true)
					cancelBudget()
				}
				return
			}
		}()
		return nil
	}))
	if err != nil {
		return nil, r.renderErr(ctx, proc, pageURL, err)
	}

	settled := true
	if err := chromedp.Do(budget, chromedp.Navigate(u.String())); err != nil {
		if budget.Err() == nil || ctx.Err() != nil {
			return nil, r.renderErr(ctx, proc, pageURL, err)
		}
		settled = false // loading took the whole budget
	}
	rs.touch() // what the load event set going starts a little after it
	busy := func() (requests, timers int) {
		n, err := chromedp.Run(budget, chromedp.Evaluate[[2]int](`window.__linksrusBusy || [0, 0]`))
		if err != nil {
			return 0, 0 // the budget is spent, or the page is gone: nothing to wait for
		}
		return n[0], n[1]
	}
	quiet := r.opts.Settle / 5
	if settled {
		settled = rs.settle(budget, quiet, r.opts.Settle, busy)
		for i := 0; settled && i < r.opts.ScrollSteps; i++ {
			// A scroll that starts no request, sets no timer and makes
			// the page no longer (what its handlers add at once is read
			// anyway) ends the scrolling: the page has no more to add.
			before := time.Now()
			h0, err := chromedp.Run(budget, chromedp.Evaluate[int](scrollToEnd))
			if err != nil || h0 < 0 {
				break
			}
			// The scroll's events fire with the next animation frame.
			if _, err := chromedp.Run(budget, chromedp.Evaluate[bool](`window.__linksrusFrames()`, chromedp.EvalAwaitPromise)); err != nil {
				break
			}
			h1, err := chromedp.Run(budget, chromedp.Evaluate[int](`document.documentElement.scrollHeight`))
			if err != nil {
				break
			}
			if h1 == h0 && !rs.activeSince(before) {
				if requests, timers := busy(); requests == 0 && timers == 0 {
					break
				}
			}
			settled = rs.settle(budget, quiet, r.opts.Settle, busy)
		}
	}
	if rs.crashed.Load() {
		return nil, fmt.Errorf("render %s: %w", pageURL, ErrCrashed)
	}
	// Read the DOM with what is left of ctx: the budget may be spent.
	read, cancelRead := context.WithTimeout(tab, 5*time.Second)
	defer cancelRead()
	c, err := chromedp.Run(read, chromedp.Evaluate[collected](fmt.Sprintf("%s(%d)", collect, r.opts.MaxBytes)))
	switch {
	case err != nil && rs.crashed.Load():
		return nil, fmt.Errorf("render %s: %w", pageURL, ErrCrashed)
	case err != nil && read.Err() != nil && ctx.Err() == nil && proc.ctx.Err() == nil:
		// The page's scripts hold its thread (about to crash, or
		// looping): there is no DOM to be had.
		return nil, fmt.Errorf("render %s: %w", pageURL, ErrUnresponsive)
	case err != nil:
		return nil, r.renderErr(ctx, proc, pageURL, err)
	}
	p.URL, p.HTML, p.Settled = c.URL, []byte(c.HTML), settled
	seen := make(map[string]bool)
	for _, l := range c.Links {
		if l = strings.TrimSpace(l); l != "" && !seen[l] {
			seen[l] = true
			p.Links = append(p.Links, l)
		}
	}
	rs.mu.Lock()
	moves := append(c.Moves, rs.navigated...)
	rs.mu.Unlock()
	for _, l := range moves {
		if l = strings.TrimSpace(l); l != "" && !seen[l] {
			seen[l] = true
			p.Links = append(p.Links, l)
			p.Moved = append(p.Moved, l)
		}
	}
	p.Fetched, p.Refused, p.Unread = int(rs.fetched.Load()), int(rs.refused.Load()), int(rs.unread.Load())
	reusable = !rs.crashed.Load()
	return p, nil
}

// tab is a browser tab kept for page after page: opening one costs more
// than a third of a render.
type tab struct {
	ctx   context.Context
	close context.CancelFunc
}

// takeTab returns an idle tab, or opens one: intercepting every request
// and running the recorder in every document it loads.
func (b *browserProc) takeTab() (*tab, error) {
	for {
		select {
		case t := <-b.idle:
			if t.ctx.Err() == nil {
				return t, nil
			}
			continue // closed while idle (its renderer is closing)
		default:
		}
		break
	}
	ctx, cancel := chromedp.NewContext(b.ctx)
	t := &tab{ctx: ctx, close: cancel}
	err := chromedp.Do(ctx, chromedp.Func(func(_ context.Context, target *chromedp.Target) error {
		if _, err := cdp.Call(ctx, target, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: recorderFor(b.settle)}); err != nil {
			return err
		}
		if _, err := cdp.Call(ctx, target, fetch.Enable, fetch.EnableParams{Patterns: []*fetch.RequestPattern{{URLPattern: "*"}}}); err != nil {
			return err
		}
		_, err := cdp.Call(ctx, target, inspector.Enable, cdp.Empty{})
		return err
	}))
	if err != nil {
		cancel()
		return nil, err
	}
	return t, nil
}

// giveBack keeps t for the next page if it rendered this one to its end:
// it is emptied first (about:blank ends the page's scripts and the
// requests they would make with no one to answer them); any other tab is
// closed.
func (b *browserProc) giveBack(t *tab, reusable bool) {
	if reusable && t.ctx.Err() == nil {
		blank, cancel := context.WithTimeout(t.ctx, 2*time.Second)
		// Loaded to its end, or its load event could come during the
		// next page's navigation and be taken for that page's.
		err := chromedp.Do(blank, chromedp.Navigate("about:blank"))
		cancel()
		if err == nil {
			select {
			case b.idle <- t:
				return
			default:
			}
		}
	}
	t.close()
}

// renderErr is the error of a render on proc that failed with err: the
// caller's giving up, the renderer's closing or the browser's death if
// that is what it came to.
func (r *Renderer) renderErr(ctx context.Context, proc *browserProc, pageURL string, err error) error {
	if ctx.Err() == nil && errors.Is(err, context.Canceled) {
		// The tab's context ended without the caller's: the browser
		// is going, and its own context ends a moment after its tabs'.
		select {
		case <-proc.ctx.Done():
		case <-time.After(time.Second):
		}
	}
	switch {
	case ctx.Err() != nil:
		return fmt.Errorf("render %s: %w", pageURL, ctx.Err())
	case proc.ctx.Err() != nil:
		r.mu.Lock()
		closed := r.closed
		r.mu.Unlock()
		if closed {
			return fmt.Errorf("render %s: %w", pageURL, ErrClosed)
		}
		return fmt.Errorf("render %s: %w", pageURL, ErrBrowserDied)
	}
	return fmt.Errorf("render %s: %w", pageURL, err)
}

// requests answers a tab's intercepted requests: the page's own (the
// tab's first document) from the crawl's body, every other through the
// Fetcher.
type requests struct {
	body        []byte
	contentType string
	fetcher     Fetcher
	ctx         context.Context // for the Fetcher: ends when the page is read
	limit       int64

	wg       sync.WaitGroup
	inFlight atomic.Int32
	last     atomic.Int64 // unix nanoseconds of the last request's start or end
	bytes    atomic.Int64
	fetched  atomic.Int32
	refused  atomic.Int32
	unread   atomic.Int32
	served   atomic.Bool // the page's own body was given once

	mu        sync.Mutex
	mainFrame cdp.FrameID // the page's frame, once its body was given
	navigated []string    // where its scripts sent it (location), not followed
	crashed   atomic.Bool // the tab died
}

// serve answers the events until the tab closes.
func (rs *requests) serve(tab context.Context, t *chromedp.Target, events func(func(fetch.EventRequestPaused, error) bool)) {
	rs.touch()
	rs.wg.Add(1)
	go func() {
		defer rs.wg.Done()
		for ev, err := range events {
			if err != nil {
				return
			}
			rs.inFlight.Add(1)
			rs.touch()
			rs.wg.Add(1)
			go func() {
				defer rs.wg.Done()
				defer rs.touch()
				defer rs.inFlight.Add(-1)
				rs.answer(tab, t, ev)
			}()
		}
	}()
}

func (rs *requests) touch() { rs.last.Store(time.Now().UnixNano()) }

// activeSince reports whether a request started or ended after t, or is
// under way.
func (rs *requests) activeSince(t time.Time) bool {
	return rs.inFlight.Load() > 0 || rs.last.Load() > t.UnixNano()
}

// wait waits for the answering goroutines, which end with the tab.
func (rs *requests) wait() { rs.wg.Wait() }

// settle waits until the page is idle, and reports whether it was before
// ctx ended. Idle is no request under way (intercepted, or made by the
// page's scripts and not yet intercepted or its body not yet read: busy)
// nor one started or ended for quiet, and no
// timer of the page's due soon; a page whose timers keep being due soon
// is idle once no request has been under way for d, and one whose
// scripts' requests reach neither the Fetch domain nor an end for
// stalled (they wait on something that is not coming) is idle too.
func (rs *requests) settle(ctx context.Context, quiet, d time.Duration, busy func() (requests, timers int)) bool {
	stalled := 4 * d
	tick := time.NewTicker(max(quiet/4, time.Millisecond))
	defer tick.Stop()
	for {
		if since := time.Since(time.Unix(0, rs.last.Load())); rs.inFlight.Load() == 0 && since >= quiet {
			requests, timers := busy()
			if (requests == 0 && (timers == 0 || since >= d)) || since >= stalled {
				return true
			}
		}
		select {
		case <-ctx.Done():
			return false
		case <-tick.C:
		}
	}
}

// answer answers one request, and refuses it when anything fails.
func (rs *requests) answer(tab context.Context, t *chromedp.Target, ev fetch.EventRequestPaused) {
	res, err := rs.response(ev)
	if errors.Is(err, errNavigated) {
		// Aborted, a navigation leaves the page as it is, where a
		// blocked one would put an error page in its place.
		cdp.Call(tab, t, fetch.FailRequest, fetch.FailRequestParams{RequestID: ev.RequestID, ErrorReason: network.ErrorReasonAborted})
		return
	}
	if err != nil {
		if !errors.Is(err, errUnread) {
			rs.refused.Add(1)
		}
		cdp.Call(tab, t, fetch.FailRequest, fetch.FailRequestParams{RequestID: ev.RequestID, ErrorReason: network.ErrorReasonBlockedByClient})
		return
	}
	var headers []*fetch.HeaderEntry
	for name, values := range res.Header {
		if !passedOn(name) {
			continue
		}
		for _, v := range values {
			headers = append(headers, &fetch.HeaderEntry{Name: name, Value: v})
		}
	}
	status := res.StatusCode
	if status == 0 {
		status = http.StatusOK
	}
	cdp.Call(tab, t, fetch.FulfillRequest, fetch.FulfillRequestParams{RequestID: ev.RequestID, ResponseCode: int64(status), ResponseHeaders: headers, Body: res.Body})
}

// passedOn reports whether a response header is given to the browser:
// not those of the transfer, which the Fetcher's client has undone (a
// body it decompressed, a length of the encoded body).
func passedOn(name string) bool {
	switch http.CanonicalHeaderKey(name) {
	case "Content-Encoding", "Content-Length", "Transfer-Encoding", "Connection", "Keep-Alive", "Trailer", "Upgrade":
		return false
	}
	return true
}

var errTooMuch = errors.New("render: the page's requests fetched more than MaxBytes")

// refuseAll is the Fetcher of a Render given none.
var refuseAll = FetcherFunc(func(context.Context, *http.Request) (*Response, error) {
	return nil, errors.New("render: no Fetcher: every request is refused")
})

// errNavigated stops the page's scripts taking it to another document
// (location.href = ...): the URL is a link of the page, and the page is
// read as it is.
var errNavigated = errors.New("render: navigation not followed")

// errUnread fails the requests for what a crawl does not read.
var errUnread = errors.New("render: not fetched: a crawl reads no images, fonts or media")

// unread reports whether a request is for what neither the page's text
// nor its links come from (images, fonts, audio and video, the site's
// icon), which is not fetched: it would cost the site and the crawl
// bytes, and each its host's politeness slot, for nothing a crawl reads.
func unread(t network.ResourceType, rawURL string) bool {
	switch t {
	case network.ResourceTypeImage, network.ResourceTypeFont, network.ResourceTypeMedia:
		return true
	}
	u, err := url.Parse(rawURL)
	return err == nil && u.Path == "/favicon.ico"
}

// response is the answer to ev: the crawl's body for the page itself, the
// Fetcher's for any other request.
func (rs *requests) response(ev fetch.EventRequestPaused) (*Response, error) {
	req := ev.Request
	if req == nil {
		return nil, errors.New("render: request without details")
	}
	if ev.ResourceType == network.ResourceTypeDocument && rs.served.CompareAndSwap(false, true) {
		rs.mu.Lock()
		rs.mainFrame = ev.FrameID
		rs.mu.Unlock()
		h := http.Header{}
		h.Set("Content-Type", rs.contentType)
		return &Response{StatusCode: http.StatusOK, Header: h, Body: rs.body}, nil
	}
	if ev.ResourceType == network.ResourceTypeDocument {
		rs.mu.Lock()
		main := ev.FrameID == rs.mainFrame
		if main {
			rs.navigated = append(rs.navigated, req.URL)
		}
		rs.mu.Unlock()
		if main {
			return nil, errNavigated
		}
	}
	if unread(ev.ResourceType, req.URL) {
		rs.unread.Add(1)
		return nil, errUnread
	}
	hr, err := http.NewRequestWithContext(rs.ctx, req.Method, req.URL, nil)
	if err != nil {
		return nil, err
	}
	for name, v := range req.Headers {
		if s, ok := v.(string); ok {
			hr.Header.Set(name, s)
		}
	}
	res, err := rs.fetcher.Fetch(rs.ctx, hr)
	if err != nil {
		return nil, err
	}
	if rs.bytes.Add(int64(len(res.Body))) > rs.limit {
		return nil, errTooMuch
	}
	rs.fetched.Add(1)
	return res, nil
}
