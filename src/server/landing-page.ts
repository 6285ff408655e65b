/** A row of the landing page's source table. */
export interface SourceRow {
  readonly labels: {
    readonly source: string;
    readonly account: string;
    readonly database_id: string;
    readonly qstash_id: string;
    readonly index_id: string;
  };
  readonly outcome: string;
  readonly lastPollAt: number | undefined;
  readonly lastSuccessAt: number | undefined;
  readonly stale: boolean;
}

/** The HTML page at `/`: links to our endpoints and the last outcome of every source. */
export function landingPage(version: string, shard: string, sources: readonly SourceRow[]): string {
  const rows = sources
    .map((s) => {
      const outcome = s.stale ? `${s.outcome} (stale: series dropped)` : s.outcome;
      const cells = [
        s.labels.source,
        s.labels.account,
        s.labels.database_id,
        s.labels.qstash_id,
        s.labels.index_id,
        outcome,
        time(s.lastPollAt),
        time(s.lastSuccessAt),
      ];
      return `<tr>${cells.map((c) => `<td>${escapeHtml(c)}</td>`).join('')}</tr>`;
    })
    .join('\n');
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Upstash exporter</title>
<style>body{font-family:system-ui,sans-serif;margin:2em}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.3em .6em;text-align:left}</style>
</head>
<body>
<h1>Upstash exporter</h1>
<p>Version ${escapeHtml(version)}, shard ${escapeHtml(shard)}</p>
<ul>
<li><a href="metrics">/metrics</a></li>
<li><a href="healthz">/healthz</a></li>
<li><a href="readyz">/readyz</a></li>
</ul>
<h2>Sources</h2>
<table>
<tr><th>source</th><th>account</th><th>database_id</th><th>qstash_id</th><th>index_id</th><th>last outcome</th><th>last poll</th><th>last success</th></tr>
${rows}
</table>
</body>
</html>
`;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function time(ms: number | undefined): string {
  return ms === undefined ? '—' : new Date(ms).toISOString();
}
