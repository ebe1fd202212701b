/**
 * The stylesheet of the web front ends: system fonts, one column that fits a 375 px phone screen
 * and widens on a desktop, WCAG 2.2 AA contrast (text #1b1b1b on #fff, links #174a8b), visible
 * keyboard focus.
 */
export const STYLESHEET = `*, *::before, *::after { box-sizing: border-box; }
body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1b1b1b; background: #fff; }
a { color: #174a8b; }
:focus-visible { outline: 3px solid #174a8b; outline-offset: 2px; }
.skip { position: absolute; left: -999px; top: 0; background: #fff; padding: .5rem; }
.skip:focus { left: .5rem; }
header.top { display: flex; flex-wrap: wrap; align-items: center; gap: .5rem 1.5rem; padding: .75rem 1rem; border-bottom: 1px solid #ccc; }
header.top .brand { font-weight: 700; font-size: 1.1rem; text-decoration: none; color: #1b1b1b; }
header.top nav ul { display: flex; flex-wrap: wrap; gap: .25rem 1rem; list-style: none; margin: 0; padding: 0; }
header.top nav a[aria-current="page"] { font-weight: 700; text-decoration: none; }
header.top form { margin-left: auto; }
nav.sub ul { display: flex; flex-wrap: wrap; gap: .25rem 1.25rem; list-style: none; margin: 0 0 1rem; padding: 0; }
nav.sub a[aria-current="page"] { font-weight: 700; text-decoration: none; }
main { max-width: 60rem; margin: 0 auto; padding: 1rem; }
h1 { font-size: 1.5rem; margin: .5rem 0 1rem; }
h2 { font-size: 1.25rem; margin: 1.5rem 0 .5rem; }
h3 { font-size: 1.05rem; margin: 1rem 0 .25rem; }
section.card { border: 1px solid #ccc; border-radius: .4rem; padding: .75rem 1rem; margin: 0 0 1rem; }
.muted { color: #555; }
.note { background: #f3f6fb; border-left: 4px solid #174a8b; padding: .5rem .75rem; }
.error { background: #fdf0f0; border-left: 4px solid #a4000f; padding: .5rem .75rem; }
.ok { background: #eef8f0; border-left: 4px solid #1d6b31; padding: .5rem .75rem; }
.field-error { color: #a4000f; font-weight: 600; margin: .2rem 0 .5rem; }
[aria-invalid="true"] { border: 2px solid #a4000f; }
label { display: block; font-weight: 600; margin: .5rem 0 .2rem; }
input, select, button { font: inherit; }
input[type=text], input[type=email], input[type=tel], input[type=password], input[type=number], select { width: 100%; max-width: 24rem; padding: .4rem; border: 1px solid #767676; border-radius: .25rem; }
input[type=file] { max-width: 100%; }
button, .button { display: inline-block; padding: .45rem 1rem; border: 1px solid #174a8b; border-radius: .25rem; background: #174a8b; color: #fff; cursor: pointer; text-decoration: none; }
button.secondary { background: #fff; color: #174a8b; }
button.danger { background: #a4000f; border-color: #a4000f; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: .4rem .5rem; border-bottom: 1px solid #ddd; vertical-align: top; }
.table-wrap { overflow-x: auto; }
caption { text-align: left; }
td.endpoint { overflow-wrap: anywhere; min-width: 10rem; }
.attribute { display: flex; flex-wrap: wrap; align-items: end; gap: .5rem 1rem; padding: .5rem 0; border-top: 1px solid #eee; }
.attribute .name { flex: 1 1 12rem; }
.attribute fieldset { border: 0; margin: 0; padding: 0; display: flex; flex-wrap: wrap; gap: .25rem .75rem; }
.attribute legend { position: absolute; left: -999px; }
.attribute fieldset label { display: inline; font-weight: 400; margin: 0; }
.attribute .days { width: 6rem; }
.attribute .days input { width: 6rem; }
.attribute .days input:disabled { background: #f0f0f0; }
.attribute .hint { display: block; font-size: .875rem; color: #555; }
.attribute[aria-busy="true"] button { cursor: progress; }
.save-status { margin: 0 0 .5rem; }
.save-status.pending { color: #555; }
.pager { display: flex; gap: 1rem; margin: 1rem 0; }
textarea { width: 100%; max-width: 40rem; font: inherit; padding: .4rem; border: 1px solid #767676; border-radius: .25rem; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; }
code { overflow-wrap: anywhere; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: .2rem 1rem; margin: .25rem 0; }
dl.facts dt { font-weight: 600; }
dl.facts dd { margin: 0; overflow-wrap: anywhere; }
.chart { width: 100%; max-width: 40rem; height: auto; display: block; }
.legend { margin-right: 1rem; white-space: nowrap; }
@media (max-width: 40rem) { dl.facts { grid-template-columns: 1fr; } header.top form { margin-left: 0; } }
`;
