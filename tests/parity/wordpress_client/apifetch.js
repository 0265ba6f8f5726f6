// Drives sitehost with @wordpress/api-fetch, unmodified, set up as the block editor sets it up:
// the root-URL middleware (wpApiSettings.root) and the nonce middleware (wpApiSettings.nonce).
// Pages through posts with `_fields` by hand (parse: false, X-WP-TotalPages) and with the
// fetch-all middleware (per_page=-1 follows the `Link: rel="next"` headers), then creates a post
// with an application password. Prints one JSON report.
const apiFetch = require('@wordpress/api-fetch').default;

async function main() {
  const [restRoot, login, password, nonce] = process.argv.slice(2);
  apiFetch.use(apiFetch.createRootURLMiddleware(restRoot));
  apiFetch.use(apiFetch.createNonceMiddleware(nonce));

  const fields = '_fields=id,title';
  const pages = [];
  let total = null;
  let totalPages = null;
  for (let page = 1; totalPages === null || page <= totalPages; page += 1) {
    const response = await apiFetch({ path: `/core/v2/posts?per_page=2&page=${page}&${fields}`, parse: false });
    total = Number(response.headers.get('X-WP-Total'));
    totalPages = Number(response.headers.get('X-WP-TotalPages'));
    pages.push(await response.json());
  }
  const everything = await apiFetch({ path: `/core/v2/posts?per_page=-1&${fields}` });

  const basic = 'Basic ' + Buffer.from(`${login}:${password}`).toString('base64');
  const created = await apiFetch({
    path: '/core/v2/posts', method: 'POST', headers: { Authorization: basic },
    data: { title: 'Made by api-fetch', status: 'publish' },
  });
  const read = await apiFetch({ path: `/core/v2/posts/${created.id}?${fields}` });

  let refused = null;
  try {
    await apiFetch({ path: '/core/v2/posts', method: 'POST', data: { title: 'No credentials' } });
  } catch (error) {
    refused = error.code;  // api-fetch rejects with the parsed error body
  }
  console.log(JSON.stringify({
    total, totalPages, pages: pages.map((page) => page.map((post) => ({ keys: Object.keys(post).sort(), id: post.id,
      title: post.title.rendered }))),
    everything: everything.map((post) => post.title.rendered), everythingKeys: [...new Set(everything.flatMap(Object.keys))].sort(),
    created: created.id, createdTitle: created.title.raw, read: { keys: Object.keys(read).sort(), title: read.title.rendered },
    refused,
  }));
}

main().catch((error) => { console.error(error && (error.stack || JSON.stringify(error))); process.exit(1); });
