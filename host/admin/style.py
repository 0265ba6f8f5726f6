"""The admin area's one stylesheet, served by sitehost at /admin/style.css (no CDN, no build step).

System fonts, a single column on phones, a visible focus ring on every control, and
colours that keep at least 4.5:1 contrast.
"""

STYLESHEET = """\
:root { --ink: #1d2327; --muted: #50575e; --line: #c3c4c7; --bg: #f6f7f7; --card: #fff;
  --accent: #2755a3; --accent-dark: #1c3f7a; --good: #1a6b32; --warn: #8a5300; --bad: #b32d2e; }
* { box-sizing: border-box; }
html { font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--ink); background: var(--bg); }
body { margin: 0; }
a { color: var(--accent); }
a:hover { color: var(--accent-dark); }
:focus-visible { outline: 3px solid #f0b400; outline-offset: 2px; }
.skip { position: absolute; left: -999px; top: 0; background: var(--card); padding: .5rem 1rem; }
.skip:focus { left: .5rem; z-index: 10; }
header.top { background: #1d2327; color: #fff; padding: .5rem 1rem; display: flex; flex-wrap: wrap;
  align-items: center; gap: .5rem 1.5rem; }
header.top a { color: #fff; }
header.top .site { margin: 0; font-weight: 600; }
header.top .site span { font-weight: 400; color: #c3c4c7; margin-left: .25rem; }
header.top nav ul { list-style: none; margin: 0; padding: 0; display: flex; flex-wrap: wrap; gap: .25rem; }
header.top nav a { display: block; padding: .4rem .7rem; border-radius: 4px; text-decoration: none; }
header.top nav a:hover { background: #2c3338; }
header.top nav a[aria-current="page"] { background: var(--accent); }
header.top .sign-out { margin-left: auto; display: flex; align-items: center; gap: .5rem; }
header.top .sign-out button { background: transparent; border-color: #8c8f94; color: #fff; }
main { max-width: 64rem; margin: 0 auto; padding: 1rem; }
main:focus { outline: none; }
h1 { font-size: 1.6rem; margin: .5rem 0 1rem; }
h2 { font-size: 1.25rem; margin: 2rem 0 .75rem; }
h3 { font-size: 1.05rem; margin: 1.25rem 0 .5rem; }
section, .card { background: var(--card); border: 1px solid var(--line); border-radius: 6px; padding: 1rem; margin: 0 0 1rem; }
section > h2:first-child, .card > h2:first-child { margin-top: 0; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: .25rem 1rem; margin: 0; }
dl.facts dt { font-weight: 600; }
dl.facts dd { margin: 0; overflow-wrap: anywhere; }
.table-wrap { overflow-x: auto; margin-bottom: 1rem; }
table { border-collapse: collapse; width: 100%; background: var(--card); }
caption { text-align: left; font-weight: 600; padding: .25rem 0; }
th, td { text-align: left; vertical-align: top; padding: .5rem; border-bottom: 1px solid var(--line); }
th { background: #f0f0f1; }
td form { margin: 0; }
.field { margin: 0 0 .9rem; }
.field label { display: block; font-weight: 600; margin-bottom: .2rem; }
.field.checkbox input { width: auto; margin: 0 .5rem 0 0; vertical-align: middle; }
.field.checkbox label { display: inline; }
input, select, button { font: inherit; }
input, select { width: 100%; max-width: 28rem; padding: .45rem .6rem; border: 1px solid #8c8f94; border-radius: 4px;
  background: #fff; color: var(--ink); }
.has-error input, .has-error select { border-color: var(--bad); border-width: 2px; }
.field-error { color: var(--bad); margin: .25rem 0 0; font-weight: 600; }
.field-error::before { content: "\\26A0\\FE0F  "; }
.help { color: var(--muted); margin: .25rem 0 0; font-size: .92rem; }
button { cursor: pointer; padding: .45rem .9rem; border-radius: 4px; border: 1px solid var(--accent);
  background: var(--accent); color: #fff; min-height: 2.5rem; }
button:hover { background: var(--accent-dark); }
button.secondary { background: #fff; color: var(--accent); }
button.danger { background: #fff; color: var(--bad); border-color: var(--bad); }
button.danger:hover { background: var(--bad); color: #fff; }
form.inline { display: inline-flex; flex-wrap: wrap; gap: .5rem; align-items: flex-end; margin: 0 .5rem .5rem 0; }
form.inline .field { margin: 0; }
form.sign-in { background: var(--card); border: 1px solid var(--line); border-radius: 6px; padding: 1.25rem; max-width: 24rem; }
.notice { border-left: 4px solid var(--good); background: var(--card); padding: .5rem 1rem; margin: 0 0 1rem; }
.notice p { margin: .25rem 0; }
.notice.error { border-color: var(--bad); }
.notice.secret { border-color: var(--warn); }
kbd, code { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; background: #f0f0f1; padding: .1rem .3rem; border-radius: 3px; }
kbd.secret { display: inline-block; font-size: 1.15rem; padding: .4rem .6rem; user-select: all; }
.status { font-weight: 600; }
.status-good, .status-enabled { color: var(--good); }
.status-recommended, .status-disabled { color: var(--warn); }
.status-critical, .status-failed { color: var(--bad); }
.muted { color: var(--muted); }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
ul.plain { padding-left: 1.2rem; }
fieldset { border: 1px solid var(--line); border-radius: 4px; margin: 0 0 .9rem; padding: .5rem 1rem; }
legend { font-weight: 600; padding: 0 .25rem; }
/* adm-comments: menu counts, comment and post lists, backups (white on --bad is 6.2:1) */
.menu-count { display: inline-block; min-width: 1.4rem; padding: 0 .4rem; margin-left: .25rem; border-radius: 1rem;
  background: var(--bad); color: #fff; font-size: .8rem; font-weight: 600; text-align: center; line-height: 1.4rem; }
ul.filters { list-style: none; display: flex; flex-wrap: wrap; gap: .25rem 1rem; padding: 0; margin: 0 0 1rem; }
ul.filters a[aria-current="page"] { font-weight: 700; color: var(--ink); text-decoration: none; }
.row-actions { display: flex; flex-wrap: wrap; gap: .25rem .5rem; margin-top: .5rem; }
.row-actions form { margin: 0; }
.row-actions button { min-height: 2rem; padding: .2rem .6rem; font-size: .9rem; }
textarea { font: inherit; width: 100%; max-width: 40rem; padding: .45rem .6rem; border: 1px solid #8c8f94; border-radius: 4px; }
tr.status-hold td { background: #fcf9e8; }
.comment-text { white-space: pre-line; overflow-wrap: anywhere; margin: 0; }
.has-error textarea { border-color: var(--bad); border-width: 2px; }
td input[type="checkbox"] { width: auto; }
.bulk-actions { display: flex; flex-wrap: wrap; gap: .5rem; align-items: flex-end; margin-bottom: 1rem; }
.bulk-actions .field { margin: 0; }
code.command { display: block; overflow-x: auto; white-space: pre; padding: .5rem; }
/* forms plugin (/admin/forms, /admin/form-submissions): editor textareas, configuration problems, preview */
.forms-admin textarea { width: 100%; padding: .45rem .6rem; border: 1px solid #8c8f94; border-radius: 4px;
  font: .95rem/1.45 ui-monospace, SFMono-Regular, Menlo, monospace; color: var(--ink); background: #fff; }
.forms-admin .has-error textarea { border-color: var(--bad); border-width: 2px; }
.forms-config-problems { color: var(--warn); margin: -.5rem 0 .9rem; padding-left: 1.2rem; font-weight: 600; }
.forms-editor-buttons { display: flex; gap: .5rem; margin-bottom: 1rem; }
.forms-preview-frame { border: 1px dashed var(--line); border-radius: 4px; padding: 1rem; margin: 0; min-width: 0; }
.forms-preview-frame :disabled { color: var(--ink); background: #fff; opacity: 1; cursor: not-allowed; }
.forms-preview-frame [type=submit]:disabled { background: var(--accent); color: #fff; }
.forms-preview-frame label { display: block; margin: 0 0 .75rem; }
.forms-preview-frame textarea { display: block; width: 100%; max-width: 28rem; min-height: 6rem; }
.forms-preview-frame .hidden-fields-container { display: none; }
.forms-preview-frame input[type=checkbox], .forms-preview-frame input[type=radio] { width: auto; margin-right: .4rem; }
.forms-admin td[data-label="Date (UTC)"] { white-space: nowrap; }
.forms-admin .forms-value { white-space: pre-wrap; overflow-wrap: anywhere; }
/* end forms plugin */
/* --- section tabs, filter rows, shown-once keys and text areas (Courses and Newsletter pages) --- */
nav.subnav ul { list-style: none; margin: 0 0 1rem; padding: 0; display: flex; flex-wrap: wrap; gap: .25rem 1rem; border-bottom: 1px solid var(--line); }
nav.subnav a { display: block; padding: .4rem .2rem; text-decoration: none; border-bottom: 3px solid transparent; }
nav.subnav a[aria-current="page"] { color: var(--ink); font-weight: 600; border-bottom-color: var(--accent); }
form.filters { display: flex; flex-wrap: wrap; gap: .5rem 1rem; align-items: flex-end; margin-bottom: .5rem; }
form.filters .field { margin: 0; }
kbd.api-key, kbd.api-secret { user-select: all; word-break: break-all; }
textarea { font: inherit; width: 100%; max-width: 40rem; padding: .45rem .6rem; border: 1px solid #8c8f94; border-radius: 4px; }
.has-error textarea { border-color: var(--bad); border-width: 2px; }
/* --- end of section tabs block --- */
@media (max-width: 40rem) {
  header.top .sign-out { margin-left: 0; }
  dl.facts { grid-template-columns: 1fr; }
  dl.facts dd { margin-bottom: .5rem; }
  table.stack thead { display: none; }
  table.stack td { display: block; border: 0; padding: .25rem .5rem; }
  table.stack tr { display: block; border-bottom: 1px solid var(--line); padding: .5rem 0; }
  table.stack td[data-label]:not([data-label=""])::before { content: attr(data-label); display: block;
    font-weight: 600; font-size: .85rem; color: var(--muted); }
}
"""
