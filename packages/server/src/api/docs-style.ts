/** The reference page's styles: the dashboard's palette, light by default, dark when the system asks. */
export const DOCS_CSS = `
:root { color-scheme: light dark; --bg: #f5f6f8; --card: #fff; --text: #1b1f27; --muted: #5f6b7a; --border: #e2e5ea;
  --accent: #4f46e5; --code: #eef0f4; --get: #0e7c66; --post: #4f46e5; --put: #a45c00; --delete: #c0322b; --other: #5f6b7a;
  font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
@media (prefers-color-scheme: dark) { :root { --bg: #0f1116; --card: #181b22; --text: #e6e8ee; --muted: #98a2b3; --border: #2a2f3a;
  --accent: #8b85ff; --code: #222733; --get: #3ccfa9; --post: #8b85ff; --put: #f0a54a; --delete: #ff7b72; --other: #98a2b3; } }
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--text); display: grid; grid-template-columns: 17rem minmax(0, 1fr); }
a { color: var(--accent); text-decoration: none; } a:hover { text-decoration: underline; }
nav { position: sticky; top: 0; height: 100vh; overflow-y: auto; padding: 1.25rem 1rem; border-right: 1px solid var(--border); font-size: .875rem; }
nav h2 { font-size: .75rem; text-transform: uppercase; letter-spacing: .05em; color: var(--muted); margin: 1.25rem 0 .35rem; }
nav ul { list-style: none; margin: 0; padding: 0; } nav li { margin: .2rem 0; }
nav a { color: var(--text); display: flex; gap: .4rem; align-items: baseline; }
main { padding: 1.5rem 2rem 4rem; max-width: 62rem; }
h1 { font-size: 1.6rem; margin: 0 0 .25rem; } h2 { font-size: 1.25rem; margin: 2.5rem 0 .75rem; } h3 { font-size: 1.05rem; margin: 0 0 .5rem; }
h4 { font-size: .8rem; text-transform: uppercase; letter-spacing: .05em; color: var(--muted); margin: 1.1rem 0 .4rem; }
.muted { color: var(--muted); }
code, pre { font: .85em/1.45 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; background: var(--code); border-radius: 5px; }
code { padding: .1em .3em; } pre { padding: .75rem 1rem; overflow-x: auto; margin: .4rem 0; }
.card { background: var(--card); border: 1px solid var(--border); border-radius: 10px; padding: 1.1rem 1.25rem; margin: 1rem 0; }
.op-title { display: flex; gap: .6rem; align-items: baseline; flex-wrap: wrap; } .op-title code { background: none; padding: 0; font-size: 1rem; }
.method { font: 700 .7rem/1 ui-monospace, monospace; padding: .3em .5em; border-radius: 4px; color: var(--card); background: var(--other); text-transform: uppercase; }
.method.get { background: var(--get); } .method.post { background: var(--post); } .method.put { background: var(--put); } .method.delete { background: var(--delete); }
nav .method { font-size: .6rem; min-width: 3.6em; text-align: center; }
table { width: 100%; border-collapse: collapse; font-size: .875rem; } th, td { text-align: left; vertical-align: top; padding: .4rem .5rem; border-top: 1px solid var(--border); }
th { color: var(--muted); font-weight: 600; font-size: .75rem; }
td:first-child { white-space: nowrap; } .req { color: var(--delete); font-size: .75rem; margin-left: .25rem; }
.status { font-weight: 700; } details { margin: .35rem 0; } summary { cursor: pointer; }
ul.plain { padding-left: 1.2rem; }
@media (max-width: 800px) { body { display: block; } nav { position: static; height: auto; max-height: 45vh; border-right: 0; border-bottom: 1px solid var(--border); } main { padding: 1rem; } }
`;
