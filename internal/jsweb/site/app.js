// The documentation's single-page application: everything a reader sees
// comes from the API once this script runs (see package jsweb).
(async function () {
  const cfg = window.JSWEB || {};
  const app = document.getElementById('app');
  const json = async (path) => (await fetch(path)).json();

  const nav = document.createElement('nav');
  for (const item of await json(cfg.api + '/nav.json')) {
    const a = document.createElement('a');
    a.href = item.href;
    a.textContent = item.title;
    nav.append(a, ' ');
  }
  app.append(nav);

  let route = location.pathname;
  if (route === '/' || route === '') route = '/home';
  const page = await json(cfg.api + '/page' + route);
  const h1 = document.createElement('h1');
  h1.textContent = page.title;
  const p = document.createElement('p');
  p.textContent = page.text;
  app.append(h1, p);
  for (const href of page.links || []) {
    const a = document.createElement('a');
    a.href = href;
    a.textContent = 'Next: ' + href;
    app.append(a, ' ');
  }

  if (!page.generated) {
    // A link only in an open shadow root.
    const host = document.createElement('div');
    host.attachShadow({ mode: 'open' }).innerHTML = '<a href="/docs/shadow">Inside the shadow root</a>';
    app.append(host);

    // A link added once the reader scrolls to the end.
    const spacer = document.createElement('div');
    spacer.style.height = '4000px';
    app.append(spacer);
    let added = false;
    window.addEventListener('scroll', () => {
      if (added || window.scrollY + window.innerHeight < document.body.scrollHeight - 200) return;
      added = true;
      const a = document.createElement('a');
      a.href = '/docs/scrolled';
      a.id = 'scrolled';
      a.textContent = 'More, found by scrolling';
      app.append(a);
    });

    // The home page's route changes without a link.
    if (route === '/home') history.pushState({}, '', '/docs/pushed');

    // Requests the crawl must refuse: a private address, and a host whose
    // robots.txt disallows everything.
    for (const u of [cfg.private, cfg.disallowed]) {
      if (u) fetch(u, { mode: 'no-cors' }).catch(() => {});
    }
  }
  document.body.dataset.ready = 'yes';
})();
