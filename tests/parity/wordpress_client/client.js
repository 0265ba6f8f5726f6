// Drives sitehost with node-wpapi, unmodified: discovery through the Link header, paging,
// then create, update and delete with an application password, then the calendar's iCalendar
// feed (`cal/events/v1/events.ics`) through the handler wpapi built from the discovered routes.
// Prints one JSON report.
const WPAPI = require('wpapi');

async function main() {
  const [siteUrl, login, password] = process.argv.slice(2);
  const site = await WPAPI.discover(siteUrl);
  site.auth({ username: login, password });
  const core = () => site.namespace('core/v2');
  const titles = [];
  let page = await core().posts().perPage(2).page(1).get();
  const paging = { total: page._paging.total, totalPages: page._paging.totalPages };
  let pages = 0;
  for (;;) {
    pages += 1;
    titles.push(...page.map((post) => post.title.rendered));
    if (!page._paging.next) break;
    page = await page._paging.next.get();
  }
  const created = await core().posts().create({ title: 'Made by wpapi', content: '<p>Hello</p>', status: 'publish' });
  const updated = await core().posts().id(created.id).update({ title: 'Changed by wpapi' });
  const fetched = await core().posts().id(created.id).get();
  const deleted = await core().posts().id(created.id).param('force', true).delete();
  let gone = null;
  try { await core().posts().id(created.id).get(); } catch (error) { gone = error.code || error.data && error.data.status; }
  // A dot inside a route's literal part: wpapi checks each path part it builds against the
  // discovered pattern and throws `Invalid path component` when the pattern escaped the dot.
  const feedRequest = site.namespace('cal/events/v1')['events.ics']();
  const feedUrl = feedRequest.toString();
  await feedRequest.get();
  const feed = await fetch(feedUrl);
  console.log(JSON.stringify({ paging, pages, titles, created: created.id, updatedTitle: updated.title.raw,
    fetchedTitle: fetched.title.rendered, deleted: deleted.deleted, gone, feedUrl, feedStatus: feed.status,
    feedType: feed.headers.get('content-type'), feed: await feed.text() }));
}

main().catch((error) => { console.error(error && (error.stack || JSON.stringify(error))); process.exit(1); });
